"""Run the IoT devices server: ``python -m gym_mcp.servers.iot_devices [--transport http] [--seed N]``."""

from gym_mcp.servers.iot_devices import kit

raise SystemExit(kit.main())
