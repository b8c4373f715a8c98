"""An LLM user end to end: `gym-mcp serve-model` running a real (tiny) transformer plays the user."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gym_mcp import MCPEnv
from gym_mcp.users import LLMUser
from tests.helpers import served_model
from tests.tiny_model import build_tiny_model
from tests.users.test_users import ASK_150, dialogue_task


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with served_model(build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")) as url:
        yield url


def test_llm_user_episode_against_a_served_model(served: str, tmp_path: Path) -> None:
    user = LLMUser(served, "tiny", max_tokens=24, max_retries=1)
    env = MCPEnv("banking", user=user, max_user_turns=3)
    try:
        obs, info = env.reset(options={"task": dialogue_task()})
        assert obs == dialogue_task().instruction
        done = False
        actions = [ASK_150, "Is there anything else?", "Anything more?"]
        for action in actions:
            obs, _, terminated, truncated, info = env.step(action)
            assert isinstance(obs, str) and obs  # a reply (the model's, or the fallback), never an exception
            done = terminated or truncated
            if done:
                break
        assert done  # the user stopped, or its turns ran out
        turns = env.unwrapped.episode().user_turns
        assert 1 <= len(turns) <= 3 and info["user"]["turns"] == len(turns)
        assert sum(info["user"]["guards"].values()) == sum(len(t.guards) for t in turns)
        assert "reward_terms" in info and info["reward_terms"]["success"] == 0.0  # nothing was transferred
    finally:
        env.close()
        user.close()
