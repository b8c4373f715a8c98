"""A step late in a long episode does the same work as an early one (issue 36, item 9).

Measured structurally, not by the clock: the Python calls a step makes (a loop over the
episode so far) and the memory it allocates and frees again (a copy of the episode's messages
or calls, C-level copies included) are counted at step ~50 and at step ~2,050 of the same
episode. Any per-step work proportional to the episode so far shows up thousands of times
over at the late step; `benchmarks/bench_step.py --long-episode` gives the times.
"""

from __future__ import annotations

import statistics
import sys
import threading
import tracemalloc
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import pytest

import gym_mcp  # noqa: F401  (registers the envs)

BALANCE = '<tool_call>{"name": "get_balance", "arguments": {"account_id": "ACC-1001"}}</tool_call>'
LATE = 2_000
"""Steps between the early and the late probe: 4,000 more messages and 2,000 more call records."""
PROBES = 15


def _transient_bytes(step: Callable[[], Any]) -> int:
    """The median of what a step allocates above what it leaves behind (its peak over its start)."""
    got = []
    for _ in range(PROBES):
        before, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        step()
        _, peak = tracemalloc.get_traced_memory()
        got.append(peak - before)
    return int(statistics.median(got))


def _python_calls(step: Callable[[], Any]) -> int:
    """The fewest Python function calls one step made on the calling thread (the loop runs there)."""
    counts = []
    for _ in range(PROBES):
        n = 0

        def count(frame: Any, event: str, arg: Any) -> None:
            nonlocal n
            if event == "call":
                n += 1

        sys.setprofile(count)
        try:
            step()
        finally:
            sys.setprofile(None)
        counts.append(n)
    return min(counts)  # the fewest: a step the loop did not also spend waking up for a worker thread


@pytest.fixture
def env() -> Any:
    made = gym.make("gym_mcp/Banking-v0", max_steps=LATE + 500)
    made.reset(seed=0)
    yield made
    made.close()


def test_a_late_step_allocates_no_more_than_an_early_one(env: Any) -> None:
    def step() -> None:
        _, _, terminated, truncated, info = env.step(BALANCE)
        assert not (terminated or truncated) and info["calls"][0].ok

    tracemalloc.start()
    try:
        for _ in range(30):
            step()
        early = _transient_bytes(step)
        for _ in range(LATE):
            step()
        late = _transient_bytes(step)
    finally:
        tracemalloc.stop()
    assert len(env.unwrapped.episode().messages) > 2 * LATE
    # a list of the ~4,000 messages alone is 32 KB; a step's own work is ~25-30 KB
    assert late - early < 4_096, f"a step at ~{LATE} allocates {late - early} bytes more than one at ~50"


def test_a_late_step_makes_no_more_python_calls_than_an_early_one(env: Any) -> None:
    assert threading.current_thread() is threading.main_thread()
    for _ in range(30):
        env.step(BALANCE)
    early = _python_calls(lambda: env.step(BALANCE))
    for _ in range(LATE):
        env.step(BALANCE)
    late = _python_calls(lambda: env.step(BALANCE))
    assert late <= early + 20, f"a step at ~{LATE} makes {late} Python calls, one at ~50 {early}"
