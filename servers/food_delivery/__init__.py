"""Food delivery: a bundled MCP server of restaurants, menus, carts, promotions, orders and ratings.

Run it on its own with ``python -m gym_mcp.servers.food_delivery --transport http``.
"""

from gym_mcp.servers.food_delivery.tools import kit

__all__ = ["kit"]
