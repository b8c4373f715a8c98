"""The OpenEnv server of a gym-mcp environment: OpenEnv's routes, plus the infrastructure routes.

`make_app` builds OpenEnv's own FastAPI app (``create_fastapi_app``: ``/ws`` sessions,
``/reset``, ``/step``, ``/state``, ``/schema``, ``/metadata``, ``/health`` and the ``/mcp``
JSON-RPC route) over an `EnvPool`, and adds the routes that are for training
infrastructure, never for the agent::

    POST /gym-mcp/sessions/{session}/snapshot   save the episode; answers {"snapshot": ID}
    POST /gym-mcp/sessions/{session}/restore    continue from {"snapshot": ID} (any session's: a fork)
    GET  /gym-mcp/pool                          how many environments are built and idle

``session`` is the key a session's ``state`` reports (OpenEnv keeps ``reset``/``step``/
``state`` out of the agent's tools; so do we with these). With a token (``--token`` or
``$GYM_MCP_TOKEN``) every route but ``/health`` needs it, as ``Authorization: Bearer TOKEN``
or, for clients that cannot set headers on a WebSocket, ``?token=TOKEN``; `GymMCPEnvClient`
sends it. Without one the server binds loopback only, as ``gym-mcp serve`` does.
"""

from __future__ import annotations

import secrets
import sys
from typing import Any

from openenv.core.env_server.http_server import create_fastapi_app
from openenv.core.env_server.types import ConcurrencyConfig

from gym_mcp.openenv.environment import EnvPool, EnvRecipe
from gym_mcp.openenv.models import GymMCPAction, GymMCPObservation

__all__ = ["make_app", "serve_openenv"]

INFRA_PREFIX = "/gym-mcp"


class _TokenGate:
    """ASGI middleware: every HTTP request and WebSocket but ``/health`` must carry the token."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._token = token.encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket") or scope.get("path") == "/health" or self._allowed(scope):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": "missing or wrong token"})
            return
        body = b'{"detail":"missing or wrong bearer token"}'
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")],
            }
        )
        await send({"type": "http.response.body", "body": body})

    def _allowed(self, scope: dict[str, Any]) -> bool:
        for name, value in scope.get("headers", ()):
            if name == b"authorization" and value.startswith(b"Bearer "):
                return secrets.compare_digest(value[7:], self._token)
        query: bytes = scope.get("query_string", b"")
        for part in query.split(b"&"):
            if part.startswith(b"token="):
                return secrets.compare_digest(part[6:], self._token)
        return False


def make_app(
    pool: EnvPool,
    *,
    max_sessions: int = 256,
    session_timeout: float | None = None,
    token: str | None = None,
) -> Any:
    """The ASGI app that serves ``pool``'s environments over OpenEnv.

    Args:
        pool: Where sessions take their environments.
        max_sessions: OpenEnv's ``max_concurrent_envs``: sessions open at once (more are refused
            with OpenEnv's capacity error).
        session_timeout: Seconds a session may stay idle before OpenEnv ends it (None: never).
        token: The bearer token every route but ``/health`` requires (None: none).

    Returns:
        A FastAPI app (wrapped in the token check when there is a token).
    """
    from fastapi import Body, HTTPException

    app = create_fastapi_app(
        pool.session,
        GymMCPAction,
        GymMCPObservation,
        concurrency_config=ConcurrencyConfig(max_concurrent_envs=max_sessions, session_timeout=session_timeout),
    )

    def find(session: str) -> Any:
        env = pool.find(session)
        if env is None:
            raise HTTPException(status_code=404, detail="no open session with that key")
        return env

    @app.post(f"{INFRA_PREFIX}/sessions/{{session}}/snapshot", tags=["Training infrastructure"])
    async def snapshot(session: str) -> dict[str, str]:
        """Save the session's episode (server state, conversation, counters); answer its id."""
        return {"snapshot": await find(session).save()}

    @app.post(f"{INFRA_PREFIX}/sessions/{{session}}/restore", tags=["Training infrastructure"])
    async def restore(session: str, body: dict[str, Any] = Body(...)) -> dict[str, Any]:  # noqa: B008 - FastAPI's idiom
        """Continue the session from a saved snapshot (of it or of another session: a fork)."""
        snapshot_id = body.get("snapshot")
        if not isinstance(snapshot_id, str):
            raise HTTPException(status_code=422, detail='the body must be {"snapshot": ID}')
        try:
            state = await find(session).load(snapshot_id)
        except KeyError:
            raise HTTPException(status_code=404, detail="no snapshot with that id (never saved, or dropped)") from None
        return dict(state.model_dump())

    @app.get(f"{INFRA_PREFIX}/pool", tags=["Training infrastructure"])
    def pool_info() -> dict[str, Any]:
        """The pool: environments built so far and idle now."""
        return {"env_id": pool.recipe.env_id, "built": pool.built, "idle": pool.idle}

    quiet = _QuietDisconnects(app)
    return _TokenGate(quiet, token) if token else quiet


def serve_openenv(
    recipe: EnvRecipe,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    token: str | None = None,
    max_sessions: int = 256,
    session_timeout: float | None = None,
    warm: int = 0,
    max_in_flight: int | None = None,
    ws_compression: bool = False,
) -> int:
    """Serve ``recipe``'s environments over OpenEnv until interrupted (SIGINT or SIGTERM).

    The server runs on gym-mcp's own event loop, in the thread the pool gives it, so that the
    sessions' episodes are coroutines of the same loop as the server's requests: a step costs
    no hand-off between threads, and one session's tool call runs while another's waits.

    Args:
        recipe: What each session's environment is.
        host: The interface to bind (loopback unless told otherwise).
        port: The port.
        token: The bearer token (None: none; then ``host`` must be loopback).
        max_sessions: Sessions open at once.
        session_timeout: Idle seconds before a session is ended (None: never).
        warm: Environments built before the first session comes.
        max_in_flight: Resets and steps run at once (see `EnvPool`; None: its default).
        ws_compression: Offer WebSocket compression (permessage-deflate) to clients that ask
            for it. Off by default: a step's reply is about 1 KB, and compressing every message
            cost 12% of the server's CPU at 256 sessions (benchmarks/README.md, bench_openenv);
            worth it only on a slow link.

    Returns:
        The process exit status.

    Raises:
        PortUnavailableError: The port is in use (raised before any environment is built).
    """
    import asyncio
    import concurrent.futures
    import signal

    import uvicorn

    from gym_mcp.servers.kit import listen_socket
    from gym_mcp.transport.runner import get_runner

    sock = listen_socket(host, port)
    pool = EnvPool(recipe, max_idle=max(max_sessions, warm), max_in_flight=max_in_flight, freeze_gc=True)
    try:
        pool.warm(warm)
        app = make_app(pool, max_sessions=max_sessions, session_timeout=session_timeout, token=token)
        server = uvicorn.Server(
            uvicorn.Config(app, log_level="warning", access_log=False, ws_per_message_deflate=ws_compression)
        )

        def stop(*_: object) -> None:
            server.should_exit = True

        previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
        auth = "bearer token required" if token else "no token (loopback only)"
        print(
            f"{recipe.env_id}: serving OpenEnv at http://{host}:{port} (WebSocket /ws, /mcp; {auth})",
            file=sys.stderr,
            flush=True,
        )
        try:
            done = asyncio.run_coroutine_threadsafe(server.serve(sockets=[sock]), get_runner().loop)
            while True:
                try:
                    done.result(timeout=0.5)
                    break
                except concurrent.futures.TimeoutError:
                    continue
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
    finally:
        sock.close()
        pool.close()
    return 0


class _QuietDisconnects:
    """ASGI middleware: a WebSocket whose client went away is not an error worth a traceback.

    OpenEnv's ``/ws`` handler closes the socket after its loop ends, which raises when the
    client already closed it (every client that says ``close`` and hangs up).
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        from starlette.websockets import WebSocketDisconnect

        try:
            await self.app(scope, receive, send)
        except (WebSocketDisconnect, OSError):
            pass
        except Exception as exc:  # uvicorn's ClientDisconnected, by name: its module is private
            if type(exc).__name__ != "ClientDisconnected":
                raise
