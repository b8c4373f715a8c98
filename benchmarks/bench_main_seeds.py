"""The main job over several seeds: before/after per seed, paired per task, and pooled, with intervals.

`gym-mcp train` with its defaults and ``seed`` = 0, 1, 2 (the seed moves synthesis, so each seed
has its own 64 held-out tasks, and SFT's batches, GRPO's draws and sampling). Per seed: held-out
success before and after training, paired per task (difference, 95% bootstrap interval,
discordant counts, exact McNemar p; `gym_mcp.evaluation.paired_difference`); the tasks whose
reference asks before an irreversible action; asking for a missing value; calls per solved task
against the reference, per server; wall time and peak RSS. Pooled: the same paired difference
over every seed's tasks.

Each finished seed's per-task outcomes are kept in ``--store`` (default
``benchmarks/results/main_job/``, in the repository), named by seed and a digest of the settings,
and read back instead of training again, as is a run folder under ``--work`` whose
``eval_after.json`` is written: seeds add up across invocations, machines and sessions. A run's
outcomes depend on the CPU's kernels too (the same seed solved other tasks on an AVX2 and an
AVX-512 machine), so the file names the machine's CPU flags it ran on.

Run: ``python benchmarks/bench_main_seeds.py [--seeds 0 1 2] [--quick]`` (a seed is one main job:
12 to 26 minutes on two CPU cores, depending on the CPU). ``--quick`` runs the procedure with the
tests' tiny random model and two steps (a smoke run; nothing stored). Writes
``<out>/main_seeds.json`` and ``main_seeds.png``.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import tempfile
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import base_parser, cpu_kind, finish, save_figure, table

STORE = Path(__file__).resolve().parent / "results" / "main_job"
KEPT = ("server", "variant", "success", "calls", "reference_calls", "asked", "unconfirmed")


def _episodes(path: Path) -> dict[str, dict[str, Any]]:
    """Task id -> the fields kept of its episode in an evaluation file."""
    return {e["task"]: {k: e.get(k) for k in KEPT} for e in json.loads(path.read_text())["episodes"]}


def _run_seed(config: Any, run: Path, stored: Path, quick: bool) -> dict[str, Any]:
    """One seed's record: read back from the store or the run folder, or trained now."""
    from gym_mcp.train import train

    if stored.exists() and not quick:
        print(f"seed {config.seed}: finished before, read from {stored}", file=sys.stderr)
        kept: dict[str, Any] = json.loads(stored.read_text())
        return kept
    saved = run / "config.json"
    if saved.exists() and _differs(json.loads(saved.read_text()), asdict(config)):
        print(f"seed {config.seed}: {run} was trained with other settings; training again", file=sys.stderr)
        shutil.rmtree(run)
    if not (run / "eval_after.json").exists() or quick:
        if run.exists():  # an unfinished run would be resumed, not trained from the start
            shutil.rmtree(run)
        print(f"seed {config.seed}: training in {run}", file=sys.stderr)
        train(replace(config, output_dir=str(run)))
    summary = json.loads((run / "summary.json").read_text())
    record = {
        "seed": config.seed,
        "cpu": cpu_kind(),
        "before": _episodes(run / "eval_before.json"),
        "after": _episodes(run / "eval_after.json"),
        "seconds": sum(summary["timings"].values()),
        "timings": summary["timings"],
        "peak_rss_gb": summary["peak_rss_gb"],
    }
    if not quick:
        stored.parent.mkdir(parents=True, exist_ok=True)
        stored.write_text(json.dumps(record, indent=1))
    return record


def _differs(saved: dict[str, Any], wanted: dict[str, Any]) -> bool:
    """Whether a run folder's ``config.json`` holds other settings than ``wanted`` (``output_dir`` aside)."""
    return {k: v for k, v in saved.items() if k != "output_dir"} != {
        k: v for k, v in wanted.items() if k != "output_dir"
    }


def _calls_ratio(episodes: dict[str, dict[str, Any]], server: str | None) -> str:
    solved = [e for e in episodes.values() if e["success"] >= 1.0 and server in (None, e["server"])]
    calls, reference = sum(e["calls"] for e in solved), sum(e["reference_calls"] for e in solved)
    return f"{calls / len(solved):.2f} / {reference / len(solved):.2f}" if solved and reference else "-"


def main() -> int:
    parser = base_parser(__doc__.splitlines()[0], repeats=1, quick_repeats=1)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2], help="training seeds (default 0 1 2)")
    parser.add_argument("--work", type=Path, default=None, help="where the runs go (default: <out>/main_seeds/)")
    parser.add_argument(
        "--store",
        type=Path,
        default=STORE,
        help="where each seed's outcomes are kept (default benchmarks/results/main_job/)",
    )
    args = parser.parse_args()
    if any(s < 0 for s in args.seeds) or len(set(args.seeds)) != len(args.seeds):
        parser.error(f"--seeds must be distinct and >= 0, got {args.seeds}")
    started = time.perf_counter()
    from gym_mcp.evaluation import paired_difference
    from gym_mcp.train import TrainConfig

    config, scratch = TrainConfig(), None
    if args.quick:
        from tests.tiny_model import build_tiny_model

        scratch = Path(tempfile.mkdtemp())
        config = replace(config, model=str(build_tiny_model(scratch / "tiny")), n_tasks=40, eval_tasks=8,
                         sft_steps=2, grpo_steps=1)  # fmt: skip
        args.seeds = args.seeds[:2]
    settings = {k: v for k, v in asdict(config).items() if k not in ("seed", "output_dir")}
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:8]
    work = scratch / "runs" if scratch is not None else args.work or args.out / "main_seeds"  # quick: never real runs
    records = []
    try:
        for seed in args.seeds:
            run = work / f"seed{seed}"
            stored = args.store / f"seed{seed}-{digest}-{cpu_kind()}.json"
            records.append(_run_seed(replace(config, seed=seed), run, stored, args.quick))
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)

    rows, per_seed, pooled_a, pooled_b = [], {}, [], []
    for r in records:
        ids = sorted(r["after"])
        before = [float(r["before"][i]["success"] >= 1.0) for i in ids]
        after = [float(r["after"][i]["success"] >= 1.0) for i in ids]
        pooled_a += before
        pooled_b += after
        diff = paired_difference(before, after)
        asks = [i for i in ids if r["after"][i]["unconfirmed"] is not None]
        missing = [i for i in ids if r["after"][i]["variant"] == "missing_param"]
        per_seed[r["seed"]] = {
            "cpu": r["cpu"],
            "tasks": len(ids),
            "after_vs_before": diff.__dict__,
            "ask_first_solved": [sum(r["after"][i]["success"] >= 1.0 for i in asks), len(asks)],
            "asked_missing": [sum(bool(r["after"][i]["asked"]) for i in missing), len(missing)],
            "calls_per_solved_vs_reference": {
                s or "all": _calls_ratio(r["after"], s) for s in (None, "banking", "shopping")
            },
            "seconds": r["seconds"],
            "peak_rss_gb": r["peak_rss_gb"],
        }
        seen = per_seed[r["seed"]]
        rows.append(
            [
                r["seed"],
                r["cpu"],
                len(ids),
                diff.text(),
                f"{seen['ask_first_solved'][0]} of {len(asks)}",
                f"{seen['asked_missing'][0]} of {len(missing)}",
                _calls_ratio(r["after"], "banking"),
                _calls_ratio(r["after"], "shopping"),
                f"{r['seconds']:.0f}",
                f"{r['peak_rss_gb']:.2f}",
            ]
        )
    headers = ["seed", "CPU", "tasks", "after - before (paired, 95% CI)", "ask-first solved", "asked missing"]
    headers += ["calls/solved banking (ref)", "shopping (ref)", "seconds", "peak GB"]
    print(table(headers, rows, title="The main job by seed"))
    pooled = paired_difference(pooled_a, pooled_b)
    print(f"\npooled over {len(records)} seeds ({len(pooled_a)} seed-task pairs): {pooled.text()}")
    _plot(per_seed, args.out / "main_seeds.png")
    return finish(args.out, "main_seeds", started, seeds=args.seeds, quick=args.quick, settings_digest=digest,
                  per_seed=per_seed, pooled=pooled.__dict__)  # fmt: skip


def _plot(per_seed: dict[int, dict[str, Any]], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots(figsize=(6, 3.5))
    seeds = list(per_seed)
    for j, (label, key, color) in enumerate((("before", "a", "#999999"), ("after", "b", "#55A868"))):
        ys = [100 * per_seed[s]["after_vs_before"][key] for s in seeds]
        ax.bar([i + (j - 0.5) * 0.35 for i in range(len(seeds))], ys, 0.35, label=label, color=color)
    ax.set_xticks(range(len(seeds)), [f"seed {s}" for s in seeds])
    save_figure(fig, ax, path, "The main job, before and after training, by seed")


if __name__ == "__main__":
    raise SystemExit(main())
