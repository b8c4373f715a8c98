"""gym-mcp over OpenEnv under load, against a trivial OpenEnv environment measured in the same run.

Each arm is a server process (``gym-mcp serve-openenv`` for gym-mcp; a ten-line OpenEnv
environment that echoes its action for the baseline), one uvicorn worker pinned to core 0; the
load generator is this process, pinned to core 1 (a raw WebSocket client, so the generator is
not what is measured). For each N in ``--sessions`` (default 16, 64, 256): N WebSocket sessions
open at once, each resets and then sends ``--steps`` steps (default 20) as fast as its answers
come. Reported per arm and N: steps/s over the step phase, p50/p99 step latency, the server's
RSS growth per open session, and failures (an error reply or a closed socket).

The largest N runs twice: first with the environments the smaller Ns left in the pool plus new
ones (the memory per session is measured there), then again, every session taking a warm
environment, as in a pool that has served a while ("warm" in the tables; the targets are read
there). The gym-mcp arm's step is a real tool call on a warm bundled server (``get_balance`` of an
account that exists, on Banking-v0 in-process; ``--transport stdio`` runs its sessions on one
sessions-server process instead). Targets (issue 37): at 256 sessions >= 800 steps/s, p99 <= 250 ms.

``--reference N`` also plays N reference episodes of each of three bundled servers and one
composition over OpenEnv's own ``GenericEnvClient`` and checks every reward is 1.0 and every final
fingerprint equals the same episode played through ``gym.make`` (exit status 1 otherwise).

``--against REV`` serves a git revision of this repository (a worktree, imported ahead of the
installed package) as a third arm, and ``--rounds R`` runs every arm R times in turn: a head to
head with an earlier version under the same drift.

Run: ``python benchmarks/bench_openenv.py [--sessions 16 64 256] [--steps 20] [--transport
inprocess|stdio] [--reference 100] [--against REV] [--rounds R] [--quick] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import DEFAULT_OUT, free_port, quantile, table, write_result

TRIVIAL_APP = """
from openenv.core.env_server.http_server import create_fastapi_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, Observation, State
import uvicorn, sys

class EchoAction(Action):
    text: str = ""

class EchoObservation(Observation):
    text: str = ""

class Echo(Environment):
    SUPPORTS_CONCURRENT_SESSIONS = True
    def __init__(self):
        super().__init__()
        self._state = State(step_count=0)
    def reset(self, seed=None, episode_id=None, **kw):
        self._state = State(step_count=0)
        return EchoObservation(text="ready")
    def step(self, action, timeout_s=None, **kw):
        self._state.step_count += 1
        return EchoObservation(text=action.text)
    @property
    def state(self):
        return self._state

app = create_fastapi_app(Echo, EchoAction, EchoObservation, max_concurrent_envs=4096)
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="error")
"""


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _tree_rss_kb(pid: int) -> int:
    """RSS of a process and its children (a sessions server child counts)."""
    total = _rss_kb(pid)
    with contextlib.suppress(OSError):
        for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
            total += _tree_rss_kb(int(child))
    return total


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _wait_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 600) -> None:
    import socket

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.1)
    raise RuntimeError("server did not listen")


# Runs gym-mcp's CLI from another checkout (argv[1]): its packages are imported from there, laid
# out as pyproject's package-dir says, ahead of the installed ones; its dependencies are this venv's.
OTHER_CHECKOUT = """
import importlib.abc, importlib.util, runpy, sys, tomllib
from pathlib import Path
root = Path(sys.argv.pop(1))
dirs = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
packages = {name: root / folder for name, folder in dirs.items()}

class Checkout(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name not in packages:
            return None
        init = packages[name] / "__init__.py"
        return importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(packages[name])])

sys.meta_path.insert(0, Checkout())
runpy.run_module("gym_mcp.cli", run_name="__main__")
"""


@contextlib.contextmanager
def _checkout(rev: str) -> Iterator[Path]:
    """A detached worktree of this repository at ``rev``, removed afterwards."""
    repo = Path(__file__).resolve().parent.parent
    folder = Path(tempfile.mkdtemp(prefix="bench-openenv-rev-")) / "tree"
    done = subprocess.run(
        ["git", "-C", str(repo), "worktree", "add", "--detach", str(folder), rev],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"--against {rev}: git worktree failed: {done.stderr.strip().splitlines()[-1:]}")
    try:
        yield folder
    finally:
        subprocess.run(["git", "-C", str(repo), "worktree", "remove", "--force", str(folder)], check=False)


def _start(arm: str, port: int, transport: str, log: Path, checkout: Path | None = None) -> subprocess.Popen[bytes]:
    if arm == "trivial":
        cmd = [sys.executable, "-c", TRIVIAL_APP, str(port)]
    else:
        cli = ["-c", OTHER_CHECKOUT, str(checkout)] if checkout is not None else ["-m", "gym_mcp.cli"]
        cmd = [sys.executable, *cli, "serve-openenv", "banking", "--port", str(port)]
        cmd += ["--max-sessions", "4096", "--transport", transport]
    with contextlib.suppress(OSError):
        os.sched_setaffinity(0, {1})
    proc = subprocess.Popen(
        ["taskset", "-c", "0", *cmd], stdout=subprocess.DEVNULL, stderr=log.open("wb"), stdin=subprocess.DEVNULL
    )
    _wait_port(port, proc)
    return proc


def _action(arm: str, i: int) -> dict[str, Any]:
    if arm == "trivial":
        return {"text": f"step {i}"}
    return {"type": "call_tool", "tool_name": "get_balance", "arguments": {"account_id": f"ACC-{1001 + i % 40}"}}


async def _load(arm: str, port: int, pid: int, n: int, steps: int) -> dict[str, Any]:
    from websockets.asyncio.client import connect

    url = f"ws://127.0.0.1:{port}/ws"
    latencies: list[float] = []
    last: list[float] = []  # each session's final step (the episode's reward on its final state)
    failures = 0
    rss_before = _tree_rss_kb(pid)
    sockets = []
    for _ in range(n):  # open them all first: N sessions held at once
        sockets.append(await connect(url, max_size=None, open_timeout=120, proxy=None, ping_interval=None))

    async def reset(ws: Any) -> None:
        nonlocal failures
        await ws.send(json.dumps({"type": "reset", "data": {}}))
        reply = json.loads(await ws.recv())
        failures += reply.get("type") == "error"

    await asyncio.gather(*(reset(ws) for ws in sockets))
    rss_open = _tree_rss_kb(pid)

    async def run(ws: Any) -> None:
        nonlocal failures
        for i in range(steps):
            t = time.perf_counter()
            await ws.send(json.dumps({"type": "step", "data": _action(arm, i)}))
            reply = json.loads(await ws.recv())
            latencies.append(time.perf_counter() - t)
            if i == steps - 1:
                last.append(latencies[-1])
            failures += reply.get("type") == "error"

    t0, c0 = time.perf_counter(), _cpu_s(pid)
    results = await asyncio.gather(*(run(ws) for ws in sockets), return_exceptions=True)
    wall, cpu = time.perf_counter() - t0, _cpu_s(pid) - c0
    failures += sum(isinstance(r, BaseException) for r in results)
    for ws in sockets:
        with contextlib.suppress(Exception):
            await ws.send(json.dumps({"type": "close"}))
            await ws.close()
    return {
        "sessions": n,
        "steps": len(latencies),
        "steps_per_s": len(latencies) / wall,
        "p50_ms": quantile(latencies, 0.5) * 1e3 if latencies else float("nan"),
        "p99_ms": quantile(latencies, 0.99) * 1e3 if latencies else float("nan"),
        "last_p50_ms": quantile(last, 0.5) * 1e3 if last else float("nan"),
        "mb_per_session": (rss_open - rss_before) / 1024 / n,
        "server_cpu_ms_per_step": cpu / max(1, len(latencies)) * 1e3,
        "server_cpu_busy": cpu / wall,
        "failures": failures,
    }


def load_phase(
    ns: list[int],
    steps: int,
    transport: str,
    out: Path,
    against: tuple[str, Path] | None = None,
    rounds: int = 1,
) -> list[dict[str, Any]]:
    """Each arm's server in turn under the load, ``rounds`` times; ``against``: (name, checkout) of a third arm."""
    rows = []
    arms = ["trivial", "gym-mcp", *([against[0]] if against else [])]
    for arm in arms * rounds:
        port = free_port()
        checkout = against[1] if against and arm == against[0] else None
        log = out / f"openenv-{re.sub(r'[^A-Za-z0-9_.-]', '-', arm)}.log"
        proc = _start("trivial" if arm == "trivial" else "gym-mcp", port, transport, log, checkout)
        try:
            asyncio.run(_load(arm, port, proc.pid, 4, 3))  # warm up: imports, first env built
            for i, n in enumerate([*ns, max(ns)]):
                row = asyncio.run(_load(arm, port, proc.pid, n, steps))
                warm = i == len(ns)  # the largest N again: every environment already built
                rows.append({"arm": arm, "warm": warm, **row})
                label = f"{n}{' warm' if warm else ''}"
                print(
                    f"  {arm:8} N={label:>8}: {row['steps_per_s']:7.0f} steps/s  p50 {row['p50_ms']:6.1f} ms  "
                    f"p99 {row['p99_ms']:7.1f} ms  last step p50 {row['last_p50_ms']:6.1f} ms  "
                    f"{row['mb_per_session']:.2f} MB/session  "
                    f"cpu {row['server_cpu_ms_per_step']:.2f} ms/step ({row['server_cpu_busy']:.0%} busy)  "
                    f"failures {row['failures']}",
                    flush=True,
                )
        finally:
            proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(15)
            if proc.poll() is None:
                proc.kill()
    return rows


REFERENCE_SERVERS = ("banking", "calendar", "issue_tracker")
REFERENCE_COMPOSITION = "shop_bank"


def reference_phase(n: int, out: Path) -> dict[str, Any]:
    """N reference episodes per environment over OpenEnv's GenericEnvClient vs the same through gym.make."""
    import gymnasium as gym
    from openenv.core.generic_client import GenericEnvClient

    import gym_mcp
    from gym_mcp.synth import SynthConfig, synthesize, write_outputs

    results: dict[str, Any] = {}
    bad = 0
    for name in (*REFERENCE_SERVERS, REFERENCE_COMPOSITION):
        tasks_path = Path(tempfile.mkdtemp(prefix="bench-openenv-")) / f"{name}.jsonl"
        write_outputs(synthesize(name, SynthConfig(n=n, seed=0)), tasks_path)
        tasks = [json.loads(line) for line in tasks_path.read_text().splitlines() if line.strip()]
        port = free_port()
        cmd = [
            sys.executable,
            "-m",
            "gym_mcp.cli",
            "serve-openenv",
            name,
            "--tasks",
            str(tasks_path),
            "--port",
            str(port),
        ]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=(out / f"openenv-ref-{name}.log").open("wb"))
        try:
            _wait_port(port, proc)
            local = gym.make(gym_mcp.env_id(name), tasks=str(tasks_path))
            rewards, matches = [], 0
            with GenericEnvClient(base_url=f"http://127.0.0.1:{port}").sync() as env:
                for i, task in enumerate(tasks):
                    env.reset(task_index=i)
                    local.reset(options={"task_index": i})
                    for call in task["reference_calls"]:
                        action = {"type": "call_tool", "tool_name": call["name"], "arguments": call["arguments"]}
                        env.step(action)
                        local.step({"name": call["name"], "arguments": call["arguments"]})
                    r = env.step({"type": "message", "message": "Done."})
                    *_, info = local.step("Done.")
                    rewards.append(float(r.reward or 0.0))
                    remote_fp = (r.observation.get("metadata") or {}).get("final_fingerprint")
                    matches += remote_fp == info["final_fingerprint"]
            local.close()
        finally:
            proc.terminate()
            proc.wait(15)
        ok = sum(r == 1.0 for r in rewards)
        bad += (ok != len(tasks)) + (matches != len(tasks))
        results[name] = {"episodes": len(tasks), "reward_1": ok, "state_equal": matches}
        print(
            f"  {name:12} {len(tasks)} episodes over OpenEnv: reward 1.0 in {ok}, "
            f"final state equal to gym.make in {matches}",
            flush=True,
        )
    return {"per_env": results, "failed": bad}


def _head_to_head(rows: list[dict[str, Any]], against: str) -> dict[str, Any]:
    """This checkout against ``against`` at each N: steps/s ratio per round (in turn) and mean p99."""
    out: dict[str, Any] = {}
    for n, warm in dict.fromkeys((r["sessions"], r["warm"]) for r in rows):
        mine = [r for r in rows if r["arm"] == "gym-mcp" and (r["sessions"], r["warm"]) == (n, warm)]
        theirs = [r for r in rows if r["arm"] == against and (r["sessions"], r["warm"]) == (n, warm)]
        ratios = [a["steps_per_s"] / b["steps_per_s"] for a, b in zip(mine, theirs, strict=True)]
        label = f"{n}{' warm' if warm else ''}"
        out[label] = {
            "ratio_per_round": ratios,
            "steps_per_s": [sum(r["steps_per_s"] for r in x) / len(x) for x in (mine, theirs)],
            "p99_ms": [sum(r["p99_ms"] for r in x) / len(x) for x in (mine, theirs)],
        }
        print(
            f"N={label:>8}: this checkout / {against}: steps/s x{', x'.join(f'{q:.2f}' for q in ratios)}; "
            f"p99 {out[label]['p99_ms'][0]:.0f} vs {out[label]['p99_ms'][1]:.0f} ms",
            flush=True,
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, nargs="+", default=[16, 64, 256])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--transport", choices=["inprocess", "stdio"], default="inprocess")
    parser.add_argument("--reference", type=int, default=0, help="reference episodes per environment (0: skip)")
    parser.add_argument("--quick", action="store_true", help="N=16 and 64, 10 steps, 5 reference episodes")
    parser.add_argument(
        "--against", default=None, help="a git revision served as a third arm (head to head with this checkout)"
    )
    parser.add_argument("--rounds", type=int, default=1, help="times each arm's server runs the load, in turn")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    if args.quick:
        args.sessions, args.steps, args.reference = [16, 64], 10, args.reference and 5
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.time()
    print(f"load: {args.sessions} sessions x reset + {args.steps} steps; server on core 0, load on core 1", flush=True)
    if args.rounds < 1:
        parser.error("--rounds must be >= 1")
    with contextlib.ExitStack() as stack:
        against = None
        if args.against:
            against = (args.against, stack.enter_context(_checkout(args.against)))
        rows = load_phase(args.sessions, args.steps, args.transport, args.out, against, args.rounds)
    print(
        table(
            ["arm", "N", "steps/s", "p50 ms", "p99 ms", "MB/session", "failures"],
            [
                [
                    r["arm"],
                    f"{r['sessions']}{' warm' if r['warm'] else ''}",
                    f"{r['steps_per_s']:.0f}",
                    f"{r['p50_ms']:.1f}",
                    f"{r['p99_ms']:.1f}",
                    "" if r["warm"] else f"{r['mb_per_session']:.2f}",
                    r["failures"],
                ]
                for r in rows
            ],
            title=f"OpenEnv load ({args.transport})",
        )
    )
    result: dict[str, Any] = {"transport": args.transport, "steps": args.steps, "load": rows}
    if args.against:
        result["head_to_head"] = _head_to_head(rows, args.against)
    status = 0
    if args.reference:
        result["reference"] = reference_phase(args.reference, args.out)
        status = int(result["reference"]["failed"] > 0)
    top = [r for r in rows if r["arm"] == "gym-mcp" and r["warm"]]
    if top:
        r = top[0]
        result["target_met"] = r["steps_per_s"] >= 800 and r["p99_ms"] <= 250 and r["failures"] == 0
        verdict = "met" if result["target_met"] else "NOT met"
        print(f"target at N={r['sessions']} (>= 800 steps/s, p99 <= 250 ms): {verdict}")
    result["seconds"] = time.time() - started
    path = write_result(args.out, f"openenv_{args.transport}", result)
    print(f"wrote {path}")
    return status


if __name__ == "__main__":
    sys.exit(main())
