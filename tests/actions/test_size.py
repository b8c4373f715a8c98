"""A structured action's size is measured without serializing it: exact under the limit, cheap over it."""

from __future__ import annotations

import json
import tracemalloc
from typing import Any

import gymnasium as gym
from hypothesis import given, settings
from hypothesis import strategies as st

from gym_mcp.actions.size import json_size

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(JSON, st.integers(min_value=0, max_value=2_000))
def test_the_size_is_json_dumps_length_up_to_the_limit(value: Any, limit: int) -> None:
    exact = len(json.dumps(value))
    size = json_size(value, limit)
    if exact <= limit:
        assert size == exact
    else:
        assert size > limit


def test_a_50_mb_argument_is_refused_without_a_copy_of_it() -> None:
    env = gym.make("gym_mcp/Banking-v0")
    try:
        env.reset(seed=0)
        huge = {"name": "deposit", "arguments": {"account_id": "ACC-1001", "memo": "x" * 50_000_000, "amount": 5}}
        tracemalloc.start()
        try:
            obs, _, _, _, info = env.step(huge)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    finally:
        env.close()
    assert "over 32000 characters" in obs and info["invalid_calls"] == 1
    assert peak < 5_000_000, f"measuring the action allocated {peak:,} bytes"  # json.dumps would take 50 MB+
