"""Run the budget server: ``python -m gym_mcp.servers.budget [--transport http] [--seed N]``."""

from gym_mcp.servers.budget import kit

raise SystemExit(kit.main())
