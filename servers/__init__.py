"""The bundled, stateful MCP servers (importable as ``gym_mcp.servers``).

Each server is a package holding a `ServerKit` named ``kit``: ``models.py`` (SQLAlchemy data
model), ``data.py`` (deterministic seed data), ``tools.py`` (the tools). Every one runs on its
own for any MCP client: ``python -m gym_mcp.servers.banking --transport http``.
"""

from __future__ import annotations

import importlib

from gym_mcp.errors import UnknownServerError
from gym_mcp.servers.kit import ServerKit

__all__ = ["BUNDLED", "ServerKit", "get_kit"]

BUNDLED: dict[str, str] = {
    "banking": "gym_mcp.servers.banking",
    "shopping": "gym_mcp.servers.shopping",
    "calendar": "gym_mcp.servers.calendar",
}
"""Bundled server name -> the module that holds its ``kit``."""


def get_kit(name: str) -> ServerKit:
    """Return the kit of a bundled server.

    Args:
        name: A bundled server name (see `BUNDLED`).

    Returns:
        The server's `ServerKit`.

    Raises:
        UnknownServerError: The name is not a bundled server.
    """
    try:
        module_name = BUNDLED[name]
    except KeyError:
        known = ", ".join(sorted(BUNDLED))
        raise UnknownServerError(f"unknown server {name!r}; bundled servers: {known}") from None
    kit = importlib.import_module(module_name).kit
    if not isinstance(kit, ServerKit):
        raise UnknownServerError(f"{module_name}.kit is not a ServerKit")
    return kit
