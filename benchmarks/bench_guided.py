"""What guided tool calls change: the base model and a trained adapter, decoded freely and guided.

`TrainConfig.guided_calls` (the default) decodes every call under the shown tools' JSON schemas
(see `gym_mcp.policies.guided`), in evaluation and rollouts alike. This plays a finished run's
held-out tasks four times, greedily, with the run's own settings: the base model (adapters off)
and the trained adapter, each decoded freely and guided. Reported per cell: held-out success,
invalid calls per episode, calls per solved task against the reference's, and the time the
evaluation took (guided / free is the cost of the grammar).

The question it answers: how much of the trained model's success is the guidance, and does
guidance help the base model as much (it does not when the base model rarely opens a call).

Default: the main job's run folder (``runs/train``), so run ``gym-mcp train`` first; ``--quick``
uses the tests' tiny random model on a few synthesized tasks (a smoke run). Writes
``runs/bench/guided.json``.

Run: ``python benchmarks/bench_guided.py [--run runs/train]`` (about 6 minutes on two CPU cores
with nothing else running).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import base_parser, evaluate_as_run, finish, table


def _load(args: Any, scratch: Path) -> tuple[Any, Any, list[Any], dict[str, Any]]:
    """The model with the run's adapter, its tokenizer, the held-out tasks and the run's settings."""
    from peft import LoraConfig, PeftModel, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from gym_mcp.tasks import load_tasks
    from gym_mcp.train import TrainConfig

    if args.quick:
        from gym_mcp.synth import SynthConfig, synthesize
        from tests.tiny_model import build_tiny_model

        path = build_tiny_model(scratch / "tiny")
        tasks = synthesize("banking", SynthConfig(n=12, seed=1, max_chain=2)).tasks[:6]
        base = AutoModelForCausalLM.from_pretrained(path, local_files_only=True)
        model = get_peft_model(base, LoraConfig(r=4, target_modules=["q_proj", "v_proj"]))
        return model, AutoTokenizer.from_pretrained(path, local_files_only=True), tasks, vars(TrainConfig())
    from gym_mcp.policies.weights import resolve_model

    run = Path(args.run)
    config = json.loads((run / "config.json").read_text())
    path = resolve_model(config["model"])
    base = AutoModelForCausalLM.from_pretrained(path, local_files_only=True)
    model = PeftModel.from_pretrained(base, str(run / "checkpoint"))
    return model, AutoTokenizer.from_pretrained(path, local_files_only=True), load_tasks(run / "test.jsonl"), config


def main() -> int:
    parser = base_parser(__doc__.splitlines()[0], repeats=1, quick_repeats=1)
    parser.add_argument("--run", default="runs/train", help="a finished training run's folder (default runs/train)")
    args = parser.parse_args()
    started = time.perf_counter()
    import gymnasium as gym

    from gym_mcp import env_id
    from gym_mcp.policies.guided import CallGrammar
    from gym_mcp.policies.prompt import prompt_format
    from gym_mcp.rewards import CompositeReward

    with tempfile.TemporaryDirectory() as scratch:
        model, tokenizer, tasks, config = _load(args, Path(scratch))
        fmt = prompt_format(tokenizer, config["prompt_format"])
        grammar = CallGrammar(tokenizer, fmt, vocab_size=int(model.get_output_embeddings().weight.shape[0]))

        def make_env() -> Any:
            return gym.make(
                env_id(config["server"]), max_steps=config["max_episode_steps"], reward=CompositeReward.grounded()
            )

        cells: dict[str, dict[str, Any]] = {}
        for who in ("base", "trained"):
            for how, guide in (("free", None), ("guided", grammar)):
                with model.disable_adapter() if who == "base" else nullcontext():
                    result = evaluate_as_run(
                        model,
                        tokenizer,
                        make_env,
                        tasks,
                        config,
                        fmt=fmt,
                        grammar=guide,
                        progress=f"{who} model, {how} decoding",
                    )
                cells[f"{who} {how}"] = {
                    "success": result.success,
                    "invalid_calls": result.invalid_calls,
                    "calls_per_solved": result.calls_per_solved,
                    "reference_calls_per_solved": result.reference_calls_per_solved,
                    "seconds": round(result.seconds, 1),
                    "solved": sorted(e["task"] for e in result.episodes if e["success"] >= 1.0),
                }

    def calls(cell: dict[str, Any]) -> str:
        if cell["calls_per_solved"] is None:
            return "n/a"
        return f"{cell['calls_per_solved']:.2f} ({cell['reference_calls_per_solved']:.2f})"

    print(
        table(
            ["model, decoding", "held-out success", "invalid calls / episode", "calls per solved (ref)", "seconds"],
            [
                [name, f"{100 * c['success']:.1f}%", f"{c['invalid_calls']:.2f}", calls(c), c["seconds"]]
                for name, c in cells.items()
            ],
            title=f"\n{len(tasks)} held-out tasks of {args.run if not args.quick else 'the tiny model'}",
        )
    )
    gained = set(cells["trained guided"]["solved"]) - set(cells["trained free"]["solved"])
    lost = set(cells["trained free"]["solved"]) - set(cells["trained guided"]["solved"])
    print(f"\ntrained: guidance solves {len(gained)} more tasks and loses {len(lost)}")
    cost = cells["trained guided"]["seconds"] / max(cells["trained free"]["seconds"], 1e-9)
    print(f"guided / free evaluation time (trained): {cost:.2f}")
    return finish(args.out, "guided", started, tasks=len(tasks), cells=cells, time_ratio=cost)


if __name__ == "__main__":
    raise SystemExit(main())
