"""Tools of the CRM server: owners and accounts, contacts, leads, opportunities, activities and notes.

Amounts are in dollars (numbers with at most 2 decimals). Every "today" rule (close dates, due
dates, overdue activities, conversion dates) uses the kit's fixed date, so episodes replay
identically.

`common` holds the kit and what the areas share; each area module registers its tools on
import, and the order below is the order the model sees them in.
"""

from gym_mcp.servers.crm.tools.common import kit

# isort: off
from gym_mcp.servers.crm.tools import accounts, leads, opportunities, activities  # noqa: F401

# isort: on

__all__ = ["kit"]
