"""What the issue tracker's tests share: seed-data queries and small helpers."""

from __future__ import annotations

from typing import Any

from tests.helpers import LiveServer
from tests.servers.helpers import one, scalar

TABLES = (
    "users",
    "projects",
    "project_members",
    "sprints",
    "issues",
    "comments",
    "issue_labels",
    "links",
    "watchers",
)
KEYS = {"projects": "key", "project_members": "project_key, user_id", "issue_labels": "issue_id, label"}
KEYS["watchers"] = "issue_id, user_id"


def issue_row(server: LiveServer, issue_id: str, *cols: str) -> tuple[Any, ...]:
    return one(server, f"SELECT {', '.join(cols)} FROM issues WHERE id = ?", issue_id)


def member(server: LiveServer, project: str) -> str:
    return scalar(server, "SELECT user_id FROM project_members WHERE project_key = ? ORDER BY user_id", project)


def non_member(server: LiveServer, project: str) -> str:
    return scalar(
        server,
        "SELECT id FROM users WHERE id NOT IN (SELECT user_id FROM project_members WHERE project_key = ?) ORDER BY id",
        project,
    )


def issue_with(server: LiveServer, where: str, *params: Any) -> str:
    """The first issue (by project and number) matching a condition."""
    return scalar(server, f"SELECT id FROM issues WHERE {where} ORDER BY project_key, number", *params)


def sprint_with(server: LiveServer, where: str, *params: Any) -> str:
    return scalar(server, f"SELECT id FROM sprints WHERE {where} ORDER BY id", *params)


def committed(server: LiveServer, sprint_id: str) -> int:
    return scalar(server, "SELECT coalesce(sum(story_points), 0) FROM issues WHERE sprint_id = ?", sprint_id)
