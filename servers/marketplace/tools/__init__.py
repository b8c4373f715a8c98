"""Tools of the marketplace server: people, listings, offers, orders with escrow and ratings.

Amounts are dollar numbers (49.5). Every "today" rule uses the kit's fixed date, so episodes
replay identically.

`common` holds the kit and what the areas share; each area module registers its tools on
import, and the order below is the order the model sees them in.
"""

from gym_mcp.servers.marketplace.tools.common import kit

# isort: off
from gym_mcp.servers.marketplace.tools import people, listings, offers, orders  # noqa: F401

# isort: on

__all__ = ["kit"]
