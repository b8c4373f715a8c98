"""The whole suite under `gym-mcp eval`: every bundled server and every named composition.

For each one, ``gym-mcp synth`` writes N tasks (default 20), then ONE ``gym-mcp eval`` run scores
the reference policy (it replays each task's verified calls: it must solve every task) and the
seeded random policy (random tools with random arguments: it should solve almost none) over all
of them, and writes results.json / results.md / results.png in the output folder. Everything goes
through the user-facing commands, as a user would run them.

Run: .venv/bin/python benchmarks/bench_suite_eval.py [--n 20] [--out runs/suite-eval]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import gym_mcp
from gym_mcp.servers import BUNDLED
from gym_mcp.servers.compositions import COMPOSITIONS

CLI = [sys.executable, "-m", "gym_mcp.cli"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--n", type=int, default=20, help="tasks per server or composition (default 20)")
    parser.add_argument("--out", type=Path, default=Path("runs/suite-eval"), help="output folder")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    names = [*sorted(BUNDLED), *sorted(COMPOSITIONS)]
    tasks_dir = args.out / "tasks"
    tasks_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    for i, name in enumerate(names, 1):
        path = tasks_dir / f"{name}.jsonl"
        if not path.exists():
            command = [*CLI, "synth", name, "-n", str(args.n), "--seed", str(args.seed), "-o", str(path), "--quiet"]
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        print(f"[{i}/{len(names)}] tasks for {name}: {path}", file=sys.stderr, flush=True)
    pairs = [
        arg for name in names for arg in ("--env", gym_mcp.env_id(name), "--tasks", str(tasks_dir / f"{name}.jsonl"))
    ]
    command = [*CLI, "eval", *pairs, "--policy", "reference", "--policy", "random", "--seed", str(args.seed)]
    command += ["--reward", "state", "-o", str(args.out), "--quiet"]
    subprocess.run(command, check=True)
    episodes = json.loads((args.out / "results.json").read_text())["episodes"]
    for policy in ("reference", "random"):
        mine = [e for e in episodes if e.get("policy") == policy]
        solved = sum(bool(e.get("success")) for e in mine)
        print(f"{policy}: {solved}/{len(mine)} episodes solved over {len(names)} environments")
    print(f"{time.perf_counter() - t0:.0f} s; tables per environment in {args.out / 'results.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
