"""Shopping: a bundled MCP server for an online store (catalog, carts, orders, returns)."""

from gym_mcp.servers.shopping.tools import kit

__all__ = ["kit"]
