"""Issue tracker: a bundled MCP server of projects, issues, workflows, sprints, comments and links.

Run it on its own with ``python -m gym_mcp.servers.issue_tracker --transport http``.
"""

from gym_mcp.servers.issue_tracker.tools import kit

__all__ = ["kit"]
