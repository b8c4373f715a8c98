"""Tools of the issue tracker: projects and users, issues, workflow and links, sprints, collaboration.

Every "today" rule (creation and resolution dates, sprint start and end dates) uses the kit's
fixed date, so episodes replay identically.

`common` holds the kit and what the areas share; each area module registers its tools on
import, and the order below is the order the model sees them in.
"""

from gym_mcp.servers.issue_tracker.tools.common import kit

# isort: off
from gym_mcp.servers.issue_tracker.tools import projects, issues, workflow, sprints, collab  # noqa: F401

# isort: on

__all__ = ["kit"]
