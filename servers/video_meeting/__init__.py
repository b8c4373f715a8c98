"""Video meetings: a bundled MCP server of users, meeting rooms, meetings, participants, waiting rooms and recordings.

Run it on its own with ``python -m gym_mcp.servers.video_meeting --transport http``.
"""

from gym_mcp.servers.video_meeting.tools import kit

__all__ = ["kit"]
