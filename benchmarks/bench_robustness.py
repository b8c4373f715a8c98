"""Robustness: success clean and under each perturbation family, for the reference and a trained model.

"When Simulation Lies" reports accuracy drops per family: observation < 5%, action space ~15%,
metadata ~40%, transitions ~30%. This plays, for each family, the same tasks clean and under the
family's mix (`gym_mcp.wrappers.MIXES`: each episode draws one of the family's kinds):

- the reference policy (it replays the task's calls under the names shown and retries transient
  failures: what a careful agent that knows the answer does) on synthesized tasks of two servers;
- finished training runs' adapters (``--run``, the main job's ``runs/train`` by default; give it
  more than once to compare runs, e.g. one trained clean and one with ``perturb = "static"``) on
  each run's held-out tasks, evaluated as the trainer evaluates (guided calls, compact tool
  lists, the run's user and settings). A run folder without a checkpoint is skipped.

With two runs, the first trained clean and the second with domain randomization over the static
families, it also reports the paper's figure: the share of the first model's transition gap
(clean success minus success under the transition family, which neither run trained on) that
the second model closes.

Writes ``runs/bench/robustness.json`` and ``docs/robustness.png``.

Run: ``python benchmarks/bench_robustness.py [--run runs/train] [--n 20]`` (about 15 minutes on
two CPU cores with a run; under a minute without).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import base_parser, evaluate_as_run, finish, table

FAMILIES = ("observation", "action", "metadata", "transition")
SERVERS = ("banking", "shopping")


def _reference(n: int) -> dict[str, dict[str, float]]:
    """Reference success per server: clean and under each family."""
    from gym_mcp import env_id
    from gym_mcp.evaluation import EvalConfig, evaluate
    from gym_mcp.policies import ReferencePolicy
    from gym_mcp.synth import SynthConfig, synthesize

    out: dict[str, dict[str, float]] = {}
    for server in SERVERS:
        tasks = synthesize(server, SynthConfig(n=n, seed=0, max_chain=3)).tasks
        cells: dict[str, float] = {}
        for family in ("clean", *FAMILIES):
            config = EvalConfig(perturb=None if family == "clean" else family, max_steps=30)
            result = evaluate([(env_id(server), tasks)], {"reference": ReferencePolicy}, config)
            cells[family] = float(result.metrics["reference"][env_id(server)]["success_rate"] or 0.0)
            print(f"reference on {server}, {family}: {cells[family]:.1%}", file=sys.stderr, flush=True)
        out[server] = cells
    return out


def _trained(run: Path) -> dict[str, Any] | None:
    """The run's adapter on its held-out tasks: clean and under each family (the trainer's evaluation)."""
    if not (run / "checkpoint" / "adapter_model.safetensors").is_file():
        print(f"no trained adapter in {run}: the trained model's row is skipped", file=sys.stderr)
        return None
    import gymnasium as gym
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from gym_mcp import env_id
    from gym_mcp.policies.guided import CallGrammar
    from gym_mcp.policies.prompt import prompt_format
    from gym_mcp.policies.weights import resolve_model
    from gym_mcp.rewards import CompositeReward
    from gym_mcp.tasks import load_tasks
    from gym_mcp.wrappers import Perturb

    config = json.loads((run / "config.json").read_text())
    path = resolve_model(config["model"])
    model = PeftModel.from_pretrained(
        AutoModelForCausalLM.from_pretrained(path, local_files_only=True), str(run / "checkpoint")
    )
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    tasks = load_tasks(run / "test.jsonl")
    fmt = prompt_format(tokenizer, config["prompt_format"])
    grammar = CallGrammar(tokenizer, fmt, vocab_size=int(model.get_output_embeddings().weight.shape[0]))
    cells: dict[str, float] = {}
    for family in ("clean", *FAMILIES):

        def make_env(family: str = family) -> Any:
            env = gym.make(
                env_id(config["server"]),
                max_steps=config["max_episode_steps"],
                reward=CompositeReward.grounded(),
                user=config["user"] or None,
            )
            return env if family == "clean" else Perturb(env, family, seed=config["seed"])

        grammar_or_none = grammar if config["guided_calls"] else None
        progress = f"trained model, {family}"
        result = evaluate_as_run(
            model, tokenizer, make_env, tasks, config, fmt=fmt, grammar=grammar_or_none, progress=progress
        )
        cells[family] = float(result.success)
    return {
        "run": str(run),
        "perturb": config.get("perturb", ""),
        "server": config["server"],
        "tasks": len(tasks),
        "cells": cells,
    }


def _plot(rows: list[tuple[str, dict[str, float]]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = ("clean", *FAMILIES)
    fig, ax = plt.subplots(figsize=(8, 3.8))
    width = 0.8 / len(rows)
    colors = ["#4C72B0", "#DD8452", "#55A868", "#C44E52"]
    for i, (label, cells) in enumerate(rows):
        xs = [g + (i - (len(rows) - 1) / 2) * width for g in range(len(groups))]
        bars = ax.bar(xs, [cells[g] for g in groups], width=width, label=label, color=colors[i % len(colors)])
        ax.bar_label(bars, labels=[f"{cells[g]:.0%}" for g in groups], fontsize=6, padding=1)
    ax.set_xticks(range(len(groups)), groups)
    ax.set_ylim(0, 1.12)
    ax.set_ylabel("success rate")
    ax.legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(rows), frameon=False)
    ax.set_title("clean vs each perturbation family", pad=20)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main() -> int:
    parser = base_parser(__doc__.splitlines()[0], repeats=1, quick_repeats=1)
    parser.add_argument(
        "--run", action="append", help="a finished training run's folder (default runs/train); repeatable"
    )
    parser.add_argument("--n", type=int, default=20, help="synthesized tasks per server for the reference")
    parser.add_argument("--plot", default="docs/robustness.png", help="where the PNG goes")
    args = parser.parse_args()
    started = time.perf_counter()
    reference = _reference(5 if args.quick else args.n)
    runs = [] if args.quick else [_trained(Path(r)) for r in (args.run or ["runs/train"])]
    trained = [r for r in runs if r is not None]
    rows: list[tuple[str, dict[str, float]]] = [(f"reference, {s}", c) for s, c in reference.items()]
    for r in trained:
        how = f"perturb={r['perturb']}" if r["perturb"] else "clean"
        rows.append((f"trained ({how}), {r['server']} ({r['tasks']} held-out)", r["cells"]))
    print(
        table(
            ["policy, tasks", "clean", *FAMILIES],
            [[label, *(f"{100 * cells[g]:.1f}%" for g in ("clean", *FAMILIES))] for label, cells in rows],
            title="\nsuccess, clean and under each family (each episode draws one kind of the family)",
        )
    )
    closed = None
    if len(trained) >= 2:
        base, dr = trained[0]["cells"], trained[1]["cells"]
        gap = base["clean"] - base["transition"]
        if gap > 0:
            closed = (dr["transition"] - base["transition"]) / gap
            print(
                f"\ntransition gap of the first run: {100 * gap:.1f} points; the second run closes {closed:.0%} of it "
                "(the paper: ~27%)"
            )
    _plot(rows, Path(args.plot))
    return finish(args.out, "robustness", started, reference=reference, trained=trained, gap_closed=closed)


if __name__ == "__main__":
    raise SystemExit(main())
