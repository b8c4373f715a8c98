"""Run the social media server: ``python -m gym_mcp.servers.social_media [--transport http] [--seed N]``."""

from gym_mcp.servers.social_media import kit

raise SystemExit(kit.main())
