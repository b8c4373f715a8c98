"""Servers that fail, die, hang, flood or babble: step() never raises and never lies about the state.

The subject is tests/servers/faulty.py, a kit server whose tools misbehave on purpose, run over
every transport. The invariant checked throughout: a call the agent is told failed leaves no
write behind, and a crash is reported as a crash (the server restarted on the state that the
last successful call left).
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest

from gym_mcp import MCPEnv
from gym_mcp.errors import ServerCrashedError
from tests.chaos import Killer
from tests.conftest import TRANSPORTS, faulty_source

PROCESS_TRANSPORTS = ["stdio", "http"]


def _texts(env: MCPEnv) -> list[str]:
    obs, *_ = env.step({"name": "list_notes", "arguments": {}})
    return [n["text"] for n in json.loads(obs)]


def _last_status(env: MCPEnv) -> str:
    return str(env.episode().calls[-1].status)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_write_reported_as_failed_is_not_in_the_state(transport: str) -> None:
    env = MCPEnv(faulty_source(transport))
    try:
        env.reset(seed=0)
        before = env.state.fingerprint()
        obs, _, terminated, truncated, info = env.step({"name": "add_then_fail", "arguments": {"text": "ghost"}})
        assert obs.startswith("Error") and "failed after writing" in obs
        assert not (terminated or truncated)
        assert info["tool_errors"] == 1
        assert env.state.fingerprint() == before
        assert "ghost" not in _texts(env)
    finally:
        env.close()


@pytest.mark.parametrize("transport", PROCESS_TRANSPORTS)
def test_a_server_that_dies_after_writing_is_reported_as_a_crash_and_its_write_undone(transport: str) -> None:
    env = MCPEnv(faulty_source(transport))
    try:
        env.reset(seed=0)
        env.step({"name": "add_note", "arguments": {"text": "kept"}})
        kept = env.state.fingerprint()
        obs, _, terminated, truncated, info = env.step({"name": "add_then_die", "arguments": {"text": "ghost"}})
        assert obs.startswith("Error") and "stopped during 'add_then_die'" in obs, obs
        assert _last_status(env) == "crash"
        assert info["crashes"] == 1 and info["server_restarts"] == 1
        assert not (terminated or truncated)
        assert env.state.fingerprint() == kept  # the committed write of the failed call is gone
        texts = _texts(env)
        assert "kept" in texts and "ghost" not in texts
    finally:
        env.close()


@pytest.mark.parametrize("transport", PROCESS_TRANSPORTS)
def test_a_server_that_dies_twice_in_a_row_is_restarted_each_time(transport: str) -> None:
    env = MCPEnv(faulty_source(transport))
    try:
        env.reset(seed=0)
        for n in (1, 2):
            obs, *_, info = env.step({"name": "die", "arguments": {}})
            assert "stopped during 'die'" in obs, obs
            assert info["crashes"] == n and info["server_restarts"] == n
        assert len(_texts(env)) == 3
    finally:
        env.close()


@pytest.fixture
def starts(tmp_path: Path) -> Path:
    """A file holding how many of the faulty server's next starts must fail (0 at first)."""
    path = tmp_path / "fail-starts"
    path.write_text("0")
    return path


def test_a_restart_that_fails_is_retried(starts: Path) -> None:
    env = MCPEnv(faulty_source("stdio", FAULTY_FAIL_STARTS=str(starts)))
    try:
        env.reset(seed=0)
        starts.write_text("2")  # the next two starts exit at once
        obs, _, terminated, truncated, info = env.step({"name": "die", "arguments": {}})
        assert "stopped during 'die'" in obs, obs
        assert not (terminated or truncated)
        assert starts.read_text() == "0"
        assert len(_texts(env)) == 3
    finally:
        env.close()


def test_a_server_that_cannot_come_back_truncates_the_episode_and_recovers_at_reset(starts: Path) -> None:
    env = MCPEnv(faulty_source("stdio", FAULTY_FAIL_STARTS=str(starts)))
    try:
        env.reset(seed=0)
        starts.write_text("1000")
        obs, reward, terminated, truncated, info = env.step({"name": "die", "arguments": {}})
        assert "could not be restarted" in obs, obs
        assert truncated and not terminated
        assert "server_down" in info["limits"]
        assert reward == 0.0
        starts.write_text("0")
        env.reset(seed=0)
        assert len(_texts(env)) == 3
    finally:
        env.close()


def test_a_server_down_at_reset_is_a_clear_error_not_a_hang(starts: Path) -> None:
    env = MCPEnv(faulty_source("stdio", FAULTY_FAIL_STARTS=str(starts)))
    try:
        env.reset(seed=0)
        starts.write_text("1000")
        env.live.connection.kill()  # type: ignore[union-attr]
        time.sleep(0.2)
        with pytest.raises(ServerCrashedError, match="could not be restarted"):
            env.reset(seed=0)
        starts.write_text("0")
        env.reset(seed=0)
        assert len(_texts(env)) == 3
    finally:
        env.close()


def test_a_timed_out_in_process_call_never_writes_afterwards() -> None:
    env = MCPEnv(faulty_source("inprocess"), call_timeout=0.5)
    try:
        env.reset(seed=0)
        initial = env.state.fingerprint()
        obs, *_, info = env.step({"name": "slow_add", "arguments": {"text": "late", "seconds": 1.5}})
        assert "timed out" in obs and info["timeouts"] == 1
        assert env.state.fingerprint() == initial
        env.reset(seed=0)
        time.sleep(1.6)  # the abandoned thread wakes up and writes... somewhere that is no longer the state
        assert env.state.fingerprint() == initial
        assert "late" not in _texts(env)
        obs, *_ = env.step({"name": "add_note", "arguments": {"text": "after"}})
        assert not obs.startswith("Error"), obs
    finally:
        env.close()


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_an_oversized_result_is_cut_at_the_transport(transport: str) -> None:
    env = MCPEnv(faulty_source(transport), call_timeout=20.0)
    try:
        env.reset(seed=0)
        start = time.monotonic()
        obs, *_ = env.step({"name": "big_result", "arguments": {"size": 24_000_000}})
        elapsed = time.monotonic() - start
        assert "over the 4 MiB limit" in obs, obs[:300]
        assert len(obs) <= env.observation_space.max_length
        assert elapsed < 15, elapsed
        assert _last_status(env) == "tool_error"
        assert len(_texts(env)) == 3  # the connection survived
        obs, *_ = env.step({"name": "big_result", "arguments": {"size": 1000}})
        assert json.loads(obs) == "x" * 1000
    finally:
        env.close()


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_lone_surrogate_in_a_result_becomes_a_replacement_character(transport: str) -> None:
    env = MCPEnv(faulty_source(transport))
    try:
        env.reset(seed=0)
        obs, *_ = env.step({"name": "surrogate", "arguments": {}})
        obs.encode("utf-8")  # would raise on a lone surrogate
        assert "before" in obs and "after" in obs
        assert len(_texts(env)) == 3
    finally:
        env.close()


def test_garbage_on_the_stdio_channel_does_not_break_the_session() -> None:
    env = MCPEnv(faulty_source("stdio"))
    try:
        env.reset(seed=0)
        obs, *_ = env.step({"name": "garbage", "arguments": {}})
        assert obs == '"ok"'
        assert len(_texts(env)) == 3
    finally:
        env.close()


def _replay_ok_calls(calls: list[Any]) -> str:
    """The fingerprint that the successful calls alone give, on a fresh in-process server."""
    env = MCPEnv(faulty_source("inprocess"))
    try:
        env.reset(seed=0)
        for call in calls:
            obs, *_ = env.step({"name": call.name, "arguments": call.arguments})
            assert not obs.startswith("Error"), obs
        return env.state.fingerprint()
    finally:
        env.close()


def _reset(env: MCPEnv) -> None:
    """Reset, again while the server is killed faster than it can start (reset may say so; step never)."""
    for _ in range(20):
        try:
            env.reset(seed=0)
            return
        except ServerCrashedError:
            continue
    raise AssertionError("reset never succeeded")


@pytest.mark.parametrize("transport", PROCESS_TRANSPORTS)
def test_kills_at_random_moments_never_escape_step_nor_corrupt_the_state(transport: str) -> None:
    env = MCPEnv(faulty_source(transport), call_timeout=10.0)
    rng = random.Random(7)
    killer = Killer(env, seed=11, low=0.3, high=3.0)
    crashes = 0
    try:
        env.reset(seed=0)
        killer.start()
        episode = 0
        deadline = time.monotonic() + 90
        while (killer.kills < 6 or episode < 4) and time.monotonic() < deadline:
            episode += 1
            _reset(env)
            for i in range(8):
                if rng.random() < 0.6:
                    action = {"name": "add_note", "arguments": {"text": f"e{episode} n{i}"}}
                else:
                    action = {"name": "list_notes", "arguments": {}}
                _, _, terminated, truncated, info = env.step(action)
                if terminated or truncated:
                    break
            crashes += info["crashes"]
            ok = [c for c in env.episode().calls if c.status == "ok" and c.name == "add_note"]
            assert env.state.fingerprint() == _replay_ok_calls(ok), f"episode {episode}"
    finally:
        killer.stop.set()
        killer.join()
        env.close()
    assert killer.kills >= 6
    assert crashes >= 1
