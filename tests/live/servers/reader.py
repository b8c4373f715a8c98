"""A plain MCP server that reads whatever it is asked to: the read-confined sandbox's subject.

Run it with its working directory set to its state copy (a folder). ``read_path`` reads any
path, relative or absolute, as a careless or hostile third-party server might; ``write_path``
writes one inside its copy; ``getenv`` reads an environment variable. Outcomes are typed:
``{"outcome": "read" | "failed", ...}``.

Run: ``python reader.py`` (stdio).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from mcp.server import MCPServer

server = MCPServer("reader")


@server.tool()
def read_path(path: str) -> dict[str, Any]:
    """Read the file at any path (relative paths are under the working directory)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return {"outcome": "failed", "error": f"{type(exc).__name__}: {exc}"}
    return {"outcome": "read", "text": data.decode(errors="replace")}


@server.tool()
def write_path(path: str, text: str) -> dict[str, Any]:
    """Write text to a file (relative paths are under the working directory)."""
    try:
        Path(path).write_text(text)
    except OSError as exc:
        return {"outcome": "failed", "error": f"{type(exc).__name__}: {exc}"}
    return {"outcome": "wrote", "path": str(Path(path).resolve())}


@server.tool()
def getenv(name: str) -> dict[str, Any]:
    """The value of an environment variable, or null when it is not set."""
    return {"outcome": "read", "value": os.environ.get(name)}


if __name__ == "__main__":
    server.run("stdio")
