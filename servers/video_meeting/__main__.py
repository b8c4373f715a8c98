"""Run the video meeting server: ``python -m gym_mcp.servers.video_meeting [--transport http] [--seed N]``."""

from gym_mcp.servers.video_meeting import kit

raise SystemExit(kit.main())
