"""CRM: a bundled MCP server of sales owners, accounts, contacts, leads, opportunities, activities and notes.

Run it on its own with ``python -m gym_mcp.servers.crm --transport http``.
"""

from gym_mcp.servers.crm.tools import kit

__all__ = ["kit"]
