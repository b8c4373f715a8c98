"""Retail chain: a bundled MCP server of stores, products, stock, transfers, dated prices, loyalty and sales.

Run it on its own with ``python -m gym_mcp.servers.retail_chain --transport http``.
"""

from gym_mcp.servers.retail_chain.tools import kit

__all__ = ["kit"]
