"""Social media: a bundled MCP server of profiles, posts, comments, likes, follows, blocks, messages and reports.

Run it on its own with ``python -m gym_mcp.servers.social_media --transport http``.
"""

from gym_mcp.servers.social_media.tools import kit

__all__ = ["kit"]
