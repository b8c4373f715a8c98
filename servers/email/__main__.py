"""Run the email server: ``python -m gym_mcp.servers.email [--transport http] [--seed N]``."""

from gym_mcp.servers.email import kit

raise SystemExit(kit.main())
