"""Run the food delivery server: ``python -m gym_mcp.servers.food_delivery [--transport http] [--seed N]``."""

from gym_mcp.servers.food_delivery import kit

raise SystemExit(kit.main())
