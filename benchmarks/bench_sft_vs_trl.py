"""SFT step: gym-mcp's ``sft_step`` (padded, and packed) versus TRL's SFTTrainer step, on the same batch.

The unit compared is **one supervised update over one fixed batch** of B reference conversations
of banking tasks with 1 to 3 calls (so of different lengths), the same token ids and labels on
every side (our `encode_conversation`: the model's own tokens labelled, the rest context), the
same model, the same LoRA initialisation and AdamW at the same rate, timed end to end:

- ``ours padded``: `gym_mcp.train.losses.sft_step` on `pad_batch`'s rows, ``--micro`` rows a
  forward pass (default all B: one pass), exactly as the trainer calls it;
- ``ours packed``: the same on `pack_batch`'s rows (``TrainConfig.sft_pack_tokens``): every
  conversation in one row, position ids restarting per conversation, no padding;
- ``TRL padded``: ``SFTTrainer.compute_loss`` + ``accelerator.backward`` + the optimizer step
  on the batch TRL's own collator makes of the same ``input_ids`` and ``labels`` (the body of
  ``Trainer.training_step``; its entropy and accuracy metrics included, as TRL computes them);
- ``TRL padding-free``: the same with ``SFTConfig(padding_free=True)``: TRL's collator
  flattens the batch into one row with restarting position ids.

All sides fp32 (bf16 would add autocast on every side alike), no gradient checkpointing. The
first step's losses are compared (the token mean over the labelled tokens on every side): equal
losses show the four compute the same thing. Throughput: the batch's tokens (no padding) / the
median step time, rounds rotated so drift hits every side. On CUDA each side's peak memory in a
step (``max_memory_allocated`` minus the allocation before it).

Target: ours (the faster of padded and packed) / TRL (the faster of its two) >= 1.0x tokens/s.

Run: ``python benchmarks/bench_sft_vs_trl.py [--model PATH|smollm2] [--batch 16] [--repeats N]
[--quick]`` (default model: the tiny random Llama of the tests). On the device it runs as
``gpu_check.py``'s ``sft`` part.
"""

from __future__ import annotations

import contextlib
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import base_parser, summarize, table, verdict, write_result
from bench_grpo_vs_trl import LR, load_lora, resolve, trl_settings, trl_update

DESCRIPTION = "SFT step: sft_step (padded, packed) vs TRL's SFTTrainer step (padded, padding-free) on the same batch."
SIDES = ("ours padded", "ours packed", "TRL padded", "TRL padding-free")


def build_batch(batch: int, tokenizer: Any) -> list[Any]:
    """B encoded reference conversations of banking tasks, chains of 1 to 3 calls (varied lengths)."""
    import gymnasium as gym

    import gym_mcp  # noqa: F401 - registers the environments
    from gym_mcp.synth import SynthConfig, synthesize
    from gym_mcp.train.data import encode_conversation, reference_conversation

    tasks = [t for t in synthesize("banking", SynthConfig(n=4 * batch, seed=0, max_chain=3)).tasks if t.reference_calls]
    tasks.sort(key=lambda t: len(t.reference_calls))
    picked = [tasks[round(i * (len(tasks) - 1) / max(1, batch - 1))] for i in range(batch)]  # short to long
    env = gym.make("gym_mcp/Banking-v0", max_steps=6)
    try:
        return [encode_conversation(tokenizer, *reference_conversation(env, task, 3)) for task in picked]
    finally:
        env.close()


def make_step(
    name: str, path: str, examples: list[Any], device: str, micro: int | None, tmp: str
) -> Callable[[], float]:
    """One side's update over the batch, as a function returning the step's loss."""
    import torch

    from gym_mcp.train.data import pack_batch, pad_batch
    from gym_mcp.train.losses import sft_step

    model, tokenizer = load_lora(path, device)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=LR)
    pad = tokenizer.eos_token_id or 0
    if name == "ours padded":
        ids, labels = pad_batch(examples, pad, device)
        return lambda: sft_step(model, optimizer, ids, labels, micro_batch=micro)
    if name == "ours packed":
        ids, labels, positions = pack_batch(examples, pad, sum(len(e.input_ids) for e in examples), device)
        return lambda: sft_step(model, optimizer, ids, labels, micro_batch=micro, position_ids=positions)
    trainer = _trl_trainer(model, tokenizer, examples, device, tmp, padding_free=name == "TRL padding-free")
    rows = [{"input_ids": e.input_ids, "labels": e.labels} for e in examples]
    inputs = {k: v.to(device) if hasattr(v, "to") else v for k, v in trainer.data_collator(rows).items()}
    return trl_update(trainer, optimizer, inputs)


def _trl_trainer(model: Any, tokenizer: Any, examples: list[Any], device: str, tmp: str, padding_free: bool) -> Any:
    import trl
    from datasets import Dataset

    config = trl.SFTConfig(
        per_device_train_batch_size=len(examples),
        padding_free=padding_free,
        max_length=None,
        **trl_settings(tokenizer, tmp, device),
    )
    dataset = Dataset.from_list([{"input_ids": e.input_ids} for e in examples])
    trainer = trl.SFTTrainer(model=model, args=config, train_dataset=dataset, processing_class=tokenizer)
    trainer.model.train()
    return trainer


def timed(step: Callable[[], float], device: str) -> tuple[float, float]:
    """``(seconds, loss)`` of one step, the device synchronized around it."""
    import time

    import torch

    if device == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    loss = step()
    if device == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - start, loss


def main(argv: list[str] | None = None) -> int:
    parser = base_parser(DESCRIPTION, repeats=10, quick_repeats=3)
    parser.add_argument("--model", default=None, help="local model folder, or smollm2 (default: the tiny test model)")
    parser.add_argument("--batch", type=int, default=16, help="B: conversations in the batch (default 16)")
    parser.add_argument("--micro", type=int, default=None, help="rows a forward pass on our sides (default: all)")
    parser.add_argument("--device", default=None, help="cpu or cuda (default: cuda when available)")
    args = parser.parse_args(argv)
    if args.batch < 2:
        parser.error(f"--batch must be >= 2 (packing needs two conversations), got {args.batch}")
    import torch
    from transformers import AutoTokenizer

    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    batch = 4 if args.quick else args.batch
    repeats = args.repeats or (3 if args.quick else 10)
    memory: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="gym-mcp-bench-sft-") as tmp_dir:
        path = resolve(args.model, Path(tmp_dir))
        examples = build_batch(batch, AutoTokenizer.from_pretrained(path, local_files_only=True))
        tokens = sum(len(e.input_ids) for e in examples)
        padded_tokens = batch * max(len(e.input_ids) for e in examples)
        steps = {
            name: make_step(name, path, examples, device, args.micro, f"{tmp_dir}/{i}") for i, name in enumerate(SIDES)
        }
        first_loss = {}
        for name, step in steps.items():  # warm-up, the same-computation check and (CUDA) each step's memory
            if device == "cuda":
                torch.cuda.synchronize()
                before = torch.cuda.memory_allocated()
                torch.cuda.reset_peak_memory_stats()
            first_loss[name] = step()
            if device == "cuda":
                memory[name] = round((torch.cuda.max_memory_allocated() - before) / 1e6, 1)
        samples: dict[str, list[float]] = {name: [] for name in SIDES}
        for r in range(repeats):
            for name in SIDES[r % len(SIDES) :] + SIDES[: r % len(SIDES)]:  # rotate: drift hits every side
                samples[name].append(timed(steps[name], device)[0])

    stats = {name: summarize(v) for name, v in samples.items()}
    speed = {name: tokens / (s["median_ms"] / 1e3) for name, s in stats.items()}
    model_name = "tiny (random, tests/tiny_model.py)" if args.model is None else args.model
    nan = float("nan")
    rows = [
        [name, stats[name]["median_ms"], stats[name]["p10_ms"], stats[name]["p90_ms"], speed[name],
         memory.get(name, nan), first_loss[name]]
        for name in SIDES
    ]  # fmt: skip
    print()
    print(
        table(
            ["update", "median ms", "p10 ms", "p90 ms", "tokens/s", "step peak MB", "first loss"],
            rows,
            title=f"One SFT update, B={batch}, {tokens} tokens ({padded_tokens} padded), model {model_name}, "
            f"{device}, {repeats} rounds",
        )
    )
    ours = max(speed["ours padded"], speed["ours packed"])
    theirs = max(speed["TRL padded"], speed["TRL padding-free"])
    ref = first_loss["TRL padded"]
    same = all(abs(v - ref) <= 1e-4 * max(1.0, abs(ref)) for v in first_loss.values())
    ratio = ours / theirs
    print(
        f"\nours / TRL tokens/s (each side's faster arm): {ratio:.2f} (target >= 1.00: {verdict(ratio >= 1.0)}); "
        f"packed / padded (ours): {speed['ours packed'] / speed['ours padded']:.2f}; "
        f"same first-step loss on every side: {'yes' if same else 'NO'}"
    )
    result = {
        "model": model_name,
        "device": device,
        "batch": batch,
        "micro": args.micro,
        "tokens": tokens,
        "padded_tokens": padded_tokens,
        "repeats": repeats,
        "stats_ms": stats,
        "tokens_per_s": speed,
        "step_peak_mb": memory,
        "first_loss": first_loss,
        "same_loss": same,
        "ratio_tokens_per_s": ratio,
        "ratio_packed_padded": speed["ours packed"] / speed["ours padded"],
        "pass": ratio >= 1.0 and same,
    }
    out = write_result(args.out, "sft_vs_trl", result)
    print(f"\nresult: {out}")
    return 0


if __name__ == "__main__":
    with contextlib.suppress(BrokenPipeError):
        sys.exit(main())
