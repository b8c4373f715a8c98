"""What the issue tracker tools share: the kit, id lookups, the rules, result shapes.

The rules every tool keeps live here so that the tools read as their business logic:
membership (`check_member`), sprint capacity (`check_capacity`), the workflow of each issue type
(`check_transition`) and what must be done before an issue is (`check_can_finish`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gym_mcp.servers.issue_tracker.data import seed
from gym_mcp.servers.issue_tracker.models import (
    POINT_SCALE,
    TODAY,
    WORKFLOWS,
    Base,
    Issue,
    IssueLabel,
    Link,
    Project,
    ProjectMember,
    Sprint,
    User,
    Watcher,
)
from gym_mcp.servers.kit import Finder, ServerKit, ToolError, pick

__all__ = [
    "check_can_finish",
    "check_capacity",
    "check_member",
    "check_points",
    "check_transition",
    "committed_points",
    "issue_brief",
    "kit",
    "labels_of",
    "load_issue",
    "load_link",
    "load_project",
    "load_sprint",
    "load_user",
    "member_ids",
    "open_sprints_hint",
    "sprint_view",
    "user_brief",
    "watcher_ids",
]

INSTRUCTIONS = f"""\
Issue tracker of the Acme engineering teams. Projects have a short key ("WEB") and members
(users "USR-1001"); issues are the key and a number ("WEB-12"), of type bug, story, task or
epic, with a status that follows the type's workflow (get_workflow): open -> in_progress ->
in_review -> done for bugs and stories, tasks may skip review. Sprints ("SPR-1001") are planned,
then active (one per project at a time), then closed; an issue not in a sprint is in the
backlog. Links ("LNK-1001") say that one issue blocks another. Use search_issues to find issues
and get_issue for the full picture. Today is {TODAY.isoformat()}."""

kit = ServerKit(
    "issue_tracker",
    base=Base,
    seed=seed,
    instructions=INSTRUCTIONS,
    today=TODAY,
    samples={"limit": (3, 5, 10, 20), "project_key": ("WEB", "API", "MOB", "DATA", "OPS")},
    inline=True,
)

# -- lookups ------------------------------------------------------------------------------------

_MISSING = "No {noun} {id!r}. {Noun} ids look like '{example}'; {hint}."
load_user = Finder(User, "user", "USR-1001", "use list_users to see valid ones", message=_MISSING)
load_project = Finder(
    Project,
    "project",
    "WEB",
    "use list_projects to see the project keys",
    message="No project with key {id!r}. Project keys look like '{example}'; {hint}.",
)
load_issue = Finder(Issue, "issue", "WEB-12", "use search_issues to find valid ones", message=_MISSING)
load_sprint = Finder(
    Sprint, "sprint", "SPR-1001", "use list_sprints with the project key to see valid ones", message=_MISSING
)
load_link = Finder(Link, "link", "LNK-1001", "get_issue lists an issue's links with their ids", message=_MISSING)

# -- rules --------------------------------------------------------------------------------------


def member_ids(db: Session, project_key: str) -> list[str]:
    """Ids of a project's members, in id order."""
    return list(
        db.scalars(
            select(ProjectMember.user_id)
            .where(ProjectMember.project_key == project_key)
            .order_by(ProjectMember.user_id)
        )
    )


def check_member(db: Session, user: User, project_key: str, action: str) -> None:
    """Only members of a project may be assigned its issues or comment on them.

    Raises:
        ToolError: The user is not a member; the message lists the members.
    """
    members = member_ids(db, project_key)
    if user.id not in members:
        names = db.execute(select(User.id, User.name).where(User.id.in_(members)).order_by(User.id)).all()
        listed = ", ".join(f"{uid} ({name})" for uid, name in names)
        raise ToolError(
            f"{user.id} ({user.name}) is not a member of project {project_key} and cannot {action}. "
            f"Members of {project_key}: {listed}."
        )


def check_points(points: int) -> int:
    """Story points must be a value of the estimation scale."""
    if points not in POINT_SCALE:
        scale = ", ".join(str(p) for p in POINT_SCALE)
        raise ToolError(f"story_points must be one of {scale} (the Fibonacci scale); got {points}.")
    return points


def committed_points(db: Session, sprint: Sprint) -> int:
    """Story points of the issues in a sprint (unestimated issues count 0)."""
    stmt = select(func.coalesce(func.sum(Issue.story_points), 0)).where(Issue.sprint_id == sprint.id)
    return int(db.scalar(stmt) or 0)


def check_capacity(db: Session, sprint: Sprint, issue: Issue, points: int | None) -> None:
    """A sprint's issues may not add up to more story points than its capacity.

    Args:
        db: The session of the call.
        sprint: The sprint the issue is in or goes into.
        issue: The issue (when it is already in the sprint, only the points it adds count).
        points: The issue's points once the change is made.

    Raises:
        ToolError: The points would exceed the capacity; the message says how many are left.
    """
    left = sprint.capacity_points - committed_points(db, sprint)
    current = (issue.story_points or 0) if issue.sprint_id == sprint.id else 0
    if (points or 0) - current > left:
        if issue.sprint_id == sprint.id:
            change = f"raising {issue.id} from {current} to {points} points ({(points or 0) - current} more)"
        else:
            change = f"adding {issue.id} ({points} points)"
        raise ToolError(
            f"Sprint {sprint.id} ({sprint.name}) has {left} of {sprint.capacity_points} story points left; "
            f"{change} would exceed its capacity. Lower the estimate (update_issue), "
            f"remove another issue (remove_from_sprint), or plan it for a later sprint."
        )


def open_sprints_hint(db: Session, project_key: str, leave_out: str | None = None) -> str:
    """A sentence naming the project's sprints that are not closed, with the points each has left."""
    sprints = [
        s
        for s in db.scalars(
            select(Sprint).where(Sprint.project_key == project_key, Sprint.status != "closed").order_by(Sprint.id)
        )
        if s.id != leave_out
    ]
    if not sprints:
        return f"Project {project_key} has no open sprint; create one with create_sprint."
    listed = ", ".join(
        f"{s.id} ({s.name}, {s.status}, {s.capacity_points - committed_points(db, s)} points left)" for s in sprints
    )
    return f"Open sprints of {project_key}: {listed}."


def check_transition(issue: Issue, status: str) -> None:
    """An issue may only move to a status its type's workflow allows from its current one.

    Raises:
        ToolError: The move is not in the workflow; the message names the allowed next statuses.
    """
    allowed = WORKFLOWS[issue.type].get(issue.status, ())
    if status == issue.status:
        raise ToolError(
            f"{issue.id} is already {status}. From {status} a {issue.type} can move to: {', '.join(allowed)}."
        )
    if status not in allowed:
        raise ToolError(
            f"A {issue.type} cannot move from {issue.status} to {status}. From {issue.status}, {issue.id} can move "
            f"to: {', '.join(allowed)} (see get_workflow for the whole {issue.type} workflow)."
        )


def check_can_finish(db: Session, issue: Issue) -> None:
    """An issue cannot be done while an issue blocking it is not; an epic while a child is not.

    Raises:
        ToolError: The message names the blockers (or children) that are not done yet.
    """
    blockers = db.scalars(
        select(Issue)
        .join(Link, Link.blocker_id == Issue.id)
        .where(Link.blocked_id == issue.id, Issue.status != "done")
        .order_by(Issue.id)
    ).all()
    if blockers:
        listed = ", ".join(f"{b.id} ({b.status})" for b in blockers)
        raise ToolError(
            f"{issue.id} is blocked by issues that are not done: {listed}. Finish them first, or remove the "
            "link (unlink_issues) if it no longer applies."
        )
    if issue.type == "epic":
        children = db.scalars(
            select(Issue).where(Issue.epic_id == issue.id, Issue.status != "done").order_by(Issue.id)
        ).all()
        if children:
            listed = ", ".join(f"{c.id} ({c.status})" for c in children)
            raise ToolError(f"Epic {issue.id} still has issues that are not done: {listed}. Finish them first.")


# -- result shapes ------------------------------------------------------------------------------


def user_brief(user: User) -> dict[str, Any]:
    """A user as lists show one."""
    return {"user_id": user.id, **pick(user, "name", "email", "title")}


def labels_of(db: Session, issue_id: str) -> list[str]:
    """An issue's labels, sorted."""
    return list(db.scalars(select(IssueLabel.label).where(IssueLabel.issue_id == issue_id).order_by(IssueLabel.label)))


def issue_brief(issue: Issue) -> dict[str, Any]:
    """The fields of an issue a model needs in a list."""
    return {
        "issue_id": issue.id,
        **pick(issue, "type", "title", "status", "priority", "assignee_id", "story_points", "sprint_id", "epic_id"),
    }


def sprint_view(db: Session, sprint: Sprint) -> dict[str, Any]:
    """A sprint with its dates and how much of its capacity is committed."""
    committed = committed_points(db, sprint)
    out: dict[str, Any] = {
        "sprint_id": sprint.id,
        **pick(sprint, "project_key", "name", "goal", "status", "capacity_points"),
        "committed_points": committed,
        "points_left": sprint.capacity_points - committed,
        "start_date": sprint.start_date.isoformat(),
        "end_date": sprint.end_date.isoformat(),
    }
    if sprint.status == "closed":
        out["completed_points"] = sprint.completed_points
    return out


def watcher_ids(db: Session, issue_id: str) -> Sequence[str]:
    """Ids of an issue's watchers, in id order."""
    return db.scalars(select(Watcher.user_id).where(Watcher.issue_id == issue_id).order_by(Watcher.user_id)).all()
