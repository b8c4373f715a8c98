"""Run the travel booking server: ``python -m gym_mcp.servers.travel_booking [--transport http] [--seed N]``."""

from gym_mcp.servers.travel_booking import kit

raise SystemExit(kit.main())
