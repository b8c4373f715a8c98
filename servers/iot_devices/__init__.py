"""IoT devices: a bundled MCP server of smart homes, rooms, devices, schedules, scenes, automations and energy.

Run it on its own with ``python -m gym_mcp.servers.iot_devices --transport http``.
"""

from gym_mcp.servers.iot_devices.tools import kit

__all__ = ["kit"]
