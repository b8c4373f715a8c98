"""The same episodes over in-process, stdio and HTTP servers; crashes, hangs, isolation."""

from __future__ import annotations

import asyncio
import sys
import time

import pytest

from gym_mcp import AsyncMCPEnv, EnvConfig, Launch, LiveConnection, MCPEnv, ServerPool, free_port
from gym_mcp.errors import ServerStartError
from tests.conftest import TRANSPORTS, counter_source
from tests.helpers import child_pids, in_one_pool

EPISODE = [
    {"name": "get_balance", "arguments": {"account_id": "ACC-1001"}},
    {"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": 12.5, "description": "refund"}},
    {
        "name": "transfer_funds",
        "arguments": {"from_account_id": "ACC-1001", "to_account_id": "ACC-1002", "amount": 40.0},
    },
    {"name": "lock_card", "arguments": {"card_id": "CRD-1001"}},
    {"name": "withdraw", "arguments": {"account_id": "ACC-1048", "amount": 5000.0}},  # insufficient funds
]


def _play(transport: str) -> tuple[list[str], dict[str, int], str]:
    env = MCPEnv("banking", transport=transport)  # type: ignore[arg-type]
    try:
        env.reset(seed=0)
        observations = []
        for call in EPISODE:
            obs, *_ = env.step(call)
            observations.append(obs)
        _, _, terminated, _, info = env.step("Finished.")
        assert terminated
        counters = {k: info[k] for k in ("num_calls", "invalid_calls", "tool_errors", "server_restarts")}
        return observations, counters, env.state.fingerprint()
    finally:
        env.close()


def test_same_episode_gives_same_results_over_every_transport() -> None:
    results = {t: _play(t) for t in TRANSPORTS}
    ref_obs, ref_counters, ref_fp = results["inprocess"]
    assert ref_counters == {"num_calls": 5, "invalid_calls": 0, "tool_errors": 1, "server_restarts": 0}
    assert ref_obs[4].startswith("Error") and "Insufficient funds" in ref_obs[4]
    for transport, (obs, counters, fp) in results.items():
        assert obs == ref_obs, transport
        assert counters == ref_counters, transport
        assert fp == ref_fp, transport


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_server_killed_mid_episode_is_restarted_with_its_state(transport: str) -> None:
    env = MCPEnv("banking", transport=transport)  # type: ignore[arg-type]
    try:
        env.reset(seed=0)
        env.step({"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": 100.0}})
        fp = env.state.fingerprint()
        connection = env.live.connection  # type: ignore[union-attr]
        old_pid = connection.pid
        assert old_pid is not None
        connection.kill()
        deadline = time.monotonic() + 5
        while connection.process_alive() and time.monotonic() < deadline:
            time.sleep(0.02)
        obs, _, terminated, _, info = env.step({"name": "get_balance", "arguments": {"account_id": "ACC-1001"}})
        assert not obs.startswith("Error"), obs
        assert not terminated
        assert info["server_restarts"] == 1
        assert connection.pid != old_pid
        assert env.state.fingerprint() == fp  # the deposit survived the crash
        # and the episode goes on normally
        obs, *_ = env.step({"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": 1.0}})
        assert not obs.startswith("Error"), obs
    finally:
        env.close()


def test_server_dead_between_episodes_is_restarted_at_reset() -> None:
    env = MCPEnv("banking", transport="stdio")
    try:
        env.reset(seed=0)
        env.live.connection.kill()  # type: ignore[union-attr]
        time.sleep(0.2)
        _, info = env.reset(seed=0)
        assert info["server_restarts"] == 1
        obs, *_ = env.step({"name": "get_balance", "arguments": {"account_id": "ACC-1001"}})
        assert not obs.startswith("Error")
    finally:
        env.close()


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_hanging_tool_hits_the_timeout(transport: str) -> None:
    env = MCPEnv(counter_source(transport), call_timeout=1.0)
    try:
        env.reset(seed=0)
        start = time.monotonic()
        obs, _, terminated, _, info = env.step({"name": "sleep", "arguments": {"seconds": 30}})
        elapsed = time.monotonic() - start
        assert elapsed < 10
        assert "timed out after 1s" in obs
        assert not terminated
        assert info["timeouts"] == 1
        assert info["tool_errors"] == 1
        obs, *_ = env.step({"name": "list_notes", "arguments": {"limit": 1}})
        assert not obs.startswith("Error"), obs
    finally:
        env.close()


def test_eight_parallel_envs_stay_isolated() -> None:
    async def one(i: int, pool: ServerPool) -> tuple[int, object]:
        env = AsyncMCPEnv(counter_source("stdio"), config=EnvConfig(), pool=pool)
        await env.reset(seed=0)
        start = env.state.snapshot()
        for j in range(3):
            await env.step({"name": "add_note", "arguments": {"text": f"env{i}-note{j}"}})
            await asyncio.sleep(0)
        await env.step({"name": "delete_note", "arguments": {"note_id": i % 5 + 1}})
        diff = env.state.diff(start, env.state.snapshot())
        await env.close()
        return i, diff

    results = in_one_pool(one)
    for i, diff in results:
        notes = diff["notes"]  # type: ignore[index]
        assert sorted(r["text"] for r in notes.added) == [f"env{i}-note{j}" for j in range(3)]
        assert [r["id"] for r in notes.removed] == [i % 5 + 1]
        assert notes.changed == ()


@pytest.mark.parametrize(
    ("launch", "expect"),
    [
        (
            Launch("ghost", "stdio", command=["definitely-not-a-command-xyz"]),
            "cannot run 'definitely-not-a-command-xyz'",
        ),
        (
            Launch("quitter", "stdio", command=[sys.executable, "-c", "import sys; sys.exit(3)"]),
            "could not start",
        ),
        (
            Launch("quitter-http", "http", command=[sys.executable, "-c", "import sys; sys.exit(4)"]),
            "exited at start with status 4",
        ),
        (
            Launch("refuser", "http", url="http://127.0.0.1:9/mcp"),
            "could not start URL http://127.0.0.1:9/mcp",
        ),
    ],
)
def test_bad_launches_fail_clearly_without_orphans(launch: Launch, expect: str) -> None:
    before = child_pids()

    async def go() -> None:
        conn = LiveConnection(launch, startup_timeout=10)
        await conn.start()

    with pytest.raises(ServerStartError) as err:
        asyncio.run(go())
    assert launch.name in str(err.value)
    assert expect in str(err.value)
    time.sleep(0.2)
    assert child_pids() - before == set()


def test_a_refused_http_connection_says_so() -> None:
    """mcp's HTTP client is httpx2: its ConnectError is a refused connection, named as one."""
    url = f"http://127.0.0.1:{free_port()}/mcp"  # nothing listens there

    async def go() -> None:
        conn = LiveConnection(Launch("refuser", "http", url=url), startup_timeout=10)
        await conn.start()

    with pytest.raises(ServerStartError) as err:
        asyncio.run(go())
    assert f"refuser: could not start URL {url}: connection refused (" in str(err.value)


def test_a_bundled_http_server_answers_only_its_env() -> None:
    """Each HTTP launch gets its own bearer token: another local process cannot drive the server."""
    import httpx

    env = MCPEnv("banking", transport="http")
    try:
        env.reset(seed=0)
        url = env.live.connection._url  # type: ignore[union-attr]
        assert url is not None
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        headers = {"Accept": "application/json, text/event-stream"}
        response = httpx.post(url, json=body, headers=headers, timeout=10)
        assert response.status_code == 401
        obs, *_ = env.step({"name": "get_balance", "arguments": {"account_id": "ACC-1001"}})
        assert not obs.startswith("Error"), obs  # the env itself sends the token
    finally:
        env.close()
