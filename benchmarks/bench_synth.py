"""Task synthesis at scale: throughput, replay share, quality, and an independent check.

For each bundled server and named composition (or those named by ``--servers``): synthesize N
tasks (default 500)
with ``gym-mcp synth``'s pipeline, then check every task independently by replaying its reference calls through
``gym.make(...)`` and reading the default reward (must be 1.0), then synthesize again with the
same seed and compare the files byte for byte.

Run: .venv/bin/python benchmarks/bench_synth.py [--n 500] [--quick] [--servers NAME ...]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import gymnasium as gym

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import base_parser, table, write_result

import gym_mcp
from gym_mcp import load_tasks
from gym_mcp.servers import BUNDLED
from gym_mcp.servers.compositions import COMPOSITIONS
from gym_mcp.synth import SynthConfig, synthesize, write_outputs


def independent_check(server: str, path: Path) -> tuple[int, int]:
    """Replay every task through gym.make; count rewards of 1.0."""
    tasks = load_tasks(path)
    env = gym.make(gym_mcp.env_id(server), tasks=str(path), max_steps=50)
    ok = 0
    try:
        for task in tasks:
            env.reset(options={"task_id": task.id})
            for call in task.reference_calls:
                env.step(dict(call))
            _, reward, *_ = env.step("Done.")
            ok += reward == 1.0
    finally:
        env.close()
    return ok, len(tasks)


def main(argv: list[str] | None = None) -> int:
    parser = base_parser(__doc__ or "", repeats=1, quick_repeats=1)
    parser.add_argument("--n", type=int, default=None, help="tasks per server (default 500; 60 with --quick)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--servers",
        nargs="+",
        default=None,
        metavar="NAME",
        help="bundled servers or compositions to run (default: all of them)",
    )
    args = parser.parse_args(argv)
    servers = args.servers or [*sorted(BUNDLED), *sorted(COMPOSITIONS)]
    n = args.n or (60 if args.quick else 500)
    rows = []
    result: dict[str, Any] = {"n": n, "seed": args.seed, "servers": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for server in servers:
            t0 = time.perf_counter()
            first = synthesize(server, SynthConfig(n=n, seed=args.seed))
            path_a = Path(tmp) / f"{server}-a.jsonl"
            write_outputs(first, path_a)
            wall = time.perf_counter() - t0
            ok, total = independent_check(server, path_a)
            again = synthesize(server, SynthConfig(n=n, seed=args.seed))
            path_b = Path(tmp) / f"{server}-b.jsonl"
            write_outputs(again, path_b)
            identical = path_a.read_bytes() == path_b.read_bytes()
            s = first.stats
            # tasks whose reference calls reach two or more servers (only a composition has parts)
            multi = sum(
                len({c["name"].split(".")[0] for c in t.reference_calls if "." in c["name"]}) >= 2 for t in first.tasks
            )
            rows.append(
                [
                    server,
                    s["tasks"],
                    f"{ok}/{total}",
                    f"{s['unique_call_sequences']:.1%}",
                    f"{s['tool_coverage']:.1%}",
                    s["verified_tasks_per_minute"],
                    f"{s['replay_share']:.0%}",
                    "yes" if identical else "NO",
                    f"{multi / len(first.tasks):.0%}" if server in COMPOSITIONS else "-",
                ]
            )
            result["servers"][server] = {
                **s,
                "independent_reward_1": ok,
                "wall_seconds": round(wall, 2),
                "same_seed_identical": identical,
                "multi_server_tasks": multi,
            }
            print(f"{server}: done in {wall:.1f}s", file=sys.stderr, flush=True)
    print(
        table(
            [
                "server",
                "tasks",
                "replay reward 1.0",
                "unique seqs",
                "tool coverage",
                "tasks/min",
                "replay share",
                "same bytes",
                "2+ servers",
            ],
            rows,
            title=f"bench_synth: {n} tasks per server, seed {args.seed}",
        )
    )
    print(f"wrote {write_result(args.out, 'synth', result)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
