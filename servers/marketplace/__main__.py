"""Run the marketplace server: ``python -m gym_mcp.servers.marketplace [--transport http] [--seed N]``."""

from gym_mcp.servers.marketplace import kit

raise SystemExit(kit.main())
