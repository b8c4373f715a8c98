"""Calendar server: people, meeting rooms, events, invitations and availability.

Run it on its own with ``python -m gym_mcp.servers.calendar --transport http``.
"""

from gym_mcp.servers.calendar.tools import kit

__all__ = ["kit"]
