"""The Perturb wrapper on a real bundled server: transient errors that succeed on retry.

A transient error is injected before the call reaches the server, so the state after a perturbed
episode equals the state the same successful calls give without the wrapper; the reference
policy retries such a call and still solves the task; the same seed gives the same episode.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

from gym_mcp import Task
from gym_mcp.errors import ConfigError
from gym_mcp.policies import ReferencePolicy
from gym_mcp.wrappers import TRANSIENT_MARKER, Perturb, TransientErrors
from tests.helpers import replayed_bank_task

CALLS = [
    {"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": 25.0, "description": "gift"}},
    {"name": "get_balance", "arguments": {"account_id": "ACC-1001"}},
    {"name": "withdraw", "arguments": {"account_id": "ACC-1001", "amount": 5.0}},
    {"name": "deposit", "arguments": {"account_id": "ACC-1002", "amount": 7.5}},
]


def _task() -> Task:
    return replayed_bank_task("four-calls", "Deposit, check, withdraw, deposit.", CALLS)


def _episode(task: Task, p: float, seed: int) -> tuple[list[str], float, list[dict[str, Any]], str]:
    """Run the reference policy through a perturbed env: (observations, reward, injections, fingerprint)."""
    env = Perturb(gym.make("gym_mcp/Banking-v0", tasks=[task], max_steps=40), [TransientErrors(p=p)])
    try:
        obs, info = env.reset(seed=seed, options={"task_id": task.id})
        assert info["perturbations"] == []
        policy = ReferencePolicy()
        policy.reset(task, info)
        seen, reward, done = [str(obs)], 0.0, False
        while not done:
            obs, reward, terminated, truncated, info = env.step(policy.act(str(obs), info))
            seen.append(str(obs))
            done = terminated or truncated
        return seen, float(reward), info["perturbations"], env.unwrapped.state.fingerprint()
    finally:
        env.close()


def test_transient_errors_are_retried_and_leave_the_state_exact() -> None:
    task = _task()
    seen, reward, injected, fingerprint = _episode(task, p=0.5, seed=3)
    assert injected, "p=0.5 over four calls injected nothing"
    assert {i["kind"] for i in injected} == {"transient_error"} and {i["family"] for i in injected} == {"transition"}
    assert all(TRANSIENT_MARKER in i["detail"] for i in injected)
    assert sum(TRANSIENT_MARKER in o for o in seen) == len(injected)  # each one shown to the agent
    assert reward == 1.0
    assert fingerprint == task.expected_fingerprint  # as if the failed attempts were never made
    clean_seen, clean_reward, clean_injected, clean_fp = _episode(task, p=0.0, seed=3)
    assert clean_injected == [] and clean_reward == 1.0 and clean_fp == fingerprint
    assert [o for o in seen if TRANSIENT_MARKER not in o] == clean_seen  # the rest is the clean episode


def test_same_seed_same_episode_other_seed_other_injections() -> None:
    task = _task()
    first = _episode(task, p=0.5, seed=11)
    assert _episode(task, p=0.5, seed=11) == first
    others = [_episode(task, p=0.5, seed=s)[2] for s in (12, 13, 14)]
    assert any(o != first[2] for o in others)


def test_no_tool_fails_more_than_max_in_a_row() -> None:
    task = _task()
    _, reward, injected, _ = _episode(task, p=1.0, seed=0)  # every call fails twice, then goes through
    assert reward == 1.0
    assert len(injected) == 2 * len(CALLS)


def test_bad_settings_and_a_non_gym_mcp_env_are_refused() -> None:
    with pytest.raises(ConfigError, match="p must be between 0 and 1"):
        TransientErrors(p=1.5)
    with pytest.raises(ConfigError, match="max_in_a_row"):
        TransientErrors(max_in_a_row=0)
    with pytest.raises(ConfigError, match="wraps a gym-mcp environment"):
        Perturb(gym.make("CartPole-v1"), [TransientErrors()])


def test_eval_under_transient_errors_solves_every_task_and_records_them(tmp_path: Path) -> None:
    from gym_mcp.evaluation import EvalConfig, evaluate
    from gym_mcp.evaluation.harness import _episode_seed

    assert len({_episode_seed(0, f"banking-{i:05d}", 0) for i in range(20)}) == 20  # every task its own seed
    base = _task()
    tasks = [Task.from_dict({**base.to_dict(), "id": f"t{i}"}) for i in range(6)]
    result = evaluate([("gym_mcp/Banking-v0", tasks)], {"reference": ReferencePolicy}, EvalConfig(perturb="transient"))
    assert all(e["success"] for e in result.episodes)
    assert sum(len(e["perturbations"]) for e in result.episodes) > 0
    assert {e["perturbations"][0]["kind"] for e in result.episodes if e["perturbations"]} == {"transient_error"}
    with pytest.raises(ConfigError, match="unknown perturbation mix 'nope'; mixes: action, all"):
        EvalConfig(perturb="nope")
