"""Run the issue tracker: ``python -m gym_mcp.servers.issue_tracker [--transport http] [--seed N]``."""

from gym_mcp.servers.issue_tracker import kit

raise SystemExit(kit.main())
