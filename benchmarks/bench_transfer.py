"""Transfer to servers the model never saw: trained on one server, on K others, or on K plus the targets.

Three held-out targets (two bundled servers and a composition, none of whose parts any arm but
the ceiling trains on) and four arms, all at equal training steps (the main job's recipe
otherwise, ``TrainConfig(precision="fp32", n_tasks=300)``):

- ``base``: no training;
- ``banking``: trained on banking alone (the trainer before issue 38);
- ``K servers``: trained on K other servers (default six), equal shares. ``--k-compositions``
  adds compositions of those servers (``shop_bank``, ``travel_calendar_email``): namespaced
  tools and values bridged between parts, the shape of the composition target. Measured (seed
  0): it did not move the composition target (tracker_chat 3 of 43 solved against 2 without;
  crm 11 against 12, social_media 6 against 5), so the default stays without;
- ``ceiling``: the K servers plus the targets' own train-split tasks (the in-domain ceiling).

Every arm is evaluated on the same tasks: each target's test-split tasks (templates and entities
its train split does not use), written once and read back by every run, so the comparisons are
paired task by task. Trained arms run once per seed (``--seeds``; the seed moves SFT's batches,
GRPO's draws and sampling; the tasks stay). Each finished run's per-task outcomes are kept in
``--store`` (default ``benchmarks/results/transfer/``, in the repository), named by arm, seed and
a digest of the training tasks and the recipe, and the CPU's vector extensions (they change the
float kernels, and so which tasks a run solves); read back instead of training again (as is a
run folder whose ``eval_after.json`` is written). ``--arms`` picks which arms are trained where
none is: seeds and arms can be added one invocation, machine or session at a time. Reported per
target and arm: success (mean over seeds) and the paired difference against base with its 95%
bootstrap interval and discordant counts (`gym_mcp.evaluation.paired_difference`), and the
share of the base-to-ceiling gap the K-server arm closes. Target (issue 38): at least half the
gap on every target.

Run: ``python benchmarks/bench_transfer.py [--seeds 0 1 2] [--eval-per-target 43] [--quick]``
(on two CPU cores 12 to 25 minutes a trained run, depending on the CPU: expect hours for three
seeds; ``--quick`` is a smoke run of the procedure with a tiny random model). Writes
``<out>/transfer.json`` and ``transfer.png``.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import base_parser, cpu_kind, finish, save_figure, table, verdict

TARGETS = ("crm", "social_media", "tracker_chat")
K_SERVERS = ("banking", "shopping", "calendar", "email", "travel_booking", "payments")
K_COMPOSITIONS = ("shop_bank", "travel_calendar_email")  # built from K_SERVERS only (``--k-compositions``)
ARMS = ("base", "banking", "K servers", "ceiling")
STORE = Path(__file__).resolve().parent / "results" / "transfer"
COLORS = {"base": "#999999", "banking": "#4C72B0", "K servers": "#55A868", "ceiling": "#C44E52"}


def _tasks(servers: tuple[str, ...], n_each: int, seed: int, config: Any) -> dict[str, list[Any]]:
    """``n_each`` synthesized tasks per server (the main job's synthesis settings), by server."""
    from gym_mcp.progress import progress_bar
    from gym_mcp.synth import SynthConfig, synthesize_many

    settings = SynthConfig(n=n_each, seed=seed, max_chain=config.max_chain)
    made = synthesize_many(
        dict.fromkeys(servers, settings), progress=progress_bar(f"synthesizing {', '.join(servers)}", "tasks")
    )
    return {server: result.tasks for server, result in made.items()}


def _write(path: Path, tasks: list[Any]) -> Path:
    from gym_mcp.tasks import save_tasks

    save_tasks(tasks, path)
    return path


def _outcomes(run: Path) -> dict[str, float]:
    """Task id -> success of the run's trained model (``eval_after.json``)."""
    return {e["task"]: float(e["success"]) for e in json.loads((run / "eval_after.json").read_text())["episodes"]}


def _base(run: Path) -> dict[str, float]:
    return {e["task"]: float(e["success"]) for e in json.loads((run / "eval_before.json").read_text())["episodes"]}


def _add(
    outcomes: dict[str, dict[str, list[float]]], arm: str, after: dict[str, float], before: dict[str, float]
) -> None:
    """Add one run's per-task outcomes to ``outcomes`` (and the base model's, once: it is greedy)."""
    for task, ok in after.items():
        if task in outcomes[arm]:
            outcomes[arm][task].append(ok)
    if not any(outcomes["base"].values()):  # the base model is greedy: one evaluation serves all
        for task, ok in before.items():
            if task in outcomes["base"]:
                outcomes["base"][task].append(ok)


def main() -> int:
    parser = base_parser(__doc__.splitlines()[0], repeats=1, quick_repeats=1)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2], help="training seeds (default 0 1 2)")
    parser.add_argument("--eval-per-target", type=int, default=43, help="held-out tasks per target (default 43)")
    parser.add_argument(
        "--k-compositions",
        nargs="*",
        default=[],
        help=f"compositions of K servers the K arm also trains on (e.g. {' '.join(K_COMPOSITIONS)}; default none)",
    )
    parser.add_argument(
        "--k-servers",
        nargs="+",
        default=list(K_SERVERS),
        help=f"the K arm's servers (default {' '.join(K_SERVERS)}); banking must be one, no target or part of one",
    )
    parser.add_argument("--work", type=Path, default=None, help="where the runs go (default: <out>/transfer/)")
    parser.add_argument(
        "--store",
        type=Path,
        default=STORE,
        help="where each finished run's per-task outcomes are kept and read back (default: benchmarks/results/"
        "transfer/, kept in the repository so seeds add up across machines and sessions)",
    )
    parser.add_argument(
        "--arms", nargs="+", default=list(ARMS[1:]), help="arms to train where none finished (default: all three)"
    )
    args = parser.parse_args()
    if args.eval_per_target < 1 or any(s < 0 for s in args.seeds):
        parser.error("--eval-per-target must be >= 1 and seeds >= 0")
    if unknown := sorted(set(args.arms) - set(ARMS[1:])):
        parser.error(f"--arms: unknown {', '.join(unknown)}; choose from {', '.join(ARMS[1:])}")
    from gym_mcp import server_names
    from servers.compositions import COMPOSITIONS

    k_servers = tuple(args.k_servers)
    parts = {part for target in TARGETS if target in COMPOSITIONS for part in COMPOSITIONS[target].parts.values()}
    bad = [n for n in k_servers if n not in server_names() or n in TARGETS or n in parts or n in COMPOSITIONS]
    if bad or "banking" not in k_servers or len(set(k_servers)) != len(k_servers):
        parser.error(
            f"--k-servers: {', '.join(bad) or 'a repeat or no banking'}: give distinct bundled servers, banking one "
            f"of them, none a target ({', '.join(TARGETS)}) or a part of one ({', '.join(sorted(parts))})"
        )
    for name in args.k_compositions:
        if name not in COMPOSITIONS or not set(COMPOSITIONS[name].parts.values()) <= set(k_servers):
            parser.error(f"--k-compositions: {name!r} is not a composition of K servers ({', '.join(k_servers)})")
    started = time.perf_counter()
    from gym_mcp.evaluation import paired_difference
    from gym_mcp.train import TrainConfig, train

    # the recipe every figure was measured with: the main job's defaults of then (fp32, before
    # `precision`; 300 tasks a run, so 150 a server here); runs read back and runs trained now match
    base = TrainConfig(precision="fp32", n_tasks=300)
    scratch = None
    per_server = base.n_tasks // 2  # each arm trains on about the main job's count per server
    if args.quick:  # a smoke run of the procedure: the tests' tiny random model, few steps and tasks
        from tests.tiny_model import build_tiny_model

        scratch = Path(tempfile.mkdtemp())
        base = replace(base, model=str(build_tiny_model(scratch / "tiny")), sft_steps=2, grpo_steps=1)
        args.seeds, args.eval_per_target, per_server = args.seeds[:1], 3, 8
    work = args.work or args.out / "transfer"
    work.mkdir(parents=True, exist_ok=True)
    try:
        # the targets' tasks: their test splits are every arm's evaluation, their train splits the ceiling's
        # about a fifth of a server's synthesized tasks land in its test split
        targets = _tasks(TARGETS, max(per_server, 8 * args.eval_per_target), 10_000, base)
        tests = {server: [t for t in targets[server] if t.split == "test"] for server in TARGETS}
        short = {s: len(t) for s, t in tests.items() if len(t) < args.eval_per_target}
        if short:
            print(f"fewer test-split tasks than --eval-per-target: {short}", file=sys.stderr)
        held = [t for server in TARGETS for t in tests[server][: args.eval_per_target]]
        own = [t for server in TARGETS for t in targets[server] if t.split == "train"]
        k_names = (*k_servers, *args.k_compositions)
        others = _tasks(k_names, per_server, 0, base)
        k_train = [t for server in k_names for t in others[server] if t.split == "train"]
        bank_train = [t for t in others["banking"] if t.split == "train"]
        files = {
            "banking": _write(work / "banking.jsonl", bank_train + held),
            "K servers": _write(work / "k_servers.jsonl", k_train + held),
            "ceiling": _write(work / "ceiling.jsonl", k_train + own + held),
        }
        print(
            f"evaluation: {len(held)} tasks ({', '.join(f'{s} {sum(t.server == s for t in held)}' for s in TARGETS)}); "
            f"training tasks: banking {len(bank_train)}, K servers {len(k_train)}, ceiling {len(k_train) + len(own)}",
            file=sys.stderr,
        )
        outcomes: dict[str, dict[str, list[float]]] = {arm: {t.id: [] for t in held} for arm in ARMS}
        recipe = json.dumps(asdict(base), sort_keys=True).encode()
        for seed in args.seeds:
            for arm, tasks_file in files.items():
                # named by the training tasks' content and the recipe: a run on other tasks or with other
                # settings is never read back as this arm's
                digest = hashlib.sha256(tasks_file.read_bytes() + recipe).hexdigest()[:8]
                run = work / f"seed{seed}" / f"{arm.replace(' ', '_')}-{digest}"
                stored = args.store / f"{arm.replace(' ', '_')}-seed{seed}-{digest}-{cpu_kind()}.json"
                if stored.exists() and not args.quick:
                    print(f"seed {seed}, arm {arm}: finished before, read from {stored}", file=sys.stderr)
                    kept = json.loads(stored.read_text())
                    _add(outcomes, arm, kept["after"], kept["before"])
                    continue
                if (run / "eval_after.json").exists() and not args.quick:
                    print(f"seed {seed}, arm {arm}: finished before, read from {run}", file=sys.stderr)
                elif arm not in args.arms:
                    continue
                else:
                    if run.exists():  # an unfinished run would be resumed, not trained from the start
                        shutil.rmtree(run)
                    print(f"seed {seed}, arm {arm}: training", file=sys.stderr)
                    eval_servers = [] if arm == "ceiling" else list(TARGETS)
                    train(
                        replace(
                            base,
                            seed=seed,
                            tasks=str(tasks_file),
                            eval_servers=eval_servers,
                            eval_tasks=len(held),
                            output_dir=str(run),
                        )
                    )
                after, before = _outcomes(run), _base(run)
                if not args.quick:
                    args.store.mkdir(parents=True, exist_ok=True)
                    stored.write_text(json.dumps({"arm": arm, "seed": seed, "after": after, "before": before}))
                _add(outcomes, arm, after, before)
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)

    rows, results = [], {}
    for server in TARGETS:
        ids = [t.id for t in held if t.server == server]
        per_arm = {arm: {i: outcomes[arm][i] for i in ids if outcomes[arm][i]} for arm in ARMS}
        ran = [arm for arm in ARMS if per_arm[arm]]
        mean = {arm: statistics.mean(statistics.mean(v) for v in per_arm[arm].values()) for arm in ran}
        # base once per seed the other arm ran (greedy decoding: the same outcome every seed)
        diffs = {
            arm: paired_difference({i: per_arm["base"][i][:1] * len(v) for i, v in per_arm[arm].items()}, per_arm[arm])
            for arm in ran[1:]
        }
        gap = mean.get("ceiling", float("nan")) - mean["base"]
        closed = (mean.get("K servers", float("nan")) - mean["base"]) / gap if gap > 0 else float("nan")
        results[server] = {
            "tasks": len(ids),
            "seeds": {arm: len(next(iter(per_arm[arm].values()))) for arm in ran[1:]},
            "success": mean,
            "vs_base": {arm: d.__dict__ for arm, d in diffs.items()},
            "gap_closed": closed,
        }
        for arm in ran:
            rows.append(
                [
                    server,
                    arm,
                    f"{100 * mean[arm]:.1f}%",
                    diffs[arm].text() if arm in diffs else "-",
                ]
            )
    print(table(["target", "arm", "success", "vs base (paired, 95% CI)"], rows, title="\nTransfer to unseen servers"))
    closes = {s: r["gap_closed"] for s, r in results.items()}
    ok = all(c == c and c >= 0.5 for c in closes.values())
    print(
        f"\nshare of the base-to-ceiling gap the K-server arm closes: "
        f"{', '.join(f'{s} {c:.2f}' for s, c in closes.items())}; target >= 0.5 on every target: {verdict(ok)}"
    )
    _plot(results, args.out / "transfer.png")
    return finish(
        args.out,
        "transfer",
        started,
        targets=list(TARGETS),
        k_servers=list(k_servers),
        k_compositions=list(args.k_compositions),
        seeds=args.seeds,
        quick=args.quick,
        results=results,
        target_met=ok,
    )


def _plot(results: dict[str, Any], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots(figsize=(8, 3.8))
    width = 0.2
    for j, arm in enumerate(ARMS):
        if any(arm not in r["success"] for r in results.values()):
            continue
        xs = [i + (j - 1.5) * width for i in range(len(results))]
        ys = [100 * r["success"][arm] for r in results.values()]
        err = None
        if arm != "base":
            lows = [100 * (r["vs_base"][arm]["low"] + r["success"]["base"]) for r in results.values()]
            highs = [100 * (r["vs_base"][arm]["high"] + r["success"]["base"]) for r in results.values()]
            err = [[y - lo for y, lo in zip(ys, lows, strict=True)], [hi - y for y, hi in zip(ys, highs, strict=True)]]
        ax.bar(xs, ys, width, yerr=err, capsize=3, label=arm, color=COLORS[arm])
    ax.set_xticks(range(len(results)), list(results))
    save_figure(fig, ax, path, "Transfer to servers never trained on (bars: 95% paired interval vs base)")


if __name__ == "__main__":
    raise SystemExit(main())
