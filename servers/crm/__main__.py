"""Run the CRM server: ``python -m gym_mcp.servers.crm [--transport http] [--seed N]``."""

from gym_mcp.servers.crm import kit

raise SystemExit(kit.main())
