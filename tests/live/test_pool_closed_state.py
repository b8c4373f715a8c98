"""The pool never hands out a server whose state backend was closed (it starts a fresh one)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from gym_mcp import AsyncMCPEnv, BundledSource, MCPEnv, ServerPool
from gym_mcp.state import CompositeState, DirectoryState, JSONFileState, NullState, SQLiteState, StateBackend

BALANCE = {"name": "get_balance", "arguments": {"account_id": "ACC-1001"}}
DEPOSIT = {"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": 10.0}}


@pytest.mark.parametrize("transport", ["inprocess", "stdio"])
def test_env_after_one_whose_state_was_closed_resets_and_steps(transport: str) -> None:
    first = MCPEnv("banking", transport=transport)  # type: ignore[arg-type]
    try:
        first.reset(seed=0)
        first.unwrapped.state.close()
    finally:
        first.close()

    second = MCPEnv("banking", transport=transport)  # type: ignore[arg-type]
    try:
        second.reset(seed=0)
        obs, _, terminated, _, info = second.step(BALANCE)
        assert not obs.startswith("Error"), obs
        assert '"ACC-1001"' in obs
        obs, *_ = second.step(DEPOSIT)
        assert not obs.startswith("Error"), obs
        assert not terminated
        assert info["tool_errors"] == 0
        second.reset(seed=0)  # and it restores again after its own episode
    finally:
        second.close()


@pytest.mark.parametrize("transport", ["inprocess", "stdio"])
def test_pool_discards_a_server_whose_state_was_closed(transport: str) -> None:
    async def main() -> tuple[int, int, int, str]:
        pool = ServerPool()
        try:
            source = BundledSource("banking", transport)  # type: ignore[arg-type]
            env = AsyncMCPEnv(source, pool=pool)
            await env.reset(seed=0)
            live = env.live
            assert live is not None and live.healthy
            env.state.close()
            assert env.state.closed
            assert not live.healthy
            await env.close()
            assert live.closed  # released unhealthy: closed, not kept warm
            idle_after_release = pool.idle_count()

            again = AsyncMCPEnv(source, pool=pool)
            await again.reset(seed=0)
            assert again.live is not live
            obs, *_ = await again.step(BALANCE)
            await again.close()
            return idle_after_release, pool.launched, pool.idle_count(), obs
        finally:
            await pool.close()

    idle_after_release, launched, idle_at_end, obs = asyncio.run(main())
    assert idle_after_release == 0
    assert launched == 2
    assert idle_at_end == 1  # the fresh, healthy server goes back warm
    assert not obs.startswith("Error"), obs


def test_pool_skips_an_idle_server_whose_state_was_closed_while_idle() -> None:
    async def main() -> tuple[int, int, str]:
        pool = ServerPool()
        try:
            source = BundledSource("banking", "inprocess")
            env = AsyncMCPEnv(source, pool=pool)
            await env.reset(seed=0)
            state = env.state
            await env.close()
            assert pool.idle_count() == 1
            state.close()  # closed behind the pool's back, after it went back warm

            again = AsyncMCPEnv(source, pool=pool)
            await again.reset(seed=0)
            obs, *_ = await again.step(BALANCE)
            await again.close()
            return pool.launched, pool.reused, obs
        finally:
            await pool.close()

    launched, reused, obs = asyncio.run(main())
    assert (launched, reused) == (2, 0)
    assert not obs.startswith("Error"), obs


def _backends(tmp_path: Path) -> dict[str, StateBackend]:
    return {
        "sqlite-memory": SQLiteState(None),
        "sqlite-file": SQLiteState(tmp_path / "s.db"),
        "directory": DirectoryState(tmp_path / "d"),
        "json": JSONFileState(tmp_path / "c.json"),
        "null": NullState(),
        "composite": CompositeState({"db": SQLiteState(None), "files": DirectoryState(tmp_path / "cd")}),
    }


@pytest.mark.parametrize("name", ["sqlite-memory", "sqlite-file", "directory", "json", "null", "composite"])
def test_every_backend_is_open_until_closed_and_closed_after(tmp_path: Path, name: str) -> None:
    state = _backends(tmp_path)[name]
    assert state.closed is False
    state.close()
    assert state.closed is True
    state.close()  # closing twice is harmless
    assert state.closed is True


def test_sqlite_state_is_closed_when_its_connection_was_closed_under_it(tmp_path: Path) -> None:
    for state in (SQLiteState(None), SQLiteState(tmp_path / "s.db")):
        state.connection.close()
        assert state.closed


def test_composite_state_is_closed_when_a_part_is(tmp_path: Path) -> None:
    db = SQLiteState(None)
    composite = CompositeState({"db": db, "files": DirectoryState(tmp_path / "d")})
    db.close()
    assert composite.closed
