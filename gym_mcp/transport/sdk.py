"""The fence: every use of the MCP SDK's private names, each with a fallback to the public path.

The fast paths for tool calls (`gym_mcp.transport.direct`, `gym_mcp.transport.pipe`) reach
past the SDK's public API in three places, and that is why ``mcp`` is held to a tested range
(``>=2.0,<2.4``: each end is tested by ``.ci/mcp-range``), not left open to releases no test has
seen. Each reach is a function here, and only here (`tests/live/test_sdk_fence.py` checks that no other
module names these attributes). When the installed SDK no longer has a name, the function says
so (None) and the caller takes the public path, which gives the same results, only slower
(mcp 2.0 has no ``_later_revision_fields``: there stdio calls go through the session):

- `lowlevel_server`: an `MCPServer`'s low-level `Server` (``MCPServer._lowlevel_server``, which
  the SDK's own in-process client reads the same way). Without it, in-process tool calls go
  through the MCP client's session instead of straight to the server's handler.
- `session_stamp`: what a `ClientSession` stamps on each request (``ClientSession._stamp``: the
  2026 ``_meta`` envelope). Without it, stdio tool calls go through the session instead of
  being written onto the pipe by us.
- `later_revision_fields`: the result keys of later protocol revisions that the session drops
  (``mcp.client.session._later_revision_fields``). Without it, likewise through the session.

Every read goes through `probe`, so a test can make any name look missing and check that the
public path gives identical results.

The same module holds the gates between the public APIs of the SDK versions in the declared
range (``mcp>=2.0,<2.4``): where a later version added a parameter, the gate asks the installed
SDK's signature, never its version string.

- `http_session_limits`: ``session_idle_timeout`` and ``max_sessions`` of
  ``MCPServer.streamable_http_app`` (mcp 2.2).
- `sse_event_cap`: ``max_sse_event_size`` of ``streamable_http_client`` (mcp 2.3).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Final

from mcp.client import session as sdk_session
from mcp.client.streamable_http import streamable_http_client
from mcp.server import Server
from mcp.server.mcpserver import MCPServer

__all__ = [
    "FENCED",
    "MISSING",
    "http_session_limits",
    "later_revision_fields",
    "lowlevel_server",
    "probe",
    "session_stamp",
    "sse_event_cap",
]

FENCED: Final = frozenset({"_lowlevel_server", "_stamp", "_later_revision_fields"})
"""The SDK's private names this module reads: no other module of the gym may name them."""

MISSING: Final = object()
"""What `probe` returns for a name the installed SDK does not have."""


def probe(owner: object, name: str) -> Any:
    """``owner``'s attribute ``name`` (one of `FENCED`), or `MISSING` when the SDK has none."""
    return getattr(owner, name, MISSING)


def lowlevel_server(target: object) -> Server[Any] | None:
    """The low-level `Server` behind ``target``: an `MCPServer`'s own, or ``target`` if it is one.

    Returns:
        None when ``target`` is neither, or when this SDK keeps an `MCPServer`'s server
        elsewhere (then its tool calls go through the protocol).
    """
    server = probe(target, "_lowlevel_server") if isinstance(target, MCPServer) else target
    return server if isinstance(server, Server) else None


def session_stamp(session: object) -> Callable[[dict[str, Any], dict[str, Any]], None] | None:
    """The function ``session`` (a `ClientSession` after its handshake) stamps its requests with.

    Returns:
        None when this SDK stamps requests some other way (then calls go through the session).
    """
    stamp = probe(session, "_stamp")
    return stamp if callable(stamp) else None


def later_revision_fields(method: str, version: str) -> frozenset[str] | None:
    """The result keys of ``method`` that belong to protocol revisions after ``version``.

    The session drops them from a result before validating it; a call sent beside the session
    must drop the same keys.

    Returns:
        None when this SDK does not say which keys (then calls go through the session).
    """
    fields = probe(sdk_session, "_later_revision_fields")
    if not callable(fields):
        return None
    return frozenset(fields(method, version))


def http_session_limits(idle_timeout: float | None, max_sessions: int | None) -> dict[str, Any]:
    """Keyword arguments of ``MCPServer.streamable_http_app`` that bound its stateful MCP sessions.

    Args:
        idle_timeout: Seconds an MCP session may go without a request (None: never ended idle).
        max_sessions: The most MCP sessions open at once (None: left out, so the SDK's own default
            cap applies: "no limit of ours" still keeps the SDK's guard against unbounded growth).

    Returns:
        Empty on an SDK before mcp 2.2, which takes neither argument and ends an MCP session only
        when its client deletes it. The sessions host does not depend on them: it sweeps its own
        idle sessions and counts its own, so only the SDK's per-session transport objects of
        clients that vanish without a DELETE outlive the timeout there.
    """
    accepted = inspect.signature(MCPServer.streamable_http_app).parameters
    if "session_idle_timeout" not in accepted or "max_sessions" not in accepted:
        return {}
    limits: dict[str, Any] = {"session_idle_timeout": idle_timeout}
    if max_sessions is not None:
        limits["max_sessions"] = max_sessions
    return limits


def sse_event_cap(limit: int) -> dict[str, Any]:
    """Keyword arguments of ``streamable_http_client`` that cap one server-sent event at ``limit`` bytes.

    Returns:
        Empty on an SDK before mcp 2.3, whose client reads an SSE event of any size: there a
        result streamed as SSE is not cut at the transport (a JSON answer still is, by
        `gym_mcp.transport.http.CappedHTTPTransport`), only at ``MAX_RESULT_BYTES`` after it
        arrived.
    """
    if "max_sse_event_size" not in inspect.signature(streamable_http_client).parameters:
        return {}
    return {"max_sse_event_size": limit}
