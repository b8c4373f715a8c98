"""``python -m gym_mcp.cli``: the ``gym-mcp`` command."""

from gym_mcp.cli import main

raise SystemExit(main())
