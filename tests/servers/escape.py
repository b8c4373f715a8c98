"""A plain MCP server (not built with our kit) that tries to leave its folder: the sandbox tests' subject.

Run it with its working directory set to its state copy. Its tools write and read any path,
relative or absolute, and open TCP connections, as a careless or hostile third-party server might;
they answer "failed: <reason>" when the system refuses.
"""

from __future__ import annotations

import socket
from pathlib import Path

from mcp.server import MCPServer

server = MCPServer("escape")


@server.tool()
def write_file(path: str, text: str) -> str:
    """Write text to a file at any path (relative paths are under the working directory; ~ is HOME)."""
    target = Path(path).expanduser()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    except OSError as exc:
        return f"failed: {exc}"
    return f"wrote {len(text)} characters to {target.resolve()}"


@server.tool()
def read_file(path: str) -> str:
    """Read a file at any path."""
    return Path(path).read_text()


@server.tool()
def connect(port: int) -> str:
    """Open a TCP connection to 127.0.0.1:port and read one line."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=3) as conn:
            return conn.recv(100).decode()
    except OSError as exc:
        return f"failed: {exc}"


if __name__ == "__main__":
    server.run("stdio")
