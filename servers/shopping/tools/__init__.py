"""Tools of the shopping server: catalog search, carts, checkout, orders and returns.

Every tool takes human-readable ids (``CUS-1001``, ``PRD-1001``, ``ORD-1001``, ``RET-1001``,
case-insensitive), returns compact JSON with amounts in dollars rounded to cents, and raises
`ToolError` with a message saying what went wrong and how to fix it. "Today" is the kit's fixed
reference date, so episodes replay identically.

`common` holds the kit and what the areas share; each area module registers its tools on
import, and the order below is the order the model sees them in.
"""

from gym_mcp.servers.shopping.tools.common import kit

# isort: off
from gym_mcp.servers.shopping.tools import catalog, customers, cart, orders, returns  # noqa: F401

# isort: on

__all__ = ["kit"]
