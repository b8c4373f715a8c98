"""Tools of the video meeting server: the directory, meetings, participants and recordings.

Host-only tools take the acting user and refuse anyone but the meeting's host. The clock is
fixed (the kit's today at 11:00), so every "now" rule replays identically.

`common` holds the kit and what the areas share; each area module registers its tools on
import, and the order below is the order the model sees them in.
"""

from gym_mcp.servers.video_meeting.tools.common import kit

# isort: off
from gym_mcp.servers.video_meeting.tools import directory, meetings, participants, recordings  # noqa: F401

# isort: on

__all__ = ["kit"]
