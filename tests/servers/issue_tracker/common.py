"""What the issue tracker's tests share: seed-data queries and small helpers."""

from __future__ import annotations

from typing import Any

from gym_mcp.servers.issue_tracker import kit
from tests.helpers import LiveServer

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


def dump(server: LiveServer) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows, without the volatile (wall-clock) columns."""
    out = {}
    volatile = kit.volatile_columns
    for table in TABLES:
        cols = [r[1] for r in server.query(f"PRAGMA table_info({table})") if r[1] not in volatile.get(table, ())]
        out[table] = server.query(f"SELECT {', '.join(cols)} FROM {table} ORDER BY {KEYS.get(table, 'id')}")
    return out


def one(server: LiveServer, sql: str, *params: Any) -> tuple[Any, ...]:
    rows = server.query(sql, *params)
    assert rows, f"seed has no row for: {sql}"
    return rows[0]


def scalar(server: LiveServer, sql: str, *params: Any) -> Any:
    """The first column of the first row of a query the seed must answer."""
    return one(server, sql, *params)[0]


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
