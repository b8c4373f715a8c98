"""Run the shopping server: ``python -m gym_mcp.servers.shopping [--transport http] [--db URL]``."""

from gym_mcp.servers.shopping import kit

raise SystemExit(kit.main())
