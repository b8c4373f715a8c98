"""Issue tracker tools that read projects, their members, users and the workflows."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.issue_tracker.models import ISSUE_TYPES, WORKFLOWS, Issue, Project, ProjectMember, Sprint, User
from gym_mcp.servers.issue_tracker.tools.common import kit, load_project, sprint_view, user_brief
from gym_mcp.servers.kit import ToolError, check_limit


@kit.tool(write=False, intent="List all the projects")
def list_projects(db: Session) -> list[dict[str, Any]]:
    """List every project with its key, name, lead and how many issues are not done yet.

    Use this first to learn the project keys (like "WEB") the other tools take.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
    """
    out = []
    for project in db.scalars(select(Project).order_by(Project.key)):
        open_issues = db.scalar(
            select(func.count()).select_from(Issue).where(Issue.project_key == project.key, Issue.status != "done")
        )
        out.append(
            {
                "project_key": project.key,
                "name": project.name,
                "lead_id": project.lead_id,
                "open_issues": open_issues,
            }
        )
    return out


@kit.tool(write=False, intent="Show project {project_key} with its members and current sprint")
def get_project(db: Session, project_key: str) -> dict[str, Any]:
    """Get a project: description, lead, members (who can be assigned), sprint status and issue counts.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        project_key: The project's key, e.g. "WEB".
    """
    project = load_project(db, project_key)
    members = db.execute(
        select(User, ProjectMember.role)
        .join(ProjectMember, ProjectMember.user_id == User.id)
        .where(ProjectMember.project_key == project.key)
        .order_by(User.id)
    ).all()
    counts: dict[str, int] = dict(
        db.execute(
            select(Issue.status, func.count()).where(Issue.project_key == project.key).group_by(Issue.status)
        ).all()
    )
    active = db.scalar(select(Sprint).where(Sprint.project_key == project.key, Sprint.status == "active"))
    backlog = db.scalar(
        select(func.count())
        .select_from(Issue)
        .where(
            Issue.project_key == project.key, Issue.sprint_id.is_(None), Issue.status != "done", Issue.type != "epic"
        )
    )
    return {
        "project_key": project.key,
        "name": project.name,
        "description": project.description,
        "lead_id": project.lead_id,
        "members": [{"user_id": u.id, "name": u.name, "role": role} for u, role in members],
        "issues_by_status": dict(sorted(counts.items())),
        "backlog_issues": backlog,
        "active_sprint": sprint_view(db, active) if active else None,
    }


@kit.tool(
    write=False,
    intent="List the users[ matching '{query}'][ in project {project_key}]",
    samples={"query": ("Chen", "Garcia", "Patel", "engineer", "Designer", "Kim")},
)
def list_users(
    db: Session, query: str | None = None, project_key: str | None = None, limit: int = 50
) -> list[dict[str, Any]]:
    """List users, optionally only those matching a name, email or title, or only a project's members.

    Use it to find a user id (like "USR-1001") before assigning an issue or commenting.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        query: Part of a name, email or job title (case-insensitive), e.g. "chen".
        project_key: Only members of this project, e.g. "WEB".
        limit: Maximum number of users to return, 1 to 100.
    """
    check_limit(limit)
    stmt = select(User)
    if query is not None:
        text = query.strip().lower()
        if len(text) < 2:
            raise ToolError("query must have at least 2 characters, e.g. a last name like 'Chen'.")
        stmt = stmt.where(
            or_(
                func.lower(User.name).contains(text, autoescape=True),
                func.lower(User.email).contains(text, autoescape=True),
                func.lower(User.title).contains(text, autoescape=True),
            )
        )
    if project_key is not None:
        project = load_project(db, project_key)
        stmt = stmt.join(ProjectMember, ProjectMember.user_id == User.id).where(
            ProjectMember.project_key == project.key
        )
    return [user_brief(u) for u in db.scalars(stmt.order_by(User.id).limit(limit))]


@kit.tool(
    write=False,
    intent="Show the workflow of {issue_type} issues",
    samples={"issue_type": ISSUE_TYPES},
)
def get_workflow(db: Session, issue_type: str) -> dict[str, Any]:
    """Get the workflow of an issue type: from each status, the statuses an issue may move to next.

    Use it before transition_issue when unsure which move is allowed.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        issue_type: "bug", "story", "task" or "epic".
    """
    kind = issue_type.strip().lower()
    if kind not in WORKFLOWS:
        raise ToolError(f"issue_type must be one of {', '.join(ISSUE_TYPES)}; got {issue_type!r}.")
    return {
        "issue_type": kind,
        "statuses": list(WORKFLOWS[kind]),
        "transitions": {status: list(nxt) for status, nxt in WORKFLOWS[kind].items()},
    }
