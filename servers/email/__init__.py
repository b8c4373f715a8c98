"""Email: a bundled MCP server of mailboxes, folders, threads, messages, drafts, labels and contacts.

Run it on its own with ``python -m gym_mcp.servers.email --transport http``.
"""

from gym_mcp.servers.email.tools import kit

__all__ = ["kit"]
