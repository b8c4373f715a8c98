"""GRPO policy update: gym-mcp's ``grpo_step`` versus TRL's GRPOTrainer update, on the same batch.

The unit compared is **one policy update over one fixed GRPO group** of G conversations
(same model, same LoRA initialisation, same token ids, same optimizer), timed end to end:

- ``ours``: `gym_mcp.train.losses.grpo_step(model, tokenizer, optimizer, rollouts)`, exactly as
  the trainer calls it: encode the G conversations (`encode_conversation`), pad them into one
  batch, a forward + backward through the LoRA model, ``optimizer.step()``, ``zero_grad()``.
- ``TRL``: ``GRPOTrainer.compute_loss(model, inputs)`` + ``accelerator.backward(loss)`` +
  ``optimizer.step()`` + ``zero_grad()``: the body of ``Trainer.training_step`` plus the
  optimizer step of its loop (``training_step`` itself would first try to generate). ``inputs``
  is built from the very token ids ours encodes: prompt = the tokens before the model's first
  own token (left-padded), completion = the rest (right-padded), ``tool_mask`` = the model's
  own tokens (tool results inside the completion are context, as in ours). TRL builds this
  dict while generating, so that part is not timed; ours includes its tokenization (a few ms).

Both sides: fp32, beta / ``kl_coef`` = 0, no gradient checkpointing, TRL ``loss_type="bnpo"``
(the token mean over the batch, which is ``grpo_step``'s objective), AdamW at the same lr.
The first step's losses are compared: equal losses show the two compute the same thing.

Throughput: non-padding tokens in the batch / median step time (the tokens are the same for
every row). Memory: each side runs in a fresh subprocess; on CPU the peak RSS during a step
(``VmHWM`` after resetting it through ``/proc/self/clear_refs``) minus the RSS just before it,
with ``MALLOC_MMAP_THRESHOLD_`` fixed so freed tensors leave the process; on CUDA
``torch.cuda.max_memory_allocated()`` minus the allocation before the step.

Target: ours / TRL >= 1.0x tokens/s at no more step memory (ours / TRL <= 1.0x).

Run: ``python benchmarks/bench_grpo_vs_trl.py [--model PATH|smollm2] [--group 8] [--repeats N] [--quick]``
(default model: the tiny random Llama of the tests, built in a temporary folder).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import base_parser, median, summarize, table, verdict, write_result

DESCRIPTION = "GRPO policy update: grpo_step vs TRL's GRPOTrainer loss/update step on the same batch."
SIDES = ("ours", "TRL")
LORA = {"r": 8, "lora_alpha": 16, "target_modules": ["q_proj", "k_proj", "v_proj", "o_proj"]}
LR = 1e-5


# -- the batch ------------------------------------------------------------------------------------


def build_group(group: int, chain: int, distractors: int) -> list[dict[str, Any]]:
    """G conversations of one task (its reference calls played on the live server), final answers of varied length.

    Returned as JSON-ready dicts (messages, tools, reward) so subprocesses rebuild the same rollouts.
    """
    import gymnasium as gym

    import gym_mcp  # noqa: F401 - registers the environments
    from gym_mcp.synth import SynthConfig, synthesize
    from gym_mcp.train.data import reference_conversation

    tasks = synthesize("banking", SynthConfig(n=40, seed=0, max_chain=chain)).tasks
    task = next((t for t in tasks if len(t.reference_calls) == chain), tasks[0])
    env = gym.make("gym_mcp/Banking-v0", max_steps=chain + 2)
    try:
        messages, tools = reference_conversation(env, task, distractors)
    finally:
        env.close()
    out = []
    for i in range(group):
        answer = "Done." + " The request is complete and the account is up to date." * (i % 4)
        convo = [*messages[:-1], {"role": "assistant", "content": answer}]
        out.append({"messages": convo, "tools": tools, "reward": float(i % 2)})
    return out


def to_rollouts(group: list[dict[str, Any]]) -> list[Any]:
    from gym_mcp.train.rollouts import Rollout

    return [Rollout(g["messages"], g["tools"], g["reward"]) for g in group]


def trl_inputs(tokenizer: Any, rollouts: list[Any], device: str) -> tuple[dict[str, Any], int]:
    """TRL's ``inputs`` for the same token ids ours encodes; also the non-padding token count."""
    import torch

    from gym_mcp.train.data import IGNORE, encode_conversation
    from gym_mcp.train.losses import group_advantages

    examples = [encode_conversation(tokenizer, r.messages, r.tools) for r in rollouts]
    starts = [next(i for i, label in enumerate(e.labels) if label != IGNORE) for e in examples]
    width_p = max(starts)
    width_c = max(len(e.input_ids) - s for e, s in zip(examples, starts, strict=True))
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else (tokenizer.eos_token_id or 0)
    rows: dict[str, list[list[int]]] = {k: [] for k in ("pi", "pm", "ci", "cm", "tm")}
    for e, s in zip(examples, starts, strict=True):
        prompt, completion = e.input_ids[:s], e.input_ids[s:]
        own = [int(label != IGNORE) for label in e.labels[s:]]
        rows["pi"].append([pad] * (width_p - s) + prompt)
        rows["pm"].append([0] * (width_p - s) + [1] * s)
        fill = width_c - len(completion)
        rows["ci"].append(completion + [pad] * fill)
        rows["cm"].append([1] * len(completion) + [0] * fill)
        rows["tm"].append(own + [0] * fill)
    advantages = group_advantages([r.reward for r in rollouts])
    inputs = {
        "prompt_ids": torch.tensor(rows["pi"], device=device),
        "prompt_mask": torch.tensor(rows["pm"], device=device),
        "completion_ids": torch.tensor(rows["ci"], device=device),
        "completion_mask": torch.tensor(rows["cm"], device=device),
        "tool_mask": torch.tensor(rows["tm"], device=device),
        "advantages": torch.tensor(advantages, device=device),
        "num_items_in_batch": torch.tensor(float(sum(map(sum, rows["tm"]))), device=device),
    }
    return inputs, sum(len(e.input_ids) for e in examples)


# -- the three updates -----------------------------------------------------------------------------


@dataclass
class Side:
    """One way of doing the update: ``step()`` runs it once and returns the loss."""

    name: str
    model: Any
    step: Callable[[], float]


def load_lora(path: str, device: str) -> tuple[Any, Any]:
    """The model with fresh LoRA adapters, as `load_lora_model` makes it, for every side alike.

    A model converted from GGUF by `gym_mcp.policies.weights` keeps a ``quantization_config`` in its
    config.json; its weights are plain fp32, but transformers' Trainer (hence TRL) refuses a model
    loaded with it, so it is dropped here.
    """
    import peft
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    config = AutoConfig.from_pretrained(path, local_files_only=True)
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    base = AutoModelForCausalLM.from_pretrained(path, config=config, local_files_only=True)
    torch.manual_seed(0)  # the same LoRA initialisation for every side
    model = peft.get_peft_model(base, peft.LoraConfig(**LORA))
    return model.to(device).train(), AutoTokenizer.from_pretrained(path, local_files_only=True)


def make_side(name: str, path: str, group: list[dict[str, Any]], device: str, tmp: str) -> Side:
    import torch

    from gym_mcp.train.losses import grpo_step

    model, tokenizer = load_lora(path, device)
    rollouts = to_rollouts(group)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=LR)
    if name == "ours":
        return Side(name, model, lambda: float(grpo_step(model, tokenizer, optimizer, rollouts)["loss"]))
    trainer = _trl_trainer(model, tokenizer, len(group), device, tmp)
    inputs, _ = trl_inputs(tokenizer, rollouts, device)
    return Side(name, model, trl_update(trainer, optimizer, inputs))


def trl_update(trainer: Any, optimizer: Any, inputs: dict[str, Any]) -> Callable[[], float]:
    """TRL's update on ``inputs``: ``compute_loss``, ``accelerator.backward``, the optimizer step (returns the loss)."""

    def update() -> float:
        loss = trainer.compute_loss(trainer.model, inputs)
        trainer.accelerator.backward(loss)
        optimizer.step()
        optimizer.zero_grad()
        return float(loss.detach())

    return update


def trl_settings(tokenizer: Any, tmp: str, device: str) -> dict[str, Any]:
    """The TRL config options every against-TRL bench shares (fp32, no checkpointing, nothing saved or reported).

    Also gives the tokenizer a pad token where it has none (TRL's collators need one).
    """
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return {
        "output_dir": tmp,
        "gradient_checkpointing": False,
        "learning_rate": LR,
        "report_to": "none",
        "save_strategy": "no",
        "use_cpu": device == "cpu",
        "bf16": False,
    }


def _trl_trainer(model: Any, tokenizer: Any, group: int, device: str, tmp: str) -> Any:
    import trl
    from datasets import Dataset

    config = trl.GRPOConfig(
        per_device_train_batch_size=group,
        num_generations=group,
        loss_type="bnpo",
        beta=0.0,
        **trl_settings(tokenizer, tmp, device),
    )

    def unused_reward(completions: list[Any], **kwargs: Any) -> list[float]:
        return [0.0] * len(completions)

    trainer = trl.GRPOTrainer(
        model=model,
        reward_funcs=unused_reward,
        args=config,
        train_dataset=Dataset.from_list([{"prompt": "unused"}]),
        processing_class=tokenizer,
    )
    trainer.current_gradient_accumulation_steps = 1  # set by the training loop, which we do not run
    trainer.model.train()
    return trainer


# -- timing and memory -----------------------------------------------------------------------------


def grpo_version() -> str:
    """A hash of the ``losses.py`` this process imported (the code under test may be edited between runs)."""
    import gym_mcp.train.losses as losses

    return hashlib.sha256(Path(losses.__file__).read_bytes()).hexdigest()[:12]


def timed_step(side: Side, device: str) -> tuple[float, float]:
    import torch

    if device == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    loss = side.step()
    if device == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - start, loss


def _status_mb(key: str) -> float:
    with open("/proc/self/status") as f:
        match = re.search(rf"^{key}:\s+(\d+) kB", f.read(), re.MULTILINE)
    return int(match.group(1)) / 1024 if match else float("nan")


def memory_worker(side_name: str, path: str, group_file: str, device: str, steps: int) -> dict[str, Any]:
    """Step memory of one side, in this (fresh) process: peak during a step minus memory before it."""
    import torch

    group = json.loads(Path(group_file).read_text())
    version = grpo_version()
    with tempfile.TemporaryDirectory() as tmp:
        side = make_side(side_name, path, group, device, tmp)
        side.step()  # warm-up: lazy initialisation, optimizer state
        deltas, before = [], 0.0
        for _ in range(steps):
            if device == "cuda":
                torch.cuda.synchronize()
                torch.cuda.reset_peak_memory_stats()
                before = torch.cuda.memory_allocated() / 2**20
                side.step()
                torch.cuda.synchronize()
                deltas.append(torch.cuda.max_memory_allocated() / 2**20 - before)
            else:
                with open("/proc/self/clear_refs", "w") as f:
                    f.write("5")  # reset the peak-RSS mark (VmHWM)
                before = _status_mb("VmRSS")
                side.step()
                deltas.append(_status_mb("VmHWM") - before)
    return {
        "step_peak_mb": median(deltas),
        "step_peak_max_mb": max(deltas),
        "resident_before_mb": before,
        "grpo_version": version,
    }


def measure_memory(side_name: str, path: str, group_file: Path, device: str, steps: int) -> dict[str, Any]:
    env = {**os.environ, "MALLOC_MMAP_THRESHOLD_": "131072", "TRL_EXPERIMENTAL_SILENCE": "1"}
    command = [sys.executable, __file__, "--memory-worker", side_name, "--model", path]
    command += ["--group-file", str(group_file), "--device", device, "--repeats", str(steps)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False, timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(f"memory worker for {side_name} failed:\n{done.stderr[-4000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


# -- main ------------------------------------------------------------------------------------------


def resolve(model: str | None, tmp: Path) -> str:
    if model is None:
        from tests.tiny_model import build_tiny_model

        return str(build_tiny_model(tmp / "tiny"))
    from gym_mcp.policies.weights import resolve_model

    return resolve_model(model, verbose=True)


def main(argv: list[str] | None = None) -> int:
    parser = base_parser(DESCRIPTION, repeats=10, quick_repeats=3)
    parser.add_argument("--model", default=None, help="local model folder, or smollm2 (default: the tiny test model)")
    parser.add_argument("--group", type=int, default=8, help="G: conversations in the group (default 8)")
    parser.add_argument("--chain", type=int, default=2, help="tool calls per conversation (default 2)")
    parser.add_argument("--distractors", type=int, default=3, help="extra tools in the prompt (default 3)")
    parser.add_argument("--device", default=None, help="cpu or cuda (default: cuda when available)")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory subprocesses")
    parser.add_argument("--memory-worker", default=None, help=argparse_hidden())
    parser.add_argument("--group-file", default=None, help=argparse_hidden())
    args = parser.parse_args(argv)

    import torch

    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    if args.memory_worker:
        print(json.dumps(memory_worker(args.memory_worker, args.model, args.group_file, device, args.repeats or 3)))
        return 0
    repeats = args.repeats or (3 if args.quick else 10)
    with tempfile.TemporaryDirectory(prefix="gym-mcp-bench-grpo-") as tmp_dir:
        tmp = Path(tmp_dir)
        path = resolve(args.model, tmp)
        group = build_group(args.group, args.chain, args.distractors)
        group_file = tmp / "group.json"
        group_file.write_text(json.dumps(group))
        sides = [make_side(name, path, group, device, str(tmp / name)) for name in SIDES]
        version = grpo_version()
        _, tokens = trl_inputs(_tokenizer(path), to_rollouts(group), "cpu")
        first_loss = {s.name: s.step() for s in sides}  # warm-up, and the same-computation check
        samples: dict[str, list[float]] = {s.name: [] for s in sides}
        for r in range(repeats):
            order = sides[r % len(sides) :] + sides[: r % len(sides)]  # rotate: drift hits every side
            for side in order:
                seconds, _ = timed_step(side, device)
                samples[side.name].append(seconds)
        memory: dict[str, dict[str, float]] = {}
        if not args.no_memory:
            for name in SIDES:
                print(f"measuring memory: {name} ...", file=sys.stderr, flush=True)
                memory[name] = measure_memory(name, path, group_file, device, 2 if args.quick else 3)

    stats = {name: summarize(v) for name, v in samples.items()}
    speed = {name: tokens / (s["median_ms"] / 1e3) for name, s in stats.items()}
    nan = float("nan")
    rows = [
        [
            name,
            stats[name]["median_ms"],
            stats[name]["p10_ms"],
            stats[name]["p90_ms"],
            speed[name],
            memory.get(name, {}).get("step_peak_mb", nan),
            memory.get(name, {}).get("resident_before_mb", nan),
            first_loss[name],
        ]
        for name in SIDES
    ]
    model_name = "tiny (random, tests/tiny_model.py)" if args.model is None else args.model
    print()
    print(
        table(
            ["update", "median ms", "p10 ms", "p90 ms", "tokens/s", "step peak MB", "resident MB", "first loss"],
            rows,
            title=f"One GRPO update, G={args.group}, {tokens} tokens, model {model_name}, {device}, {repeats} rounds",
        )
    )
    ratio_speed = speed["ours"] / speed["TRL"]
    mem_ours = memory.get("ours", {}).get("step_peak_mb", nan)
    mem_trl = memory.get("TRL", {}).get("step_peak_mb", nan)
    ratio_mem = mem_ours / mem_trl if mem_trl == mem_trl and mem_trl > 0 else nan
    same = abs(first_loss["ours"] - first_loss["TRL"]) <= 1e-4 * max(1.0, abs(first_loss["TRL"]))
    per_round = [t / o for o, t in zip(samples["ours"], samples["TRL"], strict=True)]  # drift cancels within a round
    ratios = [
        ["ours / TRL tokens/s", ratio_speed, ">= 1.00", verdict(ratio_speed >= 1.0)],
        ["  per round (min-max)", f"{min(per_round):.2f}-{max(per_round):.2f}", "", ""],
        ["ours / TRL step memory", ratio_mem, "<= 1.00", "-" if args.no_memory else verdict(ratio_mem <= 1.0)],
    ]
    print()
    print(
        table(
            ["ratio", "value", "target", "result"],
            ratios,
            title=f"Ratios (same first-step loss, ours vs TRL: {'yes' if same else 'NO'})",
        )
    )
    versions = {m.get("grpo_version") for m in memory.values()} | {version}
    if len(versions) > 1:
        print(f"WARNING: losses.py changed during the run ({sorted(versions)}): timing and memory saw different code")
    result = {
        "model": model_name,
        "device": device,
        "group": args.group,
        "tokens": tokens,
        "repeats": repeats,
        "stats_ms": stats,
        "tokens_per_s": speed,
        "memory_mb": memory,
        "first_loss": first_loss,
        "same_loss": same,
        "grpo_version": version,
        "ratio_tokens_per_s": ratio_speed,
        "ratio_tokens_per_s_per_round": per_round,
        "ratio_step_memory": ratio_mem,
        "pass": ratio_speed >= 1.0 and (args.no_memory or ratio_mem <= 1.0),
    }
    out = write_result(args.out, "grpo_vs_trl", result)
    print(f"\nresult: {out}")
    return 0


def _tokenizer(path: str) -> Any:
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(path, local_files_only=True)


def argparse_hidden() -> str:
    import argparse

    return argparse.SUPPRESS


if __name__ == "__main__":
    with contextlib.suppress(BrokenPipeError):
        sys.exit(main())
