"""The training loop as a class you can extend: SFT warm start, then GRPO through the environments.

`GymTrainer(config).train()` loads a local model with fresh LoRA adapters, gets its tasks (a JSONL
file, or synthesized on the spot), evaluates the base model on held-out tasks, runs ``sft_steps``
supervised steps on the reference conversations of the train split, then ``grpo_steps`` GRPO
steps (a group of rollouts of one task per step), evaluates again, writes metrics as JSON lines
and a PNG, and checkpoints with ``accelerator.save_state`` (the adapter as safetensors, the
optimizer, the step, the task sampler and every RNG, the CUDA one included) so a run resumes
exactly where it stopped. `train(config)` is the one-call form.

As in TRL, a subclass overrides a step or a hook and keeps the rest:

- steps: `GymTrainer.sft_step`, `GymTrainer.grpo_step`, `GymTrainer.evaluate`;
- hooks: `GymTrainer.load_model`, `GymTrainer.make_env`, `GymTrainer.load_tasks`,
  `GymTrainer.build_sft_examples`, `GymTrainer.sample_group`, `GymTrainer.log`.

The pieces live in their own rooms: `gym_mcp.train.config` (settings), `gym_mcp.train.loading`
(model loading), `gym_mcp.policies.decoding` (the decode loop, shared with local models),
`gym_mcp.train.rollouts`, `gym_mcp.train.losses`, `gym_mcp.train.schedule` (the SFT learning
rate), `gym_mcp.train.evaluation` and `gym_mcp.train.reporting`.
"""

from __future__ import annotations

import json
import random
import shutil
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym_mcp.errors import ConfigError
from gym_mcp.progress import Progress
from gym_mcp.train.config import TrainConfig, check_resumable, make_reward
from gym_mcp.train.data import Example, held_out_split, run_tasks, sft_batch_indices
from gym_mcp.train.reporting import (
    breakdown_table,
    peak_gpu_gb,
    peak_rss_gb,
    plot_run,
    step_status,
    summary_table,
    unseen_tool_tasks,
)
from gym_mcp.train.rollouts import Rollout

if TYPE_CHECKING:
    from gym_mcp.train.steps import PointQueue

__all__ = ["GymTrainer", "SampledGroup", "train"]

CHECKPOINT_MARK = "optimizer.bin"
"""The file ``accelerator.save_state`` writes last into a checkpoint: a run with it resumes."""


@dataclass
class SampledGroup:
    """What `GymTrainer.sample_group` drew for one GRPO step.

    Attributes:
        task: The task the group played (the last one drawn).
        fork_after: Reference calls played before the group forked (0: from the start).
        rollouts: The group's rollouts (fewer than ``num_generations`` when a Ray worker died).
        discarded: Groups drawn and discarded before it (no reward spread, or too few rollouts).
        lost: Rollouts lost with dead Ray workers over all the draws.
    """

    task: Any
    fork_after: int
    rollouts: list[Rollout]
    discarded: int = 0
    lost: int = 0


class _SamplerState:
    """The step and the task sampler's RNG, as ``accelerator.register_for_checkpointing`` wants them."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.step = 0

    def state_dict(self) -> dict[str, Any]:
        return {"step": self.step, "rng": self.rng.getstate()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.step = int(state["step"])
        self.rng.setstate(state["rng"])


class GymTrainer:
    """A LoRA trainer over live environments: held-out evaluation, SFT, GRPO, evaluation again.

    Construct it from a `TrainConfig` and call `train`; `setup` (which `train` calls) loads the
    model, the environments and the tasks, and restores a checkpoint when ``output_dir`` holds one.
    Override a step or a hook to change one part of the run (see the module docstring).

    Args:
        config: The run's settings.
        progress: Show progress bars (on the main process).

    Attributes:
        config: The run's settings.
        out: The run folder (``config.output_dir``).
        accelerator: The ``accelerate.Accelerator`` (set by `setup`).
        model: The model as prepared by the accelerator (DDP-wrapped under ``accelerate launch``).
        policy: The unwrapped model, which generation and evaluation use.
        tokenizer: Its tokenizer.
        fmt: The prompt format conversations are rendered in.
        grammar: The `CallGrammar` calls are decoded under, or None.
        optimizer: AdamW over the adapter's weights.
        lr_scheduler: The SFT schedule (``transformers.get_scheduler``, see `gym_mcp.train.schedule`).
        rng: Draws GRPO's tasks, fork points and sampling seeds (checkpointed).
        step: Steps done (SFT and GRPO count alike).
        envs: ``{server: environment}`` of SFT conversations and, unless ``grpo_user`` differs, of
            rollouts (see `env_for`).
        rollout_envs: ``{server: environment}`` GRPO groups play in (on Ray workers with
            ``rollout_workers``; see `rollout_env_for`).
        tasks: The train split; ``held_out``: the tasks evaluated before and after.
        examples: The encoded SFT conversations.
        timings: Seconds per phase.
        rss_by_phase: The process's peak resident memory (GB) when each phase last ended: the
            first phase at the run's peak is the one that set it.
    """

    def __init__(self, config: TrainConfig, *, progress: bool = True) -> None:
        self.config = config
        self.progress = progress
        self.out = Path(config.output_dir)
        self.timings: dict[str, float] = {}
        self.rss_by_phase: dict[str, float] = {}
        self.workers: Any = None
        self.envs: dict[str, Any] = {}
        self.rollout_envs: dict[str, Any] = {}
        self.examples: list[Example] = []
        self._bar: Progress | None = None
        self._points: PointQueue | None = None  # step-level RL's queue of decision points (`decision_points`)
        self._clock = time.perf_counter()
        self._ready = False

    # -- hooks ---------------------------------------------------------------------------------

    def load_model(self) -> tuple[Any, Any]:
        """The model with fresh LoRA adapters and its tokenizer (see `load_lora_model`).

        The frozen base weights are bfloat16 on a CUDA card that has it (``precision`` "auto" or
        "bf16") and float32 elsewhere (`load_dtype`); the adapters are float32 either way.
        """
        import torch
        from peft import LoraConfig

        from gym_mcp.policies.weights import load_dtype
        from gym_mcp.train.loading import load_lora_model

        c = self.config
        lora = LoraConfig(r=c.lora_r, lora_alpha=c.lora_alpha, target_modules=list(c.lora_targets))
        dtype = load_dtype("cuda" if torch.cuda.is_available() else "cpu", c.precision)
        return load_lora_model(c.model, lora, last_layers=c.lora_layers, dtype=dtype)

    def make_env(self, user: str | None = None, perturb: str | None = None, server: str | None = None) -> Any:
        """A new environment of ``server`` (default: the run's first training server).

        ``user`` and ``perturb`` default to the config's.
        """
        import gymnasium as gym

        from gym_mcp import env_id
        from gym_mcp.wrappers import Perturb

        c = self.config
        user = c.user if user is None else user
        perturb = c.perturb if perturb is None else perturb
        server = server or next(iter(c.train_servers))
        made = gym.make(env_id(server), max_steps=c.max_episode_steps, reward=self.reward, user=user or None)
        return Perturb(made, perturb, seed=c.seed) if perturb else made

    def env_for(self, server: str) -> Any:
        """The environment that plays ``server``'s SFT conversations (made once, then kept)."""
        env = self.envs.get(server)
        if env is None:
            env = self.envs[server] = self.make_env(server=server)
        return env

    def rollout_env_for(self, server: str) -> Any:
        """The environment GRPO groups of ``server``'s tasks play in (made once, then kept).

        On a Ray worker with ``rollout_workers``; with its own user when ``grpo_user`` differs
        from ``user``; otherwise `env_for`'s.
        """
        env = self.rollout_envs.get(server)
        if env is None:
            c = self.config
            if self.workers is not None:
                from gym_mcp import env_id

                env = self.workers.make(
                    env_id(server),
                    max_steps=c.max_episode_steps,
                    reward=self.reward,
                    user=(c.grpo_user or c.user) or None,
                    perturb=c.perturb or None,
                    perturb_seed=c.seed,
                )
            elif c.grpo_user and c.grpo_user != c.user:
                env = self.make_env(c.grpo_user, server=server)
            else:
                env = self.env_for(server)
            self.rollout_envs[server] = env
        return env

    def load_tasks(self) -> list[Any]:
        """Every task of the run, before the split (``config.tasks``, or synthesized; see `run_tasks`)."""
        return run_tasks(self.config)

    def build_sft_examples(self) -> list[Example]:
        """The encoded SFT conversations: each train task's reference, and some recovery examples.

        A task with ``k`` calls gives ``k`` copies with ``sft_chain_repeats`` (times
        ``sft_confirm_repeats`` where its reference asks to confirm an action, ``sft_missing_repeats``
        where it asks for a value the request left out, the larger where it does both); with
        ``sft_recovery``, that share of the tasks also gives an error-recovery conversation, and
        with ``sft_needless`` one that stops after a needless call.
        """
        from gym_mcp.train.data import (
            encode_conversation,
            needless_call_conversation,
            recovery_conversation,
            reference_conversation,
        )

        c, distractors = self.config, self.distractors
        examples = []
        for task in self.tasks:
            messages, tools = reference_conversation(self.env_for(task.server), task, distractors)
            example = encode_conversation(self.tokenizer, messages, tools, task.id, fmt=self.fmt)
            copies = max(len(task.reference_calls), 1) if c.sft_chain_repeats else 1
            if task.user is not None:
                asks = [c.sft_confirm_repeats] if task.user.confirm else []
                asks += [c.sft_missing_repeats] if task.user.withheld else []
                copies *= max(asks, default=1)
            examples += [example] * copies
        # examples whose one bad or needless call is context (masked): the answer to it is learned
        for share, make, offset in (
            (c.sft_recovery, recovery_conversation, 7),
            (c.sft_needless, needless_call_conversation, 11),
        ):
            picker = random.Random(c.seed + offset)
            for task in self.tasks:
                if share and picker.random() < share:
                    made = make(self.env_for(task.server), task, distractors, seed=c.seed)
                    if made is not None:
                        messages, tools, context = made
                        examples.append(
                            encode_conversation(
                                self.tokenizer, messages, tools, task.id, fmt=self.fmt, masked=[context]
                            )
                        )
        return examples

    def sample_group(self) -> SampledGroup:
        """Draw a task and play a GRPO group of it, with dynamic sampling.

        A group whose rollouts all score the same has no gradient, so another task is drawn, up
        to ``max_resamples`` times; so is a group that lost all but one rollout to dead Ray
        workers. With probability ``fork_starts`` a group of a multi-call task starts after some
        of its reference calls.
        """
        from gym_mcp.train.loading import merged_lora
        from gym_mcp.train.rollouts import rollout_group

        c, rng = self.config, self.rng
        discarded = lost = 0
        # sampling only, merged once for every draw of the step: the update scores the rollouts unmerged
        with merged_lora(self.policy):
            while True:
                task = rng.choice(self.tasks)
                n_calls = len(task.reference_calls)
                fork_after = rng.randint(1, n_calls - 1) if n_calls > 1 and rng.random() < c.fork_starts else 0
                rollouts = rollout_group(
                    self.policy,
                    self.tokenizer,
                    self.rollout_env_for(task.server),
                    task,
                    c.num_generations,
                    fork_after=fork_after,
                    max_new_tokens=c.max_completion_length,
                    temperature=c.temperature,
                    seed=rng.randrange(2**31),
                    distractors=self.distractors,
                    answer_tokens=c.max_answer_tokens,
                    fmt=self.fmt,
                    grammar=self.grammar,
                )
                lost += c.num_generations - len(rollouts)  # a Ray worker died under them
                if len(rollouts) < 2:  # nothing left to compare: draw another group, or skip the step
                    if discarded >= c.max_resamples:
                        break
                    discarded += 1
                    continue
                spread = max(r.reward for r in rollouts) - min(r.reward for r in rollouts)
                if spread > 1e-6 or discarded >= c.max_resamples:
                    break
                discarded += 1
        return SampledGroup(task, fork_after, rollouts, discarded, lost)

    def log(self, row: dict[str, Any]) -> None:
        """Record a step's metrics: ``metrics.jsonl`` (main process), the trackers, the progress bar."""
        if self.accelerator.is_main_process:
            with (self.out / "metrics.jsonl").open("a") as f:
                f.write(json.dumps(row) + "\n")
        if self.config.report_to:
            self.accelerator.log({k: v for k, v in row.items() if isinstance(v, int | float)}, step=self.step)
        if self._bar is not None:
            self._bar.update(self.step, **step_status(row))

    # -- steps ---------------------------------------------------------------------------------

    def sft_step(self, step: int) -> dict[str, Any]:
        """One supervised step (``step`` 0-based) on a batch of SFT examples; returns its metrics row."""
        from gym_mcp.train.data import pack_batch, pad_batch
        from gym_mcp.train.losses import sft_step

        c = self.config
        batch = [self.examples[i] for i in sft_batch_indices(len(self.examples), step, c.sft_batch, self.process_seed)]
        pad, device = self.tokenizer.eos_token_id or 0, self.accelerator.device
        positions = None
        if c.sft_pack_tokens:
            ids, labels, positions = pack_batch(batch, pad, c.sft_pack_tokens, device)
        else:
            ids, labels = pad_batch(batch, pad, device)
        loss = sft_step(
            self.model,
            self.optimizer,
            ids,
            labels,
            per_turn=c.sft_per_turn,
            backward=self.accelerator.backward,
            micro_batch=c.per_device_train_batch_size,
            decision_weight=c.sft_decision_weight,
            checkpoint_tokens=c.gradient_checkpointing_tokens,
            position_ids=positions,
        )
        self.lr_scheduler.step()  # the next SFT step's rate
        return {"phase": "sft", "step": step + 1, "loss": round(loss, 5), "tokens": int(ids.numel())}

    def decision_points(self) -> PointQueue:
        """The decision points step-level RL trains at (``rl_level = "step"``), in the order it takes them.

        ``step_tasks`` training tasks are played greedily at every reference decision
        (`gym_mcp.train.steps.find_points`), shuffled, into a `PointQueue` (the mistakes first,
        then by each point's last pass rate; at most ``step_visits`` groups a point). What was found is written
        to ``decision_points.json`` (counts per kind of decision and of mistake). The queue is not
        checkpointed: a resumed run finds its points again, with the model it resumed.
        """
        from gym_mcp.train.steps import PointQueue, mistake_counts

        c = self.config
        tasks = self.rng.sample(self.tasks, min(c.step_tasks, len(self.tasks)))
        points = self.judge_decisions(tasks)
        self.rng.shuffle(points)
        if self.accelerator.is_main_process:
            found = {"tasks": len(tasks), "points": len(points), "by_kind": mistake_counts(points)}
            (self.out / "decision_points.json").write_text(json.dumps(found, indent=1))
        return PointQueue(points, max_visits=c.step_visits)

    def judge_decisions(self, tasks: Sequence[Any], *, merged: bool = False, progress: Any = None) -> list[Any]:
        """The policy's greedy reply at every reference decision of ``tasks``, each judged (see `find_points`).

        Args:
            tasks: The tasks (any: training, held-out).
            merged: Play with the LoRA adapters merged into the weights (`merged_lora`; faster,
                the same model to float rounding). Step-level RL finds its points unmerged.
            progress: Called with ``(judged, total so far)`` as decisions are judged.

        Returns:
            One `DecisionPoint` per reference decision, in task order, with its ``mistake``.
        """
        from contextlib import nullcontext

        from gym_mcp.train.loading import merged_lora
        from gym_mcp.train.steps import find_points

        c = self.config
        with merged_lora(self.policy) if merged else nullcontext():
            return find_points(
                self.policy,
                self.tokenizer,
                self.rollout_env_for,
                tasks,
                tools_for=self._tools_for,
                fmt=self.fmt,
                max_new_tokens=c.max_completion_length,
                batch=c.per_device_eval_batch_size,
                answer_tokens=c.max_answer_tokens,
                grammar=self.grammar,
                progress=progress,
            )

    def _tools_for(self, info: dict[str, Any], task: Any) -> list[dict[str, Any]]:
        from gym_mcp.train.data import compact_tools

        return compact_tools(info["tools"], task, self.distractors, info.get("perturbations", ()))

    def point_step(self, step: int) -> dict[str, Any]:
        """One step-level RL step: groups at the next ``step_points`` decision points, one update.

        A point whose group has no reward spread is dropped; one with spread (a guided group
        included: the model still fails there) goes back into the queue at its pass rate
        (`gym_mcp.train.steps.PointQueue`): what the model fails most is sampled again first.
        """
        from gym_mcp.train.losses import reply_step
        from gym_mcp.train.steps import sample_at

        c = self.config
        if self._points is None:
            self._points = self.decision_points()
        taken = self._points.take(c.step_points)
        groups = []
        if taken:
            groups = sample_at(
                self.policy,
                self.tokenizer,
                self.rollout_env_for,
                taken,
                c.num_generations,
                tools_for=self._tools_for,
                fmt=self.fmt,
                temperature=c.temperature,
                max_new_tokens=c.max_completion_length,
                seed=self.rng.randrange(2**31),
                answer_tokens=c.max_answer_tokens,
                grammar=self.grammar,
                guide=c.step_guide,
                late_credit=c.step_late_credit,
            )
        stats = reply_step(
            self.model,
            self.optimizer,
            [(g.replies, g.rewards) for g in groups],
            temperature=c.temperature,
            clip=c.epsilon,
            kl_coef=c.beta,
            scale_rewards=c.scale_rewards == "group",
            num_iterations=c.num_iterations,
            backward=self.accelerator.backward,
        )
        self._points.update(groups)
        return {
            "phase": "grpo",
            "step": step + 1,
            "level": "step",
            "points": len(groups),
            "kept": stats["kept"],
            "left": len(self._points),
            # the step's reward is whether a reply takes the reference's turn: mean reward = success
            "reward_mean": round(sum(g.pass_rate for g in groups) / max(1, len(groups)), 4),
            "success": round(sum(g.pass_rate for g in groups) / max(1, len(groups)), 4),
            "kinds": [g.point.kind for g in groups],
            "guided": sum(g.guided for g in groups),
            "loss": round(stats["loss"], 5),
            "kl": round(stats["kl"], 5),
            "ratio_error": stats["ratio_error"],
            "clipped": round(stats["clipped"], 4),
            "zero_spread": stats["kept"] == 0,
        }

    def grpo_step(self, step: int) -> dict[str, Any]:
        """One GRPO step (``step`` 0-based): sample a group (`sample_group`), update on it; its metrics row.

        With ``rl_level = "step"``, a step-level step instead (`point_step`).
        """
        from gym_mcp.train.losses import grpo_step

        c = self.config
        for group in self.optimizer.param_groups:  # GRPO runs at a constant rate
            group["lr"] = c.grpo_learning_rate or c.learning_rate
        if c.rl_level == "step":
            return self.point_step(step)
        drawn = self.sample_group()
        rollouts = drawn.rollouts
        if len(rollouts) < 2:
            stats: dict[str, Any] = {"loss": 0.0, "kl": 0.0, "rewards": [0.0], "zero_spread": True}
            stats["clipped"] = 0.0  # every rollout was lost: no update this step
        else:
            stats = grpo_step(
                self.model,
                self.tokenizer,
                self.optimizer,
                rollouts,
                clip=c.epsilon,
                kl_coef=c.beta,
                temperature=c.temperature,
                backward=self.accelerator.backward,
                micro_batch=c.per_device_train_batch_size,
                fmt=self.fmt,
                scale_rewards=c.scale_rewards == "group",
                checkpoint_tokens=c.gradient_checkpointing_tokens,
                num_iterations=c.num_iterations,
            )
        n = max(1, len(rollouts))
        row = {
            "phase": "grpo",
            "step": step + 1,
            "task": drawn.task.id,
            "fork_after": drawn.fork_after,
            "loss": round(stats["loss"], 5),
            "kl": round(stats["kl"], 5),
            "reward_mean": round(sum(stats["rewards"]) / n, 4),
            "reward_spread": round(max(stats["rewards"]) - min(stats["rewards"]), 4),
            "success": round(sum(float(r.terms.get("success", 0)) for r in rollouts) / n, 4),
            "calls": round(sum(float(r.terms.get("n_calls", 0)) for r in rollouts) / n, 3),
            "zero_spread": stats["zero_spread"],
            "discarded_groups": drawn.discarded,
            "clipped": round(stats["clipped"], 4),
        }
        if self.workers is not None:  # rollouts on Ray: those a dead worker took with it
            row["lost_rollouts"] = drawn.lost
            row["skipped"] = len(rollouts) < 2
        return row

    def evaluate(self, name: str, label: str, *, cache: bool = False) -> dict[str, Any] | None:
        """Evaluate the policy as it is now on the held-out tasks, once (saved as ``out/name``).

        Args:
            name: The file the summary is saved as (a resumed run reuses it).
            label: What is evaluated, for the progress display.
            cache: Keep or reuse the result across runs (the base model's; see `evaluate_held_out`).

        Returns:
            The evaluation summary, or None when there is nothing held out (or not on the main process).
        """
        from gym_mcp.train.evaluation import evaluate_held_out

        c = self.config
        tasks = self.held_out if self.accelerator.is_main_process else []
        factories = {s: partial(self.make_env, perturb=c.eval_perturb, server=s) for s in {t.server for t in tasks}}
        played = (self.policy, self.tokenizer, self.fmt, factories)
        return evaluate_held_out(
            self.out / name, label, *played, tasks, c, self.progress, cache=cache, grammar=self.grammar
        )

    # -- the run -------------------------------------------------------------------------------

    def lap(self, name: str) -> None:
        """Add the time since the last lap to phase ``name``."""
        now = time.perf_counter()
        self.timings[name] = round(self.timings.get(name, 0.0) + now - self._clock, 2)
        self.rss_by_phase[name] = peak_rss_gb()
        self._clock = now

    def setup(self) -> None:
        """Load the model, restore a checkpoint, make the environments, get and split the tasks."""
        import torch
        from accelerate import Accelerator  # type: ignore[import-untyped]

        from gym_mcp.policies.prompt import prompt_format
        from gym_mcp.tasks import DIALOGUE_KINDS, save_tasks
        from gym_mcp.train.data import schema_ordered
        from gym_mcp.train.loading import call_grammar, mixed_precision
        from gym_mcp.train.rollouts import server_tools
        from gym_mcp.train.schedule import position_scheduler, sft_scheduler

        c, out = self.config, self.out
        self._clock = time.perf_counter()
        out.mkdir(parents=True, exist_ok=True)
        ckpt = out / "checkpoint"
        if ((ckpt / CHECKPOINT_MARK).exists() or (ckpt / "state.pt").exists()) and (out / "config.json").exists():
            check_resumable(json.loads((out / "config.json").read_text()), c, out)
        (out / "config.json").write_text(json.dumps(asdict(c), indent=1))
        torch.manual_seed(c.seed)
        # accelerate places the model on the device (GPU when there is one) and, under
        # `accelerate launch`, wraps it for DDP; bf16 autocast where `TrainConfig.precision`
        # says: the model's forward runs under it, generation included.
        use_gpu = torch.cuda.is_available()
        precision = mixed_precision(c.precision, use_gpu)
        try:
            self.accelerator = Accelerator(
                cpu=not use_gpu, mixed_precision=precision, log_with=c.report_to or None, project_dir=str(out)
            )
        except ValueError as exc:  # accelerate keeps one mixed precision per process
            if "already been initialized" not in str(exc):
                raise
            raise ConfigError(
                f"precision: this process already trained with another precision and accelerate keeps the "
                f"first for the whole process; run the {c.precision!r} run in a new process"
            ) from None
        if c.report_to:
            self.accelerator.init_trackers("gym-mcp", config={k: str(v) for k, v in asdict(c).items()})
        model, self.tokenizer = self.load_model()
        self.fmt = prompt_format(self.tokenizer, c.prompt_format)
        self.grammar = call_grammar(c.guided_calls, self.tokenizer, self.fmt, model)
        optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=c.learning_rate)
        self.model, self.optimizer = self.accelerator.prepare(model, optimizer)
        self.policy = self.accelerator.unwrap_model(self.model)  # generation and evaluation use the unwrapped model
        # every process samples its own tasks (process 0 keeps the plain seed: one-process runs are exact)
        self.process_seed = c.seed + 1_000_003 * self.accelerator.process_index
        self.rng = random.Random(self.process_seed)
        self._state = _SamplerState(self.rng)
        self._register_checkpointing()
        self.step = self.load_checkpoint(ckpt)
        if self.accelerator.is_main_process:
            drop_rows_after(out / "metrics.jsonl", self.step)
        self.lr_scheduler = sft_scheduler(c, self.optimizer)
        if self.step < c.sft_steps:
            position_scheduler(self.lr_scheduler, self.step)
        self.lap("model load (conversion included)")
        self.reward = make_reward(c.reward, c)
        if c.rollout_workers and c.grpo_steps:  # GRPO's environments on Ray workers
            from gym_mcp.ray import WorkerPool

            self.workers = WorkerPool(c.rollout_workers, address=c.ray_address or None)
        skipped = set(c.skip_variants) | (set() if c.user else set(DIALOGUE_KINDS))
        tasks = [t for t in self.load_tasks() if (t.variant or "complete") not in skipped]
        # the same argument order whether the tasks were synthesized here or read from a file
        tools = {server: server_tools(self.env_for(server)) for server in dict.fromkeys(t.server for t in tasks)}
        usable = [schema_ordered(t, tools[t.server]) for t in tasks]
        self.tasks, self.held_out = held_out_split(usable, c.eval_tasks, c.eval_servers)
        if self.accelerator.is_main_process:
            save_tasks(self.tasks, out / "train.jsonl")
            save_tasks(self.held_out, out / "test.jsonl")
        self.lap("synthesis" if not c.tasks else "tasks")
        self._ready = True

    @property
    def distractors(self) -> int | None:
        """Tools shown besides the task's own (None: all of them)."""
        return None if self.config.distractor_tools < 0 else self.config.distractor_tools

    def train(self) -> dict[str, Any]:
        """Run (or resume) the run, with held-out evaluations before and after.

        The run folder (``output_dir``) gets ``config.json``, the tasks trained and evaluated on
        (``train.jsonl``, ``test.jsonl``), ``metrics.jsonl``, ``eval_before.json``,
        ``eval_after.json``, ``summary.json`` (the tables below, timings, peak memory),
        ``training.png`` and ``checkpoint/`` (the adapter, and accelerate's state: optimizer,
        RNGs, step).

        Returns:
            ``{"last": last metrics row, "before": ..., "after": ..., "timings": {phase: seconds},
            "peak_rss_gb": ..., "peak_gpu_gb": ..., "rss_by_phase": {phase: peak RSS at its end},
            "breakdown": the table of `breakdown_table`}``;
            ``before``/``after`` are evaluation summaries, or None when ``eval_tasks`` is 0;
            ``peak_gpu_gb`` is None without CUDA.
        """
        if not self._ready:
            self.setup()
        c, main = self.config, self.accelerator.is_main_process
        # the base model, adapters off: a resumed run has trained adapters loaded by now
        with self.policy.disable_adapter():
            before = self.evaluate("eval_before.json", "base model", cache=True)
        self.lap("evaluation before")
        self.examples = self.build_sft_examples()
        self.lap("SFT")
        last: dict[str, Any] = {}
        total = c.sft_steps + c.grpo_steps
        self._bar = Progress(total, "training", "steps") if self.progress and main else None
        try:
            while self.step < total:
                t0 = time.perf_counter()
                last = self.sft_step(self.step) if self.step < c.sft_steps else self.grpo_step(self.step)
                last["seconds"] = round(time.perf_counter() - t0, 2)
                self.step += 1
                self.log(last)
                if self.step % c.save_steps == 0 or self.step == total:
                    self.save_checkpoint()
                self.lap("SFT" if last["phase"] == "sft" else "GRPO")
        finally:
            self.close()
        after = self.evaluate("eval_after.json", "trained model")
        self.lap("evaluation after")
        result = {
            "last": last,
            "before": before,
            "after": after,
            "timings": self.timings,
            "peak_rss_gb": peak_rss_gb(),
            "peak_gpu_gb": peak_gpu_gb(),
            "rss_by_phase": self.rss_by_phase,
            "breakdown": breakdown_table(
                before, after, unseen_tool_tasks(self.tasks, self.held_out), unseen_servers=c.eval_servers
            ),
        }
        if main:
            plot_run(self.out / "metrics.jsonl", self.out / "training.png", before, after)
            summary = {
                "timings": self.timings,
                "peak_rss_gb": result["peak_rss_gb"],
                "peak_gpu_gb": result["peak_gpu_gb"],
                "peak_rss_gb_by_phase": self.rss_by_phase,
                "table": summary_table(before, after),
                "breakdown": result["breakdown"],
            }
            (self.out / "summary.json").write_text(json.dumps(summary, indent=1))
        return result

    def close(self) -> None:
        """Close the environments, the Ray workers and the progress bar."""
        envs = {id(e): e for e in [*self.envs.values(), *self.rollout_envs.values()]}
        for env in envs.values():
            env.close()
        self.envs, self.rollout_envs = {}, {}
        if self.workers is not None:
            self.workers.close()
        if self._bar is not None:
            self._bar.close()

    # -- checkpoints ---------------------------------------------------------------------------

    def _register_checkpointing(self) -> None:
        """Teach ``save_state``/``load_state`` the adapter (safetensors, not the whole model) and the sampler."""
        from peft import set_peft_model_state_dict
        from safetensors.torch import load_file

        policy, main = self.policy, self.accelerator.is_main_process

        def save_adapter(models: list[Any], weights: list[Any], folder: str) -> None:
            if main:
                policy.save_pretrained(folder)  # adapter_model.safetensors, what serving and tests read
            weights.clear()  # not the base model's weights: they never change

        def load_adapter(models: list[Any], folder: str) -> None:
            set_peft_model_state_dict(policy, load_file(Path(folder) / "adapter_model.safetensors"))
            models.clear()

        self.accelerator.register_save_state_pre_hook(save_adapter)
        self.accelerator.register_load_state_pre_hook(load_adapter)
        self.accelerator.register_for_checkpointing(self._state)

    def save_checkpoint(self) -> None:
        """Checkpoint the run at `step` into ``out/checkpoint`` (written beside it, then swapped in)."""
        ckpt = self.out / "checkpoint"
        tmp, old = ckpt.with_name("checkpoint.tmp"), ckpt.with_name("checkpoint.old")
        self._state.step = self.step
        if self.accelerator.is_main_process:
            shutil.rmtree(tmp, ignore_errors=True)
        self.accelerator.wait_for_everyone()
        self.accelerator.save_state(str(tmp))
        self.accelerator.wait_for_everyone()
        if self.accelerator.is_main_process:  # a crash mid-save leaves the last checkpoint whole
            shutil.rmtree(old, ignore_errors=True)
            if ckpt.exists():
                ckpt.rename(old)
            tmp.rename(ckpt)
            shutil.rmtree(old, ignore_errors=True)

    def load_checkpoint(self, ckpt: Path) -> int:
        """Restore ``ckpt`` when it exists (adapter, optimizer, sampler, RNGs); the step to go on from."""
        if (ckpt / CHECKPOINT_MARK).exists():
            self.accelerator.load_state(str(ckpt))
            return self._state.step
        if (ckpt / "state.pt").exists():  # a checkpoint of gym-mcp before save_state
            return self._load_legacy_checkpoint(ckpt)
        return 0

    def _load_legacy_checkpoint(self, ckpt: Path) -> int:
        import torch
        from peft import set_peft_model_state_dict
        from safetensors.torch import load_file

        state = torch.load(ckpt / "state.pt", weights_only=False)
        set_peft_model_state_dict(self.policy, load_file(ckpt / "adapter_model.safetensors"))
        self.optimizer.load_state_dict(state["optimizer"])
        self.rng.setstate(state["rng"])
        torch.set_rng_state(state["torch_rng"])
        return int(state["step"])


def drop_rows_after(path: Path, step: int) -> None:
    """Keep the rows of ``metrics.jsonl`` up to ``step``: the steps after the checkpoint are trained again.

    A run stopped between checkpoints logged steps its checkpoint does not hold; resumed, it logs
    them again, and without this the file would hold those steps twice.
    """
    if not path.exists():
        return
    lines = path.read_text().splitlines()
    kept = [line for line in lines if line.strip() and json.loads(line).get("step", 0) <= step]
    if len(kept) != len(lines):
        path.write_text("".join(line + "\n" for line in kept))


def train(config: TrainConfig, *, progress: bool = True) -> dict[str, Any]:
    """Run (or resume) a training run: ``GymTrainer(config, progress=progress).train()``.

    See `GymTrainer.train` for the files written and the result.
    """
    return GymTrainer(config, progress=progress).train()
