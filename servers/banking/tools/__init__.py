"""Tools of the banking server: look up customers and accounts, move money, manage payees and cards.

Amounts are in dollars (numbers with at most 2 decimals) and always come back rounded to cents.
A credit account's balance is negative while money is owed on it. Every "today" rule (daily
withdrawal limits, posting dates, card issue dates) uses the kit's fixed date, so episodes
replay identically.

`common` holds the kit and what the areas share; each area module registers its tools on
import, and the order below is the order the model sees them in.
"""

from gym_mcp.servers.banking.tools.common import kit

# isort: off
from gym_mcp.servers.banking.tools import accounts, transfers, payees, cards, lifecycle  # noqa: F401

# isort: on

__all__ = ["kit"]
