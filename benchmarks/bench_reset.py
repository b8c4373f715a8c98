"""Reset cost: restoring a snapshot of a large state versus respawning the server.

Builds a banking database of at least 10,000 rows (the seed-0 data plus transaction rows
inserted directly with sqlite3), snapshots it with ``SQLiteState(path).snapshot()``, then times,
in interleaved rounds:

- ``SQLiteState.restore`` into a file database (what stdio and http servers run on; a stdio
  server is attached to that file while it is restored) and into an in-memory database (what
  in-process servers run on);
- respawning the stdio server on that file: ``LiveConnection.restart()`` (stop the old process,
  start a new one, MCP handshake), and ``start()`` of a fresh `LiveConnection` as a split;
- a full ``env.reset()`` of ``gym.make("gym_mcp/Banking-v0")`` with a warm server, in-process
  and over stdio, with its restore and fingerprint parts;
- the cost of a spec's ``restart_on_reset = true``: ``env.reset()`` of two
  ``gym_mcp/External-v0`` envs over the same stdio server on the seed-0 database, one with
  ``restart_on_reset=True`` (a new process at every reset), one warm; reported as a ratio.

Targets: restore median < 2 ms, and respawn / restore >= 500x (file restore, the state a
respawned stdio server would be started on).

Run: ``python benchmarks/bench_reset.py [--repeats N] [--quick] [--out DIR] [--rows N]``.
"""

from __future__ import annotations

import contextlib
import functools
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
from _common import (
    SERVER_MODULE,
    base_parser,
    finish,
    summarize,
    table,
    timed,
    verdict,
)

import gym_mcp  # noqa: F401 - registers the environments
from gym_mcp import BundledSource, Launch, LiveConnection, Snapshot, SQLiteState
from gym_mcp.transport.runner import run_sync

DESCRIPTION = "Reset cost: snapshot restore of a >=10,000-row state versus respawning the server."

RESTORE_TARGET_MS = 2.0
"""Most a restore may take (median)."""
RATIO_TARGET = 500.0
"""Least respawn / restore ratio (medians)."""
MIN_RESPAWNS = 5

RESTORE_FILE = "SQLiteState.restore, file db (stdio/http)"
RESTORE_MEM = "SQLiteState.restore, in-memory db (inprocess)"
RESTORE_TUNED = "what-if: file restore, synchronous=OFF + journal_mode=MEMORY"
RESPAWN = "LiveConnection.restart(), stdio (respawn)"
COLD_START = "LiveConnection.start(), new stdio server"
FINGERPRINT = "SQLiteState.fingerprint() of this state"
RESET_RESTART = "env.reset(), restart_on_reset=True (stdio, seed-0 db)"
RESET_WARM = "env.reset(), warm server (stdio, seed-0 db)"


def build_large_db(path: Path, min_rows: int) -> dict[str, int]:
    """Seed-0 banking data plus extra transactions inserted with sqlite3, >= ``min_rows`` rows in all."""
    source = BundledSource("banking")
    seeded = SQLiteState(path, volatile=source.kit.volatile_columns)
    seeded.restore(source.initial_snapshot(0))
    seeded.close()
    conn = sqlite3.connect(path)
    try:
        query = "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
        tables = [r[0] for r in conn.execute(query)]
        total = sum(int(conn.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0]) for t in tables)
        accounts = [r[0] for r in conn.execute("SELECT id FROM accounts ORDER BY id")]
        last = conn.execute("SELECT MAX(CAST(SUBSTR(id, 5) AS INTEGER)) FROM transactions").fetchone()[0]
        kinds = ("purchase", "deposit", "withdrawal", "payment", "fee")
        rows = []
        for i in range(max(0, min_rows - total)):
            amount = (-1 if i % 5 != 1 else 1) * (100 + (i * 7919) % 50_000)
            rows.append(
                (
                    f"TXN-{last + 1 + i}",
                    accounts[i % len(accounts)],
                    kinds[i % len(kinds)],
                    amount,
                    100_000 + (i * 104_729) % 900_000,
                    f"Benchmark entry {i}",
                    None,
                    f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}",
                    "2026-01-01 00:00:00.000000",
                )
            )
        with conn:
            conn.executemany("INSERT INTO transactions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        return {t: int(conn.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0]) for t in sorted(tables)}
    finally:
        conn.close()


async def _timed_async(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    await fn()
    return time.perf_counter() - t0


def stdio_launch(db_url: str, stderr: Path) -> Launch:
    """How `BundledSource` launches the banking server over stdio, on ``db_url``."""
    return Launch(
        "banking",
        "stdio",
        command=[sys.executable, "-m", SERVER_MODULE, "--db", db_url],
        stderr_path=str(stderr),
    )


def cold_start(launch: Launch) -> float:
    """Seconds to start a new stdio server and finish the handshake (its close is not timed)."""
    conn = LiveConnection(launch)
    try:
        return run_sync(_timed_async(conn.start))
    finally:
        run_sync(conn.close())


def main(argv: list[str] | None = None) -> int:
    parser = base_parser(DESCRIPTION, repeats=8, quick_repeats=MIN_RESPAWNS)
    parser.add_argument("--rows", type=int, default=10_000, help="least rows in the large state (default 10000)")
    args = parser.parse_args(argv)
    repeats = args.repeats or (MIN_RESPAWNS if args.quick else 8)
    if repeats < MIN_RESPAWNS:
        parser.error(f"--repeats must be at least {MIN_RESPAWNS} (one respawn per round)")
    restores = 10 if args.quick else 25
    resets = 5 if args.quick else 10

    started = time.perf_counter()
    workdir = Path(tempfile.mkdtemp(prefix="gym-mcp-bench-reset-"))
    to_close: list[Callable[[], Any]] = []
    try:
        print("building the large state ...", file=sys.stderr, flush=True)
        counts = build_large_db(workdir / "large.db", args.rows)
        source_state = SQLiteState(workdir / "large.db")
        snapshot: Snapshot = source_state.snapshot()
        source_state.close()

        volatile = BundledSource("banking").kit.volatile_columns
        served = SQLiteState(workdir / "served.db", volatile=volatile)
        to_close.append(served.close)
        served.restore(snapshot)
        memory = SQLiteState(None, volatile=volatile)
        to_close.append(memory.close)
        tuned = SQLiteState(workdir / "tuned.db", volatile=volatile)
        to_close.append(tuned.close)
        tuned.connection.execute("PRAGMA synchronous=OFF")
        tuned.connection.execute("PRAGMA journal_mode=MEMORY")

        launch = stdio_launch(served.url, workdir / "server.stderr")
        live = LiveConnection(launch)
        to_close.append(lambda: run_sync(live.close()))
        print("starting the stdio server ...", file=sys.stderr, flush=True)
        run_sync(live.start())

        envs: dict[str, Any] = {}
        for transport in ("inprocess", "stdio"):
            env = gym.make("gym_mcp/Banking-v0", transport=transport)
            to_close.append(env.close)
            env.reset(seed=0)  # warm: the server is up and the seed snapshot is built
            envs[transport] = env
        seed_snapshot = BundledSource("banking").initial_snapshot(0)
        seed_db = SQLiteState(workdir / "seed.db", volatile=volatile)
        seed_db.restore(seed_snapshot)
        seed_db.close()
        restarting: dict[str, Any] = {}
        for restart in (True, False):
            env = gym.make(
                "gym_mcp/External-v0",
                name="banking",
                command=[sys.executable, "-m", SERVER_MODULE, "--db", "sqlite:///{state}"],
                state=SQLiteState(workdir / "seed.db", volatile=volatile),
                restart_on_reset=restart,
            )
            to_close.append(env.close)
            env.reset()
            restarting[RESET_RESTART if restart else RESET_WARM] = env

        samples: dict[str, list[float]] = {
            k: [] for k in (RESTORE_FILE, RESTORE_MEM, RESTORE_TUNED, RESPAWN, COLD_START, FINGERPRINT)
        }
        restart_samples: dict[str, list[float]] = {k: [] for k in restarting}
        reset_samples: dict[str, dict[str, list[float]]] = {
            t: {"env.reset": [], "restore": [], "fingerprint": []} for t in envs
        }
        for r in range(repeats):
            samples[RESTORE_FILE] += timed(lambda: served.restore(snapshot), restores)
            samples[RESPAWN].append(run_sync(_timed_async(live.restart)))
            samples[RESTORE_MEM] += timed(lambda: memory.restore(snapshot), restores)
            samples[COLD_START].append(cold_start(launch))
            samples[RESTORE_TUNED] += timed(lambda: tuned.restore(snapshot), restores)
            samples[FINGERPRINT] += timed(memory.fingerprint, 2)
            for transport, env in envs.items():
                state = env.unwrapped.state
                got = reset_samples[transport]
                got["env.reset"] += timed(env.reset, resets)
                got["restore"] += timed(functools.partial(state.restore, seed_snapshot), resets)
                got["fingerprint"] += timed(state.fingerprint, resets)
            for label, env in restarting.items():  # one restart per round: it costs a server start
                restart_samples[label] += timed(env.reset, 1 if label == RESET_RESTART else resets)
            print(f"  round {r + 1}/{repeats} done", file=sys.stderr, flush=True)
        if restarting[RESET_RESTART].unwrapped.counters["restarts_on_reset"] != 1:
            raise RuntimeError("the restart_on_reset env did not restart its server at reset")

        # Sanity: the respawned server serves the restored state, and the restore is exact.
        check = run_sync(live.call_tool("get_balance", {"account_id": "ACC-1001"}))
        if check.is_error:
            raise RuntimeError(f"the respawned server failed a call: {check.text}")
        if served.fingerprint() != served.fingerprint_of(snapshot):
            raise RuntimeError("the file restore is not exact")
        rows_total = sum(counts.values())
        results = report(counts, len(snapshot), samples, reset_samples, repeats)
        results.update(report_restart(restart_samples))
    finally:
        for close in reversed(to_close):
            with contextlib.suppress(Exception):
                close()
        shutil.rmtree(workdir, ignore_errors=True)

    return finish(
        args.out,
        "reset",
        started,
        config={
            "repeats": repeats,
            "restores_per_round": restores,
            "resets_per_round": resets,
            "min_rows": args.rows,
            "restore_target_ms": RESTORE_TARGET_MS,
            "ratio_target": RATIO_TARGET,
        },
        state={"rows": counts, "rows_total": rows_total, "snapshot_bytes": len(snapshot)},
        **results,
    )


def report(
    counts: dict[str, int],
    snapshot_bytes: int,
    samples: dict[str, list[float]],
    reset_samples: dict[str, dict[str, list[float]]],
    repeats: int,
) -> dict[str, Any]:
    """Print the tables and return the results."""
    rows_total = sum(counts.values())
    per_table = ", ".join(f"{t} {n:,}" for t, n in counts.items())
    print(
        f"\nbench_reset: {repeats} rounds; state of {rows_total:,} rows ({per_table}), "
        f"snapshot {snapshot_bytes / 1e6:.2f} MB"
    )
    stats = {k: summarize(v) for k, v in samples.items()}
    print()
    print(
        table(
            ["measurement (ms)", "median", "p10", "p90", "n"],
            [[k, s["median_ms"], s["p10_ms"], s["p90_ms"], int(s["n"])] for k, s in stats.items()],
            title="Restore, respawn and fingerprint of the large state",
        )
    )

    file_ms = stats[RESTORE_FILE]["median_ms"]
    mem_ms = stats[RESTORE_MEM]["median_ms"]
    respawn_ms = stats[RESPAWN]["median_ms"]
    checks = [
        ("restore median, file db", file_ms, f"< {RESTORE_TARGET_MS:g} ms", file_ms < RESTORE_TARGET_MS),
        ("restore median, in-memory db", mem_ms, f"< {RESTORE_TARGET_MS:g} ms", mem_ms < RESTORE_TARGET_MS),
        (
            "respawn / restore (file db)",
            respawn_ms / file_ms,
            f">= {RATIO_TARGET:g}x",
            respawn_ms / file_ms >= RATIO_TARGET,
        ),
        (
            "respawn / restore (in-memory db)",
            respawn_ms / mem_ms,
            f">= {RATIO_TARGET:g}x",
            respawn_ms / mem_ms >= RATIO_TARGET,
        ),
    ]
    print()
    print(
        table(
            ["check", "value", "target", "result"],
            [[name, value, target, verdict(ok)] for name, value, target, ok in checks],
            title="Targets (ms, or x for ratios; medians)",
        )
    )

    resets: dict[str, Any] = {}
    rows = []
    for transport, got in reset_samples.items():
        s = {k: summarize(v) for k, v in got.items()}
        env_ms, restore_ms, fp_ms = (s[k]["median_ms"] for k in ("env.reset", "restore", "fingerprint"))
        resets[transport] = {"stats_ms": s}
        rows.append(
            [
                transport,
                env_ms,
                s["env.reset"]["p10_ms"],
                s["env.reset"]["p90_ms"],
                restore_ms,
                fp_ms,
                env_ms - restore_ms - fp_ms,
                int(s["env.reset"]["n"]),
            ]
        )
    print()
    print(
        table(
            [
                "transport",
                "env.reset",
                "p10",
                "p90",
                "state.restore",
                "state.fingerprint",
                "rest",
                "n",
            ],
            rows,
            title="Full env.reset() warm (seed-0 state, ms; its restore and fingerprint timed apart)",
        )
    )
    return {
        "stats_ms": stats,
        "checks": [{"check": n, "value": v, "target": t, "pass": ok} for n, v, t, ok in checks],
        "env_reset": resets,
        "respawn_over_restore_file": respawn_ms / file_ms,
        "respawn_over_restore_memory": respawn_ms / mem_ms,
    }


def report_restart(samples: dict[str, list[float]]) -> dict[str, Any]:
    """Print what ``restart_on_reset`` costs a reset, and return it (a ratio of medians, same run)."""
    stats = {k: summarize(v) for k, v in samples.items()}
    ratio = stats[RESET_RESTART]["median_ms"] / stats[RESET_WARM]["median_ms"]
    print()
    print(
        table(
            ["measurement (ms)", "median", "p10", "p90", "n"],
            [[k, s["median_ms"], s["p10_ms"], s["p90_ms"], int(s["n"])] for k, s in stats.items()],
            title=f"What restart_on_reset costs a reset: {ratio:.0f}x a warm reset (medians)",
        )
    )
    return {"restart_on_reset_ms": stats, "restart_on_reset_over_warm_reset": ratio}


if __name__ == "__main__":
    sys.exit(main())
