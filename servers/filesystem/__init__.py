"""Filesystem: a bundled MCP server over a directory tree (the workspace), not a database.

Its state is the folder itself (gym-mcp snapshots it with ``DirectoryState``). Every tool is
confined to the workspace root: see `gym_mcp.servers.filesystem.workspace`. Run it on its own
with ``python -m gym_mcp.servers.filesystem --root DIR --seed 0``.
"""

from gym_mcp.servers.filesystem.serving import create_server, entities, kit, main, seed_tree

__all__ = ["create_server", "entities", "kit", "main", "seed_tree"]
