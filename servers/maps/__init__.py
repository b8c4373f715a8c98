"""Maps: a bundled MCP server of places, a road graph, routes, traffic incidents, closures, saved lists and reviews.

Run it on its own with ``python -m gym_mcp.servers.maps --transport http``.
"""

from gym_mcp.servers.maps.tools import kit

__all__ = ["kit"]
