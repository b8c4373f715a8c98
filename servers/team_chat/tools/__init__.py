"""Tools of the team chat server: people and direct messages, channels, messages and threads, reactions and pins.

The acting user is always an argument (``user_id``): there is no logged-in "current user", so a
call says who posts, reads, reacts or archives, and the rules are checked for that user. Every
"now" (posting, edit and pin times) is the server's fixed clock, so episodes replay identically.

`common` holds the kit and what the areas share; each area module registers its tools on
import, and the order below is the order the model sees them in.
"""

from gym_mcp.servers.team_chat.tools.common import kit

# isort: off
from gym_mcp.servers.team_chat.tools import users, channels, messages, reactions  # noqa: F401

# isort: on

__all__ = ["kit"]
