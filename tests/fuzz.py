"""Hypothesis strategies for every action shape an agent or a caller might pass to `step()`.

Values that are not JSON (bytes, sets, NaN, numpy scalars, arbitrary objects), nesting far
deeper than any schema, lone surrogates, non-string keys and names, in call dicts, lists of
calls, OpenAI messages, `ToolCall`s and text. Used by tests/env/test_fuzz_step.py and by the
soak benchmark (benchmarks/bench_soak.py).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from hypothesis import strategies as st

from gym_mcp.actions.parsing import ToolCall

__all__ = ["ACTION", "deep"]

NAMES = ["get_balance", "deposit", "list_accounts", "close_account", "no_such_tool", "", "x" * 300]


class _Opaque:
    def __repr__(self) -> str:
        return "<opaque>"


def deep(depth: int) -> Any:
    value: Any = "leaf"
    for i in range(depth):
        value = {"k": value} if i % 2 else [value]
    return value


def _as_json(value: Any) -> str:
    """The call as model text: JSON where it can be, Python's repr otherwise (deep or odd values)."""
    try:
        return json.dumps(value, default=repr)
    except (RecursionError, ValueError):  # too deep to encode: the same depth, written out as text
        return '{"name": "get_balance", "arguments": ' + '{"k": ' * 1_500 + "1" + "}" * 1_501


ODD = st.one_of(
    st.binary(max_size=8),
    st.sets(st.integers(), max_size=3),
    st.just(float("nan")),
    st.just(float("inf")),
    st.builds(np.int64, st.integers(-5, 5)),
    st.builds(np.float32, st.floats(-1, 1)),
    st.just(_Opaque()),
    st.just("\ud800"),
    st.integers(0, 2_000).map(deep),
    st.dictionaries(st.integers(), st.integers(), min_size=1, max_size=2),
)
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
VALUE = st.one_of(JSONISH, ODD)
ARGS = st.one_of(
    st.dictionaries(st.sampled_from(["account_id", "amount", "customer_id", "x"]), VALUE, max_size=3), VALUE
)
NAME = st.one_of(st.sampled_from(NAMES), st.integers(), st.none(), st.binary(max_size=4))
CALL = st.fixed_dictionaries({"name": NAME, "arguments": ARGS})
ACTION = st.one_of(
    CALL,
    st.lists(CALL, max_size=3),
    st.builds(
        lambda calls: {"role": "assistant", "content": None, "tool_calls": calls},
        st.lists(
            st.builds(
                lambda c: {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": c["name"], "arguments": c["arguments"]},
                },
                CALL,
            ),
            max_size=2,
        ),
    ),
    st.builds(lambda c: ToolCall(c["name"], c["arguments"]), CALL),
    st.builds(lambda c: "<tool_call>" + _as_json(c) + "</tool_call>", CALL),
    st.text(max_size=40),
    VALUE,
)
