"""A notes server that may keep its notes in process memory, beside the JSON file it saves them in.

Like some third-party MCP servers, by default it reads its file once, at start, and then answers
from a dict in memory: a write updates the dict and saves the file, so restoring the file (a
reset) leaves the process remembering the note. With ``--fresh`` it reads the file at every
call instead (state only in its file: a reset undoes everything). Its tools carry no
``gym_mcp/*`` metadata: the synthesizer's classifier decides what is a read.

Run: ``python memo_cache.py STATE.json [--fresh]`` (stdio). ``--seed STATE.json`` writes the seed notes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

SEED = {"notes": [{"title": "groceries", "text": "milk, eggs"}, {"title": "plans", "text": "call Ada on Monday"}]}


def build(path: str, *, fresh: bool) -> MCPServer:
    """The server over the JSON file at ``path``; ``fresh``: read the file at every call, not once."""
    server = MCPServer("memo-cache")
    file = Path(path)
    cache: dict[str, Any] = json.loads(file.read_text())

    def notes() -> list[dict[str, str]]:
        data = json.loads(file.read_text()) if fresh else cache
        return list(data["notes"])

    @server.tool(annotations=ToolAnnotations(readOnlyHint=True))
    def list_notes() -> dict[str, Any]:
        """List every note's title, in the order they were added."""
        return {"titles": [n["title"] for n in notes()]}

    @server.tool()
    def get_note(title: str) -> dict[str, Any]:
        """Show one note by its title."""
        for n in notes():
            if n["title"] == title:
                return n
        raise ToolError(f"No note titled {title!r}; list_notes shows the titles")

    @server.tool()
    def add_note(title: str, text: str) -> dict[str, Any]:
        """Add a note with a title and a text."""
        current = notes()
        if any(n["title"] == title for n in current):
            raise ToolError(f"A note titled {title!r} exists already")
        current.append({"title": title, "text": text})
        cache["notes"] = current
        file.write_text(json.dumps({"notes": current}, indent=1))
        return {"added": title, "count": len(current)}

    return server


def main() -> None:
    """``memo_cache.py STATE.json [--fresh]`` serves over stdio; ``--seed STATE.json`` writes the seed notes."""
    if sys.argv[1] == "--seed":
        Path(sys.argv[2]).write_text(json.dumps(SEED, indent=1))
        return
    build(sys.argv[1], fresh="--fresh" in sys.argv[2:]).run()


if __name__ == "__main__":
    main()
