"""GRPO with TRL's GRPOTrainer over the live banking environment (LoRA on a local model).

Run:
    python examples/trl_grpo.py                 # SmolLM2-135M on CPU: 4 SFT warm-start steps, then 8 GRPO steps
    python examples/trl_grpo.py --quick         # a smoke run: every stage once, no learning to expect
    python examples/trl_grpo.py --model runs/models/base --tasks banking.jsonl --output-dir runs/trl-grpo
    python examples/trl_grpo.py --model models/Qwen2.5-1.5B-Instruct --warmup-steps 0 --vllm --steps 200

``--vllm`` has TRL generate the rollouts with vLLM in the training process (``vllm_mode="colocate"``,
bf16; needs a GPU and ``pip install vllm``); without it TRL generates with transformers.

TRL shows the model the environment's tools (typed methods built from the MCP schemas), runs
each tool call it writes as a step on the live server, and scores every rollout with the
episode's reward (the state-grounded composite, through ``get_reward``). ``--model`` is a local
folder, or ``smollm2`` for the converted SmolLM2-135M-Instruct; nothing is downloaded. The last
line printed is a summary: the reward of the first and the last third of the steps, the share of
groups with a reward spread (the only groups GRPO learns from), the share of clipped completions,
and the wall time of the warm start and of GRPO.

What learns (SmolLM2-135M):

- GRPO learns only from a group whose rollouts score differently. The previous defaults (no
  warm start, eight tools, up to 128 new tokens; 64 in a quicker run) gave reward 0 in every
  group and every completion clipped: nothing to learn from. So a short SFT warm start comes
  first (``--warmup-steps``), on the reference calls played on the live server and rendered with
  the chat template and tool methods TRL uses, so the model has seen the call format, a tool
  result and a closing answer. Short on purpose: it must leave the model right only sometimes.
  Measured with ``--threads 1`` on two cores that other work loaded (load average 3-7): with 8
  warm-start steps (loss 0.58 -> 0.10) the first GRPO steps scored 0.93, 0.88, 1.00 and by the
  third step no group had a spread. With the defaults (4 steps, loss 0.58 -> 0.31) the 8 GRPO
  steps scored 0.27, 0.16, 0.64, 0.31, 0.27, 0.64, 0.41, 0.41: mean 0.21 over steps 1-2 and
  0.41 over steps 7-8, 94% of groups with a spread, 20% of completions clipped, and the share of
  rollouts that called a tool went from 38% to 62%. Eight steps of 8 rollouts are few: the step
  rewards are noisy, so read the trend, not one step.
- The tasks are single-call "complete" requests on two card tools (``--tools``): success is the
  final state, and the template writes every shown tool's JSON schema into the prompt (~120
  tokens each; the eight tools of the old task set made a 1,650-token prompt, these two ~450).
  Tasks that need a question to the user (TRL's loop has no user) are left out.
- ``max_completion_length`` counts everything after the prompt, the tool result included: a call
  (~40 tokens), its result (~60-90) and a closing answer; at 64 every completion was cut (the
  issue's run), at 256 a fifth still ran on after the result (a model this small often echoes it).
- A group of 4 at temperature 0.8 and lr 2e-4 (the trainer's GRPO rate; beta stays 0).
- Time and memory: 24 min 41 s wall on that machine (``/usr/bin/time``; synthesis, model load
  and warm start 276 s, GRPO 1,175 s: 130-200 s a step), 10.3 GB peak RSS. torch's default two threads made
  generation ~4x slower there than one thread (``--threads 1``): pass it when the cores are
  shared. One forward/backward pass over all 8 rollouts held over 12 GB and was killed for
  memory; a step now accumulates one group per pass.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from collections.abc import Sequence
from typing import Any

import peft
import torch
import trl
from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

from gym_mcp.policies.weights import resolve_model
from gym_mcp.rewards import CompositeReward
from gym_mcp.synth import SynthConfig, synthesize
from gym_mcp.tasks import Task, load_tasks
from gym_mcp.train.trl import (
    DEFAULT_SYSTEM_PROMPT,
    ToolEnvFactory,
    ensure_tool_chat_template,
    environment_factory,
    record_final_answers,
    tasks_dataset,
)

DEFAULT_TOOLS = ("report_card_lost", "set_card_limit")
"""Two write tools on cards: a choice to make and values to copy, in a prompt of ~400 tokens."""

CLOSING_ANSWER = "Done."
"""The warm start's closing answer after the tool result (write tasks are scored on the state)."""


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--model", default="smollm2", help="local model folder, or smollm2")
    parser.add_argument("--tasks", default=None, help="task JSONL (default: synthesized single-call tasks on --tools)")
    parser.add_argument("--n-tasks", type=int, default=16, help="synthesized tasks to keep (without --tasks)")
    parser.add_argument("--tools", default=",".join(DEFAULT_TOOLS), help="comma-separated tools the tasks call")
    parser.add_argument("--warmup-steps", type=int, default=4, help="SFT steps on reference calls before GRPO")
    parser.add_argument("--warmup-batch", type=int, default=4)
    parser.add_argument("--warmup-lr", type=float, default=5e-4)
    parser.add_argument("--steps", type=int, default=8, help="GRPO steps")
    parser.add_argument("--num-generations", type=int, default=4, help="rollouts per task (the GRPO group)")
    parser.add_argument("--prompts-per-step", type=int, default=2)
    parser.add_argument("--max-completion-length", type=int, default=256)
    parser.add_argument("--temperature", type=float, default=0.8)
    parser.add_argument("--lr", type=float, default=2e-4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--threads", type=int, default=None, help="torch CPU threads (default torch's; 1 on a machine other work loads)"
    )
    parser.add_argument("--all-tools", action="store_true", help="show every tool (default: the tasks' own tools)")
    parser.add_argument("--output-dir", default="runs/trl-grpo")
    parser.add_argument("--vllm", action="store_true", help="generate with vLLM in this process (one GPU, bf16)")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke settings for tests: 4 tasks, 1 warm-start step, 1 GRPO step of 2 groups of 2",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.n_tasks, args.warmup_steps, args.warmup_batch, args.steps = 4, 1, 2, 1
        args.num_generations, args.prompts_per_step, args.max_completion_length = 2, 2, 64
    return args


def training_tasks(args: argparse.Namespace) -> list[Task]:
    """The tasks: a file as it is, or single-call "complete" tasks on ``--tools`` synthesized here."""
    if args.tasks:
        return load_tasks(args.tasks)
    wanted = set(args.tools.split(","))
    # synthesis is seeded; oversample, then keep the plain single-call requests on the wanted tools
    pool = synthesize("banking", SynthConfig(n=8 * args.n_tasks, seed=args.seed, max_chain=1)).tasks
    tasks = [
        t
        for t in pool
        if t.variant == "complete" and len(t.reference_calls) == 1 and t.reference_calls[0]["name"] in wanted
    ]
    if not tasks:
        raise SystemExit(f"no single-call tasks on {sorted(wanted)}: check --tools")
    return tasks[: args.n_tasks]


def warm_start_examples(
    factory: ToolEnvFactory, tasks: Sequence[Task], tokenizer: Any
) -> list[tuple[list[int], list[int]]]:
    """(token ids, loss mask) per task: the reference episode played live, rendered as TRL renders it.

    The call runs on a live environment so the tool result in the text is the real one, and the
    text comes from the same chat template with the same tool methods TRL's prompts use: what
    the warm start teaches is exactly the format GRPO samples in. Only the assistant's tokens
    (the call, the closing answer, each with its end-of-turn token) carry loss.
    """
    probe = factory()
    # TRL lists an environment's tools with inspect.getmembers: in name order
    methods = [getattr(probe, name) for name in sorted(t.get("function", t)["name"] for t in probe.tool_schemas)]
    examples = []
    for row, task in zip(tasks_dataset(tasks), tasks, strict=True):
        instruction = probe.reset(**row)
        call = task.reference_calls[0]
        result = getattr(probe, str(call["name"]))(**dict(call["arguments"]))
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": DEFAULT_SYSTEM_PROMPT},
            {"role": "user", "content": instruction},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"type": "function", "function": {"name": call["name"], "arguments": call["arguments"]}}
                ],
            },
            {"role": "tool", "name": call["name"], "content": result},
            {"role": "assistant", "content": CLOSING_ANSWER},
        ]
        examples.append(_masked(tokenizer, messages, methods))
        probe.get_reward()  # close the episode, as TRL would
    factory.instances.remove(probe)
    probe.env.close()
    return examples


def _masked(tokenizer: Any, messages: list[dict[str, Any]], tools: list[Any]) -> tuple[list[int], list[int]]:
    def render(upto: int, generation_prompt: bool) -> str:
        return str(
            tokenizer.apply_chat_template(
                messages[:upto], tools=tools, add_generation_prompt=generation_prompt, tokenize=False
            )
        )

    text = render(len(messages), False)
    spans = []  # what the model writes: from after the assistant header to its end-of-turn token
    for i, message in enumerate(messages):
        if message["role"] == "assistant":
            # rstrip: the newline the template puts after <|im_end|> is never generated (generation stops there)
            spans.append((len(render(i, True)), len(render(i + 1, False).rstrip())))
    encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    mask = [int(any(s <= a < e for s, e in spans)) for a, _ in encoded["offset_mapping"]]
    return list(encoded["input_ids"]), mask


def warm_start(model: Any, examples: list[tuple[list[int], list[int]]], args: argparse.Namespace) -> list[float]:
    """A few LoRA SFT steps on the warm-start examples (plain torch: the examples are already tokens)."""
    rng = random.Random(args.seed)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=args.warmup_lr)
    model.train()
    losses = []
    for _ in range(args.warmup_steps):
        batch = rng.sample(examples, min(args.warmup_batch, len(examples)))
        width = max(len(ids) for ids, _ in batch)
        ids = torch.tensor([i + [0] * (width - len(i)) for i, _ in batch])
        attention = torch.tensor([[1] * len(i) + [0] * (width - len(i)) for i, _ in batch])
        labels = torch.tensor(
            [[t if m else -100 for t, m in zip(i, k, strict=True)] + [-100] * (width - len(i)) for i, k in batch]
        )
        loss = model(
            input_ids=ids.to(model.device), attention_mask=attention.to(model.device), labels=labels.to(model.device)
        ).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(float(loss.detach()))
    return losses


def summary(log_history: list[dict[str, Any]], env_column: str) -> dict[str, float]:
    """What the run learned, from TRL's per-step logs."""
    rows = [r for r in log_history if env_column in r]
    if not rows:
        return {}
    k = max(1, len(rows) // 3)

    def mean(key: str, part: list[dict[str, Any]]) -> float:
        return sum(float(r.get(key, 0.0)) for r in part) / len(part)

    return {
        "steps": float(len(rows)),
        "reward_first": mean(env_column, rows[:k]),
        "reward_last": mean(env_column, rows[-k:]),
        "groups_with_spread": 1.0 - mean("frac_reward_zero_std", rows),
        "clipped": mean("completions/clipped_ratio", rows),
        "calls_per_rollout": mean("tools/call_frequency", rows),
        "first_last_k": float(k),
    }


def main(argv: Sequence[str] | None = None) -> dict[str, float]:
    args = parse_args(argv)
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")  # environment_factory is marked experimental
    torch.manual_seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    started = time.perf_counter()

    tasks = training_tasks(args)
    only = None if args.all_tools else sorted({str(c["name"]) for t in tasks for c in t.reference_calls})
    factory = environment_factory(
        "gym_mcp/Banking-v0", tasks, only=only, brief=True, max_steps=4, reward=CompositeReward.grounded()
    )

    path = resolve_model(args.model)
    tokenizer = ensure_tool_chat_template(AutoTokenizer.from_pretrained(path, local_files_only=True))
    config = AutoConfig.from_pretrained(path, local_files_only=True)
    if hasattr(config, "quantization_config"):  # left by a GGUF conversion; the weights are plain
        del config.quantization_config
    model = AutoModelForCausalLM.from_pretrained(path, config=config, local_files_only=True)
    model = peft.get_peft_model(
        model,
        peft.LoraConfig(
            r=16, lora_alpha=32, target_modules=["q_proj", "k_proj", "v_proj", "o_proj"], task_type="CAUSAL_LM"
        ),
    )

    losses: list[float] = []
    if args.warmup_steps > 0:
        losses = warm_start(model, warm_start_examples(factory, tasks, tokenizer), args)
        print(f"warm start: {len(losses)} SFT steps, loss {losses[0]:.3f} -> {losses[-1]:.3f}")
    warmed = time.perf_counter()

    config = trl.GRPOConfig(
        output_dir=args.output_dir,
        max_steps=args.steps,
        # one group per forward/backward pass, the step's groups accumulated into one update: the
        # same gradient as one pass over all of them, at a fraction of the memory (a pass over 8
        # rollouts of ~700 tokens held >12 GB of attention activations and was killed for memory)
        per_device_train_batch_size=args.num_generations,
        gradient_accumulation_steps=args.prompts_per_step,
        num_generations=args.num_generations,
        max_completion_length=args.max_completion_length,
        max_tool_calling_iterations=2,  # one call and a retry; a looping model ends the rollout
        temperature=args.temperature,
        learning_rate=args.lr,
        gradient_checkpointing=False,  # small model: faster without
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=args.seed,
        use_cpu=not torch.cuda.is_available(),
        bf16=torch.cuda.is_available() and torch.cuda.is_bf16_supported(),
        use_vllm=args.vllm,
        **({"vllm_mode": "colocate"} if args.vllm else {}),
    )
    trainer = trl.GRPOTrainer(
        model=model,  # already a PeftModel: GRPO goes on training the warm-started adapter
        processing_class=tokenizer,
        args=config,
        train_dataset=tasks_dataset(tasks),
        reward_funcs=[record_final_answers],  # hands the model's closing text to the environment
        environment_factory=factory,
    )
    try:
        trainer.train()
    finally:
        factory.close()
    trainer.save_model(args.output_dir)  # the LoRA adapter
    finished = time.perf_counter()

    env_column = f"rewards/{factory.cls.__name__ if factory.cls else 'MCPToolEnv'}/mean"
    for row in trainer.state.log_history:
        if env_column in row:
            spread = 1.0 - row.get("frac_reward_zero_std", 1.0)
            print(
                f"step {row['step']}: env reward {row[env_column]:.3f}, groups with spread {spread:.2f}, "
                f"clipped {row.get('completions/clipped_ratio', 0.0):.2f}, "
                f"tool calls/rollout {row.get('tools/call_frequency', 0.0):.2f}"
            )
    figures = summary(trainer.state.log_history, env_column)
    figures.update(warmup_s=warmed - started, grpo_s=finished - warmed, wall_s=finished - started)
    if losses:
        figures.update(warmup_loss_first=losses[0], warmup_loss_last=losses[-1])
    print("summary: " + json.dumps({k: round(v, 3) for k, v in figures.items()}))
    print(f"adapter saved to {args.output_dir}")
    return figures


if __name__ == "__main__":
    main()
