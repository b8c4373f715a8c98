"""Tools of the payments server: customers and their payment methods, wallets, payments, refunds, requests.

Amounts are numbers in the currency's unit (12.50 EUR, 1500 JPY) and always come back rounded to
the currency's minor unit. Every "today" rule (card expiry, the dispute window, request expiry)
uses the kit's fixed date, so episodes replay identically.

`common` holds the kit and what the areas share; each area module registers its tools on
import, and the order below is the order the model sees them in.
"""

from gym_mcp.servers.payments.tools.common import kit

# isort: off
from gym_mcp.servers.payments.tools import customers, wallets, payments, refunds, requests  # noqa: F401

# isort: on

__all__ = ["kit"]
