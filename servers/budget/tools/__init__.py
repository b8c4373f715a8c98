"""Tools of the budget server: accounts, categories and budgets, transactions, goals, bills.

Every "today" rule (the current month, closed months, goal and bill dates) uses the kit's fixed
date, so episodes replay identically.

`common` holds the kit and what the areas share; each area module registers its tools on
import, and the order below is the order the model sees them in.
"""

from gym_mcp.servers.budget.tools.common import kit

# isort: off
from gym_mcp.servers.budget.tools import accounts, categories, transactions, goals, bills  # noqa: F401

# isort: on

__all__ = ["kit"]
