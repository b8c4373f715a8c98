"""Run the banking server: ``python -m gym_mcp.servers.banking [--transport http] [--seed N]``."""

from gym_mcp.servers.banking import kit

raise SystemExit(kit.main())
