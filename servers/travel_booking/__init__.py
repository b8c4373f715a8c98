"""Travel booking: a bundled MCP server of travellers, flights, seats, hotels, cars, itineraries and loyalty.

Run it on its own with ``python -m gym_mcp.servers.travel_booking --transport http``.
"""

from gym_mcp.servers.travel_booking.tools import kit

__all__ = ["kit"]
