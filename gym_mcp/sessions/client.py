"""Environments over a sessions server: one process serves every environment, a session each.

`SessionsSource` is a `ServerSource` for a bundled server run as ``gym-mcp serve NAME
--transport http --sessions`` (see `gym_mcp.sessions.host`). Each launch opens a new
session on that server, so each environment has its own private state without a process of its
own; its state backend, `SessionState`, snapshots, restores and fingerprints that session
through the server's control channel (plain HTTP, not a tool, behind the server's token).

Fingerprints are computed by the server with the same code (`SQLiteState.fingerprint`) and the
same volatile columns as a local environment's, so they are equal for equal states, and a task's
``expected_fingerprint`` is judged the same way. ``fingerprint_of`` and ``diff`` of snapshots
need no server: they run here.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import secrets
import threading
from collections.abc import Hashable, Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx

from gym_mcp.errors import ConfigError, ServerStartError, StateError
from gym_mcp.live.live_server import LiveServer, ServerSource, Transport
from gym_mcp.sessions.wire import DIGEST_HEADER, SESSION_HEADER
from gym_mcp.state.base import Snapshot, StateBackend, StateDiff
from gym_mcp.state.sqlite import SQLiteState
from gym_mcp.transport import Launch, LiveConnection

__all__ = ["SessionState", "SessionsSource"]


class SessionState(StateBackend):
    """The state of one session on a sessions server, driven through its control channel.

    Args:
        control: An HTTP client whose base URL is the server's control channel and whose headers
            carry its token (it may be shared; closing the state leaves it open).
        name: The session's name (its ``Gym-MCP-Session`` key).
        volatile: Columns left out of fingerprints, by table (as the server declares them).
    """

    kind = "sqlite"

    def __init__(self, control: httpx.Client, name: str, *, volatile: Mapping[str, Any]) -> None:
        self.control = control
        self.name = name
        self._local = SQLiteState(None, volatile=volatile)  # opens snapshots for fingerprint_of and diff
        self.volatile = self._local.volatile
        self._closed = False

    def _request(self, what: str, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """One control request; any failure becomes a `StateError` that says what failed and why."""
        if self._closed:
            raise StateError(f"cannot {what}: the session {self.name!r} is closed")
        try:
            response = self.control.request(method, f"/sessions/{self.name}{path}", **kwargs)
        except httpx.HTTPError as exc:
            raise StateError(f"cannot {what} of session {self.name!r}: {self.control.base_url}: {exc}") from exc
        if response.status_code >= 400 and response.status_code != 404:
            raise StateError(f"cannot {what} of session {self.name!r}: {_error_of(response)}")
        return response

    def snapshot(self) -> Snapshot:
        """The session's whole database, fetched from the server."""
        response = self._request("snapshot the state", "GET", "/snapshot")
        if response.status_code == 404:
            raise StateError(f"cannot snapshot the state of session {self.name!r}: {_error_of(response)}")
        return Snapshot.of(self.kind, response.content)

    def restore(self, snapshot: Snapshot) -> None:
        """Make the session's database the snapshot's (by digest when the server holds it, else sent)."""
        self._check_kind(snapshot)
        response = self._request("restore the state", "PUT", "/snapshot", headers={DIGEST_HEADER: snapshot.digest})
        if response.status_code == 404 and _missing(response) == "snapshot":
            response = self._request(
                "restore the state",
                "PUT",
                "/snapshot",
                content=snapshot.data,
                headers={"Content-Type": "application/octet-stream"},
            )
        if response.status_code == 404:
            raise StateError(f"cannot restore the state of session {self.name!r}: {_error_of(response)}")

    def fingerprint(self) -> str:
        """The server's fingerprint of the session's database (volatile columns left out)."""
        response = self._request("fingerprint the state", "GET", "/fingerprint")
        if response.status_code == 404:
            raise StateError(f"cannot fingerprint the state of session {self.name!r}: {_error_of(response)}")
        return str(response.json()["fingerprint"])

    def reset(self, seed: int) -> None:
        """Put the session back to the server's data seed ``seed``."""
        response = self._request("reset the state", "POST", "/reset", json={"seed": seed})
        if response.status_code == 404:
            raise StateError(f"cannot reset the state of session {self.name!r}: {_error_of(response)}")

    def fingerprint_of(self, snapshot: Snapshot) -> str:
        """The fingerprint of a snapshot, computed here (cached by digest)."""
        return self._local.fingerprint_of(snapshot)

    def diff(self, a: Snapshot, b: Snapshot) -> StateDiff:
        """Rows added, removed and changed per table between two snapshots, computed here."""
        return self._local.diff(a, b)

    def close(self) -> None:
        """End the session on the server (its state file is removed)."""
        if self._closed:
            return
        try:
            self.control.delete(f"/sessions/{self.name}")
        except httpx.HTTPError:
            pass  # the server is gone: so is the session
        finally:
            self._closed = True
            self._local.close()


def _missing(response: httpx.Response) -> str | None:
    """What a 404 of the control channel says is missing: ``"session"``, ``"snapshot"`` (None: not said)."""
    try:
        body = response.json()
    except ValueError:
        return None
    return body.get("missing") if isinstance(body, dict) else None


def _error_of(response: httpx.Response) -> str:
    """The server's message for a refused control request."""
    try:
        body = response.json()
    except ValueError:
        body = None
    message = body.get("error") if isinstance(body, dict) else None
    return f"HTTP {response.status_code}: {message or response.text[:200] or response.reason_phrase}"


class SessionsSource(ServerSource):
    """A bundled server run as a sessions server: each launch is a new session on it.

    Args:
        name: The bundled server, e.g. ``"banking"`` (the server at ``url`` must serve it).
        url: The server's MCP endpoint, e.g. ``"http://127.0.0.1:8000/mcp"``; its control
            channel is ``/control`` on the same host and port.
        token: The server's bearer token (default: ``$GYM_MCP_TOKEN``).
        timeout: Seconds a control request may take.

    Raises:
        ConfigError: No token, a URL that is not http(s), or a server that is not a bundled
            database server.
    """

    transport: Transport = "http"

    def __init__(self, name: str, url: str, *, token: str | None = None, timeout: float = 30.0) -> None:
        from gym_mcp.live.sources import BundledSource, bundled_source
        from gym_mcp.servers.kit import TOKEN_ENV

        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ConfigError(f"sessions url must be an http(s) URL such as http://127.0.0.1:8000/mcp, got {url!r}")
        token = token if token is not None else (os.environ.get(TOKEN_ENV) or None)
        if not token:
            raise ConfigError(f"a sessions server needs its token: pass token=... or set ${TOKEN_ENV}")
        source = bundled_source(name, "http")
        if not isinstance(source, BundledSource) or source.directory:
            raise ConfigError(f"sessions=True works with a bundled database server; {name!r} is not one")
        self.name = name
        self.url = url
        self.timeout = timeout
        self._token = token
        self._bundled = source
        self._control_url = f"{parts.scheme}://{parts.netloc}/control"
        self._volatile: dict[str, list[str]] | None = None
        self._control: httpx.Client | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"SessionsSource({self.name!r}, {self.url!r}, token=***)"

    @property
    def key(self) -> Hashable:
        """Server name, URL and a hash of the token: such sessions are interchangeable (the pool reuses them)."""
        return ("sessions", self.name, self.url, hashlib.sha256(self._token.encode()).hexdigest())

    def initial_snapshot(self, seed: int) -> Snapshot:
        """The seeded database for ``seed``, built here as a local environment builds it."""
        return self._bundled.initial_snapshot(seed)

    @property
    def control(self) -> httpx.Client:
        """The HTTP client of the control channel (base URL and token set), shared by this source's sessions."""
        from gym_mcp.servers.kit import auth_headers

        with self._lock:  # one client: making one costs ~50 ms (its TLS context), more than a launch
            if self._control is None or self._control.is_closed:
                self._control = httpx.Client(
                    base_url=self._control_url, headers=auth_headers(self._token), timeout=self.timeout
                )
            return self._control

    def _server_volatile(self) -> dict[str, list[str]]:
        """The server's volatile columns, after checking it serves this server with this token."""
        if self._volatile is not None:
            return self._volatile
        try:
            response = self.control.get("/info")
        except httpx.HTTPError as exc:
            raise ServerStartError(f"{self.name}: no sessions server answers at {self._control_url}: {exc}") from exc
        if response.status_code == 401:
            raise ServerStartError(f"{self.name}: the sessions server at {self.url} refused the token (HTTP 401)")
        if response.status_code != 200:
            raise ServerStartError(
                f"{self.name}: {self.url} is not a sessions server (GET /control/info answered "
                f"{_error_of(response)}); start one with gym-mcp serve {self.name} --transport http --sessions"
            )
        info = response.json()
        if info.get("server") != self.name:
            raise ServerStartError(
                f"the sessions server at {self.url} serves {info.get('server')!r}, not {self.name!r}"
            )
        self._volatile = {str(t): [str(c) for c in cols] for t, cols in dict(info.get("volatile") or {}).items()}
        return self._volatile

    async def launch(self, *, call_timeout: float) -> LiveServer:
        """Open a new session on the server (a private state, at the server's data seed)."""
        from gym_mcp.servers.kit import auth_headers

        volatile = await asyncio.to_thread(self._server_volatile)
        session = secrets.token_urlsafe(18)
        launch = Launch(self.name, "http", url=self.url, headers={**auth_headers(self._token), SESSION_HEADER: session})
        connection = LiveConnection(launch, call_timeout=call_timeout)
        state = SessionState(self.control, session, volatile=volatile)
        try:
            tools = await connection.start_and_list()
        except BaseException:
            await asyncio.to_thread(state.close)
            raise
        return LiveServer.single(connection, state, tools, self.key, None)
