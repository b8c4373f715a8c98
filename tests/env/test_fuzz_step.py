"""Nothing an agent or a caller passes makes `step()` raise: a Hypothesis fuzz over every action shape.

Values that are not JSON (bytes, sets, NaN, numpy scalars, arbitrary objects), nesting far
deeper than any schema, lone surrogates, non-string keys and names, in call dicts, lists of
calls, OpenAI messages, `ToolCall`s and text: each step must return the five-tuple, and anything
unusable must come back as an error observation counted in ``info["invalid_calls"]``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from gym_mcp import MCPEnv
from gym_mcp.actions.parsing import ToolCall, json_problem
from tests.fuzz import ACTION, deep


@pytest.fixture(scope="module")
def env() -> Iterator[MCPEnv]:
    e = MCPEnv("banking", max_steps=1_000_000)
    e.reset(seed=0)
    yield e
    e.close()


@settings(
    max_examples=2_000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(action=ACTION)
def test_step_never_raises(env: MCPEnv, action: Any) -> None:
    before = env.unwrapped.counters["invalid_calls"]
    obs, reward, terminated, truncated, info = env.step(action)
    assert isinstance(obs, str) and isinstance(reward, float)
    assert isinstance(terminated, bool) and isinstance(truncated, bool)
    if isinstance(action, dict) and json_problem(action) is not None:
        assert obs.startswith("Error") and info["invalid_calls"] > before
    if terminated or truncated:
        env.reset(seed=0)


@pytest.mark.parametrize(
    ("arguments", "where"),
    [
        ({"account_id": b"ACC-1001"}, "arguments.account_id is a bytes"),
        ({"account_id": {"ACC-1001"}}, "arguments.account_id is a set"),
        ({"amount": float("nan")}, "arguments.amount is nan"),
        ({"amount": np.int64(5)}, "arguments.amount is a int64"),
        ({"account_id": deep(1_000)}, "is nested too deeply (more than 64 levels)"),
        ({"account_id": "\ud800"}, "arguments.account_id is not valid Unicode"),
        ({1: "x"}, "key of type int"),
    ],
)
def test_unusable_arguments_are_named_errors(env: MCPEnv, arguments: Any, where: str) -> None:
    for action in ({"name": "get_balance", "arguments": arguments}, ToolCall("get_balance", arguments)):
        obs, *_, info = env.step(action)
        assert (obs.startswith("Error") and where.replace("arguments", "action.arguments", 1) in obs) or where in obs, (
            obs
        )
