"""Run the payments server: ``python -m gym_mcp.servers.payments [--transport http] [--seed N]``."""

from gym_mcp.servers.payments import kit

raise SystemExit(kit.main())
