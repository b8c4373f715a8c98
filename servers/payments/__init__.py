"""Payments: a bundled MCP server of wallets, payment methods, payments, refunds, disputes and payment requests.

Run it on its own with ``python -m gym_mcp.servers.payments --transport http``.
"""

from gym_mcp.servers.payments.tools import kit

__all__ = ["kit"]
