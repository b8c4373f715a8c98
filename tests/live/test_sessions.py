"""The sessions server (``gym-mcp serve NAME --transport http --sessions``) and envs over it.

One real server process on 127.0.0.1 for the module, real MCP clients, real control requests.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import sqlite3
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

from gym_mcp import BundledSource, SQLiteState, Task, free_port
from gym_mcp.errors import ConfigError, ServerStartError, StateError
from gym_mcp.playback import replay
from gym_mcp.servers import get_kit
from gym_mcp.sessions.app import session_app
from gym_mcp.sessions.client import SessionsSource, SessionState
from gym_mcp.sessions.host import SessionHost
from gym_mcp.sessions.wire import SESSION_HEADER, SNAPSHOT_HEADER

TOKEN = "sessions-test-token-1"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@contextlib.contextmanager
def serving(host: SessionHost) -> Iterator[str]:
    """Serve ``host`` on 127.0.0.1 (what ``gym-mcp serve --sessions`` runs, in a thread); its MCP URL."""
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


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The MCP URL of a banking sessions server on 127.0.0.1."""
    with serving(SessionHost(get_kit("banking"), token=TOKEN)) as url:
        yield url


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


def open_ids(server: str) -> set[str]:
    """The public ids of the open sessions (the listing shows no keys)."""
    return {s["id"] for s in http().get(f"{control(server)}/sessions", headers=AUTH).json()["sessions"]}


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
        assert {s.id for s, _ in sessions} <= open_ids(server)
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
    assert not {s.id for s, _ in sessions} & open_ids(server)  # closed: their state files are gone


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
            ("POST", "/sessions", None),
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
        assert state.id in open_ids(server)
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

    def fingerprint_at_start(body: dict[str, object]) -> str:
        opened = http().post(f"{control(server)}/sessions", headers=AUTH, json=body)
        assert opened.status_code == 201, opened.text
        key = opened.json()["key"]
        try:
            return str(http().get(f"{control(server)}/sessions/{key}/fingerprint", headers=AUTH).json()["fingerprint"])
        finally:
            http().delete(f"{control(server)}/sessions/{key}", headers=AUTH)

    state = SQLiteState(None, volatile=local.kit.volatile_columns)
    assert fingerprint_at_start({"snapshot": snap.digest}) == state.fingerprint_of(snap)
    assert fingerprint_at_start({"seed": 2}) == state.fingerprint_of(local.initial_snapshot(2))
    before = open_ids(server)
    unknown = http().post(f"{control(server)}/sessions", headers=AUTH, json={"snapshot": "0" * 64})
    assert unknown.status_code == 404 and unknown.json()["missing"] == "snapshot"
    assert open_ids(server) == before

    async def handshake_from_snapshot() -> float:  # a plain MCP client, no key: the initialize's headers
        async with (
            httpx2.AsyncClient(headers={**AUTH, SNAPSHOT_HEADER: snap.digest}) as client,
            Client(streamable_http_client(server, http_client=client), mode="legacy") as mcp,
        ):
            result = await mcp.call_tool("get_balance", {"account_id": "ACC-1001"})
            return float(json.loads(result.content[0].text)["balance"])  # type: ignore[union-attr]

    with contextlib.closing(sqlite3.connect(":memory:")) as db:
        db.deserialize(snap.data)
        (cents,) = db.execute("SELECT balance_cents FROM accounts WHERE id = 'ACC-1001'").fetchone()
    assert asyncio.run(handshake_from_snapshot()) == pytest.approx(cents / 100)


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
    bad_seed = http().post(server, headers={**AUTH, "Gym-MCP-Seed": "x"}, json={})  # a handshake's opening
    assert bad_seed.status_code == 400 and "must be an integer" in bad_seed.json()["error"]
    bad_open = http().post(f"{base}/sessions", headers=AUTH, json={"seed": "x"})
    assert bad_open.status_code == 400 and "seed must be an integer" in bad_open.json()["error"]
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
            during = open_ids(server)
        return during, result.content[0].text  # type: ignore[union-attr]

    before = open_ids(server)
    during, text = asyncio.run(run())
    assert json.loads(text)["new_balance"] == pytest.approx(4853.32 + 9)  # on its own fresh state
    (opened,) = during - before
    assert opened not in open_ids(server)


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


# -- a session that ends under an episode (issue 36) ---------------------------------------------

DEPOSIT = {"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": 7}}
BALANCE = {"name": "get_balance", "arguments": {"account_id": "ACC-1001"}}


def balance_of(observation: str) -> float:
    return float(json.loads(observation)["balance"])


def local_fingerprint(*calls: dict[str, object]) -> str:
    """The fingerprint a local env reaches with ``calls`` from data seed 0 (what a session must reach too)."""
    local = gym.make("gym_mcp/Banking-v0")
    try:
        got = replay(local, Task(id="t", server="banking", instruction="Do it.", reference_calls=list(calls)))
    finally:
        local.close()
    assert got.ok, got.failed
    return got.fingerprint


def test_a_session_deleted_under_an_episode_is_a_crash_restored_from_the_envs_own_state(server: str) -> None:
    env = gym.make("gym_mcp/Banking-v0", transport="http", url=server, sessions=True, token=TOKEN)
    try:
        env.reset(seed=0)
        env.step(DEPOSIT)
        state = env.unwrapped.state
        old = state.name
        assert http().delete(f"{control(server)}/sessions/{old}", headers=AUTH).status_code == 200
        obs, _, terminated, truncated, info = env.step(BALANCE)
        assert "ended this session" in obs and not (
            terminated or truncated
        )  # a crash, said so: never a silent new world
        assert info["calls"][-1].status == "crash" and info["server_restarts"] == 1 and not info["limits"]
        assert state.name != old and state.id in open_ids(server)  # a new session, under a new key
        obs, *_ = env.step(BALANCE)  # on the new session, restored to the state from before the loss
        assert balance_of(obs) == pytest.approx(4853.32 + 7)
        env.step(DEPOSIT)
        _, _, terminated, _, info = env.step("Done.")
        assert terminated and info["final_fingerprint"] == local_fingerprint(DEPOSIT, DEPOSIT)
        assert info["server_restarts"] == 1
    finally:
        env.close()


def test_a_session_swept_idle_under_an_episode_is_restored_before_the_next_write() -> None:
    host = SessionHost(get_kit("banking"), token=TOKEN, idle_timeout=0.2)
    with serving(host) as url:
        env = gym.make("gym_mcp/Banking-v0", transport="http", url=url, sessions=True, token=TOKEN)
        try:
            env.reset(seed=0)
            env.step(DEPOSIT)
            time.sleep(0.3)  # past the idle timeout: the next sweep ends it (sweeps run only when asked here)
            http().get(f"{control(url)}/sessions", headers=AUTH)  # the listing sweeps first
            obs, _, _, truncated, info = env.step(DEPOSIT)
            assert info["calls"][-1].status == "crash" and info["server_restarts"] == 1 and not truncated
            assert info["rolled_back"] == 1  # the env's own checkpoint put back on the new session
            obs, *_ = env.step(DEPOSIT)
            assert json.loads(obs)["new_balance"] == pytest.approx(4853.32 + 14)
            _, _, terminated, _, info = env.step("Done.")
            assert terminated and info["final_fingerprint"] == local_fingerprint(DEPOSIT, DEPOSIT)
        finally:
            env.close()


def test_a_session_lost_with_no_state_known_ends_the_episode_as_state_lost(server: str) -> None:
    env = gym.make("gym_mcp/Banking-v0", transport="http", url=server, sessions=True, token=TOKEN)
    try:
        env.reset(seed=0)
        env.step(DEPOSIT)
        state = env.unwrapped.state
        state.reset(0)  # the server puts the session back to a seed: nothing of its state is kept here
        http().delete(f"{control(server)}/sessions/{state.name}", headers=AUTH)
        before = open_count(server)
        obs, reward, terminated, truncated, info = env.step(BALANCE)
        assert truncated and not terminated and info["limits"] == ["state_lost"] and reward == 0.0
        assert "state is lost" in obs and info["final_fingerprint"] == ""
        assert open_count(server) == before  # no session opened on a seed in its place
        env.reset(seed=0)  # a new episode needs no old state: it goes on, on a new session
        obs, _, _, _, info = env.step(BALANCE)
        assert balance_of(obs) == pytest.approx(4853.32) and not info["limits"]
    finally:
        env.close()


def mcp_post(server: str, headers: dict[str, str], *, modern: bool = True) -> httpx.Response:
    """A raw ``tools/list`` POST to the MCP endpoint (``modern``: with the 2026 protocol's version header)."""
    version = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"} if modern else {}
    envelope = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    return http().post(
        server,
        headers={**AUTH, "Accept": "application/json, text/event-stream", **version, **headers},
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": envelope} if modern else {}},
    )


def open_count(server: str) -> int:
    return int(http().get(f"{control(server)}/info", headers=AUTH).json()["sessions"])


def test_a_request_naming_an_unknown_session_is_refused_and_opens_none(server: str) -> None:
    before = open_count(server)
    for modern in (True, False):  # False: the SDK would answer "400 Missing session ID"
        answer = mcp_post(server, {SESSION_HEADER: "made-up-key"}, modern=modern)
        assert answer.status_code == 404 and answer.json()["missing"] == "session", answer.text
    refused = mcp_post(server, {}, modern=False)  # no key, no MCP session id, not an initialize
    assert refused.status_code == 400 and "Missing session ID" in refused.text
    assert open_count(server) == before
    opened = http().post(f"{control(server)}/sessions", headers=AUTH)
    key = opened.json()["key"]
    try:
        assert mcp_post(server, {SESSION_HEADER: key}).status_code == 200  # the key works
        answer = mcp_post(server, {SESSION_HEADER: key}, modern=False)  # a known key, a request the SDK refuses
        assert answer.status_code == 400 and "Missing session ID" in answer.text
        assert open_count(server) == before + 1  # that one session, no other
    finally:
        http().delete(f"{control(server)}/sessions/{key}", headers=AUTH)


def test_sessions_are_capabilities_that_the_listing_never_gives_out(server: str) -> None:
    a = gym.make("gym_mcp/Banking-v0", transport="http", url=server, sessions=True, token=TOKEN)
    try:
        a.reset(seed=0)
        a.step(DEPOSIT)
        mine = a.unwrapped.state
        listing = http().get(f"{control(server)}/sessions", headers=AUTH)
        assert mine.name not in listing.text and mine.id in open_ids(server)  # listed by public id, no key
        assert len(mine.name) >= 43  # 256 random bits, minted by the server
        base = control(server)
        for method, path in [
            ("GET", "/fingerprint"),
            ("GET", "/snapshot"),
            ("PUT", "/snapshot"),
            ("POST", "/reset"),
            ("DELETE", ""),
        ]:  # another client with the token and the public id: nothing to read, write or end
            answer = http().request(method, f"{base}/sessions/{mine.id}{path}", headers=AUTH, content=b"")
            assert answer.status_code == 404 and answer.json()["missing"] == "session", (method, path)
        assert mcp_post(server, {SESSION_HEADER: mine.id}).status_code == 404
        obs, *_ = a.step(BALANCE)
        assert balance_of(obs) == pytest.approx(4853.32 + 7)  # untouched
    finally:
        a.close()


@pytest.mark.parametrize(
    ("authorization", "accepted"),
    [
        (f"Bearer {TOKEN}", True),
        (f"bearer {TOKEN}", True),
        (f"Bearer  {TOKEN}", False),
        (f"Bearer\t{TOKEN}", False),
        (f"Bearer{TOKEN}", False),
        (f"Bearer {TOKEN} x", False),
        (TOKEN, False),
    ],
)
def test_the_control_channel_and_the_mcp_endpoint_read_the_bearer_header_alike(
    server: str, authorization: str, accepted: bool
) -> None:
    headers = {"Authorization": authorization}
    info = http().get(f"{control(server)}/info", headers=headers)
    endpoint = http().post(server, headers=headers, json={})
    assert (info.status_code != 401, endpoint.status_code != 401) == (accepted, accepted)


def test_both_channels_read_the_header_with_one_function() -> None:
    from gym_mcp.servers.kit import StaticTokenVerifier, bearer_token

    assert bearer_token(f"Bearer {TOKEN}") == bearer_token(f"BEARER {TOKEN}") == TOKEN
    assert bearer_token(f"Bearer  {TOKEN}") is bearer_token(f"Bearer {TOKEN} ") is bearer_token(None) is None
    verifier = StaticTokenVerifier(TOKEN)  # the SDK hands it what follows "Bearer "
    assert asyncio.run(verifier.verify_token(TOKEN)) is not None
    assert asyncio.run(verifier.verify_token(f" {TOKEN}")) is None
