"""The sessions server (``gym-mcp serve NAME --transport http --sessions``) and envs over it.

One real server process on 127.0.0.1 for the module, real MCP clients, real control requests.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import gymnasium as gym
import httpx
import httpx2
import pytest
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from gym_mcp import BundledSource, Launch, LiveConnection, SQLiteState, Task, free_port
from gym_mcp.errors import ConfigError, ServerStartError, StateError
from gym_mcp.playback import replay
from gym_mcp.servers import get_kit
from gym_mcp.sessions.app import session_app
from gym_mcp.sessions.client import SessionsSource, SessionState
from gym_mcp.sessions.host import SessionHost
from gym_mcp.sessions.wire import SESSION_HEADER, SNAPSHOT_HEADER

TOKEN = "sessions-test-token-1"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The MCP URL of a banking sessions server on 127.0.0.1 (what ``gym-mcp serve --sessions`` runs, in a thread)."""
    host = SessionHost(get_kit("banking"), token=TOKEN)
    port = free_port()
    runner = uvicorn.Server(uvicorn.Config(session_app(host), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=runner.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not runner.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the sessions server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        runner.should_exit = True
        thread.join(timeout=10)
        host.close()


@functools.cache
def http() -> httpx.Client:
    """One HTTP client for the tests' control requests (making one costs ~50 ms)."""
    return httpx.Client(timeout=30)


def control(server: str) -> str:
    return server.removesuffix("/mcp") + "/control"


@contextlib.asynccontextmanager
async def mcp_client(server: str, **options: object) -> AsyncIterator[Client]:
    """A plain `mcp.Client` over streamable HTTP with the server's token."""
    async with (
        httpx2.AsyncClient(headers=AUTH) as http,
        Client(streamable_http_client(server, http_client=http), **options) as client,  # type: ignore[arg-type]
    ):
        yield client


def open_names(server: str) -> set[str]:
    return set(http().get(f"{control(server)}/sessions", headers=AUTH).json()["sessions"])


def test_sixteen_concurrent_sessions_each_hold_only_their_own_writes(server: str) -> None:
    source = SessionsSource("banking", server, token=TOKEN)
    seed = source.initial_snapshot(0)

    async def one(i: int) -> tuple[SessionState, str]:
        live = await source.launch(call_timeout=30)
        amount = i + 1
        result = await live.call_tool(
            "deposit", {"account_id": "ACC-1001", "amount": amount, "description": f"session {i}"}
        )
        assert not result.is_error, result.text
        if i % 2:  # odd sessions write a second table too
            assert not (await live.call_tool("lock_card", {"card_id": "CRD-1001"})).is_error
        await live.connection.close()  # the MCP connection ends; the session's state lives on until closed
        assert isinstance(live.state, SessionState)
        return live.state, result.text

    async def all_sessions() -> list[tuple[SessionState, str]]:
        return await asyncio.gather(*(one(i) for i in range(16)))

    sessions = asyncio.run(all_sessions())
    try:
        assert {s.name for s, _ in sessions} <= open_names(server)
        fingerprints = set()
        for i, (state, text) in enumerate(sessions):
            diff = state.diff(seed, state.snapshot())
            added = diff["transactions"].added
            assert [(t["amount_cents"], t["description"]) for t in added] == [((i + 1) * 100, f"session {i}")]
            assert json.loads(text)["new_balance"] == pytest.approx(4853.32 + i + 1)
            (before, after), *rest = diff["accounts"].changed
            assert not rest and after["balance_cents"] - before["balance_cents"] == (i + 1) * 100
            assert set(diff.groups) == (
                {"transactions", "accounts", "cards"} if i % 2 else {"transactions", "accounts"}
            )
            fingerprints.add(state.fingerprint())
        assert len(fingerprints) == 16
    finally:
        for state, _ in sessions:
            state.close()
    assert not {s.name for s, _ in sessions} & open_names(server)  # closed: their state files are gone


def test_the_control_channel_refuses_without_the_token_and_changes_nothing(server: str) -> None:
    env = gym.make("gym_mcp/Banking-v0", transport="http", url=server, sessions=True, token=TOKEN)
    try:
        env.reset(seed=0)
        env.step({"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": 7}})
        state = env.unwrapped.state
        before = state.fingerprint()
        name = state.name
        base = control(server)
        requests = [
            ("GET", "/info", None),
            ("GET", "/sessions", None),
            ("POST", f"/sessions/{name}/reset", b'{"seed": 0}'),
            ("GET", f"/sessions/{name}/snapshot", None),
            ("PUT", f"/sessions/{name}/snapshot", BundledSource("banking").initial_snapshot(0).data),
            ("GET", f"/sessions/{name}/fingerprint", None),
            ("DELETE", f"/sessions/{name}", None),
            ("POST", "/snapshots", b"SQLite format 3\x00"),
        ]
        for headers in ({}, {"Authorization": "Bearer wrong-token"}, {"Authorization": TOKEN}):
            for method, path, body in requests:
                response = http().request(method, base + path, headers=headers, content=body)
                assert response.status_code == 401, (method, path, response.text)
                assert "token" in response.json()["error"]
            assert http().post(server, headers=headers, json={}).status_code == 401  # the MCP endpoint wants it too
        assert state.fingerprint() == before
        assert name in open_names(server)
    finally:
        env.close()


def test_no_tool_reaches_the_control_channel(server: str) -> None:
    """The tools are the plain server's, name for name and schema for schema."""

    async def tools() -> tuple[list[dict], list[dict]]:
        async with mcp_client(server) as client:
            served = [t.model_dump() for t in (await client.list_tools()).tools]
        live = await BundledSource("banking").launch(call_timeout=30)
        try:
            plain = [t.model_dump() for t in live.tools]
        finally:
            await live.close()
        return served, plain

    served, plain = asyncio.run(tools())
    assert served == plain
    assert not any(word in json.dumps(served).lower() for word in ("/control", "snapshot", "fingerprint"))


def test_an_env_over_sessions_plays_a_task_to_the_local_fingerprint(server: str) -> None:
    calls = [
        {"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": 12.5}},
        {
            "name": "transfer_funds",
            "arguments": {"from_account_id": "ACC-1001", "to_account_id": "ACC-1002", "amount": 3},
        },
        {"name": "lock_card", "arguments": {"card_id": "CRD-1001"}},
    ]
    local = gym.make("gym_mcp/Banking-v0")
    try:
        expected = replay(local, Task(id="t", server="banking", instruction="Do it.", reference_calls=calls))
    finally:
        local.close()
    assert expected.ok, expected.failed
    task = Task(
        id="t", server="banking", instruction="Do it.", reference_calls=calls, expected_fingerprint=expected.fingerprint
    )
    env = gym.make("gym_mcp/Banking-v0", transport="http", url=server, sessions=True, token=TOKEN, tasks=[task])
    try:
        got = replay(env, task)
        assert got.ok, got.failed
        assert got.fingerprint == expected.fingerprint
        _, reward, terminated, _, _ = env.step("Done.")
        assert terminated and reward == 1.0
        # snapshot and fork mid-episode, as with a process per env
        env.reset(options={"task": task})
        env.step(calls[0])
        snap = env.unwrapped.snapshot()
        (fork,) = env.unwrapped.fork(1)
        try:
            for e in (env.unwrapped, fork):
                e.step(calls[1])
                e.step(calls[2])
            assert fork.state.fingerprint() == env.unwrapped.state.fingerprint() == expected.fingerprint
            env.unwrapped.restore(snap)
            assert env.unwrapped.state.fingerprint() != expected.fingerprint
            assert fork.state.name != env.unwrapped.state.name
        finally:
            fork.close()
    finally:
        env.close()


def test_reset_over_the_control_channel_restores_the_seed(server: str) -> None:
    source = SessionsSource("banking", server, token=TOKEN)
    local = BundledSource("banking")

    async def run() -> None:
        live = await source.launch(call_timeout=30)
        try:
            state = live.state
            assert isinstance(state, SessionState)
            seeded = state.fingerprint()
            assert seeded == state.fingerprint_of(local.initial_snapshot(0))
            await live.call_tool("deposit", {"account_id": "ACC-1001", "amount": 40})
            assert state.fingerprint() != seeded
            state.reset(0)
            assert state.fingerprint() == seeded
            state.reset(3)  # another data seed, as a local env builds it
            assert state.fingerprint() == state.fingerprint_of(local.initial_snapshot(3))
        finally:
            await live.close()

    asyncio.run(run())


def test_a_session_starts_from_a_seed_or_a_held_snapshot(server: str) -> None:
    local = BundledSource("banking")
    snap = local.initial_snapshot(5)
    kept = http().post(f"{control(server)}/snapshots", headers=AUTH, content=snap.data)
    assert kept.json()["digest"] == snap.digest

    async def fingerprint_at_start(name: str, header: str, value: str) -> str:
        headers = {**AUTH, SESSION_HEADER: name, header: value}
        connection = LiveConnection(Launch("banking", "http", url=server, headers=headers))
        try:
            await connection.start()
            return str(http().get(f"{control(server)}/sessions/{name}/fingerprint", headers=AUTH).json()["fingerprint"])
        finally:
            await connection.close()
            http().delete(f"{control(server)}/sessions/{name}", headers=AUTH)

    state = SQLiteState(None, volatile=local.kit.volatile_columns)
    assert asyncio.run(fingerprint_at_start("from-snapshot", SNAPSHOT_HEADER, snap.digest)) == state.fingerprint_of(
        snap
    )
    seeded = asyncio.run(fingerprint_at_start("from-seed", "Gym-MCP-Seed", "2"))
    assert seeded == state.fingerprint_of(local.initial_snapshot(2))
    unknown = http().post(server, headers={**AUTH, SESSION_HEADER: "x", SNAPSHOT_HEADER: "0" * 64}, json={})
    assert unknown.status_code == 404 and unknown.json()["missing"] == "snapshot"
    assert not {"from-snapshot", "from-seed", "x"} & open_names(server)


def test_bad_input_gets_clear_errors(server: str) -> None:
    base = control(server)
    assert http().get(f"{base}/sessions/nope/fingerprint", headers=AUTH).json()["error"].startswith("no open session")
    source = SessionsSource("banking", server, token=TOKEN)

    async def run() -> None:
        live = await source.launch(call_timeout=30)
        try:
            assert isinstance(live.state, SessionState)
            name = live.state.name
            for body, says in [
                (b"not a database", "not an SQLite database"),
                (b"SQLite format 3\x00" + b"\x00" * 200, "not a"),
            ]:
                response = http().put(f"{base}/sessions/{name}/snapshot", headers=AUTH, content=body)
                assert response.status_code == 400 and says in response.json()["error"], response.text
            response = http().post(f"{base}/sessions/{name}/reset", headers=AUTH, content=b'{"seed": "x"}')
            assert response.status_code == 400 and "seed must be an integer" in response.json()["error"]
            with pytest.raises(StateError, match="not an SQLite database"):
                live.state.restore(type(live.state.snapshot())("sqlite", b"garbage", "d" * 64))
            result = await live.call_tool("get_balance", {"account_id": "ACC-1001"})
            assert not result.is_error  # the session is unharmed
        finally:
            await live.close()

    asyncio.run(run())
    bad_seed = http().post(server, headers={**AUTH, SESSION_HEADER: "k", "Gym-MCP-Seed": "x"}, json={})
    assert bad_seed.status_code == 400 and "must be an integer" in bad_seed.json()["error"]
    with pytest.raises(ServerStartError, match="refused the token"):
        gym.make("gym_mcp/Banking-v0", transport="http", url=server, sessions=True, token="wrong-token")
    with pytest.raises(ServerStartError, match="serves 'banking', not 'shopping'"):
        gym.make("gym_mcp/Shopping-v0", transport="http", url=server, sessions=True, token=TOKEN)
    with pytest.raises(ConfigError, match="needs transport='http'"):
        gym.make("gym_mcp/Banking-v0", url=server, sessions=True, token=TOKEN)
    with pytest.raises(ConfigError, match="go with sessions=True"):
        gym.make("gym_mcp/Banking-v0", transport="http", url=server)


def test_a_handshake_session_without_a_key_ends_when_the_mcp_session_closes(server: str) -> None:
    async def run() -> tuple[set[str], str]:
        async with mcp_client(server, mode="legacy") as client:
            result = await client.call_tool("deposit", {"account_id": "ACC-1001", "amount": 9})
            during = open_names(server)
        return during, result.content[0].text  # type: ignore[union-attr]

    before = open_names(server)
    during, text = asyncio.run(run())
    assert json.loads(text)["new_balance"] == pytest.approx(4853.32 + 9)  # on its own fresh state
    (opened,) = during - before
    assert opened not in open_names(server)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["banking", "--sessions"], "--sessions needs --transport http"),
        (["banking", "--transport", "http", "--sessions"], "--sessions needs a token"),
        (["filesystem", "--transport", "http", "--sessions", "--token", "t"], "keeps its state in a folder"),
        (["banking", "--transport", "http", "--sessions", "--token", "t", "--db", "x.db"], "--db does not apply"),
    ],
)
def test_serve_sessions_refuses_bad_options(
    args: list[str], says: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from gym_mcp.cli import main

    monkeypatch.delenv("GYM_MCP_TOKEN", raising=False)
    assert main(["serve", *args]) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1, err


def test_session_files_are_removed(tmp_path: Path) -> None:
    host = SessionHost(get_kit("banking"), token=TOKEN, workdir=tmp_path, idle_timeout=0.05)
    first = host.open_session("a", host.seed_snapshot(0))
    host.open_session("b", host.seed_snapshot(0))
    assert len(list(tmp_path.glob("*.db"))) == 2
    assert host.close_session("a") and not first.state.location.exists()
    time.sleep(0.1)
    host.open_session("c", host.seed_snapshot(0))  # opening sweeps the idle ones
    assert [s.name for s in host.sessions] == ["c"]
    host.close()
    assert not list(tmp_path.glob("*.db"))
