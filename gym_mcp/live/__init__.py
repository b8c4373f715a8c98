"""Server provisioning: where live servers come from, on which state, and how they stay warm.

- `live_server`: `LiveServer` (running server(s) plus their state) and the `ServerSource`
  interface that starts one;
- `sources`: `BundledSource`, `ExternalSource` (any MCP server), `ComposedSource`, `CompositionSource`;
- `from_specs`: sources from spec files (`spec_source`, `as_source`);
- `warm_pool`: `ServerPool`, which keeps servers warm between environments;
- `sandbox`: bubblewrap around an external server (only its state copy writable);
- `scratch`: private folders for server state, removed at exit (and after a crash, next time).

Connections to the servers (stdio, HTTP, in-process) are `gym_mcp.transport`; spec files are
`gym_mcp.specs`; one server hosting a session per environment is `gym_mcp.sessions`.
"""

from __future__ import annotations

from gym_mcp.live.from_specs import as_source, spec_source, spec_state
from gym_mcp.live.live_server import TRANSPORTS, LivePart, LiveServer, ServerSource, Transport
from gym_mcp.live.sources import BundledSource, ComposedSource, CompositionSource, ExternalSource, bundled_source
from gym_mcp.live.warm_pool import ServerPool, get_pool

__all__ = [
    "TRANSPORTS",
    "BundledSource",
    "ComposedSource",
    "CompositionSource",
    "ExternalSource",
    "LivePart",
    "LiveServer",
    "ServerPool",
    "ServerSource",
    "Transport",
    "as_source",
    "bundled_source",
    "get_pool",
    "spec_source",
    "spec_state",
]
