"""Tools of the IoT devices server: homes, devices, direct control, schedules, scenes, automations, energy.

Settings are checked against the device kind's capabilities (what it can set, in which range),
and an offline device cannot be commanded. Every "today" rule (energy readings end yesterday,
new rows are dated today) uses the kit's fixed date, so episodes replay identically.

`common` holds the kit and what the areas share; each area module registers its tools on
import, and the order below is the order the model sees them in.
"""

from gym_mcp.servers.iot_devices.tools.common import kit

# isort: off
from gym_mcp.servers.iot_devices.tools import homes, devices, control, schedules, scenes, automations, energy  # noqa: F401

# isort: on

__all__ = ["kit"]
