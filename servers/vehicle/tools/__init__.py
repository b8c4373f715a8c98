"""Tools of the vehicle server: the fleet and each car's body, energy, trips, drivers and profiles, service.

Every "today" rule (licence expiry, service due dates, booking windows) uses the kit's fixed
date, so episodes replay identically.

`common` holds the kit and what the areas share; each area module registers its tools on
import, and the order below is the order the model sees them in.
"""

from gym_mcp.servers.vehicle.tools.common import kit

# isort: off
from gym_mcp.servers.vehicle.tools import vehicles, energy, trips, drivers, service  # noqa: F401

# isort: on

__all__ = ["kit"]
