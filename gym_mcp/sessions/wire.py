"""What a sessions host and its clients agree on: the headers, the control path, a session's name.

Kept apart from the host (`gym_mcp.sessions.host`) so that a client (`gym_mcp.sessions.client`)
needs nothing of the server side.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "CONTROL_PATH",
    "DIGEST_HEADER",
    "MCP_SESSION_ID",
    "SEED_HEADER",
    "SESSION_HEADER",
    "SNAPSHOT_HEADER",
    "session_name",
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

MCP_SESSION_ID = "mcp-session-id"
"""The MCP session id header (of a client that opened a session with the initialize handshake)."""


def session_name(headers: Any) -> str | None:
    """What a request names its session by: its ``Gym-MCP-Session`` key, else its MCP session id."""
    return headers.get(SESSION_HEADER) or headers.get(MCP_SESSION_ID) or None
