"""The fence: every use of the MCP SDK's private names, each with a fallback to the public path.

The fast paths for tool calls (`gym_mcp.transport.direct`, `gym_mcp.transport.pipe`) reach
past the SDK's public API in three places, and that is why ``mcp`` is pinned exactly. Each
reach is a function here, and only here (`tests/live/test_sdk_fence.py` checks that no other
module names these attributes). When the installed SDK no longer has a name, the function says
so (None) and the caller takes the public path, which gives the same results, only slower:

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
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from mcp.client import session as sdk_session
from mcp.server import Server
from mcp.server.mcpserver import MCPServer

__all__ = ["FENCED", "MISSING", "later_revision_fields", "lowlevel_server", "probe", "session_stamp"]

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
