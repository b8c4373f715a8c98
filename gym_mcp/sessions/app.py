"""The HTTP face of a sessions host: the MCP endpoint with a state per session, and the control channel.

`session_app` is the ASGI app of a `SessionHost`: the kit's MCP endpoint (each tool call bound
to its session's database by the host's middleware), wrapped so that a request naming a session
that is not open is refused (404) and a handshake session's state is made when its initialize
succeeds and removed at its end, plus the control channel's routes under ``/control`` (each
behind the server's token). `serve_sessions` runs it
(``gym-mcp serve NAME --transport http --sessions``).
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gym_mcp.errors import StateError
from gym_mcp.sessions.host import HostedSession, Refused, SessionHost
from gym_mcp.sessions.wire import CONTROL_PATH, DIGEST_HEADER, MCP_SESSION_ID, SESSION_HEADER
from gym_mcp.state.base import Snapshot
from gym_mcp.transport.sdk import http_session_limits

if TYPE_CHECKING:
    from gym_mcp.servers.kit import ServerKit

__all__ = ["serve_sessions", "session_app"]


def session_app(host: SessionHost, *, path: str = "/mcp") -> ASGIApp:
    """``host``'s ASGI app: the MCP endpoint at ``path`` and the control channel under ``/control``.

    Args:
        host: The sessions host.
        path: The MCP endpoint.
    """
    server = host.kit.create_server(host.engine, token=host.token)
    server.middleware.append(host.bind_session)
    for route, methods, handler in _control_routes(host):
        server.custom_route(f"{CONTROL_PATH}{route}", methods=methods)(handler)
    inner = server.streamable_http_app(
        streamable_http_path=path,
        json_response=True,
        stateless_http=False,
        **http_session_limits(host.idle_timeout, host.max_sessions),
    )
    return _SessionLifecycle(inner, host, path)


_UNKNOWN_KEY = Refused(
    404,
    f"Session not found: no open session has this {SESSION_HEADER} key (it was closed, or ended idle); "
    "its state is gone. Open a new session with POST /control/sessions",
    "session",
)


_SESSION_ENDED = Refused(404, "the session ended (closed, or idle past the timeout) during the request", "session")


class _SessionLifecycle:
    """ASGI wrapper of the MCP endpoint: unknown keys refused; a handshake session's state made and removed."""

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
        mcp_id = headers.get(MCP_SESSION_ID) or None
        if key is not None and not self.host.touch(key):
            # Never a new session for an unknown key: the client's own state ended (closed, or
            # idle past the timeout), and it must be told so, as MCP answers an unknown session id.
            await _UNKNOWN_KEY.response()(scope, receive, send)
            return
        if key is None and mcp_id is None and scope["method"] == "POST":  # a handshake client's opening
            try:
                initial = self.host.initial(headers)
            except Refused as exc:
                await exc.response()(scope, receive, send)
                return
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
                session_id = Headers(raw=message["headers"]).get(MCP_SESSION_ID)
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
            except Refused as exc:
                return exc.response()
            except StateError as exc:
                ref = request.path_params.get("ref")
                if ref is not None and not host.is_open(str(ref)):  # it ended (closed, swept) during the request
                    return _SESSION_ENDED.response()
                return JSONResponse({"error": str(exc)}, status_code=400)

        return handler

    def session_of(request: Request) -> HostedSession:
        ref = str(request.path_params["ref"])
        try:
            return host.session(ref)
        except KeyError:
            # the same answer for a key that never was, one that ended, and a public id
            raise Refused(404, "no open session has this key (it was closed, or ended idle)", "session") from None

    async def body_of(request: Request) -> bytes:
        size = request.headers.get("content-length")
        if size is not None and size.isdigit() and int(size) > host.max_snapshot_bytes:
            raise Refused(413, f"a snapshot may take at most {host.max_snapshot_bytes:,} bytes")
        chunks, total = [], 0
        async for chunk in request.stream():
            total += len(chunk)
            if total > host.max_snapshot_bytes:
                raise Refused(413, f"a snapshot may take at most {host.max_snapshot_bytes:,} bytes")
            chunks.append(chunk)
        return b"".join(chunks)

    async def info(request: Request) -> Response:
        volatile = {table: sorted(cols) for table, cols in host.kit.volatile_columns.items()}
        return JSONResponse(
            {"server": host.kit.name, "seed": host.seed, "sessions": len(host.sessions), "volatile": volatile}
        )

    async def sessions(request: Request) -> Response:
        host.sweep()
        return JSONResponse({"sessions": host.listing()})

    async def open_one(request: Request) -> Response:
        seed: int | None = None
        digest: str | None = None
        body = await body_of(request)
        if body.strip():
            try:
                asked = _json_object(body)
            except ValueError as exc:
                raise Refused(400, f'the body must be a JSON object like {{"seed": 0}}: {exc}') from None
            given, digest = asked.get("seed"), asked.get("snapshot")
            if given is not None and digest is not None:
                raise Refused(400, 'give "seed" or "snapshot", not both')
            if given is not None and (not isinstance(given, int) or isinstance(given, bool)):
                raise Refused(400, f"seed must be an integer, got {given!r:.80}")
            if digest is not None and not isinstance(digest, str):
                raise Refused(400, f"snapshot must be a digest (a string), got {digest!r:.80}")
            seed = given
        initial = host.starting(seed, digest)
        session = await anyio.to_thread.run_sync(host.mint, initial)
        # the key goes to this request's sender only: it is the session's capability
        return JSONResponse({"key": session.name, "id": session.id, "digest": initial.digest}, status_code=201)

    async def end(request: Request) -> Response:
        session = session_of(request)
        await anyio.to_thread.run_sync(host.close_session, session.name)
        return JSONResponse({"closed": session.id})

    async def reset(request: Request) -> Response:
        session = session_of(request)
        seed = host.seed
        body = await body_of(request)
        if body.strip():
            try:
                given = _json_object(body).get("seed", host.seed)
            except ValueError as exc:
                raise Refused(400, f'the reset body must be a JSON object like {{"seed": 0}}: {exc}') from None
            if not isinstance(given, int) or isinstance(given, bool):
                raise Refused(400, f"seed must be an integer, got {given!r:.80}")
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
                raise Refused(400, f"send the snapshot's bytes, or an empty body and its {DIGEST_HEADER}")
            held = host.held(digest)
            if held is None:
                raise Refused(404, f"no snapshot with digest {digest[:80]!r} is held; send its bytes", "snapshot")
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
        ("/sessions", ["POST"], guarded(open_one)),
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
    from gym_mcp.servers.kit import listen_socket, serve_http

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
            serve_http(session_app(sessions), sock)
        finally:
            sessions.close()
    finally:
        sock.close()
    return 0
