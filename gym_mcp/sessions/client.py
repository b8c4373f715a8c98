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
import dataclasses
import hashlib
import os
import threading
from collections.abc import Callable, Hashable, Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx

from gym_mcp.errors import ConfigError, ServerCrashedError, ServerStartError, StateError, StateLostError
from gym_mcp.live.live_server import LiveServer, ServerSource, Transport
from gym_mcp.sessions.wire import DIGEST_HEADER, SESSION_HEADER
from gym_mcp.state.base import Snapshot, StateBackend, StateDiff
from gym_mcp.state.sqlite import SQLiteState
from gym_mcp.transport import Launch, LiveConnection, ToolResult
from gym_mcp.transport.connection import RESTART_ATTEMPTS

__all__ = ["SessionServer", "SessionState", "SessionsSource"]


class _SessionGone(Exception):
    """The server answered that the session is not open (404, ``missing: "session"``)."""


class _SnapshotNotHeld(Exception):
    """The server answered that it holds no snapshot with the digest named (404, ``missing: "snapshot"``)."""


class SessionState(StateBackend):
    """The state of one session on a sessions server, driven through its control channel.

    It keeps the last state it knows the session holds (the snapshot last taken or restored,
    while no tool call since may have written), so that a session the server ended under the
    episode (closed, or idle past the server's timeout) is reopened on exactly that state: a new
    session, the state restored into it, counted in `reopens`. When no such state is known (a
    write ran since, and the session ended before its result could be read back), the state is
    lost: `StateLostError`, never a session that silently starts again from a seed.

    Args:
        control: An HTTP client whose base URL is the server's control channel and whose headers
            carry its token (it may be shared; closing the state leaves it open).
        name: The session's key (its capability: every control request names it).
        volatile: Columns left out of fingerprints, by table (as the server declares them).
        id: The session's public id (as ``GET /control/sessions`` lists it).
        calls: How many tool calls the session's connection has been asked so far (a state
            known before a call that may have written is no longer known).
    """

    kind = "sqlite"

    def __init__(
        self,
        control: httpx.Client,
        name: str,
        *,
        volatile: Mapping[str, Any],
        id: str = "",
        calls: Callable[[], int] = lambda: 0,
    ) -> None:
        self.control = control
        self.name = name
        self.id = id
        self.reopens = 0
        self.lost = False
        self._calls = calls
        self._known: Snapshot | None = None
        self._known_at = -1
        self._local = SQLiteState(None, volatile=volatile)  # opens snapshots for fingerprint_of and diff
        self.volatile = self._local.volatile
        self._closed = False

    # -- what the session is known to hold ----------------------------------------------------

    def known(self) -> Snapshot | None:
        """The state the session holds, when known: taken or restored with no tool call since."""
        return self._known if self._known is not None and self._known_at == self._calls() else None

    def _know(self, snap: Snapshot | None) -> None:
        self._known, self._known_at = snap, self._calls()

    def vouch(self) -> None:
        """Say that the calls since the known state changed nothing (they only read): it is still known."""
        if self._known is not None:
            self._known_at = self._calls()

    def refresh(self) -> Snapshot:
        """Read the session's state from the server now (after a write), and know it.

        Raises:
            StateLostError: The session ended before it could be read, and nothing known is left.
        """
        self._know(None)
        return self.snapshot()

    def reopen(self, start: Snapshot | None = None) -> None:
        """Open a new session on the server in place of one that ended, on ``start`` or the known state.

        Raises:
            StateLostError: Neither is there: the old session's state is gone.
            StateError: The server refused to open one.
        """
        start = start if start is not None else self.known()
        if start is None:
            raise self._lost()
        try:
            self._open({"snapshot": start.digest})
        except _SnapshotNotHeld:  # the server dropped it (or restarted): send its bytes first
            kept = self._post("keep a snapshot", "/snapshots", content=start.data)
            if kept.status_code >= 400:
                raise StateError(f"cannot reopen session {self.id!r}: {_error_of(kept)}") from None
            self._open({"snapshot": start.digest})
        self._know(start)

    def _lost(self) -> StateLostError:
        """The error of a session that ended with no state of it known (the state is marked lost)."""
        self.lost = True
        return StateLostError(
            f"the session {self.id!r} ended on the server (closed, or idle past its timeout) after a "
            "write whose result was not read back: its state is lost"
        )

    def _open(self, body: dict[str, Any]) -> None:
        """Open a new session (``body``: the seed or snapshot it starts from) and become it.

        Raises:
            _SnapshotNotHeld: The server does not hold the snapshot named.
            StateError: The server refused.
        """
        opened = self._post("open a session", "/sessions", json=body)
        if opened.status_code == 404 and _missing(opened) == "snapshot":
            raise _SnapshotNotHeld
        if opened.status_code >= 400:
            raise StateError(f"cannot reopen session {self.id!r}: {_error_of(opened)}")
        answer = opened.json()
        self.name, self.id = str(answer["key"]), str(answer["id"])
        self.reopens += 1
        self.lost = False

    def _post(self, what: str, path: str, **kwargs: Any) -> httpx.Response:
        try:
            return self.control.post(path, **kwargs)
        except httpx.HTTPError as exc:
            raise StateError(f"cannot {what}: {self.control.base_url}: {exc}") from exc

    # -- the control requests -----------------------------------------------------------------

    def _request(self, what: str, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """One control request on the session; any failure becomes a `StateError` that says what failed and why.

        Raises:
            _SessionGone: The server does not know the session (it ended).
        """
        if self._closed:
            raise StateError(f"cannot {what}: the session {self.id!r} is closed")
        try:
            response = self.control.request(method, f"/sessions/{self.name}{path}", **kwargs)
        except httpx.HTTPError as exc:
            raise StateError(f"cannot {what} of session {self.id!r}: {self.control.base_url}: {exc}") from exc
        if response.status_code == 404 and _missing(response) == "session":
            raise _SessionGone
        if response.status_code >= 400 and response.status_code != 404:
            raise StateError(f"cannot {what} of session {self.id!r}: {_error_of(response)}")
        return response

    def snapshot(self) -> Snapshot:
        """The session's whole database: the known state, else fetched from the server.

        Raises:
            StateLostError: The session ended, and no state of it is known.
        """
        known = self.known()
        if known is not None:  # only this client holds the key: nothing else changed it
            return known
        try:
            response = self._request("snapshot the state", "GET", "/snapshot")
        except _SessionGone:
            raise self._lost() from None  # (had anything been known, it was returned)
        if response.status_code == 404:
            raise StateError(f"cannot snapshot the state of session {self.id!r}: {_error_of(response)}")
        snap = Snapshot.of(self.kind, response.content)
        self._know(snap)
        return snap

    def restore(self, snapshot: Snapshot) -> None:
        """Make the session's database the snapshot's (by digest when the server holds it, else sent).

        A session that ended is reopened on the snapshot (nothing of it was needed).
        """
        self._check_kind(snapshot)
        try:
            response = self._request("restore the state", "PUT", "/snapshot", headers={DIGEST_HEADER: snapshot.digest})
            if response.status_code == 404 and _missing(response) == "snapshot":
                response = self._request(
                    "restore the state",
                    "PUT",
                    "/snapshot",
                    content=snapshot.data,
                    headers={"Content-Type": "application/octet-stream"},
                )
        except _SessionGone:
            self.reopen(snapshot)
            return
        if response.status_code == 404:
            raise StateError(f"cannot restore the state of session {self.id!r}: {_error_of(response)}")
        self._know(snapshot)

    def fingerprint(self) -> str:
        """The fingerprint of the session's database (volatile columns left out).

        Of the known state, computed here with the server's code and volatile columns; else the
        server's.

        Raises:
            StateLostError: The session ended, and no state of it is known.
        """
        known = self.known()
        if known is not None:
            return self._local.fingerprint_of(known)
        try:
            response = self._request("fingerprint the state", "GET", "/fingerprint")
        except _SessionGone:
            raise self._lost() from None  # (had anything been known, it was returned)
        if response.status_code == 404:
            raise StateError(f"cannot fingerprint the state of session {self.id!r}: {_error_of(response)}")
        return str(response.json()["fingerprint"])

    def reset(self, seed: int) -> None:
        """Put the session back to the server's data seed ``seed`` (a session that ended is reopened there)."""
        self._know(None)
        try:
            response = self._request("reset the state", "POST", "/reset", json={"seed": seed})
        except _SessionGone:
            self._open({"seed": seed})
            return
        if response.status_code == 404:
            raise StateError(f"cannot reset the state of session {self.id!r}: {_error_of(response)}")

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


@dataclasses.dataclass
class SessionServer(LiveServer):
    """A `LiveServer` whose server is one session on a sessions server, and whose state is that session's.

    A session the server ended under the episode is a crash, as a server process that died is:
    the call that found it gone did not run, a new session is opened on the last state known
    (`SessionState.reopen`) and counted in `restarts` (an env's ``info["server_restarts"]``),
    and the call comes back as a crash (the env puts its own checkpoint back, as after any failed
    call). After each write that succeeds, the session's state is read back, so a state is known
    at every step; if the session ends between a write and that read, the result says
    ``state_lost`` (the env ends the episode with that limit).
    """

    @property
    def session(self) -> SessionState:
        """The session's state backend."""
        assert isinstance(self.state, SessionState)
        return self.state

    @property
    def restarts(self) -> int:
        """Restarts of the connection, and sessions reopened after the server ended one."""
        return super().restarts + self.session.reopens

    @property
    def healthy(self) -> bool:
        """As a `LiveServer`, and its state not lost (a pool hands out no session without one)."""
        return super().healthy and not self.session.lost

    async def ensure_alive(self) -> None:
        """Reconnect to the session (reopened if the server ended it meanwhile) when the connection is down.

        Raises:
            ServerCrashedError: The session could not be reached nor reopened.
        """
        try:
            await self._follow()
        except (ServerStartError, StateError) as exc:
            raise ServerCrashedError(f"{self.connection.launch.name}: the session cannot be reached: {exc}") from exc

    async def call_tool(self, name: str, arguments: Mapping[str, object]) -> ToolResult:
        """Call a tool on the session (reopened first if the server ended it and its state is known)."""
        session = self.session
        try:
            await self._follow()
        except StateLostError as exc:
            return ToolResult(f"Error: {exc}; {name!r} did not run", is_error=True, crashed=True, state_lost=True)
        except (ServerStartError, StateError) as exc:
            return ToolResult(f"Error: {exc}; {name!r} did not run", is_error=True, crashed=True, down=True)
        known = session.known()
        result = await super().call_tool(name, arguments)
        if result.session_lost:
            return await self._reopened(name, known)
        if self._reads_only(name):
            if known is not None:
                session.vouch()
        elif not result.is_error:  # a write ran: read its result back, so the state stays known
            try:
                await asyncio.to_thread(session.refresh)
            except StateLostError as exc:
                return dataclasses.replace(result, state_lost=True, text=f"{result.text}\n(Error: {exc})")
            except StateError:
                pass  # not read back: nothing is known until the next snapshot (a loss before it is state_lost)
        return result

    async def _reopened(self, name: str, known: Snapshot | None) -> ToolResult:
        """The answer to a call that found the session gone: a new session on ``known``, or the state lost."""
        server = self.connection.launch.name
        try:
            await asyncio.to_thread(self.session.reopen, known)
            await self._follow()
        except StateLostError as exc:
            return ToolResult(f"Error: {exc}; {name!r} did not run", is_error=True, crashed=True, state_lost=True)
        except (ServerStartError, StateError) as exc:
            return ToolResult(f"Error: {exc}; {name!r} did not run", is_error=True, crashed=True, down=True)
        return ToolResult(
            f"Error: the {server} server ended this session (closed, or idle past its timeout) during {name!r}, "
            "which did not run; a new session was opened on the state from before the call",
            is_error=True,
            crashed=True,
        )

    async def _follow(self) -> None:
        """Connect to the session's current key, when a reopen changed it or the connection is down.

        A session that ends again before the connection reaches it is reopened again (on the
        same known state), `RESTART_ATTEMPTS` times at most.

        Raises:
            StateLostError: It ended, and no state of it is known.
            ServerStartError: The server could not be reached.
            StateError: The server refused to open a session.
        """
        for _ in range(RESTART_ATTEMPTS):
            connection = self.connection
            if connection.launch.headers.get(SESSION_HEADER) == self.session.name and connection.connected:
                return
            headers = {**connection.launch.headers, SESSION_HEADER: self.session.name}
            try:
                await connection.reconnect(dataclasses.replace(connection.launch, headers=headers))
                return
            except ServerStartError:
                if not connection.session_unknown:
                    raise
            await asyncio.to_thread(self.session.reopen)  # ended before we reached it: again, on what is known
        raise ServerStartError(f"{self.connection.launch.name}: {RESTART_ATTEMPTS} new sessions ended before use")

    def _reads_only(self, name: str) -> bool:
        """True when the tool says it only reads (MCP ``readOnlyHint``), as the env trusts it to."""
        tool = next((t for t in self.tools if t.name == name), None)
        return tool is not None and tool.annotations is not None and tool.annotations.read_only_hint is True


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

    def _open(self) -> tuple[str, str]:
        """Open a session on the server: its key (the capability, minted there) and its public id."""
        try:
            response = self.control.post("/sessions")
        except httpx.HTTPError as exc:
            raise ServerStartError(f"{self.name}: no sessions server answers at {self._control_url}: {exc}") from exc
        if response.status_code != 201:
            raise ServerStartError(f"{self.name}: the sessions server did not open a session: {_error_of(response)}")
        body = response.json()
        return str(body["key"]), str(body["id"])

    async def launch(self, *, call_timeout: float) -> LiveServer:
        """Open a new session on the server (a private state, at the server's data seed)."""
        from gym_mcp.servers.kit import auth_headers

        volatile = await asyncio.to_thread(self._server_volatile)
        key, public_id = await asyncio.to_thread(self._open)
        launch = Launch(self.name, "http", url=self.url, headers={**auth_headers(self._token), SESSION_HEADER: key})
        connection = LiveConnection(launch, call_timeout=call_timeout)
        state = SessionState(self.control, key, volatile=volatile, id=public_id, calls=lambda: connection.calls)
        try:
            tools = await connection.start_and_list()
        except BaseException:
            await asyncio.to_thread(state.close)
            raise
        return SessionServer.single(connection, state, tools, self.key, None)
