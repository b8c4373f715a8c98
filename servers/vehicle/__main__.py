"""Run the vehicle server: ``python -m gym_mcp.servers.vehicle [--transport http] [--seed N]``."""

from gym_mcp.servers.vehicle import kit

raise SystemExit(kit.main())
