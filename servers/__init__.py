"""The bundled, stateful MCP servers (importable as ``gym_mcp.servers``).

``kit/`` is what they share: `ServerKit` (tools to a live MCP server, sessions, the command
line), the tool helpers (id lookups with hints, new ids, bounds, dates, money) and the column
helpers; its docstring says how to write a server. Each server is a package holding a
`ServerKit` named ``kit``:

* ``models.py``: the SQLAlchemy data model;
* ``data.py``: the deterministic seed data;
* ``tools/``: ``common.py`` creates the kit and holds what the tools share (lookups, business
  rules, result shapes), and one module per area (e.g. ``banking/tools/cards.py``) declares
  its tools; ``tools/__init__.py`` imports the areas in the order the model sees the tools.

``filesystem`` is the exception: its state is a folder, not a database, so it is a
`DirectoryKit` (``kit/directory.py``) over its own workspace and seed tree; its tools are
declared and served by the same `ToolRegistry` and `build_server` (``kit/registry.py``).

Every one runs on its own for any MCP client: ``python -m gym_mcp.servers.banking --transport http``.
"""

from __future__ import annotations

import importlib

from gym_mcp.errors import UnknownServerError
from gym_mcp.servers.kit import ServerKit
from gym_mcp.servers.kit.directory import DirectoryKit

__all__ = ["BUNDLED", "DirectoryKit", "Kit", "ServerKit", "get_kit"]

Kit = ServerKit | DirectoryKit
"""A bundled server's kit: a database server's `ServerKit` or the folder server's `DirectoryKit`."""

BUNDLED: dict[str, str] = {
    "banking": "gym_mcp.servers.banking",
    "shopping": "gym_mcp.servers.shopping",
    "calendar": "gym_mcp.servers.calendar",
    "payments": "gym_mcp.servers.payments",
    "crm": "gym_mcp.servers.crm",
    "trading": "gym_mcp.servers.trading",
    "email": "gym_mcp.servers.email",
    "team_chat": "gym_mcp.servers.team_chat",
    "issue_tracker": "gym_mcp.servers.issue_tracker",
    "travel_booking": "gym_mcp.servers.travel_booking",
    "food_delivery": "gym_mcp.servers.food_delivery",
    "filesystem": "gym_mcp.servers.filesystem",
    "video_meeting": "gym_mcp.servers.video_meeting",
    "iot_devices": "gym_mcp.servers.iot_devices",
    "social_media": "gym_mcp.servers.social_media",
    "maps": "gym_mcp.servers.maps",
    "budget": "gym_mcp.servers.budget",
    "vehicle": "gym_mcp.servers.vehicle",
    "retail_chain": "gym_mcp.servers.retail_chain",
    "marketplace": "gym_mcp.servers.marketplace",
}
"""Bundled server name -> the module that holds its ``kit``."""


def get_kit(name: str) -> Kit:
    """Return the kit of a bundled server.

    Args:
        name: A bundled server name (see `BUNDLED`).

    Returns:
        The server's kit (a `ServerKit`, or a `DirectoryKit` for a server over a folder).

    Raises:
        UnknownServerError: The name is not a bundled server.
    """
    try:
        module_name = BUNDLED[name]
    except KeyError:
        known = ", ".join(sorted(BUNDLED))
        raise UnknownServerError(f"unknown server {name!r}; bundled servers: {known}") from None
    kit = importlib.import_module(module_name).kit
    if not isinstance(kit, ServerKit | DirectoryKit):
        raise UnknownServerError(f"{module_name}.kit is not a ServerKit or a DirectoryKit")
    return kit
