"""Evaluate a model (base or with its adapter) on tasks, playing episodes in batches.

`evaluate_model` plays every task once, greedily, through real environments: each turn, the
prompts of all open episodes in a batch go through one batched generation (see `play`). It is
the in-process counterpart of `gym_mcp.evaluation` (which drives any `Policy`, one episode per
thread) for models being trained: no server for the model, no reload of the weights.
`evaluate_held_out` is the trainer's before/after evaluation: saved in the run folder, and the
base model's cached across runs.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from gym_mcp.progress import Progress
from gym_mcp.train.loading import merged_lora

if TYPE_CHECKING:
    from gym_mcp.train.config import TrainConfig

__all__ = ["ModelEval", "eval_cache_path", "evaluate_held_out", "evaluate_model"]


@dataclass
class ModelEval:
    """What a model did on a task set.

    Attributes:
        success: Share of tasks solved (final state matches; abstained where it should).
        reward: Mean episode reward.
        calls_per_solved: Mean tool calls in the solved episodes (None if none was solved).
        reference_calls_per_solved: Mean reference calls of the solved tasks (the minimum).
        invalid_calls: Mean invalid calls per episode (bad JSON, unknown tools, bad arguments).
        episodes: One row per task: id, success, reward, calls, the conversation, and with a
            simulated user ``asked`` (got a withheld value by asking: 1.0 / 0.0, None where
            nothing was withheld) and ``unconfirmed`` (actions taken without the user's yes).
        seconds: Wall time.
    """

    success: float
    reward: float
    calls_per_solved: float | None
    reference_calls_per_solved: float | None
    invalid_calls: float
    episodes: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0


def evaluate_model(
    model: Any,
    tokenizer: Any,
    make_env: Callable[[], Any] | Mapping[str, Callable[[], Any]],
    tasks: Sequence[Any],
    *,
    batch_size: int = 8,
    max_new_tokens: int = 64,
    distractors: int | None = 3,
    progress: str | None = None,
    answer_tokens: int | None = None,
    fmt: Any = None,
    reuse_cache: bool = True,
    grammar: Any = None,
    batch_prefill: bool | None = None,
    merge_lora: bool = True,
) -> ModelEval:
    """Play each task once, greedily, ``batch_size`` episodes at a time.

    Args:
        model: A causal LM (a PEFT model plays with its adapter).
        tokenizer: Its tokenizer.
        make_env: Makes one environment (called ``batch_size`` times; all are closed at the end),
            or ``{server: factory}`` for tasks of several servers (each task played in an
            environment of its own server; a batch never mixes servers).
        tasks: The tasks.
        batch_size: Episodes played in lockstep.
        max_new_tokens: Longest reply per turn.
        distractors: Tools shown besides the task's own (see `compact_tools`); None shows all.
        progress: A label: show a progress line on stderr.
        answer_tokens: Cut a reply that opens no call within this many tokens (see
            `generate_replies`).
        fmt: The prompt format (default: `prompt_format` of the tokenizer).
        reuse_cache: Each turn runs only an episode's new tokens (see `PromptCache`); False
            runs every prompt whole (the same replies, slower).
        grammar: A `gym_mcp.policies.guided.CallGrammar`: calls are decoded under the shown
            tools' schemas; None decodes freely.
        batch_prefill: Each turn, the episodes' new tokens run in one padded pass (False: one
            pass per episode; None, the default: batched on a GPU only; see `PromptCache`).
        merge_lora: Play with the model's LoRA adapters merged into its weights (see
            `merged_lora`; the model leaves bit for bit as it came). True, the default: on two CPU
            cores it took 0.80x the time with the same conversations; False plays unmerged.

    Returns:
        The metrics and one row per episode.
    """
    start = time.perf_counter()
    by_server: dict[str | None, list[Any]] = {}
    for task in tasks:  # one batch of environments per server, each made by its own factory
        by_server.setdefault(task.server if isinstance(make_env, Mapping) else None, []).append(task)
    was_training = bool(getattr(model, "training", False))
    model.eval()
    bar = Progress(len(tasks), progress, "tasks") if progress else None
    played: dict[int, dict[str, Any]] = {}
    settings = {
        "max_new_tokens": max_new_tokens,
        "answer_tokens": answer_tokens,
        "fmt": fmt,
        "reuse_cache": reuse_cache,
        "grammar": grammar,
        "batch_prefill": batch_prefill,
    }
    try:
        with merged_lora(model) if merge_lora else nullcontext():
            _play_all(model, tokenizer, make_env, by_server, batch_size, distractors, settings, played, bar)
    finally:
        if was_training:
            model.train()
        if bar is not None:
            bar.close()
    rows: list[dict[str, Any]] = [played[id(task)] for task in tasks]
    solved = [row for row in rows if row["success"] >= 1.0]
    n = max(1, len(rows))
    return ModelEval(
        success=sum(row["success"] for row in rows) / n,
        reward=sum(row["reward"] for row in rows) / n,
        calls_per_solved=sum(row["calls"] for row in solved) / len(solved) if solved else None,
        reference_calls_per_solved=sum(row["reference_calls"] for row in solved) / len(solved) if solved else None,
        invalid_calls=sum(row["invalid_calls"] for row in rows) / n,
        episodes=rows,
        seconds=time.perf_counter() - start,
    )


def _play_all(
    model: Any,
    tokenizer: Any,
    make_env: Any,
    by_server: dict[str | None, list[Any]],
    batch_size: int,
    distractors: int | None,
    settings: dict[str, Any],
    played: dict[int, dict[str, Any]],
    bar: Progress | None,
) -> None:
    """Play every task of ``by_server`` (``{server: tasks}``), a batch of environments per server."""
    for server, group in by_server.items():
        factory = make_env if server is None or not isinstance(make_env, Mapping) else make_env[server]
        envs = [cast(Callable[[], Any], factory)() for _ in range(min(batch_size, len(group)))]
        try:
            for first in range(0, len(group), len(envs)):
                chunk = group[first : first + len(envs)]
                results = _play_chunk(model, tokenizer, envs, chunk, distractors, settings)
                played.update({id(task): row for task, row in zip(chunk, results, strict=True)})
                if bar is not None:
                    bar.update(len(played), solved=f"{sum(r['success'] for r in played.values()):.0f}")
        finally:
            for env in envs:
                env.close()


def _play_chunk(
    model: Any, tokenizer: Any, envs: list[Any], chunk: Sequence[Any], distractors: int | None, settings: dict[str, Any]
) -> list[dict[str, Any]]:
    """Play ``chunk`` (at most one task per environment) in lockstep; one result row per task."""
    from gym_mcp.train.data import compact_tools
    from gym_mcp.train.rollouts import play

    infos, tools = [], []
    for env, task in zip(envs, chunk, strict=False):
        _, info = env.reset(options={"task": task})
        infos.append(info)
        tools.append(compact_tools(info["tools"], task, distractors, info.get("perturbations", ())))
    rows = []
    for task, r in zip(chunk, play(model, tokenizer, envs[: len(chunk)], infos, tools, **settings), strict=True):
        rows.append(
            {
                "task": task.id,
                "server": task.server,
                "variant": task.variant,
                "success": float(r.terms.get("success", r.reward)),
                "reward": r.reward,
                "calls": int(r.terms.get("n_calls", 0)),
                "invalid_calls": r.invalid_calls,
                "reference_calls": len(task.reference_calls),
                "asked": r.terms.get("asked_when_needed"),
                "unconfirmed": r.terms.get("unconfirmed_actions"),
                "messages": r.messages,
            }
        )
    return rows


def evaluate_held_out(
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
    if not tasks:
        return None
    if path.exists():
        saved: dict[str, Any] = json.loads(path.read_text())
        return saved
    cached = eval_cache_path(config, fmt, tasks) if cache else None
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


def eval_cache_path(config: TrainConfig, fmt: Any, tasks: Sequence[Any]) -> Path:
    """Where the base model's evaluation on ``tasks`` is cached (a hash of everything it depends on)."""
    import hashlib

    import torch

    import gym_mcp
    from gym_mcp.policies.weights import load_dtype, models_dir, resolve_model
    from gym_mcp.train.loading import mixed_precision

    folder = Path(resolve_model(config.model))
    files = sorted(folder.glob("*")) if folder.is_dir() else []
    probe_tool = {"type": "function", "function": {"name": "probe", "parameters": {"type": "object"}}}
    key = {
        "model": str(config.model),
        "files": [(f.name, f.stat().st_size, f.stat().st_mtime_ns) for f in files if f.is_file()],
        "prompt": [fmt.name, fmt.prompt([{"role": "user", "content": "probe"}], [probe_tool])],
        "tasks": [t.model_dump(mode="json") for t in tasks],
        "settings": [
            sorted({t.server for t in tasks}),
            config.max_completion_length,
            config.max_answer_tokens,
            config.max_episode_steps,
            config.distractor_tools,
            config.per_device_eval_batch_size,
            config.reward,
            [config.reward_extra_call_cost, config.reward_stop_required, config.reward_budget_growth],
            config.lora_targets,
            config.guided_calls,
            config.eval_perturb,
            config.user,
            mixed_precision(config.precision, torch.cuda.is_available()),
            # a CPU fp32 evaluation is not a GPU bf16 one: the device and the weights' dtype count
            "cuda" if torch.cuda.is_available() else "cpu",
            str(load_dtype("cuda" if torch.cuda.is_available() else "cpu", config.precision)),
        ],
        "version": gym_mcp.__version__,
    }
    digest = hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()[:24]
    return models_dir().parent / "evals" / f"{digest}.json"
