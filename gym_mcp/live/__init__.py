"""Live servers: connections, the warm pool, server sources and spec files.

- `connection`: one live MCP server over stdio, streamable HTTP or in-process (`LiveConnection`),
  with a timeout on every call and restart-and-restore when the process dies;
- `direct`: in-process tool calls straight to the server's own ``tools/call`` handler (the
  same validation and results as over MCP, without the JSON-RPC round trip; ``protocol=True``
  keeps every call on MCP);
- `pipe`: stdio tool calls written onto the server's pipe as the MCP session would write them,
  without the SDK's per-request machinery (``protocol=True`` sends them through the session);
- `runner`: the event loop behind the sync API (`run_sync`), driven by the calling thread;
- `server`: `LiveServer` (running server(s) plus their state) and the `ServerSource` interface;
- `pool`: `ServerPool`, which keeps servers warm between environments;
- `sources`: `BundledSource`, `ExternalSource` (any MCP server), `ComposedSource`;
- `sessions`: `SessionsSource`, a session each on one sessions server (`session_server`);
- `spec`: server spec files (TOML / JSON / YAML) for third-party servers.
"""

from __future__ import annotations

from gym_mcp.live.connection import Launch, LiveConnection, ToolResult, free_port
from gym_mcp.live.pool import ServerPool, get_pool
from gym_mcp.live.runner import run_sync
from gym_mcp.live.server import TRANSPORTS, LivePart, LiveServer, ServerSource, Transport
from gym_mcp.live.sessions import SessionsSource, SessionState
from gym_mcp.live.sources import BundledSource, ComposedSource, CompositionSource, ExternalSource, bundled_source
from gym_mcp.live.spec import ServerSpec, load_spec

__all__ = [
    "TRANSPORTS",
    "BundledSource",
    "ComposedSource",
    "CompositionSource",
    "ExternalSource",
    "Launch",
    "LiveConnection",
    "LivePart",
    "LiveServer",
    "ServerPool",
    "ServerSource",
    "ServerSpec",
    "SessionState",
    "SessionsSource",
    "ToolResult",
    "Transport",
    "bundled_source",
    "free_port",
    "get_pool",
    "load_spec",
    "run_sync",
]
