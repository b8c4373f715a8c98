"""GRPO with TRL's GRPOTrainer over the live banking environment (LoRA on a local model).

Run:
    python examples/trl_grpo.py --model smollm2 --steps 4
    python examples/trl_grpo.py --model runs/models/base --tasks banking.jsonl --output-dir runs/trl-grpo
    python examples/trl_grpo.py --model models/Qwen2.5-1.5B-Instruct --vllm --steps 200   # one GPU, bf16

``--vllm`` has TRL generate the rollouts with vLLM in the training process (``vllm_mode="colocate"``,
bf16; needs a GPU and ``pip install vllm``); without it TRL generates with transformers.

TRL shows the model the environment's tools (typed methods built from the MCP schemas), runs
each tool call it writes as a step on the live server, and scores every rollout with the
episode's reward (the state-grounded composite, through ``get_reward``). ``--model`` is a local
folder, or ``smollm2`` for the converted SmolLM2-135M-Instruct; nothing is downloaded.
"""

from __future__ import annotations

import argparse
import os

import peft
import torch
import trl
from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

from gym_mcp.policies.weights import resolve_model
from gym_mcp.rewards import CompositeReward
from gym_mcp.synth import SynthConfig, synthesize
from gym_mcp.tasks import load_tasks
from gym_mcp.train.trl import ensure_tool_chat_template, environment_factory, record_final_answers, tasks_dataset


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="smollm2", help="local model folder, or smollm2")
    parser.add_argument("--tasks", default=None, help="task JSONL (default: 16 synthesized single-call tasks)")
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--num-generations", type=int, default=4, help="rollouts per task (the GRPO group)")
    parser.add_argument("--prompts-per-step", type=int, default=2)
    parser.add_argument("--max-completion-length", type=int, default=128)
    parser.add_argument("--lr", type=float, default=5e-4)
    parser.add_argument("--all-tools", action="store_true", help="show every tool (default: the tasks' own tools)")
    parser.add_argument("--output-dir", default="runs/trl-grpo")
    parser.add_argument("--vllm", action="store_true", help="generate with vLLM in this process (one GPU, bf16)")
    args = parser.parse_args()
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")  # environment_factory is marked experimental

    if args.tasks:
        tasks = load_tasks(args.tasks)
    else:
        tasks = synthesize("banking", SynthConfig(n=16, seed=0, max_chain=1)).tasks
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
    config = trl.GRPOConfig(
        output_dir=args.output_dir,
        max_steps=args.steps,
        per_device_train_batch_size=args.num_generations * args.prompts_per_step,
        num_generations=args.num_generations,
        max_completion_length=args.max_completion_length,
        max_tool_calling_iterations=3,
        learning_rate=args.lr,
        gradient_checkpointing=False,  # small model: faster without
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        use_cpu=not torch.cuda.is_available(),
        bf16=torch.cuda.is_available() and torch.cuda.is_bf16_supported(),
        use_vllm=args.vllm,
        **({"vllm_mode": "colocate"} if args.vllm else {}),
    )
    trainer = trl.GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        args=config,
        train_dataset=tasks_dataset(tasks),
        reward_funcs=[record_final_answers],  # hands the model's closing text to the environment
        environment_factory=factory,
        peft_config=peft.LoraConfig(
            r=16, lora_alpha=32, target_modules=["q_proj", "k_proj", "v_proj", "o_proj"], task_type="CAUSAL_LM"
        ),
    )
    try:
        trainer.train()
    finally:
        factory.close()
    trainer.save_model(args.output_dir)  # the LoRA adapter
    for row in trainer.state.log_history:
        if "rewards/BankingToolEnv/mean" in row:
            print(
                f"step {row['step']}: env reward {row['rewards/BankingToolEnv/mean']:.3f}, "
                f"tool calls/rollout {row.get('tools/call_frequency', 0.0):.2f}"
            )
    print(f"adapter saved to {args.output_dir}")


if __name__ == "__main__":
    main()
