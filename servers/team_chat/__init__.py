"""Team chat: a bundled MCP server of workspaces, users, channels, messages, threads, reactions, pins and DMs.

Run it on its own with ``python -m gym_mcp.servers.team_chat --transport http``.
"""

from gym_mcp.servers.team_chat.tools import kit

__all__ = ["kit"]
