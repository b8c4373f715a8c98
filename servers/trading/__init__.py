"""Trading: a bundled MCP server of brokerage accounts, instruments, quotes, orders, positions and watchlists.

Run it on its own with ``python -m gym_mcp.servers.trading --transport http``.
"""

from gym_mcp.servers.trading.tools import kit

__all__ = ["kit"]
