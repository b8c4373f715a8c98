"""Run the trading server: ``python -m gym_mcp.servers.trading [--transport http] [--seed N]``."""

from gym_mcp.servers.trading import kit

raise SystemExit(kit.main())
