"""Bearer-token authentication of ``gym-mcp serve --transport http``, on real server processes."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client

from gym_mcp import free_port
from gym_mcp.servers.kit import TOKEN_ENV, StaticTokenVerifier, auth_headers, http_token
from tests.helpers import http_flags

CLI = [sys.executable, "-m", "gym_mcp.cli"]
TOKEN = "t0ken-for-tests.Zq9"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
MCP_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


@dataclass
class Served:
    """A running server process: its MCP URL and where its stdout and stderr go."""

    url: str
    proc: subprocess.Popen[bytes]
    stdout: Path
    stderr: Path

    def output(self) -> str:
        """Everything the server printed so far (stdout and stderr)."""
        return self.stdout.read_text(errors="replace") + self.stderr.read_text(errors="replace")


@contextmanager
def served(tmp_path: Path, command: list[str], env: Mapping[str, str | None] | None = None) -> Iterator[Served]:
    """Run a server command with ``http_flags`` on a free loopback port until it answers HTTP."""
    port = free_port()
    full_env = {**os.environ}
    full_env.pop(TOKEN_ENV, None)
    for key, value in (env or {}).items():
        if value is None:
            full_env.pop(key, None)
        else:
            full_env[key] = value
    out, err = tmp_path / f"{port}.stdout", tmp_path / f"{port}.stderr"
    with out.open("wb") as o, err.open("wb") as e:
        proc = subprocess.Popen(
            [*command, *http_flags(port, f"sqlite:///{tmp_path / 'bank.db'}")],
            stdin=subprocess.DEVNULL,
            stdout=o,
            stderr=e,
            env=full_env,
        )
    server = Served(f"http://127.0.0.1:{port}/mcp", proc, out, err)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(server.url, timeout=2)
                break
            except httpx.TransportError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"server did not start: {server.output()}") from None
                time.sleep(0.2)
        yield server
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def post_initialize(url: str, headers: Mapping[str, str] | None = None) -> httpx.Response:
    """POST an MCP initialize request, with extra ``headers``."""
    return httpx.post(url, json=INITIALIZE, headers={**MCP_HEADERS, **(headers or {})}, timeout=10)


def assert_refused(response: httpx.Response) -> None:
    """401, a short JSON error, a bearer challenge and nothing of MCP."""
    assert response.status_code == 401, response.text
    body = response.json()
    assert body["error"] == "invalid_token"
    assert "jsonrpc" not in body
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert "mcp-session-id" not in response.headers


async def session_with(url: str, headers: Mapping[str, str]) -> tuple[list[str], dict[str, object]]:
    """Open a real MCP session over streamable HTTP with ``headers``; list tools and call one."""
    async with (
        httpx2.AsyncClient(headers=dict(headers), timeout=30) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        tools = [t.name for t in (await client.list_tools()).tools]
        result = await client.call_tool("get_account", {"account_id": "ACC-1001"})
        return tools, json.loads(result.content[0].text)  # type: ignore[union-attr]


def leaf_errors(error: BaseException) -> Iterator[BaseException]:
    """The exceptions inside (nested) exception groups."""
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from leaf_errors(inner)
    else:
        yield error


def assert_session_works(url: str, token: str) -> None:
    tools, account = asyncio.run(session_with(url, auth_headers(token)))
    assert "transfer_funds" in tools
    assert account["account_id"] == "ACC-1001"


@pytest.fixture(scope="module")
def token_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """``gym-mcp serve banking --transport http --token TOKEN``."""
    with served(tmp_path_factory.mktemp("token"), [*CLI, "serve", "banking", "--token", TOKEN]) as server:
        yield server


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer wrong-token"},
        {"Authorization": f"Bearer {TOKEN}x"},
        {"Authorization": f"Bearer {TOKEN[:-1]}"},
        {"Authorization": f"Basic {TOKEN}"},
        {"Authorization": TOKEN},
    ],
    ids=["none", "wrong", "longer", "prefix", "basic", "no-scheme"],
)
def test_requests_without_the_token_get_401(token_server: Served, headers: dict[str, str]) -> None:
    assert_refused(post_initialize(token_server.url, headers))


@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_every_method_of_the_endpoint_needs_the_token(token_server: Served, method: str) -> None:
    assert_refused(httpx.request(method, token_server.url, headers=MCP_HEADERS, timeout=10))


def test_the_right_token_opens_a_real_mcp_session(token_server: Served) -> None:
    assert_session_works(token_server.url, TOKEN)
    assert post_initialize(token_server.url, auth_headers(TOKEN)).status_code == 200


def test_a_client_without_the_header_cannot_connect(token_server: Served) -> None:
    async def connect() -> None:
        async with Client(token_server.url) as client:
            await client.list_tools()

    with pytest.raises(ExceptionGroup) as caught:  # the SDK's task groups wrap the refusal
        asyncio.run(asyncio.wait_for(connect(), timeout=30))
    leaves = list(leaf_errors(caught.value))
    assert any(isinstance(e, MCPError) and "error response" in str(e) for e in leaves), leaves


def test_the_token_never_appears_in_the_output(token_server: Served) -> None:
    assert_session_works(token_server.url, TOKEN)
    assert_refused(post_initialize(token_server.url, {"Authorization": "Bearer wrong-token"}))
    time.sleep(0.5)
    output = token_server.output()
    assert "serving MCP at" in output and "bearer token required" in output
    assert TOKEN not in output
    assert "wrong-token" not in output


def test_the_environment_variable_works_the_same(tmp_path: Path) -> None:
    with served(tmp_path, [*CLI, "serve", "banking"], env={TOKEN_ENV: TOKEN}) as server:
        assert_refused(post_initialize(server.url))
        assert_refused(post_initialize(server.url, {"Authorization": "Bearer wrong-token"}))
        assert_session_works(server.url, TOKEN)
        assert TOKEN not in server.output()


def test_the_flag_wins_over_the_environment_variable(tmp_path: Path) -> None:
    flag = "from-the-flag"
    with served(tmp_path, [*CLI, "serve", "banking", "--token", flag], env={TOKEN_ENV: TOKEN}) as server:
        assert_refused(post_initialize(server.url, auth_headers(TOKEN)))
        assert post_initialize(server.url, auth_headers(flag)).status_code == 200


def test_a_bundled_server_module_on_its_own_takes_the_token(tmp_path: Path) -> None:
    with served(tmp_path, [sys.executable, "-m", "gym_mcp.servers.banking", "--token", TOKEN]) as server:
        assert_refused(post_initialize(server.url))
        assert_session_works(server.url, TOKEN)
        assert TOKEN not in server.output()


def test_a_non_loopback_host_without_a_token_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "never.db"
    env = {k: v for k, v in os.environ.items() if k != TOKEN_ENV}
    args = ["serve", "banking", "--transport", "http", "--host", "0.0.0.0", "--port", str(free_port())]
    out = subprocess.run(
        [*CLI, *args, "--db", f"sqlite:///{db}"], capture_output=True, text=True, timeout=60, env=env, check=False
    )
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert "non-loopback" in lines[0] and "--allow-no-token" in lines[0]
    assert not db.exists()


@pytest.mark.parametrize("bad", ["", "two words", "line\nbreak", "caf\u00e9"])
def test_a_malformed_token_is_refused_without_echoing_it(bad: str) -> None:
    with pytest.raises(ValueError, match="token") as caught:
        http_token(bad, host="127.0.0.1")
    if bad:
        assert bad not in str(caught.value)


def test_token_resolution_and_verifier(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    assert http_token(None, host="127.0.0.1") is None
    assert http_token(None, host="::1") is None
    assert http_token(None, host="0.0.0.0", allow_no_token=True) is None
    monkeypatch.setenv(TOKEN_ENV, "")
    assert http_token(None, host="localhost") is None  # an empty variable is no token
    monkeypatch.setenv(TOKEN_ENV, "env-token")
    assert http_token(None, host="0.0.0.0") == "env-token"
    assert http_token("flag-token", host="0.0.0.0") == "flag-token"

    verifier = StaticTokenVerifier("s3cret")
    assert "s3cret" not in repr(verifier)
    for candidate, ok in [("s3cret", True), ("s3cre", False), ("s3cret!", False), ("", False), ("s3cr\u00e9t", False)]:
        assert (asyncio.run(verifier.verify_token(candidate)) is not None) is ok, candidate
    assert auth_headers("s3cret") == {"Authorization": "Bearer s3cret"}
