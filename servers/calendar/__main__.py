"""Run the calendar server: ``python -m gym_mcp.servers.calendar``."""

from gym_mcp.servers.calendar import kit

raise SystemExit(kit.main())
