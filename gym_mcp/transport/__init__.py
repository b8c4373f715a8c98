"""Client connections to MCP servers, by transport: in-process, stdio, streamable HTTP.

- `connection`: `LiveConnection`, one live server with a timeout on every call and
  restart-and-restore when its process dies (the restart policy and liveness checks);
- `launch`: `Launch` (how to start or reach one server) and `free_port`;
- `results`: `ToolResult` (what a call gives back) and the size and text rules results keep to;
- `stdio`: the subprocess transport we own (its pid, a cap on one message, requests of our own);
- `http`: the capped ``httpx2`` transport, and the HTTP server processes we spawn;
- `processes`: liveness of the server processes we run, and killing them;
- `direct`: the in-process fast path, tool calls straight to the server's ``tools/call`` handler;
- `pipe`: the stdio fast path, tool calls written onto the server's pipe beside the session;
- `sdk`: every use of the MCP SDK's private names, fenced, each with a fallback to the public path;
- `runner`: the event loop behind the sync API (`run_sync`), driven by the calling thread.

What servers these connect to, and on which state, is provisioning: `gym_mcp.live`.
"""

from __future__ import annotations

from gym_mcp.transport.connection import LiveConnection
from gym_mcp.transport.launch import MAX_RESULT_BYTES, Launch, TransportKind, free_port
from gym_mcp.transport.results import ToolResult
from gym_mcp.transport.runner import run_sync

__all__ = ["MAX_RESULT_BYTES", "Launch", "LiveConnection", "ToolResult", "TransportKind", "free_port", "run_sync"]
