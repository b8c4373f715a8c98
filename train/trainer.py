"""The training loop: SFT warm start on reference trajectories, then GRPO through the environments.

`train(config)` loads a local model with fresh LoRA adapters, gets its tasks (a JSONL file, or
synthesized on the spot), runs ``sft_steps`` supervised steps on the reference conversations of
the train split, then ``grpo_steps`` GRPO steps (a group of rollouts of one task per step), writes
metrics as JSON lines and a PNG, and checkpoints the adapter, the optimizer, the step and the RNG
state so a run resumes exactly where it stopped.
"""

from __future__ import annotations

import json
import random
import sys
import tomllib
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from gym_mcp.errors import ConfigError

__all__ = ["TrainConfig", "train"]


@dataclass
class TrainConfig:
    """Settings of a training run (TOML keys have the same names).

    Attributes:
        model: Local model folder (``save_pretrained`` output); nothing is downloaded.
        server: Bundled server the tasks run on.
        tasks: Task JSONL; empty to synthesize ``n_tasks`` tasks with ``seed``.
        n_tasks: Tasks to synthesize when ``tasks`` is empty.
        output_dir: Where checkpoints, metrics and plots go.
        sft_steps: Supervised warm-start steps.
        sft_batch: Conversations per SFT step.
        grpo_steps: GRPO steps (one task, one group, per step).
        group_size: Rollouts per GRPO group (G).
        max_new_tokens: Longest reply per turn in rollouts.
        temperature: Sampling temperature of rollouts.
        max_episode_steps: Steps per rollout episode.
        lr: AdamW learning rate of the adapter.
        clip: PPO clipping range.
        kl_coef: Weight of the KL to the base model (0 disables it).
        lora_r: LoRA rank.
        lora_alpha: LoRA alpha.
        lora_targets: Module names that get adapters.
        reward: ``"prove"`` (composite with adaptive efficiency) or ``"mua_rl"`` (binary success).
        distractor_tools: Tools shown besides the task's own (-1: all of the server's tools).
        trackers: accelerate trackers to log metrics to (e.g. ``["tensorboard"]``), besides the JSONL.
        checkpoint_every: Steps between checkpoints (SFT and GRPO steps count alike).
        seed: Seed of task order, sampling and synthesis.
    """

    model: str
    server: str = "banking"
    tasks: str = ""
    n_tasks: int = 48
    output_dir: str = "runs/train"
    sft_steps: int = 20
    sft_batch: int = 4
    grpo_steps: int = 10
    group_size: int = 4
    max_new_tokens: int = 48
    temperature: float = 1.0
    max_episode_steps: int = 6
    lr: float = 5e-4
    clip: float = 0.2
    kl_coef: float = 0.0
    lora_r: int = 16
    lora_alpha: int = 32
    lora_targets: list[str] = field(default_factory=lambda: ["q_proj", "k_proj", "v_proj", "o_proj"])
    reward: str = "prove"
    distractor_tools: int = 3
    trackers: list[str] = field(default_factory=list)
    checkpoint_every: int = 10
    seed: int = 0

    def __post_init__(self) -> None:
        if not self.model:
            raise ConfigError("model: give a local model folder")
        for name in ("sft_steps", "grpo_steps"):
            if getattr(self, name) < 0:
                raise ConfigError(f"{name} must be >= 0, got {getattr(self, name)}")
        for name in (
            "sft_batch",
            "group_size",
            "max_new_tokens",
            "max_episode_steps",
            "lora_r",
            "checkpoint_every",
            "n_tasks",
        ):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.group_size < 2 and self.grpo_steps:
            raise ConfigError("group_size must be >= 2: GRPO compares rollouts within a group")
        if not 0 < self.lr < 1:
            raise ConfigError(f"lr must be in (0, 1), got {self.lr}")
        if self.reward not in ("prove", "mua_rl"):
            raise ConfigError(f"reward must be 'prove' or 'mua_rl', got {self.reward!r}")

    @classmethod
    def from_toml(cls, path: str | Path) -> TrainConfig:
        """Read a TOML config; unknown keys are an error naming them."""
        p = Path(path)
        try:
            data = tomllib.loads(p.read_text())
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"cannot read config {p}: {exc}") from exc
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(f"{p}: unknown key(s) {', '.join(unknown)}")
        if "model" not in data:
            raise ConfigError(f"{p}: missing key 'model'")
        base = p.parent
        for key in ("model", "tasks", "output_dir"):
            if data.get(key) and not Path(data[key]).is_absolute() and (base / data[key]).exists():
                data[key] = str((base / data[key]).resolve())
        return cls(**data)


def _load_tasks(config: TrainConfig) -> list[Any]:
    from gym_mcp.synth import SynthConfig, synthesize
    from gym_mcp.tasks import load_tasks

    if config.tasks:
        return load_tasks(config.tasks)
    return synthesize(config.server, SynthConfig(n=config.n_tasks, seed=config.seed, max_chain=3)).tasks


def train(config: TrainConfig, *, progress: bool = True) -> dict[str, Any]:
    """Run (or resume) a training run; returns the last metrics.

    Checkpoints live in ``output_dir/checkpoint``; metrics in ``output_dir/metrics.jsonl``.
    """
    import gymnasium as gym
    import torch
    from peft import LoraConfig, set_peft_model_state_dict

    from gym_mcp import env_id
    from gym_mcp.rewards import CompositeReward
    from gym_mcp.train.data import IGNORE, encode_conversation, reference_conversation
    from gym_mcp.train.grpo import grpo_step, load_lora_model, rollout, sft_step

    out = Path(config.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(asdict(config), indent=1))
    torch.manual_seed(config.seed)
    from accelerate import Accelerator  # type: ignore[import-untyped]

    # accelerate places the model on the device (GPU when there is one) and, under
    # `accelerate launch`, wraps it for DDP; mixed precision where the device has it.
    use_gpu = torch.cuda.is_available()
    precision = "bf16" if use_gpu and torch.cuda.is_bf16_supported() else "no"
    accelerator = Accelerator(
        cpu=not use_gpu, mixed_precision=precision, log_with=config.trackers or None, project_dir=str(out)
    )
    if config.trackers:
        accelerator.init_trackers("gym-mcp", config={k: str(v) for k, v in asdict(config).items()})
    lora = LoraConfig(r=config.lora_r, lora_alpha=config.lora_alpha, target_modules=list(config.lora_targets))
    model, tokenizer = load_lora_model(config.model, lora)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=config.lr)
    model, optimizer = accelerator.prepare(model, optimizer)
    backward = accelerator.backward
    rng = random.Random(config.seed)
    step = 0
    ckpt = out / "checkpoint"
    if (ckpt / "state.pt").exists():  # resume
        from safetensors.torch import load_file

        state = torch.load(ckpt / "state.pt", weights_only=False)
        set_peft_model_state_dict(model, load_file(ckpt / "adapter_model.safetensors"))
        optimizer.load_state_dict(state["optimizer"])
        rng.setstate(state["rng"])
        torch.set_rng_state(state["torch_rng"])
        step = int(state["step"])
    reward = CompositeReward.prove() if config.reward == "prove" else CompositeReward.mua_rl()
    tasks = [t for t in _load_tasks(config) if t.split == "train"] or _load_tasks(config)
    env = gym.make(env_id(config.server), max_steps=config.max_episode_steps, reward=reward)
    distractors = None if config.distractor_tools < 0 else config.distractor_tools
    examples = []
    for task in tasks:
        messages, tools = reference_conversation(env, task, distractors)
        examples.append(encode_conversation(tokenizer, messages, tools, task.id))
    metrics_path = out / "metrics.jsonl"
    last: dict[str, Any] = {}
    total = config.sft_steps + config.grpo_steps
    try:
        while step < total:
            if step < config.sft_steps:
                batch = rng.sample(examples, k=min(config.sft_batch, len(examples)))
                width = max(len(e.input_ids) for e in batch)
                pad = tokenizer.eos_token_id or 0
                ids = torch.tensor([e.input_ids + [pad] * (width - len(e.input_ids)) for e in batch])
                labels = torch.tensor([e.labels + [IGNORE] * (width - len(e.labels)) for e in batch])
                ids, labels = ids.to(accelerator.device), labels.to(accelerator.device)
                loss = sft_step(model, optimizer, ids, labels, backward=backward)
                last = {"phase": "sft", "step": step + 1, "loss": round(loss, 5)}
            else:
                task = rng.choice(tasks)
                group = [
                    rollout(
                        model,
                        tokenizer,
                        env,
                        task,
                        max_new_tokens=config.max_new_tokens,
                        temperature=config.temperature,
                        seed=rng.randrange(2**31),
                        distractors=distractors,
                    )
                    for _ in range(config.group_size)
                ]
                stats = grpo_step(
                    model, tokenizer, optimizer, group, clip=config.clip, kl_coef=config.kl_coef, backward=backward
                )
                last = {
                    "phase": "grpo",
                    "step": step + 1,
                    "task": task.id,
                    "loss": round(stats["loss"], 5),
                    "kl": round(stats["kl"], 5),
                    "reward_mean": round(sum(stats["rewards"]) / len(stats["rewards"]), 4),
                    "success": round(sum(float(r.terms.get("success", 0)) for r in group) / len(group), 4),
                    "calls": round(sum(float(r.terms.get("n_calls", 0)) for r in group) / len(group), 3),
                    "zero_spread": stats["zero_spread"],
                }
            step += 1
            with metrics_path.open("a") as f:
                f.write(json.dumps(last) + "\n")
            if config.trackers:
                accelerator.log({k: v for k, v in last.items() if isinstance(v, int | float)}, step=step)
            if progress:
                print(
                    f"\r  step {step}/{total} {last['phase']} loss {last['loss']}", end="", file=sys.stderr, flush=True
                )
            if step % config.checkpoint_every == 0 or step == total:
                _checkpoint(accelerator.unwrap_model(model), optimizer, rng, step, ckpt)
    finally:
        env.close()
        if progress:
            print(file=sys.stderr)
    _plot(metrics_path, out / "training.png")
    return last


def _checkpoint(model: Any, optimizer: Any, rng: random.Random, step: int, ckpt: Path) -> None:
    import torch

    ckpt.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(ckpt)
    state = {
        "optimizer": optimizer.state_dict(),
        "rng": rng.getstate(),
        "torch_rng": torch.get_rng_state(),
        "step": step,
    }
    tmp = ckpt / "state.pt.tmp"
    torch.save(state, tmp)
    tmp.replace(ckpt / "state.pt")


def _plot(metrics_path: Path, png: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    rows = [json.loads(line) for line in metrics_path.read_text().splitlines() if line.strip()]
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.5))
    sft = [r for r in rows if r["phase"] == "sft"]
    grpo = [r for r in rows if r["phase"] == "grpo"]
    axes[0].plot([r["step"] for r in sft], [r["loss"] for r in sft], label="SFT loss")
    axes[0].set_title("SFT loss")
    axes[1].plot([r["step"] for r in grpo], [r["reward_mean"] for r in grpo], label="reward")
    axes[1].plot([r["step"] for r in grpo], [r["success"] for r in grpo], label="success")
    axes[1].set_title("GRPO reward and success")
    axes[1].legend()
    axes[2].plot([r["step"] for r in grpo], [r["calls"] for r in grpo])
    axes[2].set_title("calls per episode")
    fig.tight_layout()
    fig.savefig(png, dpi=90)
    plt.close(fig)
