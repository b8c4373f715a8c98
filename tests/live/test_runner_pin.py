"""The sync runner pinned to a thread of its own: concurrent callers' coroutines interleave.

Unpinned, each sync call drives the loop itself, one caller at a time: a coroutine that waits on
another caller's coroutine would wait for good. Pinned (what ``gym-mcp serve-openenv`` does),
one thread drives the loop and every call is handed to it, so two callers' coroutines run side
by side; unpinning gives the loop back to its callers, and environments work as before.
"""

from __future__ import annotations

import asyncio
import threading

import gymnasium as gym
import pytest

import gym_mcp  # noqa: F401 - registers the environments
from gym_mcp.transport.runner import get_runner, run_sync


def test_pinned_calls_from_two_threads_interleave_and_unpin_restores_the_callers_drive() -> None:
    runner = get_runner()
    runner.pin()
    try:
        both_started = asyncio.Event()
        arrived = 0

        async def meet() -> str:
            nonlocal arrived
            arrived += 1
            if arrived == 2:
                both_started.set()
            await asyncio.wait_for(both_started.wait(), 30)  # only if the other caller's coroutine runs too
            return threading.current_thread().name

        results: list[str] = []
        threads = [threading.Thread(target=lambda: results.append(run_sync(meet()))) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert results == ["gym-mcp-loop", "gym-mcp-loop"]  # both ran on the loop's own thread, together

        async def nested() -> None:
            run_sync(asyncio.sleep(0))  # a sync call from the loop's own thread would block it

        with pytest.raises(RuntimeError, match="await it"):
            run_sync(nested())
        env = gym.make("gym_mcp/Banking-v0")  # sync environments work while pinned
        env.reset(seed=0)
        obs, *_ = env.step({"name": "get_balance", "arguments": {"account_id": "ACC-1001"}})
        assert "balance" in obs
        env.close()
    finally:
        runner.unpin()
    assert run_sync(_thread_name()) == threading.current_thread().name  # the caller drives the loop again


async def _thread_name() -> str:
    return threading.current_thread().name


def test_pins_are_counted() -> None:
    runner = get_runner()
    runner.pin()
    runner.pin()
    runner.unpin()
    assert run_sync(_thread_name()) == "gym-mcp-loop"  # one pin is still held
    runner.unpin()
    assert run_sync(_thread_name()) == threading.current_thread().name
