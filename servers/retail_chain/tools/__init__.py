"""Tools of the retail chain server: stores and stock, products and dated prices, transfers, loyalty and sales.

Amounts are dollar numbers (4.99). Every "today" rule (which price is in effect, which change is
in the past) uses the kit's fixed date, so episodes replay identically.

`common` holds the kit and what the areas share; each area module registers its tools on
import, and the order below is the order the model sees them in.
"""

from gym_mcp.servers.retail_chain.tools.common import kit

# isort: off
from gym_mcp.servers.retail_chain.tools import stores, products, transfers, loyalty  # noqa: F401

# isort: on

__all__ = ["kit"]
