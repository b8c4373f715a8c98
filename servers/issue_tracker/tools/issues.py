"""Issue tracker tools that find, read, create, change, assign and delete issues."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.orm import Session

from gym_mcp.servers.issue_tracker.models import (
    ISSUE_TYPES,
    PRIORITIES,
    STATUSES,
    WORKFLOWS,
    Comment,
    Issue,
    IssueLabel,
    Link,
    Sprint,
    Watcher,
)
from gym_mcp.servers.issue_tracker.tools.common import (
    check_capacity,
    check_member,
    check_points,
    issue_brief,
    kit,
    labels_of,
    load_issue,
    load_project,
    load_sprint,
    load_user,
    watcher_ids,
)
from gym_mcp.servers.kit import ToolError, check_length, check_limit, norm_id

TITLES = (
    "Checkout button unresponsive on mobile",
    "Add retry to webhook delivery",
    "Improve search relevance",
    "Document the release process",
    "Cache product images",
    "Nightly job misses late events",
    "Support dark mode in settings",
)
DESCRIPTIONS = (
    "Steps to reproduce are in the support ticket.",
    "Agreed at planning; see the design doc.",
    "Customer-reported, affects about 5% of sessions.",
)


def _choice(value: str, allowed: tuple[str, ...], field: str) -> str:
    """A value of a fixed vocabulary, normalised, or a `ToolError` listing the valid ones."""
    text = value.strip().lower().replace(" ", "_").replace("-", "_")
    if text not in allowed:
        raise ToolError(f"{field} must be one of {', '.join(allowed)}; got {value!r}.")
    return text


def _epic_for(db: Session, epic_id: str, issue_project: str) -> Issue:
    """An epic of the project an issue belongs to, or a `ToolError` naming the project's epics."""
    epic = load_issue(db, epic_id, "epic_id")
    if epic.type == "epic" and epic.project_key == issue_project:
        return epic
    epics = db.scalars(
        select(Issue).where(Issue.project_key == issue_project, Issue.type == "epic").order_by(Issue.number)
    ).all()
    listed = ", ".join(f"{e.id} ({e.title})" for e in epics) or "none"
    what = f"a {epic.type}, not an epic" if epic.type != "epic" else f"an epic of project {epic.project_key}"
    raise ToolError(
        f"{epic.id} is {what}; an issue of {issue_project} can only go under an epic of {issue_project}: {listed}."
    )


@kit.tool(
    write=False,
    intent=(
        "Find the issues[ of project {project_key}][ with status {status}][ of type {issue_type}]"
        "[ assigned to {assignee_id}][ labelled '{label}'][ in sprint {sprint_id}][ mentioning '{text}']"
        "[, showing at most {limit}]"
    ),
    samples={
        "status": STATUSES,
        "issue_type": ("bug", "story", "task", "epic"),
        "label": ("regression", "tech-debt", "security", "ux", "performance"),
        "text": ("checkout", "timeout", "cluster", "dashboard", "login"),
    },
)
def search_issues(
    db: Session,
    project_key: str | None = None,
    status: str | None = None,
    issue_type: str | None = None,
    assignee_id: str | None = None,
    label: str | None = None,
    sprint_id: str | None = None,
    text: str | None = None,
    limit: int = 20,
) -> dict[str, Any]:
    """Search issues by any combination of filters; all filters are optional and combine with AND.

    Returns {issues, total, more}: the matching issues (newest first within a project order),
    how many match in all, and whether more exist beyond the limit.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        project_key: Only issues of this project, e.g. "WEB".
        status: Only this status: open, in_progress, in_review or done.
        issue_type: Only this type: bug, story, task or epic.
        assignee_id: Only issues assigned to this user, e.g. "USR-1004"; "unassigned" for none.
        label: Only issues with this label, e.g. "regression".
        sprint_id: Only issues in this sprint, e.g. "SPR-1004"; "backlog" for issues in no sprint.
        text: Words in the title or description (case-insensitive), e.g. "checkout".
        limit: Maximum number of issues to return, 1 to 100.
    """
    check_limit(limit)
    stmt = select(Issue)
    if project_key is not None:
        stmt = stmt.where(Issue.project_key == load_project(db, project_key).key)
    if status is not None:
        stmt = stmt.where(Issue.status == _choice(status, STATUSES, "status"))
    if issue_type is not None:
        stmt = stmt.where(Issue.type == _choice(issue_type, ISSUE_TYPES, "issue_type"))
    if assignee_id is not None:
        if assignee_id.strip().lower() == "unassigned":
            stmt = stmt.where(Issue.assignee_id.is_(None))
        else:
            stmt = stmt.where(Issue.assignee_id == load_user(db, assignee_id, "assignee_id").id)
    if label is not None:
        stmt = stmt.where(Issue.id.in_(select(IssueLabel.issue_id).where(IssueLabel.label == label.strip().lower())))
    if sprint_id is not None:
        if sprint_id.strip().lower() == "backlog":
            stmt = stmt.where(Issue.sprint_id.is_(None), Issue.type != "epic")
        else:
            stmt = stmt.where(Issue.sprint_id == load_sprint(db, sprint_id).id)
    if text is not None:
        words = text.strip().lower()
        if len(words) < 2:
            raise ToolError("text must have at least 2 characters, e.g. 'checkout'.")
        stmt = stmt.where(
            or_(
                func.lower(Issue.title).contains(words, autoescape=True),
                func.lower(Issue.description).contains(words, autoescape=True),
            )
        )
    total = db.scalar(select(func.count()).select_from(stmt.subquery()))
    rows = db.scalars(stmt.order_by(Issue.project_key, Issue.number.desc()).limit(limit)).all()
    return {"issues": [issue_brief(i) for i in rows], "total": total, "more": (total or 0) > len(rows)}


@kit.tool(write=False, intent="Show the details of issue {issue_id}")
def get_issue(db: Session, issue_id: str) -> dict[str, Any]:
    """Get everything about one issue: fields, labels, watchers, links, children and next statuses.

    ``blocks`` and ``blocked_by`` list the linked issues with the link id (for unlink_issues);
    ``next_statuses`` are the statuses transition_issue accepts now.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        issue_id: Issue key, e.g. "WEB-12".
    """
    issue = load_issue(db, issue_id)
    out = issue_brief(issue)
    out.update(
        {
            "project_key": issue.project_key,
            "description": issue.description,
            "reporter_id": issue.reporter_id,
            "created_on": issue.created_on.isoformat(),
            "updated_on": issue.updated_on.isoformat(),
            "resolved_on": issue.resolved_on.isoformat() if issue.resolved_on else None,
            "labels": labels_of(db, issue.id),
            "watchers": list(watcher_ids(db, issue.id)),
            "next_statuses": list(WORKFLOWS[issue.type].get(issue.status, ())),
        }
    )
    blocks = db.execute(
        select(Link.id, Issue.id, Issue.status)
        .join(Issue, Issue.id == Link.blocked_id)
        .where(Link.blocker_id == issue.id)
        .order_by(Link.id)
    ).all()
    blocked_by = db.execute(
        select(Link.id, Issue.id, Issue.status)
        .join(Issue, Issue.id == Link.blocker_id)
        .where(Link.blocked_id == issue.id)
        .order_by(Link.id)
    ).all()
    out["blocks"] = [{"link_id": lid, "issue_id": iid, "status": st} for lid, iid, st in blocks]
    out["blocked_by"] = [{"link_id": lid, "issue_id": iid, "status": st} for lid, iid, st in blocked_by]
    out["comment_count"] = db.scalar(select(func.count()).select_from(Comment).where(Comment.issue_id == issue.id))
    if issue.type == "epic":
        children = db.scalars(select(Issue).where(Issue.epic_id == issue.id).order_by(Issue.number)).all()
        out["children"] = [{"issue_id": c.id, "status": c.status, "story_points": c.story_points} for c in children]
    return out


@kit.tool(
    write=True,
    intent=(
        "Create a {issue_type} in project {project_key} titled '{title}', reported by {reporter_id}"
        "[, with priority {priority}][, estimated at {story_points} points][, assigned to {assignee_id}]"
        "[, under epic {epic_id}][, described as '{description}']"
    ),
    samples={
        "issue_type": ("bug", "story", "task", "bug", "story", "task", "epic"),
        "title": TITLES,
        "priority": PRIORITIES,
        "story_points": (1, 2, 3, 5, 8),
        "description": DESCRIPTIONS,
    },
)
def create_issue(
    db: Session,
    project_key: str,
    issue_type: str,
    title: str,
    reporter_id: str,
    priority: str = "medium",
    story_points: int | None = None,
    assignee_id: str | None = None,
    epic_id: str | None = None,
    description: str = "",
) -> dict[str, Any]:
    """Create an issue in a project's backlog, status open. Its key is the project key and the next number.

    The reporter and any assignee must be members of the project (get_project lists them); an
    epic takes no story points and no parent epic.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        project_key: The project's key, e.g. "WEB".
        issue_type: "bug", "story", "task" or "epic".
        title: 3 to 120 characters, e.g. "Checkout button unresponsive on mobile".
        reporter_id: Member who reports it, e.g. "USR-1004".
        priority: "low", "medium", "high" or "critical".
        story_points: Estimate on the scale 1, 2, 3, 5, 8, 13, 21; leave out for none.
        assignee_id: Member to assign it to, e.g. "USR-1007"; leave out for unassigned.
        epic_id: An epic of the same project to put it under, e.g. "WEB-2".
        description: Longer text, e.g. "Steps to reproduce are in the support ticket.".
    """
    project = load_project(db, project_key)
    kind = _choice(issue_type, ISSUE_TYPES, "issue_type")
    text = check_length(title.strip(), "title", 3, 120, ", e.g. 'Checkout button unresponsive on mobile'")
    level = _choice(priority, PRIORITIES, "priority")
    reporter = load_user(db, reporter_id, "reporter_id")
    check_member(db, reporter, project.key, "report its issues")
    assignee = None
    if assignee_id is not None:
        assignee = load_user(db, assignee_id, "assignee_id")
        check_member(db, assignee, project.key, "be assigned its issues")
    if kind == "epic" and story_points is not None:
        raise ToolError("An epic takes no story points; estimate its child issues instead. Leave story_points out.")
    if kind == "epic" and epic_id is not None:
        raise ToolError("An epic cannot go under another epic; leave epic_id out.")
    points = check_points(story_points) if story_points is not None else None
    epic = _epic_for(db, epic_id, project.key) if epic_id is not None else None
    number = project.next_number
    project.next_number += 1
    issue = Issue(
        id=f"{project.key}-{number}",
        project_key=project.key,
        number=number,
        type=kind,
        title=text,
        description=description.strip(),
        status="open",
        priority=level,
        assignee_id=assignee.id if assignee else None,
        reporter_id=reporter.id,
        story_points=points,
        epic_id=epic.id if epic else None,
        created_on=kit.today,
        updated_on=kit.today,
    )
    db.add(issue)
    db.flush()
    for user_id in sorted({reporter.id} | ({assignee.id} if assignee else set())):
        db.add(Watcher(issue_id=issue.id, user_id=user_id))
    return {**issue_brief(issue), "project_key": project.key, "reporter_id": reporter.id}


@kit.tool(
    write=True,
    intent=(
        "Update issue {issue_id}[: set the title to '{title}'][, set the priority to {priority}]"
        "[, estimate it at {story_points} points][, set the description to '{description}']"
    ),
    samples={
        "title": TITLES,
        "priority": PRIORITIES,
        "story_points": (1, 2, 3, 5, 8, 13),
        "description": DESCRIPTIONS,
    },
)
def update_issue(
    db: Session,
    issue_id: str,
    title: str | None = None,
    priority: str | None = None,
    story_points: int | None = None,
    description: str | None = None,
) -> dict[str, Any]:
    """Change an issue's title, priority, story points or description; give only what changes.

    New story points of an issue in a planned or active sprint must still fit the sprint's
    capacity. Epics take no story points.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        issue_id: Issue key, e.g. "WEB-12".
        title: New title, 3 to 120 characters, e.g. "Cache product images".
        priority: New priority: "low", "medium", "high" or "critical".
        story_points: New estimate on the scale 1, 2, 3, 5, 8, 13, 21.
        description: New description, e.g. "Agreed at planning; see the design doc.".
    """
    issue = load_issue(db, issue_id)
    changes: dict[str, Any] = {}
    if title is not None:
        changes["title"] = check_length(title.strip(), "title", 3, 120, ", e.g. 'Cache product images'")
    if priority is not None:
        changes["priority"] = _choice(priority, PRIORITIES, "priority")
    if story_points is not None:
        if issue.type == "epic":
            raise ToolError(f"{issue.id} is an epic; epics take no story points. Estimate its child issues instead.")
        changes["story_points"] = check_points(story_points)
        sprint = db.get(Sprint, issue.sprint_id) if issue.sprint_id else None
        if sprint is not None and sprint.status != "closed":
            check_capacity(db, sprint, issue, story_points)
    if description is not None:
        changes["description"] = description.strip()
    if not changes:
        raise ToolError("Nothing to update: give at least one of title, priority, story_points or description.")
    changed = {k: v for k, v in changes.items() if getattr(issue, k) != v}
    if not changed:
        raise ToolError(f"{issue.id} already has these values; nothing changed.")
    for key, value in changed.items():
        setattr(issue, key, value)
    issue.updated_on = kit.today
    return {"issue_id": issue.id, "updated": sorted(changed), **issue_brief(issue)}


@kit.tool(write=True, intent="Assign issue {issue_id} to {user_id}")
def assign_issue(db: Session, issue_id: str, user_id: str) -> dict[str, Any]:
    """Assign an issue to a member of its project (they also start watching it).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        issue_id: Issue key, e.g. "WEB-12".
        user_id: A member of the issue's project, e.g. "USR-1004" (get_project lists members).
    """
    issue = load_issue(db, issue_id)
    user = load_user(db, user_id)
    if issue.assignee_id == user.id:
        raise ToolError(f"{issue.id} is already assigned to {user.id} ({user.name}); nothing changed.")
    check_member(db, user, issue.project_key, "be assigned its issues")
    previous = issue.assignee_id
    issue.assignee_id = user.id
    issue.updated_on = kit.today
    if db.get(Watcher, (issue.id, user.id)) is None:
        db.add(Watcher(issue_id=issue.id, user_id=user.id))
    return {"issue_id": issue.id, "assignee_id": user.id, "assignee_name": user.name, "previous_assignee_id": previous}


@kit.tool(write=True, intent="Put issue {issue_id} under epic {epic_id}")
def set_epic(db: Session, issue_id: str, epic_id: str) -> dict[str, Any]:
    """Make an issue a child of an epic of the same project (replacing any epic it had).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        issue_id: The bug, story or task, e.g. "WEB-12".
        epic_id: An epic of the same project, e.g. "WEB-2" (search_issues with issue_type "epic").
    """
    issue = load_issue(db, issue_id)
    if issue.type == "epic":
        raise ToolError(f"{issue.id} is itself an epic; only bugs, stories and tasks go under an epic.")
    epic = _epic_for(db, epic_id, issue.project_key)
    if issue.epic_id == epic.id:
        raise ToolError(f"{issue.id} is already under epic {epic.id}; nothing changed.")
    previous = issue.epic_id
    issue.epic_id = epic.id
    issue.updated_on = kit.today
    return {"issue_id": issue.id, "epic_id": epic.id, "epic_title": epic.title, "previous_epic_id": previous}


@kit.tool(write=True, intent="Delete issue {issue_id} permanently", confirm="always")
def delete_issue(db: Session, issue_id: str) -> dict[str, Any]:
    """Delete an issue for good, with its comments, labels, watchers and links. This cannot be undone.

    Children of a deleted epic stay, without an epic. Prefer transition_issue to done for work
    that was finished; delete only duplicates and mistakes.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        issue_id: Issue key, e.g. "WEB-12".
    """
    issue = load_issue(db, issue_id)
    key = norm_id(issue.id)
    comments = db.scalar(select(func.count()).select_from(Comment).where(Comment.issue_id == key)) or 0
    links = (
        db.scalar(select(func.count()).select_from(Link).where(or_(Link.blocker_id == key, Link.blocked_id == key)))
        or 0
    )
    children = db.scalars(select(Issue.id).where(Issue.epic_id == key).order_by(Issue.number)).all()
    db.execute(update(Issue).where(Issue.epic_id == key).values(epic_id=None))
    db.execute(delete(Comment).where(Comment.issue_id == key))
    db.execute(delete(IssueLabel).where(IssueLabel.issue_id == key))
    db.execute(delete(Watcher).where(Watcher.issue_id == key))
    db.execute(delete(Link).where(or_(Link.blocker_id == key, Link.blocked_id == key)))
    db.delete(issue)
    return {
        "deleted": key,
        "title": issue.title,
        "comments_deleted": comments,
        "links_removed": links,
        "children_detached": list(children),
    }
