"""Many isolated MCP sessions of one bundled server in one process (``gym-mcp serve NAME --sessions``).

`SessionHost` serves a bundled database server over streamable HTTP so that every MCP session
has its own state: when a session opens, the host gives it a private SQLite file, made from a
data seed (or from a snapshot the host holds); every tool call of the session reads and writes
that file only; when the session closes (the client's DELETE), the file is removed.

Which session a tool call belongs to is the MCP session id the SDK routes it by: a server
middleware binds that session's database to the call (a context variable the kit's engine reads
when the tool opens its connection), so the tools are the kit's own, unchanged, and the tool
list is the same as a plain server's.

The state is driven from outside through a control channel: plain HTTP routes under
``/control`` on the same server, which are not MCP tools (no tool can reach them) and answer
only requests that carry the server's bearer token (others get 401 and change nothing)::

    GET  /control/info                         server name, volatile columns, open sessions
    GET  /control/sessions                     the open sessions (id and key)
    POST /control/sessions/{ref}/reset         back to a data seed (JSON body {"seed": N}, default the server's)
    GET  /control/sessions/{ref}/snapshot      the session's database (bytes; digest in Gym-MCP-Digest)
    PUT  /control/sessions/{ref}/snapshot      restore: the database bytes, or an empty body and the
                                               Gym-MCP-Digest of a snapshot the host holds (else 404)
    GET  /control/sessions/{ref}/fingerprint   {"fingerprint": ...}, as `SQLiteState.fingerprint` computes it
    POST /control/snapshots                    keep a snapshot (bytes) for later; answers its digest

``{ref}`` is the MCP session id or the key the client chose for the session (the
``Gym-MCP-Session`` header of its requests). The opening request may carry ``Gym-MCP-Seed``
(the data seed to start from) or ``Gym-MCP-Snapshot`` (the digest of a held snapshot).
"""

from __future__ import annotations

import contextlib
import hmac
import sqlite3
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.streamable_http_manager import DEFAULT_MAX_SESSIONS
from mcp.types import CallToolResult, TextContent
from sqlalchemy import Engine, create_engine
from sqlalchemy.pool import NullPool
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gym_mcp.errors import StateError
from gym_mcp.live.scratch import make_scratch, remove_scratch
from gym_mcp.state.base import Snapshot
from gym_mcp.state.sqlite import SQLiteState

if TYPE_CHECKING:
    from gym_mcp.servers.kit import ServerKit

__all__ = [
    "CONTROL_PATH",
    "DIGEST_HEADER",
    "SEED_HEADER",
    "SESSION_HEADER",
    "SNAPSHOT_HEADER",
    "HostedSession",
    "SessionHost",
    "serve_sessions",
]

SESSION_HEADER = "Gym-MCP-Session"
"""The key a client names its session by (any visible ASCII; the MCP session id when absent)."""

SEED_HEADER = "Gym-MCP-Seed"
"""On the opening request: the data seed the session's state starts from."""

SNAPSHOT_HEADER = "Gym-MCP-Snapshot"
"""On the opening request: the digest of a held snapshot the session's state starts from."""

DIGEST_HEADER = "Gym-MCP-Digest"
"""A snapshot's digest (`Snapshot.digest`): sent with a snapshot, or in place of its bytes."""

CONTROL_PATH = "/control"
"""Where the control channel's routes live."""

_MCP_SESSION_ID = "mcp-session-id"
_SQLITE_MAGIC = b"SQLite format 3\x00"


class _Refused(Exception):
    """A control or opening request that cannot be served: an HTTP status, a message, and what is missing."""

    def __init__(self, status: int, message: str, missing: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.missing = missing

    def response(self) -> JSONResponse:
        """The JSON answer: ``{"error": message}``, plus ``"missing": "session" | "snapshot"`` on a 404."""
        body = {"error": self.message} if self.missing is None else {"error": self.message, "missing": self.missing}
        return JSONResponse(body, status_code=self.status)


@dataclass
class HostedSession:
    """One open session and its private state.

    Attributes:
        name: What the session is known by: the client's ``Gym-MCP-Session`` key, or its MCP
            session id (a handshake-era client that sends no key).
        state: Its database (a private file).
        last_used: `time.monotonic` of its last request.
    """

    name: str
    state: SQLiteState
    last_used: float = field(default_factory=time.monotonic)


class SessionHost:
    """Serves one bundled database server with a private state per session.

    A session is named by the ``Gym-MCP-Session`` header its client sends with every request
    (gym-mcp's envs do; MCP's 2026 protocol has no sessions of its own), or else by its MCP
    session id (a client that opens one with the initialize handshake). The first request
    that names a session opens it; the client ends it (``DELETE /control/sessions/{name}``, or
    the MCP DELETE that closes a handshake-era session), or it ends after going idle.

    Args:
        kit: The server (a `ServerKit`; folder servers are not supported).
        token: The bearer token every MCP and control request must carry.
        seed: The data seed a session starts from when its opening request names none.
        workdir: Where the sessions' database files go (default: a scratch folder, removed by `close`).
        idle_timeout: Seconds a session may go without a request before it is ended (None: never).
        max_sessions: The most sessions open at once (None: no limit).
        max_snapshots: Snapshots held for restores by digest (the least recently used are dropped).
        max_held_bytes: The most bytes the held snapshots may take together.
        max_snapshot_bytes: The largest snapshot a control request may send.

    Raises:
        ValueError: ``kit`` keeps its state in a folder.
    """

    def __init__(
        self,
        kit: ServerKit,
        *,
        token: str,
        seed: int = 0,
        workdir: Path | None = None,
        idle_timeout: float | None = 30 * 60,
        max_sessions: int | None = None,
        max_snapshots: int = 64,
        max_held_bytes: int = 512 * 2**20,
        max_snapshot_bytes: int = 256 * 2**20,
    ) -> None:
        from gym_mcp.live.sources import BundledSource
        from gym_mcp.servers import DirectoryKit

        if isinstance(kit, DirectoryKit):
            raise ValueError(f"{kit.name} keeps its state in a folder; --sessions serves database servers")
        self.kit = kit
        self.seed = seed
        self.idle_timeout = idle_timeout
        self.max_sessions = max_sessions
        self.max_snapshots = max_snapshots
        self.max_held_bytes = max_held_bytes
        self.max_snapshot_bytes = max_snapshot_bytes
        self._token = token.encode()
        self._owns_workdir = workdir is None
        self.workdir = workdir if workdir is not None else make_scratch(f"{kit.name}-sessions")
        self._source = BundledSource(kit.name, kit=kit)
        self._tables = frozenset(kit.base.metadata.tables)
        self._lock = threading.Lock()
        self._sessions: dict[str, HostedSession] = {}
        self._files = 0
        self._snapshots: OrderedDict[str, Snapshot] = OrderedDict()
        self._current: ContextVar[HostedSession | None] = ContextVar(f"gym_mcp_session_{kit.name}", default=None)
        self.engine: Engine = create_engine("sqlite://", creator=self._connect, poolclass=NullPool)
        self.seed_snapshot(seed)  # built now: the first session opens without waiting for it

    # -- sessions ------------------------------------------------------------------------------

    @property
    def sessions(self) -> list[HostedSession]:
        """The open sessions."""
        with self._lock:
            return list(self._sessions.values())

    def seed_snapshot(self, seed: int) -> Snapshot:
        """The database of data seed ``seed`` (built once, then held for restores by digest)."""
        snap = self._source.initial_snapshot(seed)
        self.hold(snap)
        return snap

    def open_session(self, name: str, initial: Snapshot) -> HostedSession:
        """Open the session ``name`` on its own state, a copy of ``initial`` (an open one is returned as it is).

        Raises:
            _Refused: ``max_sessions`` are open already.
        """
        self.sweep()
        with self._lock:
            found = self._sessions.get(name)
            if found is not None:
                return found
            if self.max_sessions is not None and len(self._sessions) >= self.max_sessions:
                raise _Refused(503, f"{self.max_sessions} sessions are open already; close one first")
            self._files += 1
            path = self.workdir / f"session-{self._files}.db"
        state = SQLiteState(path, volatile=self.kit.volatile_columns)
        try:
            state.restore(initial)
        except BaseException:
            self._remove_files(state)
            raise
        with self._lock:
            found = self._sessions.get(name)  # opened meanwhile by a concurrent first request
            if found is None:
                found = self._sessions[name] = HostedSession(name, state)
                return found
        self._remove_files(state)
        return found

    def close_session(self, name: str) -> bool:
        """End a session: its state file is removed. False when no such session was open."""
        with self._lock:
            session = self._sessions.pop(name, None)
        if session is None:
            return False
        self._remove_files(session.state)
        return True

    def session(self, name: str) -> HostedSession:
        """The open session ``name`` (its last use set to now).

        Raises:
            KeyError: No such session is open.
        """
        with self._lock:
            found = self._sessions[name]
        found.last_used = time.monotonic()
        return found

    def touch(self, name: str) -> bool:
        """Mark the session ``name`` as used now; False when no such session is open."""
        try:
            self.session(name)
        except KeyError:
            return False
        return True

    def sweep(self) -> list[str]:
        """End the sessions idle for longer than ``idle_timeout``; their names."""
        if self.idle_timeout is None:
            return []
        cutoff = time.monotonic() - self.idle_timeout
        stale = [s.name for s in self.sessions if s.last_used < cutoff]
        return [name for name in stale if self.close_session(name)]

    def close(self) -> None:
        """End every session and remove the host's files."""
        for session in self.sessions:
            self.close_session(session.name)
        self.engine.dispose()
        if self._owns_workdir:
            remove_scratch(self.workdir)

    @staticmethod
    def _remove_files(state: SQLiteState) -> None:
        state.close()
        path = state.location
        for extra in ("", "-journal", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                Path(f"{path}{extra}").unlink()

    # -- snapshots -----------------------------------------------------------------------------

    def hold(self, snap: Snapshot) -> None:
        """Keep ``snap`` for restores by digest (the least recently used go past the count or bytes held)."""
        with self._lock:
            self._snapshots[snap.digest] = snap
            self._snapshots.move_to_end(snap.digest)
            held = sum(len(s) for s in self._snapshots.values())
            while len(self._snapshots) > 1 and (
                len(self._snapshots) > self.max_snapshots or held > self.max_held_bytes
            ):
                held -= len(self._snapshots.popitem(last=False)[1])

    def held(self, digest: str) -> Snapshot | None:
        """A held snapshot by digest, or None."""
        with self._lock:
            snap = self._snapshots.get(digest)
            if snap is not None:
                self._snapshots.move_to_end(digest)
            return snap

    def checked_snapshot(self, data: bytes) -> Snapshot:
        """``data`` as a snapshot of this server's database, held for later restores by digest.

        Raises:
            StateError: The bytes are not an SQLite database, or not one of this server's.
        """
        if not data.startswith(_SQLITE_MAGIC):
            raise StateError("the snapshot is not an SQLite database (it does not start with 'SQLite format 3')")
        conn = sqlite3.connect(":memory:")
        try:
            conn.deserialize(data)
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.Error as exc:
            raise StateError(f"the snapshot is not a readable SQLite database: {exc}") from exc
        finally:
            conn.close()
        missing = sorted(self._tables - tables)
        if missing:
            raise StateError(
                f"the snapshot is not a {self.kit.name} database: it lacks the table(s) {', '.join(missing)}"
            )
        snap = Snapshot.of(SQLiteState.kind, data)
        self.hold(snap)
        return snap

    # -- tool calls ----------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        """A connection to the database of the session whose tool call is running."""
        session = self._current.get()
        if session is None:  # the middleware refuses such calls before any tool runs
            raise StateError("no session is bound to this tool call")
        return sqlite3.connect(str(session.state.location), check_same_thread=False)

    async def bind_session(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """MCP server middleware: run each tool call on its own session's database."""
        if ctx.method != "tools/call":
            return await call_next(ctx)
        headers = getattr(ctx.request, "headers", None)
        name = _session_name(headers) if headers is not None else None
        try:
            session = self.session(name) if name else None
        except KeyError:
            session = None
        if session is None:
            text = (
                f"Error: this server keeps a state per session, and this call names no open session "
                f"(send a {SESSION_HEADER} header, or open an MCP session with initialize)"
            )
            return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
        bound = self._current.set(session)
        try:
            return await call_next(ctx)
        finally:
            self._current.reset(bound)

    # -- the HTTP app --------------------------------------------------------------------------

    def authorized(self, headers: Headers) -> bool:
        """True when the request carries the server's bearer token (compared in constant time)."""
        scheme, _, value = headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer":
            return False
        return hmac.compare_digest(value.strip().encode("utf-8", "surrogatepass"), self._token)

    def initial(self, headers: Headers) -> Snapshot:
        """The state an opening request asks for (``Gym-MCP-Seed`` or ``Gym-MCP-Snapshot``; else the server's seed).

        Raises:
            _Refused: A malformed seed, an unknown snapshot digest, or both given.
        """
        seed_text, digest = headers.get(SEED_HEADER), headers.get(SNAPSHOT_HEADER)
        if seed_text is not None and digest is not None:
            raise _Refused(400, f"give {SEED_HEADER} or {SNAPSHOT_HEADER}, not both")
        if digest is not None:
            snap = self.held(digest.strip())
            if snap is None:
                raise _Refused(
                    404, f"no snapshot with digest {digest[:80]!r} is held; POST it to /control/snapshots", "snapshot"
                )
            return snap
        if seed_text is None:
            return self.seed_snapshot(self.seed)
        try:
            seed = int(seed_text)
        except ValueError:
            raise _Refused(400, f"{SEED_HEADER} must be an integer, got {seed_text[:80]!r}") from None
        return self.seed_snapshot(seed)

    def app(self, *, path: str = "/mcp") -> ASGIApp:
        """The ASGI app: the MCP endpoint at ``path`` and the control channel under ``/control``.

        Args:
            path: The MCP endpoint.
        """
        server = self.kit.create_server(self.engine, token=self._token.decode())
        server.middleware.append(self.bind_session)
        for route, methods, handler in _control_routes(self):
            server.custom_route(f"{CONTROL_PATH}{route}", methods=methods)(handler)
        inner = server.streamable_http_app(
            streamable_http_path=path,
            json_response=True,
            stateless_http=False,
            session_idle_timeout=self.idle_timeout,
            max_sessions=self.max_sessions if self.max_sessions is not None else DEFAULT_MAX_SESSIONS,
        )
        return _SessionLifecycle(inner, self, path)


def _session_name(headers: Any) -> str | None:
    """What a request names its session by: its ``Gym-MCP-Session`` key, else its MCP session id."""
    return headers.get(SESSION_HEADER) or headers.get(_MCP_SESSION_ID) or None


class _SessionLifecycle:
    """ASGI wrapper of the MCP endpoint: a session's state made at its first request, removed at its end."""

    def __init__(self, app: ASGIApp, host: SessionHost, path: str) -> None:
        self.app = app
        self.host = host
        self.path = path.rstrip("/")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].rstrip("/") != self.path:
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        if not self.host.authorized(headers):  # the SDK answers 401; nothing changes here
            await self.app(scope, receive, send)
            return
        key = headers.get(SESSION_HEADER) or None
        mcp_id = headers.get(_MCP_SESSION_ID) or None
        opening = key is None and mcp_id is None and scope["method"] == "POST"
        if opening or (key is not None and not self.host.touch(key)):
            try:
                initial = self.host.initial(headers)
                if key is not None:
                    await anyio.to_thread.run_sync(self.host.open_session, key, initial)
            except _Refused as exc:
                await exc.response()(scope, receive, send)
                return
            if opening:  # a handshake-era client without a key: named by the session id it gets
                await self.app(scope, receive, self._opening(initial, send))
                return
        name = key or mcp_id
        if name is None or mcp_id is None:
            await self.app(scope, receive, send)
            return
        await self.app(scope, receive, self._closing(name, scope["method"], key is None, send))

    def _closing(self, name: str, method: str, keyless: bool, send: Send) -> Send:
        """``send`` that ends session ``name`` when the answer says its MCP session is over.

        The client closed its MCP session (a DELETE that succeeded), or the SDK had already ended
        it (idle; a 404 to a client without a key). The session is closed before the answer goes
        out, so a client that has its answer finds the session gone.
        """

        async def answer(message: Message) -> None:
            if message["type"] == "http.response.start":
                status = int(message["status"])
                if (method == "DELETE" and status < 400) or (keyless and status == 404):
                    await anyio.to_thread.run_sync(self.host.close_session, name)
            await send(message)

        return answer

    def _opening(self, initial: Snapshot, send: Send) -> Send:
        """``send`` that opens the session named by the MCP session id in the response, before passing it on."""

        async def opened(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] < 400:
                session_id = Headers(raw=message["headers"]).get(_MCP_SESSION_ID)
                if session_id:
                    await anyio.to_thread.run_sync(self.host.open_session, session_id, initial)
            await send(message)

        return opened


# -- the control channel -----------------------------------------------------------------------

Handler = Callable[[Request], Awaitable[Response]]


def _control_routes(host: SessionHost) -> list[tuple[str, list[str], Handler]]:
    """The control channel's routes (path under ``/control``, methods, handler), each behind the token."""

    def guarded(work: Callable[[Request], Awaitable[Response]]) -> Handler:
        async def handler(request: Request) -> Response:
            if not host.authorized(request.headers):
                return JSONResponse(
                    {"error": "the control channel needs the server's token: 'Authorization: Bearer TOKEN'"},
                    status_code=401,
                    headers={"WWW-Authenticate": "Bearer"},
                )
            try:
                return await work(request)
            except _Refused as exc:
                return exc.response()
            except StateError as exc:
                return JSONResponse({"error": str(exc)}, status_code=400)

        return handler

    def session_of(request: Request) -> HostedSession:
        ref = str(request.path_params["ref"])
        try:
            return host.session(ref)
        except KeyError:
            raise _Refused(404, f"no open session {ref[:80]!r}; GET /control/sessions lists them", "session") from None

    async def body_of(request: Request) -> bytes:
        size = request.headers.get("content-length")
        if size is not None and size.isdigit() and int(size) > host.max_snapshot_bytes:
            raise _Refused(413, f"a snapshot may take at most {host.max_snapshot_bytes:,} bytes")
        chunks, total = [], 0
        async for chunk in request.stream():
            total += len(chunk)
            if total > host.max_snapshot_bytes:
                raise _Refused(413, f"a snapshot may take at most {host.max_snapshot_bytes:,} bytes")
            chunks.append(chunk)
        return b"".join(chunks)

    async def info(request: Request) -> Response:
        volatile = {table: sorted(cols) for table, cols in host.kit.volatile_columns.items()}
        return JSONResponse(
            {"server": host.kit.name, "seed": host.seed, "sessions": len(host.sessions), "volatile": volatile}
        )

    async def sessions(request: Request) -> Response:
        host.sweep()
        return JSONResponse({"sessions": [s.name for s in host.sessions]})

    async def end(request: Request) -> Response:
        session = session_of(request)
        await anyio.to_thread.run_sync(host.close_session, session.name)
        return JSONResponse({"closed": session.name})

    async def reset(request: Request) -> Response:
        session = session_of(request)
        seed = host.seed
        body = await body_of(request)
        if body.strip():
            try:
                given = _json_object(body).get("seed", host.seed)
            except ValueError as exc:
                raise _Refused(400, f'the reset body must be a JSON object like {{"seed": 0}}: {exc}') from None
            if not isinstance(given, int) or isinstance(given, bool):
                raise _Refused(400, f"seed must be an integer, got {given!r:.80}")
            seed = given

        def work() -> Snapshot:
            snap = host.seed_snapshot(seed)
            session.state.restore(snap)
            return snap

        snap = await anyio.to_thread.run_sync(work)
        return JSONResponse({"seed": seed, "digest": snap.digest})

    async def snapshot(request: Request) -> Response:
        session = session_of(request)
        snap = await anyio.to_thread.run_sync(session.state.snapshot)
        host.hold(snap)
        return Response(snap.data, media_type="application/octet-stream", headers={DIGEST_HEADER: snap.digest})

    async def restore(request: Request) -> Response:
        session = session_of(request)
        body = await body_of(request)
        if body:
            snap = await anyio.to_thread.run_sync(host.checked_snapshot, body)
        else:
            digest = request.headers.get(DIGEST_HEADER, "").strip()
            if not digest:
                raise _Refused(400, f"send the snapshot's bytes, or an empty body and its {DIGEST_HEADER}")
            held = host.held(digest)
            if held is None:
                raise _Refused(404, f"no snapshot with digest {digest[:80]!r} is held; send its bytes", "snapshot")
            snap = held
        await anyio.to_thread.run_sync(session.state.restore, snap)
        return JSONResponse({"digest": snap.digest})

    async def fingerprint(request: Request) -> Response:
        session = session_of(request)
        return JSONResponse({"fingerprint": await anyio.to_thread.run_sync(session.state.fingerprint)})

    async def keep(request: Request) -> Response:
        snap = await anyio.to_thread.run_sync(host.checked_snapshot, await body_of(request))
        return JSONResponse({"digest": snap.digest})

    return [
        ("/info", ["GET"], guarded(info)),
        ("/sessions", ["GET"], guarded(sessions)),
        ("/sessions/{ref}", ["DELETE"], guarded(end)),
        ("/sessions/{ref}/reset", ["POST"], guarded(reset)),
        ("/sessions/{ref}/snapshot", ["GET"], guarded(snapshot)),
        ("/sessions/{ref}/snapshot", ["PUT"], guarded(restore)),
        ("/sessions/{ref}/fingerprint", ["GET"], guarded(fingerprint)),
        ("/snapshots", ["POST"], guarded(keep)),
    ]


def _json_object(body: bytes) -> dict[str, Any]:
    import json

    value = json.loads(body)
    if not isinstance(value, dict):
        raise ValueError("not an object")
    return value


# -- running it --------------------------------------------------------------------------------


def serve_sessions(
    kit: ServerKit,
    *,
    token: str,
    host: str = "127.0.0.1",
    port: int = 8000,
    seed: int = 0,
    max_sessions: int | None = None,
    idle_timeout: float | None = 30 * 60,
) -> int:
    """Serve ``kit`` with a private state per session until interrupted.

    Args:
        kit: The bundled database server.
        token: The bearer token of the MCP endpoint and the control channel.
        host: The interface to bind (loopback unless told otherwise).
        port: The HTTP port.
        seed: The data seed sessions start from unless their opening request names another.
        max_sessions: The most sessions open at once (None: no limit of ours).
        idle_timeout: Seconds a session may go without requests before it is ended (None: never).

    Returns:
        The process exit status.

    Raises:
        ValueError: ``kit`` keeps its state in a folder.
        PortUnavailableError: The port is in use or the address cannot be bound (raised before
            any state is made or anything is printed).
    """
    from gym_mcp.servers.kit.server import listen_socket, serve_http

    sock = listen_socket(host, port)
    try:
        sessions = SessionHost(kit, token=token, seed=seed, max_sessions=max_sessions, idle_timeout=idle_timeout)
        try:
            print(
                f"{kit.name}: serving MCP at http://{host}:{port}/mcp, a private state per session "
                f"(control channel at {CONTROL_PATH}; bearer token required)",
                file=sys.stderr,
                flush=True,
            )
            serve_http(sessions.app(), sock)
        finally:
            sessions.close()
    finally:
        sock.close()
    return 0
