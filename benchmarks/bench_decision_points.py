"""Where each kind of decision moved: a run's own mistakes on its held-out tasks, run against run.

Each training run given is loaded as it finished (its checkpoint, settings and held-out tasks,
``test.jsonl``) and its model is played greedily at every reference decision of those tasks,
teacher-forced along the reference (`gym_mcp.train.steps.find_points`, what step-level RL does on
training tasks): each decision (the next call, a question, asking before an irreversible action,
a report, the final stop) is judged right or a named mistake. Episode success says whether a
run got better; this says at which decisions. Runs over the same held-out tasks (the arms of
``bench_rl_ablation.py``) are paired point by point against the first: the mistakes of the first
that a run fixes and the ones it makes that the first did not.

Run: ``python benchmarks/bench_decision_points.py RUN [RUN ...]`` (each a training run folder),
e.g. the arms of a seed of ``bench_rl_ablation.py``. About 7 s a held-out task on two CPU cores
(a 128-task set: ~15 minutes a run). ``--quick`` trains the tests' tiny random model for two SFT
steps and judges it (a smoke run). Writes ``runs/bench/decision_points.json``.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import base_parser, finish, table


def judge_run(run: Path, scratch: Path, *, limit: int = 0, held_out: Path | None = None) -> list[Any]:
    """The judged decision points of ``run``'s model on its held-out tasks (``limit`` of them, evenly spaced; 0: all).

    ``held_out``: a tasks file to judge on instead of the run's ``test.jsonl``.
    """
    from gym_mcp.progress import Progress
    from gym_mcp.tasks import load_tasks
    from gym_mcp.train import GymTrainer, TrainConfig

    saved = json.loads((run / "config.json").read_text())
    source = held_out or run / "test.jsonl"
    tasks = load_tasks(source)
    if limit and limit < len(tasks):  # evenly spaced: the file lists its tasks server by server
        tasks = [tasks[i * len(tasks) // limit] for i in range(limit)]
    # the run's settings and checkpoint, its tasks read back (no synthesis), in a scratch folder:
    # nothing is written into the run
    work = scratch / run.name
    work.mkdir(parents=True)
    (work / "checkpoint").symlink_to((run / "checkpoint").resolve(), target_is_directory=True)
    config = replace(
        TrainConfig(**saved),
        output_dir=str(work),
        tasks=str(source),
        servers={},
        server="",
        eval_servers=[],
        report_to=[],
        rollout_workers=0,
    )
    trainer = GymTrainer(config, progress=False)
    trainer.setup()
    try:
        # at most one decision a reference turn (an episode that ends early has fewer)
        bar = Progress(sum(len(t.reference_dialogue()) for t in tasks), f"judging {run}", "decisions")

        def shown(done: int, _total: int) -> None:
            bar.update(done)

        points = trainer.judge_decisions(tasks, merged=True, progress=shown)  # greedy, no gradient: merged
        bar.close()
    finally:
        trainer.close()
    return points


def _quick_run(scratch: Path) -> Path:
    """A finished two-step SFT run of the tiny random model on a few banking tasks."""
    from gym_mcp.train import TrainConfig, train
    from tests.tiny_model import build_tiny_model

    model = build_tiny_model(scratch / "tiny")
    config = TrainConfig(
        model=str(model),
        server="banking",
        n_tasks=40,
        eval_tasks=4,
        sft_steps=2,
        grpo_steps=0,
        guided_calls=False,
        output_dir=str(scratch / "quick"),
    )
    train(config, progress=False)
    return Path(config.output_dir)


def main() -> int:
    parser = base_parser(__doc__.splitlines()[0], repeats=1, quick_repeats=1)
    parser.add_argument("runs", nargs="*", type=Path, help="training run folders (the first is the baseline)")
    parser.add_argument(
        "--tasks", type=int, default=0, help="judge N of the held-out tasks, evenly spaced (default: all)"
    )
    parser.add_argument(
        "--held-out",
        type=Path,
        default=None,
        help="a tasks file (JSONL) every run is judged on, instead of each run's own test.jsonl "
        "(for a run that held nothing out, e.g. the SFT prefix of bench_rl_ablation.py)",
    )
    args = parser.parse_args()
    if args.tasks < 0:
        parser.error(f"--tasks must be >= 0, got {args.tasks}")
    if args.held_out is not None and not args.held_out.is_file():
        parser.error(f"--held-out {args.held_out}: no such file")
    if not args.runs and not args.quick:
        parser.error("give at least one training run folder (or --quick)")
    for run in args.runs:
        for part in ("config.json", "checkpoint") if args.held_out else ("config.json", "test.jsonl", "checkpoint"):
            if not (run / part).exists():
                parser.error(f"{run}: no {part}; give a finished training run folder")
    from gym_mcp.train.steps import mistake_counts

    started = time.perf_counter()
    judged: dict[str, list[Any]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        runs: list[Path] = list(args.runs)
        if not runs:  # --quick: one tiny run, judged twice to go through the pairing
            runs = [_quick_run(Path(scratch))] * 2
        for i, run in enumerate(runs):
            name = str(run) if str(run) not in judged else f"{run} (again)"
            judged[name] = judge_run(run, Path(scratch) / f"judge{i}", limit=args.tasks, held_out=args.held_out)
    names = list(judged)
    counts = {name: mistake_counts(points) for name, points in judged.items()}
    kinds = sorted({k for c in counts.values() for k in c})
    print(
        table(
            ["decision", "points", *names],
            [[k, counts[names[0]].get(k, {}).get("points", 0), *(_right(counts[n], k) for n in names)] for k in kinds],
            title="held-out decisions judged right (teacher-forced along the reference)",
        )
    )
    paired = {}
    first = {(p.task.id, p.turn): p for p in judged[names[0]]}
    for name in names[1:]:
        other = {(p.task.id, p.turn): p for p in judged[name]}
        shared = first.keys() & other.keys()
        rows: dict[str, dict[str, int]] = {}
        for key in shared:
            a, b = first[key], other[key]
            row = rows.setdefault(a.kind, {"fixed": 0, "broken": 0, "both wrong": 0})
            if a.mistake is not None and b.mistake is None:
                row["fixed"] += 1
            elif a.mistake is None and b.mistake is not None:
                row["broken"] += 1
            elif a.mistake is not None:
                row["both wrong"] += 1
        paired[name] = rows
        print(
            table(
                ["decision", f"{names[0]}'s mistakes fixed", "new mistakes", "wrong in both"],
                [[k, r["fixed"], r["broken"], r["both wrong"]] for k, r in sorted(rows.items())],
                title=f"{name} against {names[0]}, decision by decision",
            )
        )
    return finish(
        args.out,
        "decision_points",
        started,
        runs=names,
        by_kind=counts,
        paired=paired,
        points={n: [_point_row(p) for p in points] for n, points in judged.items()},
    )


def _right(counts: dict[str, dict[str, int]], kind: str) -> str:
    row = counts.get(kind)
    return f"{row['right']}/{row['points']}" if row else "-"


def _point_row(point: Any) -> dict[str, Any]:
    row = {k: v for k, v in asdict(point).items() if k in ("turn", "kind", "mistake")}
    return {"task": point.task.id, **row}


if __name__ == "__main__":
    raise SystemExit(main())
