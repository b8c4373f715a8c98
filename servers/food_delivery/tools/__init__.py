"""Tools of the food delivery server: browse restaurants and menus, fill a cart, check out, follow orders.

Amounts are in dollars. "Now" is the kit's fixed clock (``kit.today`` at 12:30, a Thursday), so
opening hours, order times and promotion expiry replay identically.

`common` holds the kit and what the areas share; each area module registers its tools on
import, and the order below is the order the model sees them in.
"""

from gym_mcp.servers.food_delivery.tools.common import kit

# isort: off
from gym_mcp.servers.food_delivery.tools import customers, restaurants, cart, promotions, orders  # noqa: F401

# isort: on

__all__ = ["kit"]
