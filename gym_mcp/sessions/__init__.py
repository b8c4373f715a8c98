"""Many environments on one server process: a private MCP session, and state, for each.

- `host`: `SessionHost`, the server side: one bundled database server, a private SQLite file
  per MCP session, each tool call bound to its session's file;
- `app`: the host's HTTP face (``gym-mcp serve NAME --transport http --sessions``): the MCP
  endpoint, and a control channel (plain HTTP under ``/control``, behind the server's token, no
  tool) that snapshots, restores and fingerprints a session's state (`session_app`, `serve_sessions`);
- `wire`: the header names and control path both sides use;
- `client`: `SessionsSource`, a `ServerSource` whose every launch opens a session on such a
  host, and `SessionState`, the state backend that drives that session through the channel.

This room sits above the server kit and server provisioning: the host serves a kit's tools and
keeps its files in `gym_mcp.live.scratch`; the client is a source like any other. Bundled
servers themselves (`gym_mcp.servers`) import nothing of the gym, so the host cannot live there.
"""

from __future__ import annotations

from gym_mcp.sessions.app import serve_sessions, session_app
from gym_mcp.sessions.client import SessionsSource, SessionState
from gym_mcp.sessions.host import SessionHost

__all__ = ["SessionHost", "SessionState", "SessionsSource", "serve_sessions", "session_app"]
