"""How to start or reach one MCP server (`Launch`), and the small facts every transport shares.

A `Launch` names a server object for in-process use, a command line for stdio, or a command to
spawn plus the URL it listens at (or just the URL of a server someone else runs) for HTTP. The
connection (`gym_mcp.transport.connection`) reads it; nothing here starts anything.
"""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from gym_mcp.errors import ServerStartError

__all__ = ["MAX_RESULT_BYTES", "Launch", "TransportKind", "default_stderr_path", "free_port", "stderr_tail"]

MAX_RESULT_BYTES = 4 * 1024 * 1024
"""The most bytes one message from a server may take (an in-process result: characters)."""

TransportKind = Literal["inprocess", "stdio", "http"]


@dataclass(frozen=True)
class Launch:
    """How to start (or reach) one live MCP server.

    Attributes:
        name: Server name, used in messages.
        transport: ``"inprocess"``, ``"stdio"`` or ``"http"``.
        server_factory: In-process: builds the server object (an `MCPServer` or low-level `Server`).
        command: stdio: the command line to run. http: the command that starts the server;
            ``{port}`` in it is replaced by a free loopback port.
        url: http: the server's URL. With a command, ``{port}`` in it is replaced too; without
            one, the server is run by someone else and cannot be restarted by us.
        env: Extra environment variables for the server process.
        cwd: Working directory of the server process.
        stderr_path: Where the server process's stderr goes (kept for error messages).
        headers: http: headers sent with every request (e.g. ``Authorization: Bearer ...``).
        protocol: Send tool calls through the MCP client's session too. In-process, instead of
            to the server's ``tools/call`` handler directly (`gym_mcp.transport.direct`); this also
            runs the server's request middleware (e.g. OpenTelemetry spans) for every call.
            Over stdio, instead of writing them onto the server's pipe ourselves
            (`gym_mcp.transport.pipe`). The results are the same either way; this is slower.
    """

    name: str
    transport: TransportKind
    server_factory: Callable[[], Any] | None = None
    command: Sequence[str] = ()
    url: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    stderr_path: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    protocol: bool = False

    def __post_init__(self) -> None:
        if self.transport == "inprocess" and self.server_factory is None:
            raise ServerStartError(f"{self.name}: an in-process launch needs a server_factory")
        if self.transport == "stdio" and not self.command:
            raise ServerStartError(f"{self.name}: a stdio launch needs a command")
        if self.transport == "http" and not (self.url or self.command):
            raise ServerStartError(f"{self.name}: an http launch needs a url or a command")


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def stderr_tail(path: str | None, limit: int = 800) -> str:
    """The last ``limit`` characters of a server's stderr file ("" when there is none)."""
    if not path:
        return ""
    try:
        text = Path(path).read_text(errors="replace").strip()
    except OSError:
        return ""
    return text[-limit:]


def default_stderr_path(prefix: str) -> str:
    """A fresh file for a server's stderr."""
    fd, path = tempfile.mkstemp(prefix=f"gym-mcp-{prefix}-", suffix=".stderr")
    os.close(fd)
    return path
