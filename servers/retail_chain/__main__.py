"""Run the retail chain server: ``python -m gym_mcp.servers.retail_chain [--transport http] [--seed N]``."""

from gym_mcp.servers.retail_chain import kit

raise SystemExit(kit.main())
