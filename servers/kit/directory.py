"""`DirectoryKit`: a bundled server whose state is a folder tree, not a database.

The filesystem server keeps its state in the files themselves, so it cannot use `ServerKit`
(SQLAlchemy models, a seeded database). It gives the gym the same things through this kit: its
tools (`ToolInfo`, with intents and samples for synthesis, declared with a `ToolRegistry`), a
live server over a folder (made with `build_server`, as `ServerKit` makes its own), a
deterministic seed tree, and the entities synthesis draws arguments from (paths of each kind,
read off a seeded folder). The gym snapshots the folder with ``DirectoryState``.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer

from gym_mcp.servers.kit.registry import ToolInfo

__all__ = ["DirectoryKit", "EntityTables"]

EntityTables = dict[str, list[dict[str, Any]]]
"""Entities as tables of rows: ``{"entries": [{"path": ..., "text_file": ...}, ...]}``."""


class DirectoryKit:
    """A bundled server over a folder: what the gym needs of it, as `ServerKit` gives for a database.

    Args:
        name: Server name, e.g. ``"filesystem"``.
        tools: The tools by name, in the order the model sees them.
        instructions: Text sent to clients at initialization.
        create_server: Builds a live server confined to a folder: ``create_server(root, token=...)``.
        seed: Fills an empty folder deterministically: ``seed(root, seed)``.
        entities: Reads a folder's entities for synthesis (see `EntityTables`).
        main: The server's command line (``python -m gym_mcp.servers.<name> --root DIR ...``).
    """

    def __init__(
        self,
        name: str,
        *,
        tools: Mapping[str, ToolInfo],
        instructions: str,
        create_server: Callable[..., MCPServer],
        seed: Callable[[Path, int], None],
        entities: Callable[[Path], EntityTables],
        main: Callable[[Sequence[str] | None], int],
    ) -> None:
        self.name = name
        self._tools = dict(tools)
        self.instructions = instructions
        self._create = create_server
        self._seed = seed
        self._entities = entities
        self._main = main

    @property
    def tools(self) -> dict[str, ToolInfo]:
        """The declared tools by name."""
        return dict(self._tools)

    def create_server(self, root: Path, *, token: str | None = None) -> MCPServer:
        """Build a live MCP server whose tools act only inside ``root`` (an existing folder)."""
        return self._create(root, token=token)

    def seed_tree(self, root: Path, seed: int = 0) -> None:
        """Fill the empty folder ``root`` with the seed tree ``seed`` (same seed, same bytes)."""
        self._seed(root, seed)

    def entities(self, root: Path) -> EntityTables:
        """The entities of the tree under ``root``, for synthesis."""
        return self._entities(root)

    def entity_count(self, seed: int = 0) -> int:
        """How many entries (files, folders, links) the seed tree ``seed`` holds."""
        with tempfile.TemporaryDirectory(prefix=f"gym-mcp-{self.name}-") as tmp:
            root = Path(tmp) / "root"
            self.seed_tree(root, seed)
            return sum(1 for _ in root.rglob("*"))

    def main(self, argv: Sequence[str] | None = None) -> int:
        """Run this server on its own, for any MCP client (see its ``--help``)."""
        return self._main(argv)

    def serve_args(self, args: argparse.Namespace) -> int:
        """Serve as ``gym-mcp serve NAME`` was asked: ``--root`` (default ``./NAME``) instead of ``--db``.

        Raises:
            ValueError: ``--db`` was given (this server's state is a folder).
        """
        if getattr(args, "db", None):
            raise ValueError(f"{self.name} keeps its state in a folder, not a database: use --root DIR instead of --db")
        argv = ["--root", str(getattr(args, "root", None) or self.name), "--seed", str(args.seed)]
        argv += ["--transport", args.transport]
        if args.transport == "http":
            argv += ["--host", args.host, "--port", str(args.port)]
            if args.token:
                argv += ["--token", args.token]
            if args.allow_no_token:
                argv.append("--allow-no-token")
        return self.main(argv)
