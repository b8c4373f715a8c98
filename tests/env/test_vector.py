"""gym.make_vec in "sync" and "async" modes gives correct (fresh, per-env) observations by default."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest

import gym_mcp  # noqa: F401 - registers the environments
from gym_mcp import Task

TASKS = [
    Task(id=f"t{i}", server="banking", instruction=f"Task {i}: check account ACC-10{i:02d} — ünïcode ✓")
    for i in range(1, 5)
]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_make_vec_observations_are_correct(mode: str) -> None:
    envs = gym.make_vec("gym_mcp/Banking-v0", num_envs=2, vectorization_mode=mode, tasks=TASKS)
    try:
        obs, infos = envs.reset(seed=[0, 1], options={"task_id": "t3"})
        assert list(obs) == [TASKS[2].instruction, TASKS[2].instruction]
        actions = [
            {"name": "get_balance", "arguments": {"account_id": "ACC-1001"}},
            {"name": "get_balance", "arguments": {"account_id": "ACC-1002"}},
        ]
        for _ in range(3):  # repeated steps: stale shared memory would show the first result again
            obs, rewards, terminated, truncated, infos = envs.step(actions)
            assert [json.loads(o)["account_id"] for o in obs] == ["ACC-1001", "ACC-1002"]
            assert not np.any(terminated)
        obs, *_ = envs.step(
            [
                {"name": "get_balance", "arguments": {"account_id": "ACC-1003"}},
                {"name": "nope", "arguments": {}},
            ]
        )
        assert json.loads(obs[0])["account_id"] == "ACC-1003"
        assert obs[1].startswith("Error: unknown tool 'nope'")
    finally:
        envs.close()


def test_async_vector_env_with_text_actions() -> None:
    envs = gym.make_vec("gym_mcp/Shopping-v0", num_envs=2, vectorization_mode="async")
    try:
        envs.reset(seed=0)
        obs, rewards, terminated, truncated, _ = envs.step(
            [
                '<tool_call>{"name": "get_product", "arguments": {"product_id": "PRD-1001"}}</tool_call>',
                "Bye.",
            ]
        )
        assert json.loads(obs[0])["product_id"] == "PRD-1001"
        assert list(terminated) == [False, True]
    finally:
        envs.close()
