"""A served pool and Python's garbage collector: no cycles per episode, frozen every second, reclaimed.

Under 256 OpenEnv sessions a full collection that scans every live episode stalls every session
at once (50 to 135 ms on Banking-v0, the p99 step latency); the pool freezes what lives long
(`EnvPool.settle`, `EnvPool.tick`) and frees frozen cycles with a full collection when memory
grew (`EnvPool.reclaim`). Freezing is only safe when episodes leave no cyclic garbage: checked
here on real sessions over a real bundled server.
"""

from __future__ import annotations

import gc
import weakref
from typing import Any

import pytest

pytest.importorskip("openenv.core.env_server", reason="the [openenv] extra is not installed")

from gym_mcp.openenv import EnvPool, EnvRecipe, GymMCPAction


def _episode(pool: EnvPool, steps: int = 3) -> None:
    session = pool.session()
    session.reset()
    for i in range(steps):
        session.step(
            GymMCPAction(type="call_tool", tool_name="get_balance", arguments={"account_id": f"ACC-{1001 + i}"})
        )
    session.step(GymMCPAction(type="call_tool", tool_name="no_such_tool"))  # an error observation too
    session.close()


def _ours(obj: Any) -> bool:
    """An object of gym-mcp's, OpenEnv's or the MCP SDK's code (a function or an instance)."""
    module = getattr(obj, "__module__", None) if callable(obj) else type(obj).__module__
    return isinstance(module, str) and module.split(".")[0] in ("gym_mcp", "openenv", "mcp")


def test_episodes_over_a_pool_leave_no_cyclic_garbage() -> None:
    pool = EnvPool(EnvRecipe("gym_mcp/Banking-v0"), max_idle=4)
    try:
        for _ in range(2):  # environments built, caches filled
            _episode(pool)
        gc.collect()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            for _ in range(4):
                _episode(pool)
            gc.collect()
            cyclic = [o for o in gc.garbage if _ours(o)]
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
        assert pool.built == 1
        assert not cyclic, f"episodes left cycles: {sorted({type(o).__qualname__ for o in cyclic})}"
    finally:
        pool.close()


def test_tick_settles_once_its_interval_passed() -> None:
    every = EnvPool(EnvRecipe("gym_mcp/Banking-v0"), freeze_gc=True, settle_every_s=0.0)
    try:
        _episode(every, steps=2)
        assert every.settles >= 5  # the new environment's first reset, then after every reset and step
    finally:
        every.close()
    assert gc.get_freeze_count() == 0
    rare = EnvPool(EnvRecipe("gym_mcp/Banking-v0"), freeze_gc=True, settle_every_s=3600.0)
    try:
        _episode(rare, steps=2)
        assert rare.settles == 1  # only the new environment's first reset
    finally:
        rare.close()
    off = EnvPool(EnvRecipe("gym_mcp/Banking-v0"), settle_every_s=0.0)  # not a served process
    try:
        _episode(off, steps=2)
        off.reclaim()
        assert off.settles == off.reclaims == 0 and gc.get_freeze_count() == 0
    finally:
        off.close()


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def test_reclaim_frees_a_cycle_that_was_frozen_alive() -> None:
    pool = EnvPool(EnvRecipe("gym_mcp/Banking-v0"), freeze_gc=True, settle_every_s=3600.0)
    try:
        a, b = _Node(), _Node()
        a.other, b.other = b, a
        alive = weakref.ref(a)
        pool.settle()  # frozen while alive
        del a, b
        gc.collect()
        assert alive() is not None  # a frozen cycle is out of the collector's reach
        pool.reclaim()
        assert alive() is None and pool.reclaims == 1
        pool.RECLAIM_GROWTH = 0.0  # any growth of the peak memory: the next settle reclaims
        pool.settle(built=True)  # but memory that a new environment brought is the new base
        assert pool.reclaims == 1
        pool.settle()
        assert pool.reclaims == 2
    finally:
        pool.close()
    assert gc.get_freeze_count() == 0
