"""Budget: a bundled MCP server of a household budget (accounts, categories, budgets, transactions, goals, bills).

Run it on its own with ``python -m gym_mcp.servers.budget --transport http``.
"""

from gym_mcp.servers.budget.tools import kit

__all__ = ["kit"]
