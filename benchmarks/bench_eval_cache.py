"""How much the prompt KV cache carried across turns saves a held-out evaluation.

`evaluate_model` plays episodes in lockstep, one batched generation per turn. With
``reuse_cache`` (the default) each episode's prompt KV cache is kept from one turn to the next,
so a turn runs only its new tokens (the reply and the tool result) through the model; without
it every turn runs the whole conversation again. Both play the same tasks with the same model,
greedily, in alternating rounds; the conversations must come out identical.

Default model: the main job's trained adapter (``runs/train/checkpoint``) on its held-out tasks
(``runs/train/test.jsonl``), so run ``gym-mcp train`` first; ``--quick`` uses the tests' tiny
random model on a few synthesized tasks instead (a smoke run). Target: the cached evaluation
takes at most 0.85x the time of the uncached one. Writes ``runs/bench/eval_cache.json``.

Run: ``python benchmarks/bench_eval_cache.py [--run runs/train] [--repeats 1]`` (about 6
minutes a round on two CPU cores with nothing else running).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import base_parser, finish, median, table, verdict

TARGET = 0.85


def _load(args: Any, scratch: Path) -> tuple[Any, Any, list[Any]]:
    """The model (with the run's adapter), its tokenizer and the tasks to evaluate."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from gym_mcp.tasks import load_tasks

    if args.quick:
        from gym_mcp.synth import SynthConfig, synthesize
        from tests.tiny_model import build_tiny_model

        path = build_tiny_model(scratch / "tiny")
        tasks = synthesize("banking", SynthConfig(n=12, seed=1, max_chain=2)).tasks[:6]
        model = AutoModelForCausalLM.from_pretrained(path, local_files_only=True)
        return model, AutoTokenizer.from_pretrained(path, local_files_only=True), tasks
    from peft import PeftModel

    from gym_mcp.policies.weights import resolve_model

    run = Path(args.run)
    config = json.loads((run / "config.json").read_text())
    path = resolve_model(config["model"])
    base = AutoModelForCausalLM.from_pretrained(path, local_files_only=True)
    model = PeftModel.from_pretrained(base, str(run / "checkpoint"))
    return model, AutoTokenizer.from_pretrained(path, local_files_only=True), load_tasks(run / "test.jsonl")


def main() -> int:
    parser = base_parser(__doc__.splitlines()[0], repeats=1, quick_repeats=1)
    parser.add_argument("--run", default="runs/train", help="a training run folder (default runs/train)")
    args = parser.parse_args()
    started = time.perf_counter()
    if not args.quick and not (Path(args.run) / "checkpoint").is_dir():
        print(f"error: {args.run}/checkpoint not found: run `gym-mcp train` first (or pass --quick)", file=sys.stderr)
        return 2
    import gymnasium as gym

    import gym_mcp
    from gym_mcp.rewards import CompositeReward
    from gym_mcp.train.evaluation import evaluate_model

    with tempfile.TemporaryDirectory() as scratch:
        model, tokenizer, tasks = _load(args, Path(scratch))

        def make_env() -> Any:
            return gym.make(gym_mcp.env_id("banking"), max_steps=3, reward=CompositeReward.grounded())

        seconds: dict[bool, list[float]] = {True: [], False: []}
        plays: dict[bool, list[Any]] = {}
        success: dict[bool, float] = {}
        for _ in range(args.repeats or 1):
            for reuse in (False, True):
                result = evaluate_model(
                    model,
                    tokenizer,
                    make_env,
                    tasks,
                    batch_size=16,
                    max_new_tokens=96,
                    answer_tokens=32,
                    reuse_cache=reuse,
                )
                seconds[reuse].append(result.seconds)
                plays[reuse] = [e["messages"] for e in result.episodes]
                success[reuse] = result.success
    ratio = median(seconds[True]) / median(seconds[False])
    same = plays[True] == plays[False]
    print(
        table(
            ["evaluation", "tasks", "seconds (median)", "success"],
            [
                ["every turn runs the whole prompt", len(tasks), f"{median(seconds[False]):.1f}", success[False]],
                ["prompt cache carried across turns", len(tasks), f"{median(seconds[True]):.1f}", success[True]],
            ],
            title="held-out evaluation, with and without the cache",
        )
    )
    print(f"ratio {ratio:.2f} (target <= {TARGET}): {verdict(ratio <= TARGET)}; identical conversations: {same}")
    return finish(
        args.out,
        "eval_cache",
        started,
        tasks=len(tasks),
        seconds={"cached": seconds[True], "uncached": seconds[False]},
        ratio=ratio,
        identical_conversations=same,
        success={"cached": success[True], "uncached": success[False]},
        verdict=verdict(ratio <= TARGET and same),
    )


if __name__ == "__main__":
    raise SystemExit(main())
