"""Tools of the maps server: places, roads and routes, traffic, reviews, users and their saved lists.

Routes come from Dijkstra over the seeded road graph as it is on the travel date (closed roads
left out, active incidents adding their delays), so the same calls always give the same route.
Every "today" rule (closures, travel dates, new rows' dates) uses the kit's fixed date.

`common` holds the kit and what the areas share; each area module registers its tools on
import, and the order below is the order the model sees them in.
"""

from gym_mcp.servers.maps.tools.common import kit

# isort: off
from gym_mcp.servers.maps.tools import places, routing, traffic, reviews, saved  # noqa: F401

# isort: on

__all__ = ["kit"]
