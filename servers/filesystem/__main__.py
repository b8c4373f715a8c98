"""Run the filesystem server: ``python -m gym_mcp.servers.filesystem --root DIR [--seed N] [--transport http]``."""

from gym_mcp.servers.filesystem.serving import main

raise SystemExit(main())
