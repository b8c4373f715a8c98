"""Run the team chat server: ``python -m gym_mcp.servers.team_chat [--transport http] [--seed N]``."""

from gym_mcp.servers.team_chat import kit

raise SystemExit(kit.main())
