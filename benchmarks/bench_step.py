"""Step overhead: ``env.step`` of one tool call versus a raw MCP call on the same kind of server.

For each transport (inprocess, stdio, http) this times, in interleaved batches:

- ``raw (a)``: `mcp.Client.call_tool("get_balance", ...)` on a server of our own (same code,
  same seed-0 data, same transport), timed inside the event loop: the floor. Calls run back
  to back, so the loop and worker threads never go to sleep between them.
- ``raw (a) in loop, 1 ms idle before``: the same, with an untimed idle millisecond before each
  call, as a sync caller has between steps: the cost of waking idle threads.
- ``raw (b)``: the same raw call driven from the main thread through `gym_mcp.transport.runner.run_sync`,
  the sync bridge `MCPEnv` uses: the floor for any sync caller.
- ``run_sync(noop)``: the bridge alone (a coroutine that returns at once).
- ``LiveConnection.call_tool``: the env's own connection, timed inside the loop, and ``(b)``
  the same driven from the main thread through ``run_sync``, as ``env.step`` drives it.
- ``AsyncMCPEnv.step``: the env's async core, timed inside the loop.
- ``env.step``: ``gym.make("gym_mcp/Banking-v0", ...)`` driven from the main thread.
- in-process only, ``direct (a)`` and ``direct (b)``: the raw server's own ``tools/call``
  handler called directly (`gym_mcp.transport.direct.DirectCalls`, what an in-process env's
  connection does instead of an MCP round trip), timed in the loop and via ``run_sync``.

Target: median ``env.step`` / median ``raw (a)`` <= 1.10 per transport: the env against the
SDK call a user would otherwise make. In-process the env's calls skip the protocol while
``raw (a)`` makes a full in-process MCP round trip, and over stdio they skip the SDK's request
machinery (`gym_mcp.transport.pipe`: the same request and answer on the same pipe), so there the
env can be faster than the raw call. ``env.step`` / ``LiveConnection (b)`` (both from a sync
caller, both making the env's own call) is the env's own overhead over its connection on every
transport, and in-process ``env.step`` / ``direct (b)`` compares it with the server's handler
called directly. When it is missed,
the in-process ``AsyncMCPEnv.step`` is profiled with cProfile and the top self-time functions
inside gym_mcp are listed.

By default every step runs in the one episode begun by the first ``reset`` (``max_steps=10**6``),
so the episode grows to ~1,500 messages; ``--reset-each-round`` starts a new episode (untimed)
before each round instead. The "episode-length growth" table shows the difference.

``--long-episode N`` measures only growth, per transport: ``gym.make("gym_mcp/Banking-v0")``
steps one ``get_balance`` N times (default 10,000) in one episode, and the median step of
steps 1-100 is set against that of the last 100, in the same run. Because the machine drifts
over the minute such a run takes, the last 100 are interleaved (in batches of 10) with the
first 100 steps of a fresh env's episode in the same process: ``late / fresh`` is the growth
with the drift taken out. ``tests/env/test_long_episode.py`` checks the same structurally.

Run: ``python benchmarks/bench_step.py [--repeats N] [--quick] [--out DIR] [--reset-each-round]
[--long-episode [N]]``.
"""

from __future__ import annotations

import asyncio
import contextlib
import cProfile
import gc
import pstats
import shutil
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
from _common import (
    SERVER_MODULE,
    RawClient,
    base_parser,
    finish,
    free_port,
    median,
    result_text,
    spawn_http_server,
    stop_process,
    summarize,
    table,
    timed,
    verdict,
)
from gymnasium.wrappers import OrderEnforcing, PassiveEnvChecker
from mcp import StdioServerParameters

import gym_mcp
from gym_mcp import BundledSource, SQLiteState
from gym_mcp.env import EnvConfig
from gym_mcp.live.sources import bundled_source
from gym_mcp.transport.direct import DirectCalls
from gym_mcp.transport.runner import run_sync

DESCRIPTION = "Step overhead: env.step of one tool call versus a raw MCP call, per transport."

TARGET = 1.10
"""Most ``env.step`` may cost relative to a raw call (median / median)."""

TOOL = "get_balance"
ARGUMENTS = {"account_id": "ACC-1001"}
ACTION = {"name": TOOL, "arguments": ARGUMENTS}
TRANSPORTS = ("inprocess", "stdio", "http")

KINDS = (
    "raw (a) in loop",
    "raw (a) in loop, 1 ms idle before",
    "raw (b) via run_sync",
    "run_sync(noop)",
    "LiveConnection.call_tool",
    "LiveConnection (b) via run_sync",
    "AsyncMCPEnv.step",
    "env.step",
)
RAW_A, RAW_IDLE, RAW_B, NOOP, CONN, CONN_B, CORE, ENV = KINDS
DIRECT_KINDS = ("direct (a) in loop", "direct (b) via run_sync")
"""In-process only: the server's tools/call handler called directly, as the env's connection calls it."""
DIRECT_A, DIRECT_B = DIRECT_KINDS
BATCH = 5
"""Calls per batch: small batches in many rounds, so the machine's drift (it moves the round
trip by 10-50% over seconds) lands on every kind alike instead of on whichever batch it hits."""
IDLE_S = 0.001
"""Untimed idle time before each call of ``RAW_IDLE`` (lets the loop and worker threads go to sleep)."""


@dataclass
class Rig:
    """One transport's env and raw baseline, and what to clean up afterwards."""

    transport: str
    env: Any
    async_env: gym_mcp.AsyncMCPEnv  # the env's async side (env wraps it for Gymnasium)
    raw: RawClient
    raw_state: SQLiteState
    proc: Any = None
    direct: DirectCalls | None = None
    samples: dict[str, list[float]] = field(default_factory=dict)
    round_medians: dict[str, list[float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.samples = {k: [] for k in self.kinds}
        self.round_medians = {k: [] for k in self.kinds}

    @property
    def kinds(self) -> tuple[str, ...]:
        """What is measured on this transport."""
        return KINDS + DIRECT_KINDS if self.direct is not None else KINDS

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.env.close()
        with contextlib.suppress(Exception):
            run_sync(self.raw.close())
        if self.proc is not None:
            stop_process(self.proc)
        self.raw_state.close()


def build_rig(transport: str, workdir: Path) -> Rig:
    """Start the env (reset) and a raw client on a server of its own, seeded alike."""
    source = BundledSource("banking")
    base = source.initial_snapshot(0)  # the seed-0 database, exactly as BundledSource.launch seeds it
    proc = None
    if transport == "inprocess":
        state = SQLiteState(None, volatile=source.kit.volatile_columns)
        state.restore(base)
        target: Any = source.kit.create_server(state.connection)
    else:
        state = SQLiteState(workdir / f"raw-{transport}.db", volatile=source.kit.volatile_columns)
        state.restore(base)
        if transport == "stdio":
            target = StdioServerParameters(command=sys.executable, args=["-m", SERVER_MODULE, "--db", state.url])
        else:
            port = free_port()
            proc = spawn_http_server(state.url, port, workdir / "raw-http.stderr")
            target = f"http://127.0.0.1:{port}/mcp"
    raw = RawClient(target)
    try:
        run_sync(raw.start())
        # the env as gym.make builds it (OrderEnforcing, PassiveEnvChecker), over an async env of our own
        core = gym_mcp.AsyncMCPEnv(bundled_source("banking", transport), config=EnvConfig(max_steps=10**6))
        env = OrderEnforcing(PassiveEnvChecker(gym_mcp.MCPEnv.from_async(core)))
        env.reset(seed=0)
    except BaseException:
        with contextlib.suppress(Exception):
            run_sync(raw.close())
        if proc is not None:
            stop_process(proc)
        state.close()
        raise
    direct = None
    if transport == "inprocess":
        server = DirectCalls.lowlevel(target)
        client = raw._client  # the raw side's session: the protocol version it negotiated
        version = client.session.protocol_version if client is not None else None
        if server is None or version is None:
            raise RuntimeError("the raw in-process server cannot be called directly")
        direct = DirectCalls(server, {}, version)  # {}: what the SDK's default lifespan yields
    rig = Rig(transport, env, core, raw, state, proc, direct)
    if direct is not None and not env.unwrapped.live.connection.direct:
        raise RuntimeError("the in-process env does not dispatch its calls directly")
    check_same_answer(rig)
    return rig


def check_same_answer(rig: Rig) -> None:
    """Both sides must answer the same call with the same (successful) result."""
    raw = run_sync(rig.raw.call(TOOL, ARGUMENTS))
    obs, _, terminated, truncated, info = rig.env.step(ACTION)
    if raw.is_error or obs.startswith("Error") or terminated or truncated:
        raise RuntimeError(f"{rig.transport}: unexpected results: raw={raw!r} env={obs!r} info={info!r}")
    if result_text(raw) != obs:
        raise RuntimeError(f"{rig.transport}: raw and env answers differ: {result_text(raw)!r} vs {obs!r}")
    if rig.direct is not None:
        direct = run_sync(rig.direct.call(TOOL, ARGUMENTS))
        if direct is None or result_text(direct) != obs:
            raise RuntimeError(f"{rig.transport}: direct and env answers differ: {direct!r} vs {obs!r}")


async def _timed_in_loop(fn: Callable[[], Awaitable[Any]], n: int, idle: float = 0.0) -> list[float]:
    out = []
    for _ in range(n):
        if idle:
            await asyncio.sleep(idle)
        t0 = time.perf_counter()
        await fn()
        out.append(time.perf_counter() - t0)
    return out


async def _noop() -> None:
    return None


def measure(rig: Rig, kind: str, n: int) -> list[float]:
    """One batch of ``n`` timed calls of one kind."""
    raw, core, env = rig.raw, rig.async_env, rig.env
    if kind == RAW_A:
        return run_sync(_timed_in_loop(lambda: raw.call(TOOL, ARGUMENTS), n))
    if kind == RAW_IDLE:
        return run_sync(_timed_in_loop(lambda: raw.call(TOOL, ARGUMENTS), n, idle=IDLE_S))
    if kind == RAW_B:
        return timed(lambda: run_sync(raw.call(TOOL, ARGUMENTS)), n)
    if kind == NOOP:
        return timed(lambda: run_sync(_noop()), n)
    if kind == CONN:
        conn = env.unwrapped.live.connection
        return run_sync(_timed_in_loop(lambda: conn.call_tool(TOOL, ARGUMENTS), n))
    if kind == CONN_B:
        conn = env.unwrapped.live.connection
        return timed(lambda: run_sync(conn.call_tool(TOOL, ARGUMENTS)), n)
    if kind == CORE:
        return run_sync(_timed_in_loop(lambda: core.step(ACTION), n))
    if kind == ENV:
        return timed(lambda: env.step(ACTION), n)
    direct = rig.direct
    if direct is not None and kind == DIRECT_A:
        return run_sync(_timed_in_loop(lambda: direct.call(TOOL, ARGUMENTS), n))
    if direct is not None and kind == DIRECT_B:
        return timed(lambda: run_sync(direct.call(TOOL, ARGUMENTS)), n)
    raise ValueError(kind)


def run_rounds(rigs: list[Rig], repeats: int, batch: int, *, reset_each_round: bool) -> None:
    """Interleave batches of every kind on every transport, rotating the order each round.

    Args:
        rigs: The transports to measure.
        repeats: Rounds.
        batch: Calls per batch.
        reset_each_round: Start a new episode (untimed) before each round, instead of running
            every step in the one episode that began at the first reset.
    """
    for rig in rigs:  # warm-up, discarded
        for kind in rig.kinds:
            measure(rig, kind, max(10, batch))
    for r in range(repeats):
        for rig in rigs:
            kinds = rig.kinds
            order = kinds[r % len(kinds) :] + kinds[: r % len(kinds)]
            if reset_each_round:
                rig.env.reset(seed=0)
            for kind in order:
                got = measure(rig, kind, batch)
                rig.samples[kind].extend(got)
                rig.round_medians[kind].append(median(got))
        if (r + 1) % 12 == 0 or r + 1 == repeats:
            print(f"  round {r + 1}/{repeats} done", file=sys.stderr, flush=True)


def info_cost_us(rig: Rig, n: int = 200) -> float:
    """Median cost of building ``info`` (done once per step) at the current episode length."""
    core = rig.async_env
    return median(timed(core.info, n)) * 1e6


def profile_core_steps(rig: Rig, steps: int, top: int) -> dict[str, Any]:
    """cProfile ``AsyncMCPEnv.step`` on the loop thread; the top self-time functions in gym_mcp."""
    prof = cProfile.Profile()
    core = rig.async_env
    gc_pauses: list[float] = []
    gc_started: list[float] = []

    def on_gc(phase: str, info: dict[str, int]) -> None:
        # Collections run inside whatever function allocated last: count them apart.
        if phase == "start":
            gc_started.append(time.perf_counter())
        elif gc_started:
            gc_pauses.append(time.perf_counter() - gc_started.pop())

    async def go() -> float:
        prof.enable()
        t0 = time.perf_counter()
        for _ in range(steps):
            await core.step(ACTION)
        elapsed = time.perf_counter() - t0
        prof.disable()
        return elapsed

    gc.collect()
    gc.callbacks.append(on_gc)
    try:
        elapsed = run_sync(go())
    finally:
        gc.callbacks.remove(on_gc)
    stats = pstats.Stats(prof)
    package_dir = str(Path(gym_mcp.__file__).resolve().parent)
    rows = []
    total_self = 0.0
    for (filename, line, func), (_cc, ncalls, tottime, cumtime, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        if not str(Path(filename).resolve()).startswith(package_dir):
            continue
        total_self += tottime
        rows.append(
            {
                "function": f"{Path(filename).name}:{line}({func})",
                "ncalls": ncalls,
                "self_us_per_step": tottime / steps * 1e6,
                "cum_us_per_step": cumtime / steps * 1e6,
                "self_pct_of_step": 100 * tottime / elapsed,
            }
        )
    rows.sort(key=lambda r: r["self_us_per_step"], reverse=True)
    return {
        "steps": steps,
        "messages_in_episode": len(core.messages),
        "profiled_us_per_step": elapsed / steps * 1e6,
        "gym_mcp_self_us_per_step": total_self / steps * 1e6,
        "gc_collections": len(gc_pauses),
        "gc_pause_us_per_step": sum(gc_pauses) / steps * 1e6,
        "top": rows[:top],
    }


LONG_WINDOW = 100
"""Steps at each end of the long episode whose median is compared."""
TEXT_ACTION = '<tool_call>{"name": "get_balance", "arguments": {"account_id": "ACC-1001"}}</tool_call>'
"""The step as a model writes it (parsed every step, as in training)."""


def long_episode(transport: str, steps: int) -> dict[str, Any]:
    """Step one episode ``steps`` times; the first and last ``LONG_WINDOW`` steps' medians and a fresh env's."""

    def make() -> Any:
        env = gym.make("gym_mcp/Banking-v0", transport=transport, max_steps=2 * steps + 10 * LONG_WINDOW)
        env.reset(seed=0)
        return env

    def one(env: Any) -> float:
        t0 = time.perf_counter()
        _, _, terminated, truncated, info = env.step(TEXT_ACTION)
        elapsed = time.perf_counter() - t0
        if terminated or truncated or not info["calls"][0].ok:
            raise RuntimeError(f"{transport}: the step failed: {info['calls']!r}")
        return elapsed

    long, fresh = make(), make()
    try:
        times = [one(long) for _ in range(steps - LONG_WINDOW)]
        late: list[float] = []
        fresh_times: list[float] = []
        for b in range(0, LONG_WINDOW, 10):  # interleaved: the machine's drift lands on both alike
            pair = [(late, long), (fresh_times, fresh)]
            for out, env in pair if b % 20 else pair[::-1]:
                out.extend(one(env) for _ in range(10))
        times += late
        messages = len(long.unwrapped.episode().messages)
    finally:
        long.close()
        fresh.close()
    first, last = median(times[:LONG_WINDOW]), median(late)
    third = len(times) // 3
    return {
        "steps": steps,
        "messages_at_end": messages,
        "first_ms": first * 1e3,
        "last_ms": last * 1e3,
        "fresh_ms": median(fresh_times) * 1e3,
        "last_over_first": last / first,
        "last_over_fresh": last / median(fresh_times),
        "mean_ms_by_third": [
            sum(part) / len(part) * 1e3 for part in (times[:third], times[third:-third], times[-third:])
        ],
    }


def run_long_episodes(transports: list[str], steps: int) -> dict[str, Any]:
    """`long_episode` on each transport, and its table."""
    results = {}
    for t in transports:
        print(f"long episode over {t}: {steps} steps ...", file=sys.stderr, flush=True)
        results[t] = long_episode(t, steps)
    rows = [
        [
            t,
            r["messages_at_end"],
            r["first_ms"],
            r["last_ms"],
            r["fresh_ms"],
            r["last_over_first"],
            r["last_over_fresh"],
            " / ".join(f"{m:.2f}" for m in r["mean_ms_by_third"]),
        ]
        for t, r in results.items()
    ]
    print()
    print(
        table(
            [
                "transport",
                "messages",
                f"steps 1-{LONG_WINDOW} ms",
                f"last {LONG_WINDOW} ms",
                "fresh env ms",
                "last / first",
                "last / fresh",
                "mean by third ms",
            ],
            rows,
            title=(
                f"One {steps}-step episode of get_balance (medians; 'fresh env': a new episode's first "
                f"{LONG_WINDOW} steps interleaved with the last {LONG_WINDOW})"
            ),
        )
    )
    return results


def main(argv: list[str] | None = None) -> int:
    parser = base_parser(DESCRIPTION, repeats=72, quick_repeats=6)
    parser.add_argument("--batch", type=int, default=BATCH, help=f"calls per batch (default {BATCH})")
    parser.add_argument(
        "--transports", default=",".join(TRANSPORTS), help="comma-separated subset of inprocess,stdio,http"
    )
    parser.add_argument(
        "--reset-each-round",
        action="store_true",
        help="reset the env (untimed) before each round: short episodes instead of one long one",
    )
    parser.add_argument(
        "--long-episode",
        type=int,
        nargs="?",
        const=10_000,
        default=None,
        metavar="N",
        help="only measure growth: one N-step episode per transport (default N 10,000), first vs last 100 steps",
    )
    parser.add_argument("--profile", action="store_true", help="profile in-process steps even on PASS")
    parser.add_argument("--no-profile", action="store_true", help="never profile")
    args = parser.parse_args(argv)
    repeats = args.repeats or (6 if args.quick else 72)
    batch = args.batch
    transports = [t.strip() for t in args.transports.split(",") if t.strip()]
    for t in transports:
        if t not in TRANSPORTS:
            parser.error(f"unknown transport {t!r}")

    config = {
        "repeats": repeats,
        "batch": batch,
        "transports": transports,
        "action": ACTION,
        "reset_each_round": args.reset_each_round,
        "idle_before_raw_idle_s": IDLE_S,
        "target_ratio": TARGET,
    }
    started = time.perf_counter()
    if args.long_episode is not None:
        if args.long_episode < 2 * LONG_WINDOW:
            parser.error(f"--long-episode needs at least {2 * LONG_WINDOW} steps")
        long = run_long_episodes(transports, args.long_episode)
        return finish(args.out, "step_long_episode", started, config=config, long_episode=long)
    workdir = Path(tempfile.mkdtemp(prefix="gym-mcp-bench-step-"))
    rigs: list[Rig] = []
    try:
        for t in transports:
            print(f"starting {t} ...", file=sys.stderr, flush=True)
            rigs.append(build_rig(t, workdir))
        run_rounds(rigs, repeats, batch, reset_each_round=args.reset_each_round)
        results = report(rigs, repeats, batch, reset_each_round=args.reset_each_round)
        inproc = next((r for r in rigs if r.transport == "inprocess"), None)
        missed = any(not results[r.transport]["pass"] for r in rigs)
        profile = None
        if inproc is not None and not args.no_profile and (missed or args.profile):
            if args.reset_each_round:
                inproc.env.reset(seed=0)
            profile = profile_core_steps(inproc, steps=100 if args.quick else 300, top=12)
            print_profile(profile)
    finally:
        for rig in rigs:
            rig.close()
        shutil.rmtree(workdir, ignore_errors=True)

    return finish(
        args.out,
        "step",
        started,
        config=config,
        transports=results,
        profile_inprocess=profile,
    )


def report(rigs: list[Rig], repeats: int, batch: int, *, reset_each_round: bool) -> dict[str, Any]:
    """Print the tables and return the per-transport results."""
    results: dict[str, Any] = {}
    episodes = "a new episode each round" if reset_each_round else "one episode since the first reset"
    print(f"\nbench_step: {repeats} rounds x {batch} calls per kind and transport, {episodes}; times in ms")
    for rig in rigs:
        stats = {k: summarize(v) for k, v in rig.samples.items()}
        raw_a = stats[RAW_A]["median_ms"]
        rows = [
            [k, s["median_ms"], s["p10_ms"], s["p90_ms"], s["median_ms"] / raw_a, int(s["n"])] for k, s in stats.items()
        ]
        print()
        print(table(["measurement", "median", "p10", "p90", "/ raw (a)", "n"], rows, title=f"[{rig.transport}]"))
        env_rounds = rig.round_medians[ENV]
        per_round = [e / a for e, a in zip(env_rounds, rig.round_medians[RAW_A], strict=True)]
        m = {k: s["median_ms"] for k, s in stats.items()}
        ratio_a = m[ENV] / m[RAW_A]
        results[rig.transport] = {
            "stats_ms": stats,
            "samples_ms": {k: [x * 1e3 for x in v] for k, v in rig.samples.items()},
            "ratio_env_over_raw_a": ratio_a,
            "ratio_env_over_raw_b": m[ENV] / m[RAW_B],
            "ratio_env_over_connection_b": m[ENV] / m[CONN_B],
            "ratio_per_round": per_round,
            "pass": ratio_a <= TARGET,
            "breakdown_ms": {
                "bridge run_sync(noop)": m[NOOP],
                "raw (b) - raw (a)": m[RAW_B] - m[RAW_A],
                "  of which idle wake-up: raw (a, idle) - raw (a)": m[RAW_IDLE] - m[RAW_A],
                "  of which thread handoff: raw (b) - raw (a, idle)": m[RAW_B] - m[RAW_IDLE],
                "LiveConnection - raw (a)": m[CONN] - m[RAW_A],
                "LiveConnection (b) - LiveConnection: the bridge": m[CONN_B] - m[CONN],
                "AsyncMCPEnv.step - LiveConnection": m[CORE] - m[CONN],
                "env.step - AsyncMCPEnv.step": m[ENV] - m[CORE],
                "env.step - raw (a)": m[ENV] - m[RAW_A],
            },
            "direct": (
                {
                    "ratio_env_over_direct_a": m[ENV] / m[DIRECT_A],
                    "ratio_env_over_direct_b": m[ENV] / m[DIRECT_B],
                    "ratio_per_round_over_direct_b": [
                        e / d for e, d in zip(env_rounds, rig.round_medians[DIRECT_B], strict=True)
                    ],
                    "pass_over_direct_b": m[ENV] / m[DIRECT_B] <= TARGET,
                    "breakdown_ms": {
                        "direct (b) - direct (a): the bridge": m[DIRECT_B] - m[DIRECT_A],
                        "LiveConnection - direct (a)": m[CONN] - m[DIRECT_A],
                        "AsyncMCPEnv.step - LiveConnection": m[CORE] - m[CONN],
                        "env.step - AsyncMCPEnv.step": m[ENV] - m[CORE],
                        "env.step - direct (b)": m[ENV] - m[DIRECT_B],
                    },
                }
                if rig.direct is not None
                else None
            ),
            "growth": {
                "env_step_first_round_ms": env_rounds[0] * 1e3,
                "env_step_last_round_ms": env_rounds[-1] * 1e3,
                # the ratio to raw (a) in the same round: the machine's drift over the run cancels out
                "ratio_first_round": per_round[0],
                "ratio_last_round": per_round[-1],
                "messages_at_end": len(rig.async_env.messages),
                "info_build_us_at_end": info_cost_us(rig),
            },
        }

    print()
    rows = []
    for t, r in results.items():
        s = r["stats_ms"]
        rounds = r["ratio_per_round"]
        rows.append(
            [
                t,
                s[RAW_A]["median_ms"],
                s[RAW_B]["median_ms"],
                s[ENV]["median_ms"],
                r["ratio_env_over_raw_a"],
                f"{min(rounds):.2f}-{max(rounds):.2f}",
                r["ratio_env_over_raw_b"],
                r["ratio_env_over_connection_b"],
                f"<= {TARGET:.2f}",
                verdict(r["pass"]),
            ]
        )
    print(
        table(
            [
                "transport",
                "raw (a) ms",
                "raw (b) ms",
                "env.step ms",
                "env/(a)",
                "per-round env/(a)",
                "env/(b)",
                "env/conn (b)",
                "target",
                "result",
            ],
            rows,
            title=(
                "Summary: env.step vs raw mcp.Client.call_tool (medians; result is for env/(a)); "
                "env/conn (b): over the env's own connection, both sync callers"
            ),
        )
    )

    for t, r in results.items():
        d = r["direct"]
        if d is None:
            continue
        rounds = d["ratio_per_round_over_direct_b"]
        print()
        print(
            f"[{t}] the env's calls go straight to the server's tools/call handler, not over MCP: "
            f"env.step / direct (a) = {d['ratio_env_over_direct_a']:.3f}, "
            f"env.step / direct (b) = {d['ratio_env_over_direct_b']:.3f} "
            f"(per round {min(rounds):.2f}-{max(rounds):.2f}; like for like: both sync callers) "
            f"{verdict(d['pass_over_direct_b'])} (<= {TARGET:.2f})"
        )
        print(table(["where env.step's time goes above the direct call (ms)", t], list(d["breakdown_ms"].items())))

    print()
    keys = list(next(iter(results.values()))["breakdown_ms"])
    rows = [[k] + [results[t]["breakdown_ms"][k] for t in results] for k in keys]
    print(
        table(
            ["where env.step's extra time goes (ms, differences of medians)", *results],
            rows,
            title="Breakdown",
        )
    )

    print()
    rows = [
        [
            t,
            r["growth"]["env_step_first_round_ms"],
            r["growth"]["env_step_last_round_ms"],
            r["growth"]["ratio_first_round"],
            r["growth"]["ratio_last_round"],
            r["growth"]["messages_at_end"],
            r["growth"]["info_build_us_at_end"],
        ]
        for t, r in results.items()
    ]
    print(
        table(
            [
                "transport",
                "env.step round 1 ms",
                "env.step last round ms",
                "env/(a) round 1",
                "env/(a) last round",
                "messages at end",
                "info() us at end",
            ],
            rows,
            title=f"Episode-length growth ({episodes}; info['messages'] is a view, made in O(1))",
        )
    )
    return results


def print_profile(profile: dict[str, Any]) -> None:
    """Print the top self-time functions inside gym_mcp from a profile."""
    print()
    rows = [
        [r["function"], r["ncalls"], r["self_us_per_step"], r["cum_us_per_step"], r["self_pct_of_step"]]
        for r in profile["top"]
    ]
    title = (
        f"cProfile of AsyncMCPEnv.step (inprocess, {profile['steps']} steps, "
        f"{profile['messages_in_episode']} messages in the episode at the end): "
        f"{profile['profiled_us_per_step']:.0f} us/step under the profiler, "
        f"{profile['gym_mcp_self_us_per_step']:.0f} us/step self time inside gym_mcp; "
        f"{profile['gc_collections']} GC collections, {profile['gc_pause_us_per_step']:.0f} us/step, "
        "charged to the function that was allocating"
    )
    print(table(["gym_mcp function", "ncalls", "self us/step", "cum us/step", "self % of step"], rows, title=title))


if __name__ == "__main__":
    sys.exit(main())
