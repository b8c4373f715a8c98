"""Issue tracker tools for sprints: list, create, start and close them, and plan issues into them."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gym_mcp.servers.issue_tracker.models import SPRINT_STATUSES, Issue, Sprint
from gym_mcp.servers.issue_tracker.tools.common import (
    check_capacity,
    committed_points,
    kit,
    load_issue,
    load_project,
    load_sprint,
    open_sprints_hint,
    sprint_view,
)
from gym_mcp.servers.kit import ToolError, check_between, check_length, next_id, parse_date

SPRINT_DAYS = 14
"""Length of a sprint in days."""


@kit.tool(
    write=False,
    intent="List the[ {status}] sprints of project {project_key}",
    samples={"status": SPRINT_STATUSES},
)
def list_sprints(db: Session, project_key: str, status: str | None = None) -> list[dict[str, Any]]:
    """List a project's sprints, oldest first, with status, dates, capacity and committed points.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        project_key: The project's key, e.g. "WEB".
        status: Only sprints in this status: "planned", "active" or "closed".
    """
    project = load_project(db, project_key)
    stmt = select(Sprint).where(Sprint.project_key == project.key)
    if status is not None:
        wanted = status.strip().lower()
        if wanted not in SPRINT_STATUSES:
            raise ToolError(f"status must be one of {', '.join(SPRINT_STATUSES)}; got {status!r}.")
        stmt = stmt.where(Sprint.status == wanted)
    return [sprint_view(db, s) for s in db.scalars(stmt.order_by(Sprint.start_date, Sprint.id))]


@kit.tool(
    write=True,
    intent=(
        "Plan a new sprint '{sprint_name}' in project {project_key} starting {start_date} with a capacity of "
        "{capacity_points} points[ and the goal '{goal}']"
    ),
    samples={
        "sprint_name": ("Launch prep", "Hardening sprint", "Sprint 42", "Q2 kickoff", "Bug bash"),
        "start_date": ("2026-02-16", "2026-02-23", "2026-03-02", "2026-03-16"),
        "capacity_points": (20, 25, 30, 40),
        "goal": ("Ship the new checkout flow", "Close all critical bugs", "Cut p95 latency in half"),
    },
)
def create_sprint(
    db: Session, project_key: str, sprint_name: str, start_date: str, capacity_points: int, goal: str = ""
) -> dict[str, Any]:
    """Plan a new two-week sprint in a project (status planned); add issues with add_to_sprint.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        project_key: The project's key, e.g. "WEB".
        sprint_name: 3 to 60 characters, unique in the project, e.g. "Launch prep".
        start_date: First day, today or later, e.g. "2026-02-16"; the sprint lasts 14 days.
        capacity_points: Most story points the sprint may hold, 1 to 200, e.g. 30.
        goal: What the sprint is for, e.g. "Ship the new checkout flow".
    """
    project = load_project(db, project_key)
    title = check_length(sprint_name.strip(), "sprint_name", 3, 60, ", e.g. 'Launch prep'")
    start = parse_date(start_date, "start_date")
    if start < kit.today:
        raise ToolError(f"start_date {start} is in the past; a new sprint starts today ({kit.today}) or later.")
    check_between(capacity_points, 1, 200, "capacity_points")
    clash = db.scalar(select(Sprint).where(Sprint.project_key == project.key, func.lower(Sprint.name) == title.lower()))
    if clash is not None:
        raise ToolError(f"Project {project.key} already has a sprint named {title!r} ({clash.id}); pick another name.")
    sprint = Sprint(
        id=next_id(db, Sprint.id, "SPR"),
        project_key=project.key,
        name=title,
        goal=goal.strip(),
        status="planned",
        capacity_points=capacity_points,
        start_date=start,
        end_date=start + timedelta(days=SPRINT_DAYS - 1),
    )
    db.add(sprint)
    db.flush()
    return sprint_view(db, sprint)


@kit.tool(write=True, intent="Start sprint {sprint_id}")
def start_sprint(db: Session, sprint_id: str) -> dict[str, Any]:
    """Start a planned sprint today; it runs for 14 days. Only one sprint per project can be active.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        sprint_id: A planned sprint, e.g. "SPR-1005" (list_sprints shows them).
    """
    sprint = load_sprint(db, sprint_id)
    if sprint.status == "active":
        raise ToolError(f"Sprint {sprint.id} ({sprint.name}) is already active; a sprint cannot be started twice.")
    if sprint.status == "closed":
        raise ToolError(
            f"Sprint {sprint.id} ({sprint.name}) is closed; closed sprints cannot be restarted. "
            "Plan a new one with create_sprint."
        )
    running = db.scalar(select(Sprint).where(Sprint.project_key == sprint.project_key, Sprint.status == "active"))
    if running is not None:
        raise ToolError(
            f"Project {sprint.project_key} already has an active sprint, {running.id} ({running.name}); only one "
            f"sprint per project can be active. Close it first (close_sprint)."
        )
    sprint.status = "active"
    sprint.start_date = kit.today
    sprint.end_date = kit.today + timedelta(days=SPRINT_DAYS - 1)
    out = sprint_view(db, sprint)
    out["issue_count"] = db.scalar(select(func.count()).select_from(Issue).where(Issue.sprint_id == sprint.id))
    return out


@kit.tool(write=True, intent="Close sprint {sprint_id}", confirm="always")
def close_sprint(db: Session, sprint_id: str) -> dict[str, Any]:
    """Close the active sprint today. Issues that are not done go back to the backlog. Cannot be undone.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        sprint_id: The active sprint, e.g. "SPR-1004".
    """
    sprint = load_sprint(db, sprint_id)
    if sprint.status == "closed":
        raise ToolError(f"Sprint {sprint.id} ({sprint.name}) is already closed.")
    if sprint.status == "planned":
        raise ToolError(
            f"Sprint {sprint.id} ({sprint.name}) has not started; only an active sprint can be closed. "
            "Start it first (start_sprint)."
        )
    issues = db.scalars(select(Issue).where(Issue.sprint_id == sprint.id).order_by(Issue.number)).all()
    done = [i for i in issues if i.status == "done"]
    moved = [i for i in issues if i.status != "done"]
    for issue in moved:
        issue.sprint_id = None
        issue.updated_on = kit.today
    sprint.status = "closed"
    sprint.end_date = kit.today
    sprint.completed_points = sum(i.story_points or 0 for i in done)
    return {
        "sprint_id": sprint.id,
        "status": "closed",
        "completed_issues": [i.id for i in done],
        "completed_points": sprint.completed_points,
        "moved_to_backlog": [i.id for i in moved],
    }


@kit.tool(write=True, intent="Add issue {issue_id} to sprint {sprint_id}")
def add_to_sprint(db: Session, issue_id: str, sprint_id: str) -> dict[str, Any]:
    """Plan an issue into a planned or active sprint of its project (moving it from another sprint if needed).

    The sprint's issues may not exceed its capacity in story points (unestimated issues count 0).
    Epics and done issues do not go into sprints.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        issue_id: Issue key, e.g. "WEB-12".
        sprint_id: A planned or active sprint of the same project, e.g. "SPR-1005".
    """
    issue = load_issue(db, issue_id)
    sprint = load_sprint(db, sprint_id)
    if sprint.project_key != issue.project_key:
        raise ToolError(
            f"Sprint {sprint.id} belongs to project {sprint.project_key}, but {issue.id} is in {issue.project_key}. "
            + open_sprints_hint(db, issue.project_key)
        )
    if issue.type == "epic":
        raise ToolError(f"{issue.id} is an epic; epics do not go into sprints. Add its child issues instead.")
    if issue.status == "done":
        raise ToolError(f"{issue.id} is already done; only unfinished work is planned into a sprint.")
    if sprint.status == "closed":
        raise ToolError(f"Sprint {sprint.id} ({sprint.name}) is closed. " + open_sprints_hint(db, issue.project_key))
    if issue.sprint_id == sprint.id:
        raise ToolError(
            f"{issue.id} is already in sprint {sprint.id}; nothing changed. "
            + open_sprints_hint(db, issue.project_key, leave_out=sprint.id)
        )
    check_capacity(db, sprint, issue, issue.story_points)
    previous = issue.sprint_id
    issue.sprint_id = sprint.id
    issue.updated_on = kit.today
    return {
        "issue_id": issue.id,
        "sprint_id": sprint.id,
        "previous_sprint_id": previous,
        "committed_points": committed_points(db, sprint),
        "points_left": sprint.capacity_points - committed_points(db, sprint),
    }


@kit.tool(write=True, intent="Move issue {issue_id} out of its sprint back to the backlog")
def remove_from_sprint(db: Session, issue_id: str) -> dict[str, Any]:
    """Take an issue out of its planned or active sprint and put it back in the backlog.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        issue_id: Issue key, e.g. "WEB-12".
    """
    issue = load_issue(db, issue_id)
    if issue.sprint_id is None:
        raise ToolError(f"{issue.id} is not in a sprint; it is already in the backlog.")
    sprint = load_sprint(db, issue.sprint_id)
    if sprint.status == "closed":
        raise ToolError(
            f"{issue.id} was completed in closed sprint {sprint.id}; the history of a closed sprint cannot change."
        )
    issue.sprint_id = None
    issue.updated_on = kit.today
    return {
        "issue_id": issue.id,
        "removed_from": sprint.id,
        "points_left": sprint.capacity_points - committed_points(db, sprint),
    }
