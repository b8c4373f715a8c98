"""Many sessions per server: memory per session versus a process per env, and reset latency.

Starts ``gym-mcp serve banking --transport http --sessions`` (a subprocess on 127.0.0.1) and,
in one run:

- **memory per session**: the server's RSS with 1 open session, then with ``1 + N`` (each
  env made with ``sessions=True``, reset, one write), and the growth per extra session; beside it
  the disk its sessions' database files take;
- **memory per process**: the RSS of the server process that one env over ``stdio`` and one over
  ``http`` starts (``python -m gym_mcp.servers.banking``, what `BundledSource` runs), after the
  same reset and write, and of one ``gym-mcp serve banking --transport http`` process;
- **reset latency**, interleaved: a session's reset over the control channel (``POST
  /control/sessions/{key}/reset``), the restore a sessions env's reset does (``PUT`` by
  digest), a whole ``env.reset()`` over sessions, and ``env.reset()`` of a local env
  (in-process, and over stdio);
- **sessions ended under running episodes** (the soak): episodes of random reads and writes on a
  second sessions server (``--idle-timeout 1``) while a thread deletes the episode's session
  at random moments (mid-step included) and the episode now and then pauses past the idle
  timeout and has it swept. Each episode's final fingerprint is checked against a local env that
  played the calls that succeeded: an episode whose state differs without saying ``state_lost``
  is a silent state loss (there must be none; the exit status is 1 otherwise).

Prints tables and writes ``sessions.json``. Run: ``python benchmarks/bench_sessions.py
[--sessions N] [--soak EPISODES] [--repeats N] [--quick] [--out DIR]``.
"""

from __future__ import annotations

import contextlib
import os
import random
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import httpx
from _common import base_parser, finish, free_port, median, stop_process, summarize, table, timed

import gym_mcp  # noqa: F401 - registers the environments
from gym_mcp.sessions.client import SessionState

DESCRIPTION = "Sessions server: memory per session vs per process, and reset latency over the control channel."

WRITE = {"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": 5}}
READ = {"name": "get_balance", "arguments": {"account_id": "ACC-1001"}}
IDLE_TIMEOUT = 1  # the soak server's (whole seconds): a pause past it, then a listing, sweeps the session


def rss_kib(pid: int) -> int:
    """The resident set size of process ``pid`` in KiB (``VmRSS`` in /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")


def settled_rss(pid: int) -> int:
    """RSS of ``pid`` once it has stopped moving (median of a few reads a little apart)."""
    reads = []
    for _ in range(5):
        time.sleep(0.1)
        reads.append(rss_kib(pid))
    return int(median(reads))


def start_cli_server(args: list[str], port: int, token: str, stderr: Path) -> subprocess.Popen[bytes]:
    """``gym-mcp serve banking --transport http ARGS`` on 127.0.0.1:``port`` (token in the environment), waited for."""
    command = [sys.executable, "-m", "gym_mcp.cli", "serve", "banking", "--transport", "http", "--port", str(port)]
    with open(stderr, "ab") as err:
        proc = subprocess.Popen(
            [*command, *args],
            env={**os.environ, "GYM_MCP_TOKEN": token},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,
        )
    probe = "/control/info" if "--sessions" in args else "/mcp"
    wait_http(
        proc, f"http://127.0.0.1:{port}{probe}", token, stderr, ok=(200,) if "--sessions" in args else (400, 405, 406)
    )
    return proc


def wait_http(proc: subprocess.Popen[bytes], url: str, token: str, stderr: Path, ok: tuple[int, ...] = (200,)) -> None:
    """Wait until ``url`` answers one of ``ok`` (60 s at most)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with status {proc.returncode}: {stderr.read_text()[-800:]}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url, headers={"Authorization": f"Bearer {token}"}, timeout=2).status_code in ok:
                return
        time.sleep(0.1)
    stop_process(proc)
    raise RuntimeError(f"no answer from {url} within 60 s")


def session_env(url: str, token: str) -> Any:
    """An env over the sessions server, reset, with one write done."""
    env = gym.make("gym_mcp/Banking-v0", transport="http", url=url, sessions=True, token=token)
    env.reset(seed=0)
    env.step(WRITE)
    return env


def process_env(transport: str) -> tuple[Any, int]:
    """An env with a server process of its own (reset, one write) and that process's pid."""
    env = gym.make("gym_mcp/Banking-v0", transport=transport)
    env.reset(seed=0)
    env.step(WRITE)
    pid = env.unwrapped.live.connection.pid
    if pid is None:
        raise RuntimeError(f"no server process behind a {transport} env")
    return env, int(pid)


def session_files(pid: int) -> int:
    """Bytes of the session database files the sessions server ``pid`` keeps (in its scratch folder)."""
    total = 0
    for folder in Path(os.environ.get("TMPDIR", "/tmp")).glob(f"gym-mcp-{pid}-banking-sessions-*"):
        total += sum(f.stat().st_size for f in folder.glob("*.db*"))
    return total


def soak_call(rng: random.Random) -> dict[str, Any]:
    """A random read or write (some writes fail: an overdraft is a tool error the env rolls back)."""
    account = rng.choice(["ACC-1001", "ACC-1002"])
    kind = rng.random()
    if kind < 0.3:
        return {"name": "get_balance", "arguments": {"account_id": account}}
    if kind < 0.65:
        return {"name": "deposit", "arguments": {"account_id": account, "amount": rng.randint(1, 50)}}
    return {"name": "withdraw", "arguments": {"account_id": account, "amount": rng.choice([5, 20, 10**7])}}


def soak_lost_sessions(url: str, token: str, episodes: int, seed: int) -> dict[str, int]:
    """Episodes on a sessions server whose sessions are deleted and swept under them; what came of it."""
    rng = random.Random(seed)
    env = gym.make("gym_mcp/Banking-v0", transport="http", url=url, sessions=True, token=token)
    local = gym.make("gym_mcp/Banking-v0")
    control = httpx.Client(
        base_url=url.removesuffix("/mcp") + "/control", headers={"Authorization": f"Bearer {token}"}, timeout=30
    )
    figures = {
        "episodes_tried": 0,
        "sessions_deleted": 0,
        "sessions_swept": 0,
        "restores": 0,
        "episodes_state_lost": 0,
        "silent_state_losses": 0,
        "calls": 0,
        "calls_crashed": 0,
    }
    stop = threading.Event()

    def deleter() -> None:  # ends the running episode's session at random moments, mid-step included
        pick = random.Random(seed + 1)
        while not stop.wait(pick.uniform(0.0, 0.25)):
            key = env.unwrapped.state.name
            if control.delete(f"/sessions/{key}").status_code == 200:
                figures["sessions_deleted"] += 1

    killer = threading.Thread(target=deleter, daemon=True)
    killer.start()
    try:
        for _ in range(episodes):
            figures["episodes_tried"] += 1
            env.reset(seed=0)
            local.reset(seed=0)
            info: dict[str, Any] = {}
            truncated = False
            for _ in range(rng.randint(3, 8)):
                if rng.random() < 0.06:  # a pause past the idle timeout, then a sweep
                    key = env.unwrapped.state.name
                    time.sleep(IDLE_TIMEOUT + 0.05)
                    listed = control.get("/sessions")  # sweeps first
                    if control.get(f"/sessions/{key}/fingerprint").status_code == 404 and listed.status_code == 200:
                        figures["sessions_swept"] += 1
                call = soak_call(rng)
                _, _, _, truncated, info = env.step(call)
                record = info["calls"][-1]
                figures["calls"] += 1
                figures["calls_crashed"] += record.status == "crash"
                if record.status == "ok":  # it ran: the local env plays it too
                    local.step(call)
                if truncated:
                    break
            if not truncated:
                _, _, _, truncated, info = env.step("Done.")
            figures["restores"] += int(info["server_restarts"])
            if "state_lost" in info["limits"]:
                figures["episodes_state_lost"] += 1
            elif info["final_fingerprint"] != local.unwrapped.state.fingerprint():
                figures["silent_state_losses"] += 1
    finally:
        stop.set()
        killer.join(timeout=5)
        control.close()
        local.close()
        env.close()
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = base_parser(DESCRIPTION, repeats=8, quick_repeats=3)
    parser.add_argument("--sessions", type=int, default=None, help="extra sessions opened (default 16; 8 with --quick)")
    parser.add_argument(
        "--soak", type=int, default=None, help="episodes with sessions ended under them (default 60; 20 with --quick)"
    )
    args = parser.parse_args(argv)
    soak_episodes = args.soak if args.soak is not None else (20 if args.quick else 60)
    repeats = args.repeats or (3 if args.quick else 8)
    extra = args.sessions or (8 if args.quick else 16)
    resets = 10 if args.quick else 25
    started = time.perf_counter()
    token = secrets.token_urlsafe(24)
    workdir = Path(os.environ.get("TMPDIR", "/tmp")) / f"gym-mcp-bench-sessions-{os.getpid()}"
    workdir.mkdir(parents=True, exist_ok=True)
    to_close: list[Callable[[], Any]] = []
    try:
        port = free_port()
        print("starting the sessions server ...", file=sys.stderr, flush=True)
        server = start_cli_server(["--sessions"], port, token, workdir / "sessions.stderr")
        to_close.append(lambda: stop_process(server))
        url = f"http://127.0.0.1:{port}/mcp"
        rss_empty = settled_rss(server.pid)
        first = session_env(url, token)
        to_close.append(first.close)
        rss_one = settled_rss(server.pid)
        print(f"opening {extra} more sessions ...", file=sys.stderr, flush=True)
        for _ in range(extra):
            env = session_env(url, token)
            to_close.append(env.close)
        rss_many = settled_rss(server.pid)
        disk_many = session_files(server.pid)
        per_session_kib = (rss_many - rss_one) / extra

        print("starting one server process per env (stdio, http) ...", file=sys.stderr, flush=True)
        per_process: dict[str, int] = {}
        for transport in ("stdio", "http"):
            env, pid = process_env(transport)
            to_close.append(env.close)
            per_process[f"env over {transport}: python -m gym_mcp.servers.banking"] = settled_rss(pid)
        plain_db = ["--db", f"sqlite:///{workdir / 'plain.db'}"]
        plain = start_cli_server(plain_db, free_port(), token, workdir / "plain.stderr")
        to_close.append(lambda: stop_process(plain))
        per_process["gym-mcp serve banking --transport http"] = settled_rss(plain.pid)

        print("timing resets ...", file=sys.stderr, flush=True)
        local = {t: gym.make("gym_mcp/Banking-v0", transport=t) for t in ("inprocess", "stdio")}
        for env in local.values():
            to_close.append(env.close)
            env.reset(seed=0)
        state = first.unwrapped.state
        assert isinstance(state, SessionState)
        seed = first.unwrapped.source.initial_snapshot(0)
        names = {
            "session: POST /control/.../reset": lambda: state.reset(0),
            "session: restore by digest (PUT)": lambda: state.restore(seed),
            "session env.reset()": first.reset,
            "local env.reset(), inprocess": local["inprocess"].reset,
            "local env.reset(), stdio": local["stdio"].reset,
        }
        samples: dict[str, list[float]] = {name: [] for name in names}
        for r in range(repeats):
            for name, fn in names.items():
                first.step(WRITE)  # something to undo
                samples[name] += timed(fn, resets)
            print(f"  round {r + 1}/{repeats} done", file=sys.stderr, flush=True)
        first.step(WRITE)
        first.reset()
        if state.fingerprint() != state.fingerprint_of(seed):
            raise RuntimeError("a session reset did not restore the seed exactly")

        print(f"soak: {soak_episodes} episodes, their sessions deleted and swept under them ...", file=sys.stderr)
        soak_port = free_port()
        soak_server = start_cli_server(
            ["--sessions", "--idle-timeout", str(IDLE_TIMEOUT)], soak_port, token, workdir / "soak.stderr"
        )
        to_close.append(lambda: stop_process(soak_server))
        soak = soak_lost_sessions(f"http://127.0.0.1:{soak_port}/mcp", token, soak_episodes, seed=0)
    finally:
        for close in reversed(to_close):
            with contextlib.suppress(Exception):
                close()
        for leftover in workdir.glob("*"):
            leftover.unlink()
        workdir.rmdir()

    process_kib = min(per_process.values())
    memory_rows = [
        ["sessions server, started (no session)", rss_empty / 1024, ""],
        ["sessions server, 1 session", rss_one / 1024, ""],
        [f"sessions server, {1 + extra} sessions", rss_many / 1024, ""],
        ["per extra session (RSS growth)", per_session_kib / 1024, 1.0],
        ["per session: its database file (disk, not RSS)", disk_many / (1 + extra) / 2**20, ""],
    ]
    for name, kib in per_process.items():
        memory_rows.append([f"per process: {name}", kib / 1024, kib / per_session_kib if per_session_kib > 0 else ""])
    print()
    print(table(["memory", "MiB", "x per session"], memory_rows, title="Memory (RSS)"))
    stats = {name: summarize(values) for name, values in samples.items()}
    local_ms = stats["local env.reset(), inprocess"]["median_ms"]
    stdio_ms = stats["local env.reset(), stdio"]["median_ms"]
    print()
    print(
        table(
            ["reset", "median ms", "p90 ms", "/ local inprocess", "/ local stdio"],
            [
                [n, s["median_ms"], s["p90_ms"], s["median_ms"] / local_ms, s["median_ms"] / stdio_ms]
                for n, s in stats.items()
            ],
            title=f"Reset latency ({repeats} rounds x {resets})",
        )
    )
    print()
    print(
        table(
            ["sessions ended under running episodes", "count"],
            [[name.replace("_", " "), value] for name, value in soak.items()],
            title=f"Soak: {soak['episodes_tried']} episodes (silent state losses must be 0)",
        )
    )
    status = finish(
        args.out,
        "sessions",
        started,
        config={
            "extra_sessions": extra,
            "repeats": repeats,
            "resets_per_round": resets,
            "soak_episodes": soak_episodes,
            "soak_idle_timeout_s": IDLE_TIMEOUT,
            "server": "banking",
        },
        memory_kib={
            "sessions_server_empty": rss_empty,
            "sessions_server_1": rss_one,
            f"sessions_server_{1 + extra}": rss_many,
            "per_session": per_session_kib,
            "per_session_disk_bytes": disk_many / (1 + extra),
            "per_process": per_process,
            "process_over_session": process_kib / per_session_kib if per_session_kib > 0 else None,
        },
        reset=stats,
        reset_over_local_inprocess={name: s["median_ms"] / local_ms for name, s in stats.items()},
        reset_over_local_stdio={name: s["median_ms"] / stdio_ms for name, s in stats.items()},
        soak=soak,
    )
    return 1 if soak["silent_state_losses"] else status


if __name__ == "__main__":
    raise SystemExit(main())
