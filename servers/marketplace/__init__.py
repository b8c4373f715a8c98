"""Marketplace: a bundled MCP server of sellers, buyers, listings, offers, orders, escrow and ratings.

Run it on its own with ``python -m gym_mcp.servers.marketplace --transport http``.
"""

from gym_mcp.servers.marketplace.tools import kit

__all__ = ["kit"]
