"""Tools of the social media server: profiles and connections, posts, engagement, moderation.

Every time a tool stamps (a post, a like, a follow) comes from the server's fixed clock, and
the edit window is measured against it, so episodes replay identically.

`common` holds the kit and what the areas share; each area module registers its tools on
import, and the order below is the order the model sees them in.
"""

from gym_mcp.servers.social_media.tools.common import kit

# isort: off
from gym_mcp.servers.social_media.tools import profiles, posts, engagement, moderation  # noqa: F401

# isort: on

__all__ = ["kit"]
