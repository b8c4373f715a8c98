"""The evaluation harness: any policy on any environment and task set, scored like agent benchmarks.

`evaluate` plays every task ``k`` times per policy (episodes run concurrently in threads; each
has its own environment and warm server), then computes: success rate, pass^k (tau-bench:
the chance that all k trials of a task succeed, averaged over tasks), mean reward and every
reward term, calls per solved task, excess-call rate against the adaptive budget, invalid-call
and tool-error rates, and breakdowns per server and per difficulty. `write_report` saves the
episodes and metrics as JSON, a Markdown table and a PNG. Same seed and a deterministic policy:
identical files.

Success and reward are kept apart. Success is the task's verifier (the final state's
fingerprint against the expected one, plus the answer and abstention where they apply); the
reward is whatever the environment's reward function pays. A task with no expected fingerprint
and no reference calls to replay for one cannot be judged on state: its episodes are
*unscorable* (``"success": None``), counted in the metrics' ``unscorable``, and left out of the
success rate and pass^k (which are None when no task is scorable). A task with reference calls
but no fingerprint is scored against the state its reference calls produce (the environment
replays them), counted in ``replayed_fingerprints``. Benchmarks with their own checker (BFCL)
are always scorable.
"""

from __future__ import annotations

import hashlib
import math
import os
import threading
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import gymnasium as gym

from gym_mcp.env.sync import SyncEnv
from gym_mcp.errors import ConfigError
from gym_mcp.policies.base import Policy
from gym_mcp.rewards.prove import efficiency_budget
from gym_mcp.tasks import Task, load_tasks
from gym_mcp.wrappers.perturb import KINDS, Perturb, mix

if TYPE_CHECKING:
    from gym_mcp.ray import WorkerPool

__all__ = ["EvalConfig", "EvalResult", "evaluate", "failed_by", "pass_hat_k"]


@dataclass(frozen=True)
class EvalConfig:
    """Settings of an evaluation.

    Attributes:
        k: Trials per task.
        concurrency: Episodes played at once.
        seed: Base seed (episode seeds derive from it, the task and the trial).
        max_steps: Steps per episode.
        perturb: A perturbation mix applied to every episode: a name in
            `gym_mcp.wrappers.perturb.MIXES` or a ``.toml`` file (see `gym_mcp.wrappers.mix`),
            or None for clean episodes.
    """

    k: int = 1
    concurrency: int = 1
    seed: int = 0
    max_steps: int = 20
    perturb: str | None = None

    def __post_init__(self) -> None:
        if self.k < 1 or self.concurrency < 1 or self.max_steps < 1:
            raise ConfigError("k, concurrency and max_steps must be at least 1")
        if self.perturb is not None:
            mix(self.perturb)  # an unknown name fails now, not in the first episode


@dataclass
class EvalResult:
    """Episodes and metrics of one evaluation.

    Attributes:
        episodes: One record per (env, policy, task, trial), in that order. ``success`` is the
            task's verifier (None when it cannot be judged: ``scorable`` is False), ``reward``
            the environment's reward, ``terms`` every reward term.
        metrics: ``{policy: {env: metrics}}``: ``success_rate`` and ``pass^k`` over the
            scorable episodes and tasks (None when none is), ``unscorable`` (tasks that cannot
            be judged on state), ``scored_episodes``, ``replayed_fingerprints`` (tasks scored
            against the state their reference calls produce), ``mean_reward``, ``mean_terms``
            and the rest (see the module docstring).
        lost_workers: With Ray workers, those that died (index, pid, host, error, and the
            episodes rerun elsewhere).
    """

    episodes: list[dict[str, Any]]
    metrics: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    lost_workers: list[dict[str, Any]] = field(default_factory=list)


def pass_hat_k(successes: int, trials: int, k: int) -> float:
    """tau-bench's pass^k for one task: C(successes, k) / C(trials, k)."""
    if trials < k:
        return float("nan")
    return math.comb(successes, k) / math.comb(trials, k)


def _episode_seed(seed: int, task_id: str, trial: int) -> int:
    """A seed per episode from the base seed, the task and the trial (all of the task id counts)."""
    digest = hashlib.sha256(f"{seed}:{task_id}:{trial}".encode()).digest()
    return int.from_bytes(digest[:8], "little") % (2**31)


def _play(
    env_id: str,
    env_kwargs: Mapping[str, Any],
    task: Task,
    policy: Policy,
    trial: int,
    cfg: EvalConfig,
    tasks: Sequence[Task],
) -> dict[str, Any]:
    env = gym.make(env_id, tasks=list(tasks), max_steps=cfg.max_steps, **env_kwargs)
    if cfg.perturb is not None:
        env = Perturb(env, mix(cfg.perturb))
    try:
        seed = _episode_seed(cfg.seed, task.id, trial)
        obs, info = env.reset(seed=seed, options={"task_id": task.id})
        policy.reset(task, info, seed=seed)
        reward, terminated, truncated = 0.0, False, False
        while not (terminated or truncated):
            action = policy.act(obs, info)
            obs, r, terminated, truncated, info = env.step(action)
            reward = float(r)
        inner = env.unwrapped
        if not isinstance(inner, SyncEnv):
            raise ConfigError(f"{env_id} is not a gym-mcp environment ({type(inner).__name__})")
        episode = inner.episode()
        terms = dict(info.get("reward_terms", {}))
        scorable = _scorable(info)
        return {
            "env": env_id,
            "policy": policy.name,
            "task_id": task.id,
            "trial": trial,
            "server": task.server,
            "difficulty": str(task.difficulty),
            "variant": task.variant,
            "split": task.split,
            "reward": reward,
            "success": bool(terms.get("success", info.get("state_match", False))) if scorable else None,
            "scorable": scorable,
            "replayed_fingerprint": scorable and _judged_on_state(info) and task.expected_fingerprint is None,
            "terms": terms,
            "steps": info["step"],
            "num_calls": sum(1 for c in episode.calls if c.name),
            "invalid_calls": info["invalid_calls"],
            "tool_errors": info["tool_errors"],
            "executed_calls": info["num_calls"],
            # the reward's own budget (its b) when it reports one, else PROVE's default b = 0.5
            "budget": int(terms.get("budget", efficiency_budget(task))),
            "truncated": truncated,
            "final_answer": episode.final_answer,
            "calls": [c.to_dict() for c in episode.calls],
            "messages": list(info["messages"]),
            "user": info.get("user"),
            "failed_by": failed_by(info, terms) if scorable else None,
            "perturbations": list(info.get("perturbations", [])),
            "perturbation_kinds": list(info.get("perturbation_kinds", [])),
            "perturbation_families": sorted(
                {KINDS[k].family for k in info.get("perturbation_kinds", []) if k in KINDS}
            ),
        }
    finally:
        env.close()


@dataclass(frozen=True)
class _Job:
    """One episode to play: what `_run_job` needs, all of it picklable (it may go to a Ray worker)."""

    env_id: str
    env_kwargs: Mapping[str, Any]
    tasks: Sequence[Task]
    policy_name: str
    factory: Callable[[], Policy]
    task: Task
    trial: int
    cfg: EvalConfig


def _run_job(job: _Job) -> dict[str, Any]:
    """Play one episode with a fresh policy from the job's factory."""
    policy = job.factory()
    try:
        record = _play(job.env_id, job.env_kwargs, job.task, policy, job.trial, job.cfg, job.tasks)
    finally:
        policy.close()
    record["policy"] = job.policy_name
    return record


def failed_by(info: Mapping[str, Any], terms: Mapping[str, Any]) -> str | None:
    """Who a failed episode's failure belongs to: ``"user"``, ``"agent"``, or None when it succeeded.

    A failure is the simulated user's when the user hit a guard (leaked its goal, stopped while
    requests were still unmade, stated a value it does not hold, gave an empty or malformed
    reply, or raised); every other failure is the agent's. Without a user every failure is the
    agent's.
    """
    if terms.get("success", info.get("state_match")):
        return None
    user = info.get("user") or {}
    return "user" if user.get("guards") else "agent"


def _judged_on_state(info: Mapping[str, Any]) -> bool:
    """The environment judges success on the final state (MCP environments report its fingerprint)."""
    return "final_fingerprint" in info


def _scorable(info: Mapping[str, Any]) -> bool:
    """Success can be judged: by state against an expected fingerprint, or by the environment's own checker.

    An MCP environment reports ``state_match`` only when the task has an expected fingerprint
    (its own, or the one its reference calls produce); BFCL's environment scores with BFCL's
    checker and reports no fingerprint.
    """
    return not _judged_on_state(info) or "state_match" in info


def _rounded(value: float, digits: int = 4) -> float:
    """``value`` rounded for a report, never ``-0.0`` (a small penalty that rounds away reads as none)."""
    return round(value, digits) + 0.0


def _rate(hits: int, n: int) -> float | None:
    return round(hits / n, 4) if n else None


def _metrics(episodes: Sequence[Mapping[str, Any]], k: int) -> dict[str, Any]:
    if not episodes:
        return {}
    n = len(episodes)
    scored = [e for e in episodes if e.get("scorable", True)]
    solved = [e for e in scored if e["success"]]
    by_task: dict[str, list[bool]] = defaultdict(list)
    for e in scored:
        by_task[e["task_id"]].append(bool(e["success"]))
    unscorable = {e["task_id"] for e in episodes if not e.get("scorable", True)}
    replayed = {e["task_id"] for e in episodes if e.get("replayed_fingerprint")}
    term_names = sorted({t for e in episodes for t, v in e["terms"].items() if isinstance(v, int | float)})
    attempted = sum(e["num_calls"] for e in episodes)
    executed = sum(e["executed_calls"] for e in episodes)

    def breakdown(key: str) -> dict[str, Any]:
        groups: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
        for e in episodes:
            value = e.get(key)
            for group in value if isinstance(value, list) else [value]:  # a list: the episode is in each group
                groups[str(group)].append(e)
        out = {}
        for g, es in sorted(groups.items()):
            judged = [e for e in es if e.get("scorable", True)]
            out[g] = {
                "episodes": len(es),
                "success_rate": _rate(sum(bool(e["success"]) for e in judged), len(judged)),
                "mean_reward": _rounded(sum(e["reward"] for e in es) / len(es)),
            }
        return out

    return {
        "episodes": n,
        "tasks": len({e["task_id"] for e in episodes}),
        # success is judged only where it can be: over the scorable episodes (None when there are none)
        "unscorable": len(unscorable),
        "scored_episodes": len(scored),
        "replayed_fingerprints": len(replayed),
        "success_rate": _rate(len(solved), len(scored)),
        "pass^k": {
            str(j): round(sum(pass_hat_k(sum(v), len(v), j) for v in by_task.values()) / len(by_task), 4)
            if by_task
            else None
            for j in range(1, k + 1)
        },
        "mean_reward": _rounded(sum(e["reward"] for e in episodes) / n),
        "mean_terms": {
            t: _rounded(
                sum(float(e["terms"][t]) for e in episodes if isinstance(e["terms"].get(t), int | float))
                / max(1, sum(1 for e in episodes if isinstance(e["terms"].get(t), int | float)))
            )
            for t in term_names
        },
        "calls_per_solved_task": round(sum(e["num_calls"] for e in solved) / len(solved), 3) if solved else None,
        "excess_call_rate": round(sum(e["num_calls"] > e["budget"] for e in solved) / len(solved), 4)
        if solved
        else None,
        "invalid_call_rate": round(sum(e["invalid_calls"] for e in episodes) / attempted, 4) if attempted else 0.0,
        "tool_error_rate": round(sum(e["tool_errors"] for e in episodes) / executed, 4) if executed else 0.0,
        **_dialogue_metrics(scored),
        "by_server": breakdown("server"),
        "by_difficulty": breakdown("difficulty"),
        "by_variant": breakdown("variant"),
        **(
            {
                "by_perturbation_family": breakdown("perturbation_families"),
                "by_perturbation_kind": breakdown("perturbation_kinds"),
            }
            if any(e.get("perturbation_kinds") for e in episodes)
            else {}
        ),
    }


def _dialogue_metrics(scored: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """With a simulated user: failures by who caused them, the success rate without the user's, ask rates."""
    with_user = [e for e in scored if e.get("user") is not None]
    if not with_user:
        return {}
    by_user = sum(e.get("failed_by") == "user" for e in with_user)
    by_agent = sum(e.get("failed_by") == "agent" for e in with_user)
    judged = len(with_user) - by_user
    asked = [e["terms"]["asked_when_needed"] for e in with_user if "asked_when_needed" in e["terms"]]
    needless = [e["terms"]["asked_needlessly"] for e in with_user if "asked_needlessly" in e["terms"]]
    unconfirmed = [e["terms"]["unconfirmed_actions"] for e in with_user if "unconfirmed_actions" in e["terms"]]
    return {
        "failures": {"agent": by_agent, "user": by_user},
        # the success rate a simulator's failures cannot pull down: episodes it failed are left out
        "success_rate_excluding_user_failures": _rate(sum(bool(e["success"]) for e in with_user), judged),
        "ask_rate": _rate(sum(a == 1.0 for a in asked), len(asked)),
        "needless_questions_per_episode": round(sum(needless) / len(needless), 4) if needless else None,
        "unconfirmed_action_rate": _rate(sum(u > 0 for u in unconfirmed), len(unconfirmed)),
        "user_turns_per_episode": round(sum(e["user"]["turns"] for e in with_user) / len(with_user), 3),
    }


def evaluate(
    runs: Sequence[tuple[str, str | os.PathLike[str] | Sequence[Task]]],
    policies: Mapping[str, Callable[[], Policy]],
    config: EvalConfig | None = None,
    *,
    env_kwargs: Mapping[str, Any] | None = None,
    progress: Callable[[int, int], None] | None = None,
    workers: WorkerPool | None = None,
) -> EvalResult:
    """Play every task of every ``(env_id, tasks)`` run with every policy, ``k`` times.

    Args:
        runs: ``(env id, task file or tasks)`` pairs.
        policies: ``{name: factory}``; each episode gets a fresh policy from its factory.
        config: Trials, concurrency, seed, step limit.
        env_kwargs: Extra `gym.make` options (e.g. ``transport="stdio"``).
        progress: Called with (episodes done, episodes in all).
        workers: Play the episodes on these Ray workers (`gym_mcp.ray.WorkerPool`), each
            running ``config.concurrency`` at once, instead of in threads here; a worker that
            dies has its episodes rerun on another, and is listed in the result's
            ``lost_workers``. The episodes are the same either way.

    Returns:
        Episodes (ordered, independent of thread timing) and metrics per policy and env.

    Raises:
        ConfigError: An unknown env id.
        TaskError: A malformed task file (the line is named).
    """
    cfg = config or EvalConfig()
    kwargs = dict(env_kwargs or {})
    jobs: list[_Job] = []
    for env_id, tasks in runs:
        if env_id not in gym.registry:
            known = ", ".join(sorted(i for i in gym.registry if i.startswith("gym_mcp/")))
            raise ConfigError(f"unknown environment id {env_id!r}; registered gym_mcp ids: {known}")
        task_list = load_tasks(tasks) if isinstance(tasks, str | os.PathLike) else list(tasks)
        for name, factory in policies.items():
            for task in task_list:
                for trial in range(cfg.k):
                    jobs.append(_Job(env_id, kwargs, task_list, name, factory, task, trial, cfg))
    done = 0
    lock = threading.Lock()

    def run(job: _Job) -> dict[str, Any]:
        nonlocal done
        record = _run_job(job)
        with lock:
            done += 1
            if progress:
                progress(done, len(jobs))
        return record

    already_lost = len(workers.lost) if workers is not None else 0
    if workers is not None:  # on Ray: each episode (policy and environment) on a worker, results in order
        episodes = list(workers.map(_run_job, jobs, progress=progress, per_worker=cfg.concurrency))
    else:
        with ThreadPoolExecutor(cfg.concurrency) as pool:
            episodes = list(pool.map(run, jobs))
    result = EvalResult(episodes, lost_workers=workers.lost[already_lost:] if workers is not None else [])
    for name in policies:
        for env_id, _ in runs:
            subset = [e for e in episodes if e["policy"] == name and e["env"] == env_id]
            result.metrics.setdefault(name, {})[env_id] = _metrics(subset, cfg.k)
    return result
