"""Tools of the trading server: accounts and cash, the market, orders, positions and watchlists.

Prices and cash are in US dollars (numbers with at most 2 decimals). Quotes are fixed for the
episode and every "now" rule (market hours, order and trade times) uses the kit's fixed clock, so
episodes replay identically.

`common` holds the kit and what the areas share; each area module registers its tools on import,
and the order below is the order the model sees them in.
"""

from gym_mcp.servers.trading.tools.common import kit

# isort: off
from gym_mcp.servers.trading.tools import accounts, market, orders, positions, watchlists  # noqa: F401

# isort: on

__all__ = ["kit"]
