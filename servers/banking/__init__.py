"""Banking: a bundled MCP server of customers, accounts, transfers, payees and cards.

Run it on its own with ``python -m gym_mcp.servers.banking --transport http``.
"""

from gym_mcp.servers.banking.tools import kit

__all__ = ["kit"]
