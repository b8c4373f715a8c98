"""Tools of the email server: mailboxes and folders, messages, labels, drafts and sending, contacts.

Sizes come back as text ("310.5 KB"); dates as ISO 8601 local times to the minute. Every "now"
rule (the date of a sent message, a draft's last edit) uses the kit's fixed clock, so episodes
replay identically.

`common` holds the kit and what the areas share; each area module registers its tools on
import, and the order below is the order the model sees them in.
"""

from gym_mcp.servers.email.tools.common import kit

# isort: off
from gym_mcp.servers.email.tools import mailboxes, messages, labels, compose, contacts  # noqa: F401

# isort: on

__all__ = ["kit"]
