"""Many isolated MCP sessions of one bundled server in one process (``gym-mcp serve NAME --sessions``).

`SessionHost` serves a bundled database server over streamable HTTP so that every MCP session
has its own state: when a session opens, the host gives it a private SQLite file, made from a
data seed (or from a snapshot the host holds); every tool call of the session reads and writes
that file only; when the session ends (its client closes it, or it goes idle past the
timeout), the file is removed.

Which session a tool call belongs to is named by its request: the session key the host minted
for it (the ``Gym-MCP-Session`` header), or the MCP session id of a client that opened one with
the initialize handshake. A server middleware binds that session's database to the call (a
context variable the kit's engine reads when the tool opens its connection), so the tools are
the kit's own, unchanged, and the tool list is the same as a plain server's.

Sessions are capabilities. Every client holds the same server token, so the token cannot tell
one client from another; what sets the opener of a session apart is the key the host mints for
it (``POST /control/sessions``: 256 random bits, answered to that request only). Knowing the key
is owning the session: every request that reads, writes, restores or ends a session names it
by its key, and no route ever lists keys, so a holder of the token who was not given a key
cannot find one (a guessed or stale key gets 404, exactly like a session that ended). Sessions
are listed by a public id, which opens nothing. A request that names a key the host does not
know is refused with 404 (the MCP rule for an unknown session); it never opens a session, so a
client whose session ended finds out, instead of going on in a fresh world at the seed state.

The state is driven from outside through a control channel: plain HTTP routes under
``/control`` on the same server, which are not MCP tools (no tool can reach them) and answer
only requests that carry the server's bearer token (others get 401 and change nothing)::

    GET    /control/info                        server name, volatile columns, how many sessions are open
    POST   /control/sessions                    open a session (JSON body {"seed": N} or {"snapshot": DIGEST},
                                                default the server's seed): {"key": ..., "id": ...}
    GET    /control/sessions                    the open sessions by public id (no keys), idle seconds each
    DELETE /control/sessions/{key}              end the session
    POST   /control/sessions/{key}/reset        back to a data seed (JSON body {"seed": N}, default the server's)
    GET    /control/sessions/{key}/snapshot     the session's database (bytes; digest in Gym-MCP-Digest)
    PUT    /control/sessions/{key}/snapshot     restore: the database bytes, or an empty body and the
                                                Gym-MCP-Digest of a snapshot the host holds (else 404)
    GET    /control/sessions/{key}/fingerprint  {"fingerprint": ...}, as `SQLiteState.fingerprint` computes it
    POST   /control/snapshots                   keep a snapshot (bytes) for later; answers its digest

``{key}`` is the session's key (or the MCP session id of a handshake session). A 404 says what
is missing (``{"missing": "session"}`` or ``"snapshot"``). A handshake client's initialize may
carry ``Gym-MCP-Seed`` (the data seed to start from) or ``Gym-MCP-Snapshot`` (the digest of a
held snapshot).

This module is the host's state (sessions, held snapshots, the tool-call binding, the token
check); its HTTP face (the ASGI app, the control routes, `serve_sessions`) is
`gym_mcp.sessions.app`, and the header names both sides use are `gym_mcp.sessions.wire`.
"""

from __future__ import annotations

import contextlib
import hmac
import secrets
import sqlite3
import threading
import time
from collections import OrderedDict
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.types import CallToolResult, TextContent
from sqlalchemy import Engine, create_engine
from sqlalchemy.pool import NullPool
from starlette.datastructures import Headers
from starlette.responses import JSONResponse

from gym_mcp.errors import StateError
from gym_mcp.live.scratch import make_scratch, remove_scratch
from gym_mcp.sessions.wire import SEED_HEADER, SESSION_HEADER, SNAPSHOT_HEADER, session_name
from gym_mcp.state.base import Snapshot
from gym_mcp.state.sqlite import SQLiteState

if TYPE_CHECKING:
    from gym_mcp.servers.kit import ServerKit

__all__ = ["HostedSession", "Refused", "SessionHost"]

_SQLITE_MAGIC = b"SQLite format 3\x00"


class Refused(Exception):
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
        name: What the session is known by, and what reaching it takes (a capability): the key
            the host minted for it, or its MCP session id (a handshake client that has no key).
        state: Its database (a private file).
        id: Its public id: what `SessionHost.listing` shows; it opens nothing.
        last_used: `time.monotonic` of its last request.
    """

    name: str
    state: SQLiteState
    id: str = field(default_factory=lambda: secrets.token_hex(8))
    last_used: float = field(default_factory=time.monotonic)


class SessionHost:
    """Serves one bundled database server with a private state per session.

    A session is opened by the control channel (`mint`: the host chooses its key and tells only
    the opener), and named by that key in the ``Gym-MCP-Session`` header of every request
    (gym-mcp's envs do; MCP's 2026 protocol has no sessions of its own); or it is opened by a
    client's initialize handshake and named by its MCP session id. The client ends it
    (``DELETE /control/sessions/{key}``, or the MCP DELETE that closes a handshake session),
    or it ends after going idle. A request naming a session that is not open opens none.

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

    def listing(self) -> list[dict[str, Any]]:
        """The open sessions as anyone with the token may see them: public id and idle seconds, never a key."""
        now = time.monotonic()
        return [{"id": s.id, "idle_s": round(now - s.last_used, 3)} for s in self.sessions]

    def mint(self, initial: Snapshot) -> HostedSession:
        """Open a new session on a copy of ``initial`` under a key chosen here (256 random bits).

        The key is the session's capability: return it only to the one who asked.

        Raises:
            Refused: ``max_sessions`` are open already.
        """
        return self.open_session(secrets.token_urlsafe(32), initial)

    def seed_snapshot(self, seed: int) -> Snapshot:
        """The database of data seed ``seed`` (built once, then held for restores by digest)."""
        snap = self._source.initial_snapshot(seed)
        self.hold(snap)
        return snap

    def open_session(self, name: str, initial: Snapshot) -> HostedSession:
        """Open the session ``name`` on its own state, a copy of ``initial`` (an open one is returned as it is).

        Raises:
            Refused: ``max_sessions`` are open already.
        """
        self.sweep()
        with self._lock:
            found = self._sessions.get(name)
            if found is not None:
                return found
            if self.max_sessions is not None and len(self._sessions) >= self.max_sessions:
                raise Refused(503, f"{self.max_sessions} sessions are open already; close one first")
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

    def is_open(self, name: str) -> bool:
        """Whether the session ``name`` is open (its last use left as it is)."""
        with self._lock:
            return name in self._sessions

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
        name = session_name(headers) if headers is not None else None
        try:
            session = self.session(name) if name else None
        except KeyError:
            session = None
        if session is None:
            text = (
                f"Error: this server keeps a state per session, and this call names no open session "
                f"(open one with POST /control/sessions and send its key in a {SESSION_HEADER} header, "
                f"or open an MCP session with initialize)"
            )
            return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
        bound = self._current.set(session)
        try:
            return await call_next(ctx)
        finally:
            self._current.reset(bound)

    @property
    def token(self) -> str:
        """The bearer token every MCP and control request must carry."""
        return self._token.decode()

    # -- requests -----------------------------------------------------------------------------

    def authorized(self, headers: Headers) -> bool:
        """True when the request carries the server's bearer token (compared in constant time).

        The header is read by `bearer_token`, the parse the MCP endpoint's verifier uses too.
        """
        from gym_mcp.servers.kit import bearer_token

        given = bearer_token(headers.get("authorization"))
        return given is not None and hmac.compare_digest(given.encode(), self._token)

    def initial(self, headers: Headers) -> Snapshot:
        """The state a handshake's opening request asks for (``Gym-MCP-Seed`` or ``Gym-MCP-Snapshot``).

        Raises:
            Refused: A malformed seed, an unknown snapshot digest, or both given.
        """
        seed_text, digest = headers.get(SEED_HEADER), headers.get(SNAPSHOT_HEADER)
        if seed_text is not None and digest is not None:
            raise Refused(400, f"give {SEED_HEADER} or {SNAPSHOT_HEADER}, not both")
        if seed_text is None:
            return self.starting(None, digest)
        try:
            seed = int(seed_text)
        except ValueError:
            raise Refused(400, f"{SEED_HEADER} must be an integer, got {seed_text[:80]!r}") from None
        return self.starting(seed, None)

    def starting(self, seed: int | None, digest: str | None) -> Snapshot:
        """The state a new session starts from: a held snapshot by digest, else data seed ``seed`` (None: the server's).

        Raises:
            Refused: No snapshot with that digest is held (404, ``missing: "snapshot"``).
        """
        if digest is not None:
            snap = self.held(digest.strip())
            if snap is None:
                raise Refused(
                    404, f"no snapshot with digest {digest[:80]!r} is held; POST it to /control/snapshots", "snapshot"
                )
            return snap
        return self.seed_snapshot(self.seed if seed is None else seed)
