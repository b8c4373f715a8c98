"""How much the prompt KV cache carried across turns saves a held-out evaluation.

`evaluate_model` plays episodes in lockstep, one batched generation per turn. With
``reuse_cache`` (the default) each episode's prompt KV cache is kept from one turn to the next,
so a turn runs only its new tokens (the reply and the tool result) through the model; without
it every turn runs the whole conversation again. A third arm carries the cache and runs all
episodes' new tokens in one padded pass (``batch_prefill=True``, the default on a GPU only)
instead of the default's one pass per episode on a CPU: what batching the prefill saves or
costs. A fourth carries the cache and plays with the LoRA adapters merged into the weights
(``merge_lora=True``, `gym_mcp.train.loading.merged_lora`): one matrix product per adapted layer
instead of three. A fifth appends each decoded token's keys and values with transformers' own
``torch.cat`` (``decoding.ROOM = 0``) instead of writing them into reserved room
(`gym_mcp.policies.decoding.reserve_room`, the default). ``--arms`` picks the
arms (``cached`` is always one: the others are given as
ratios to it, with the number of episodes whose conversation differs). All play the same tasks
with the same model, greedily, in alternating rounds.

Measured on two cores (32 held-out tasks of a step-level run, 2 rounds, nothing else running):
uncached 136.7 s, cached 104.0 s (0.76x), cached with the batched prefill 113.1 s (1.09x the
cached default), all three conversations identical. The merged arm (``--arms cached merged``, the
same 32 tasks, 2 rounds, nothing else running): cached 112.3 s, merged 89.8 s (0.80x), identical
conversations. The unreserved arm (``--arms cached unreserved --tasks 32 --repeats 2``, the
main job's run of 2026-12-07 evening, nothing else running): reserved 99.5 s, unreserved 102.6 s
(1.03x), identical conversations; these episodes are short (3 steps, no user), and a decode of
48 tokens for 16 rows of 1,500-token prompts measured 0.74x with the room (4 alternating rounds).

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

from gym_mcp.policies import decoding
from gym_mcp.policies.decoding import ROOM

TARGET = 0.85
# arm -> (reuse_cache, batch_prefill, merge_lora, positions the decode cache reserves)
ARMS = {
    "uncached": (False, None, False, ROOM),
    "cached": (True, None, False, ROOM),
    "batched": (True, True, False, ROOM),
    "merged": (True, None, True, ROOM),
    "unreserved": (True, None, False, 0),
}
DESCRIBED = {
    "uncached": "every turn runs the whole prompt",
    "cached": "cache across turns (new tokens per episode on a CPU), adapters unmerged",
    "batched": "cache across turns, new tokens of all episodes in one pass",
    "merged": "cache across turns, LoRA merged into the weights for the evaluation",
    "unreserved": "cache across turns, each decoded token appended by torch.cat (no reserved room)",
}


def _load(args: Any, scratch: Path) -> tuple[Any, Any, list[Any]]:
    """The model (with the run's adapter), its tokenizer and the tasks to evaluate."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from gym_mcp.tasks import load_tasks

    if args.quick:
        from peft import LoraConfig, get_peft_model

        from gym_mcp.synth import SynthConfig, synthesize
        from tests.tiny_model import build_tiny_model

        path = build_tiny_model(scratch / "tiny")
        tasks = synthesize("banking", SynthConfig(n=12, seed=1, max_chain=2)).tasks[:6]
        model = AutoModelForCausalLM.from_pretrained(path, local_files_only=True)
        model = get_peft_model(model, LoraConfig(r=4, target_modules=["q_proj", "v_proj"]))  # adapters to merge
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
    parser.add_argument("--tasks", type=int, default=0, help="evaluate the first N held-out tasks (default: all)")
    parser.add_argument(
        "--arms", nargs="+", choices=list(ARMS), default=list(ARMS), help="the arms to run (default: all five)"
    )
    args = parser.parse_args()
    if args.tasks < 0:
        parser.error(f"--tasks must be >= 0, got {args.tasks}")
    if "cached" not in args.arms:
        parser.error("--arms must include cached (the baseline the other arms are compared with)")
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

        tasks = tasks[: args.tasks] if args.tasks else tasks

        def factory(server: str) -> Any:
            return lambda: gym.make(gym_mcp.env_id(server), max_steps=3, reward=CompositeReward.grounded())

        make_env = {server: factory(server) for server in {t.server for t in tasks}}  # a run may hold several

        seconds: dict[str, list[float]] = {arm: [] for arm in args.arms}
        plays: dict[str, list[Any]] = {}
        success: dict[str, float] = {}
        for _ in range(args.repeats or 1):
            for arm in args.arms:
                reuse, batched, merge, decoding.ROOM = ARMS[arm]
                result = evaluate_model(
                    model,
                    tokenizer,
                    make_env,
                    tasks,
                    batch_size=16,
                    max_new_tokens=96,
                    answer_tokens=32,
                    reuse_cache=reuse,
                    batch_prefill=batched,
                    merge_lora=merge,
                )
                seconds[arm].append(result.seconds)
                plays[arm] = [e["messages"] for e in result.episodes]
                success[arm] = result.success
        decoding.ROOM = ROOM
    print(
        table(
            ["evaluation", "tasks", "seconds (median)", "success"],
            [[DESCRIBED[a], len(tasks), f"{median(seconds[a]):.1f}", success[a]] for a in args.arms],
            title="held-out evaluation, with and without the cache",
        )
    )
    ratios, differing = {}, {}
    for arm in args.arms:
        if arm != "cached" and "cached" in args.arms:
            ratios[arm] = median(seconds[arm]) / median(seconds["cached"])
            differing[arm] = sum(a != b for a, b in zip(plays[arm], plays["cached"], strict=True))
            print(f"{arm} / cached: {ratios[arm]:.2f}; episodes whose conversation differs: {differing[arm]}")
    ratio = ratios.get("uncached")
    if ratio is not None:
        print(f"cached / uncached {1 / ratio:.2f} (target <= {TARGET}): {verdict(1 / ratio <= TARGET)}")
    return finish(
        args.out,
        "eval_cache",
        started,
        tasks=len(tasks),
        seconds=seconds,
        ratio_to_cached=ratios,
        differing_episodes=differing,
        success=success,
        verdict=verdict(1 / ratio <= TARGET and not differing["uncached"]) if ratio is not None else "n/a",
    )


if __name__ == "__main__":
    raise SystemExit(main())
