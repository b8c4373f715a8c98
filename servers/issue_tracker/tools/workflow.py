"""Issue tracker tools that move issues through their workflow and link them (blocks / is blocked by)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.issue_tracker.models import STATUSES, Link
from gym_mcp.servers.issue_tracker.tools.common import (
    check_can_finish,
    check_transition,
    kit,
    load_issue,
    load_link,
)
from gym_mcp.servers.kit import ToolError, next_id


@kit.tool(
    write=True,
    intent="Move issue {issue_id} to {status}",
    samples={"status": ("in_progress", "in_review", "done", "open", "in_progress", "done")},
)
def transition_issue(db: Session, issue_id: str, status: str) -> dict[str, Any]:
    """Move an issue to another status, as its type's workflow allows (get_workflow shows it).

    Bugs and stories go open -> in_progress -> in_review -> done; tasks may go straight to done;
    a done issue can be reopened. An issue cannot be done while an issue blocking it is not done,
    nor an epic while one of its children is not done.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        issue_id: Issue key, e.g. "WEB-12".
        status: The new status: "open", "in_progress", "in_review" or "done".
    """
    issue = load_issue(db, issue_id)
    target = status.strip().lower().replace(" ", "_").replace("-", "_")
    if target not in STATUSES:
        raise ToolError(f"status must be one of {', '.join(STATUSES)}; got {status!r}.")
    check_transition(issue, target)
    if target == "done":
        check_can_finish(db, issue)
    previous = issue.status
    issue.status = target
    issue.resolved_on = kit.today if target == "done" else None
    issue.updated_on = kit.today
    return {"issue_id": issue.id, "previous_status": previous, "status": target}


@kit.tool(write=True, intent="Record that issue {issue_id} blocks issue {blocked_issue_id}")
def link_issues(db: Session, issue_id: str, blocked_issue_id: str) -> dict[str, Any]:
    """Record a dependency: issue_id blocks blocked_issue_id (which cannot be done before it).

    Issues of different projects may be linked. A done issue cannot be newly blocked by one
    that is not done, and two issues cannot block each other.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        issue_id: The blocking issue, e.g. "WEB-12".
        blocked_issue_id: The issue that has to wait for it, e.g. "WEB-15".
    """
    blocker = load_issue(db, issue_id)
    blocked = load_issue(db, blocked_issue_id, "blocked_issue_id")
    if blocker.id == blocked.id:
        raise ToolError(f"An issue cannot block itself; give two different issues (got {blocker.id} twice).")
    existing = db.scalar(
        select(Link).where(
            or_(
                (Link.blocker_id == blocker.id) & (Link.blocked_id == blocked.id),
                (Link.blocker_id == blocked.id) & (Link.blocked_id == blocker.id),
            )
        )
    )
    if existing is not None:
        if existing.blocker_id == blocker.id:
            raise ToolError(f"{blocker.id} already blocks {blocked.id} (link {existing.id}); nothing changed.")
        raise ToolError(
            f"{blocked.id} already blocks {blocker.id} (link {existing.id}); two issues cannot block each other. "
            f"Remove that link first (unlink_issues) to reverse the dependency."
        )
    if blocked.status == "done" and blocker.status != "done":
        raise ToolError(
            f"{blocked.id} is already done, so {blocker.id} ({blocker.status}) cannot block it. "
            f"Reopen {blocked.id} first (transition_issue) if the work is not finished."
        )
    link = Link(id=next_id(db, Link.id, "LNK"), blocker_id=blocker.id, blocked_id=blocked.id)
    db.add(link)
    db.flush()
    return {"link_id": link.id, "blocker_id": blocker.id, "blocked_id": blocked.id}


@kit.tool(write=True, intent="Remove the dependency link {link_id}")
def unlink_issues(db: Session, link_id: str) -> dict[str, Any]:
    """Remove a "blocks" link between two issues.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        link_id: Link id from get_issue's blocks / blocked_by lists, e.g. "LNK-1003".
    """
    link = load_link(db, link_id)
    db.delete(link)
    return {"removed": link.id, "blocker_id": link.blocker_id, "blocked_id": link.blocked_id}
