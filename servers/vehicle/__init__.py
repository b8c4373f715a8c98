"""Vehicle: a bundled MCP server of a connected-car fleet app (vehicles, trips, charging, fuel, service, profiles).

Run it on its own with ``python -m gym_mcp.servers.vehicle --transport http``.
"""

from gym_mcp.servers.vehicle.tools import kit

__all__ = ["kit"]
