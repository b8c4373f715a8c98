"""Run the maps server: ``python -m gym_mcp.servers.maps [--transport http] [--seed N]``."""

from gym_mcp.servers.maps import kit

raise SystemExit(kit.main())
