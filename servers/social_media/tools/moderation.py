"""Social media tools for moderation: report a post for a listed reason, list reports, resolve them."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_limit, next_id, pick
from gym_mcp.servers.social_media.models import REPORT_ACTIONS, REPORT_REASONS, REPORT_STATUSES, Post, Report
from gym_mcp.servers.social_media.tools.common import (
    check_can_view,
    kit,
    load_post,
    load_report,
    load_user,
    now,
    remove_post,
)


def _view(report: Report) -> dict[str, Any]:
    return {
        "report_id": report.id,
        **pick(report, "post_id", "reporter_id", "reason", "details", "status", "filed_at", "resolution"),
    }


@kit.tool(
    write=True,
    intent="Have user {user_id} report post {post_id} for {reason}[ with the details '{details}']",
    samples={
        "reason": REPORT_REASONS,
        "details": ("Links to a scam site.", "Insults another user.", "Copied from my account."),
    },
)
def report_post(db: Session, post_id: str, user_id: str, reason: str, details: str | None = None) -> dict[str, Any]:
    """Report a post to the moderators for one of the fixed reasons.

    reason must be one of spam, harassment, hate_speech, misinformation, violence,
    impersonation, nudity. Users cannot report their own posts, nor a post they cannot see,
    and have at most one open report per post. Returns the new report (status "open").

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        post_id: Post id, e.g. "PST-1001".
        user_id: The user reporting, e.g. "USR-1001".
        reason: One of the fixed reasons, e.g. "spam".
        details: What is wrong, up to 300 characters, e.g. "Links to a scam site.".
    """
    post = load_post(db, post_id)
    user = load_user(db, user_id)
    why = reason.strip().lower().replace(" ", "_") if isinstance(reason, str) else ""
    if why not in REPORT_REASONS:
        raise ToolError(f"reason must be one of {', '.join(REPORT_REASONS)}; got {reason!r}")
    text = (details or "").strip()
    if len(text) > 300:
        raise ToolError("details must be at most 300 characters")
    if post.author_id == user.id:
        raise ToolError(f"{user.id} wrote {post.id}; users cannot report their own posts (delete_post removes it).")
    check_can_view(db, user, load_user(db, post.author_id))
    open_one = db.scalar(
        select(Report).where(Report.post_id == post.id, Report.reporter_id == user.id, Report.status == "open")
    )
    if open_one is not None:
        raise ToolError(f"{user.id} already has an open report on {post.id} ({open_one.id}, {open_one.reason}).")
    report = Report(
        id=next_id(db, Report.id, "RPT"),
        post_id=post.id,
        reporter_id=user.id,
        reason=why,
        details=text,
        status="open",
        filed_at=now(),
    )
    db.add(report)
    db.flush()
    return _view(report)


@kit.tool(
    write=False,
    intent="List the[ {status}] moderation reports[ on post {post_id}][, at most {limit}]",
    samples={"status": REPORT_STATUSES},
)
def list_reports(
    db: Session, status: str | None = None, post_id: str | None = None, limit: int = 20
) -> list[dict[str, Any]]:
    """List moderation reports, oldest first (the order moderators work through them).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        status: Only reports in this status: open, resolved or dismissed.
        post_id: Only reports on this post, e.g. "PST-1001" (also a removed one).
        limit: Maximum number of reports to return, 1 to 100, e.g. 20.
    """
    check_limit(limit)
    stmt = select(Report)
    if status is not None:
        wanted = status.strip().lower()
        if wanted not in REPORT_STATUSES:
            raise ToolError(f"status must be one of {', '.join(REPORT_STATUSES)}; got {status!r}")
        stmt = stmt.where(Report.status == wanted)
    if post_id is not None:
        stmt = stmt.where(Report.post_id == post_id.strip().upper())
    rows = db.scalars(stmt.order_by(Report.filed_at, Report.id).limit(limit))
    return [_view(r) for r in rows]


@kit.tool(
    write=True,
    intent="Resolve report {report_id} with the action {action}[, noting '{note}']",
    samples={
        "action": REPORT_ACTIONS,
        "note": ("Clear spam", "First offence", "Satire, allowed", "Repeated abuse"),
    },
    confirm="always",
)
def resolve_report(db: Session, report_id: str, action: str, note: str | None = None) -> dict[str, Any]:
    """Resolve an open report as a moderator.

    action "remove_post" deletes the reported post with its comments and likes (irreversible)
    and resolves every open report on it; "warn_author" resolves the report and keeps the post;
    "dismiss" closes it as no violation. Only an open report can be resolved.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        report_id: Report id, e.g. "RPT-1001".
        action: One of remove_post, warn_author, dismiss.
        note: The moderator's note, up to 200 characters, e.g. "Clear spam".
    """
    report = load_report(db, report_id)
    what = action.strip().lower().replace(" ", "_") if isinstance(action, str) else ""
    if what not in REPORT_ACTIONS:
        raise ToolError(f"action must be one of {', '.join(REPORT_ACTIONS)}; got {action!r}")
    text = (note or "").strip()
    if len(text) > 200:
        raise ToolError("note must be at most 200 characters")
    if report.status != "open":
        waiting = db.scalars(select(Report.id).where(Report.status == "open").order_by(Report.id).limit(5)).all()
        raise ToolError(
            f"Report {report.id} is already {report.status} ({report.resolution}); only an open report can be "
            f"resolved. Open reports: {', '.join(waiting) or 'none'}."
        )
    post = db.get(Post, report.post_id)
    out: dict[str, Any] = {}
    if what == "remove_post" and post is not None:
        resolution = "Post removed" + (f": {text}" if text else "")
        out = remove_post(db, post, resolution)
    else:
        report.status = "dismissed" if what == "dismiss" else "resolved"
        default = "No violation found" if what == "dismiss" else "Author warned"
        report.resolution = default + (f": {text}" if text else "")
    db.flush()
    return {**_view(report), **out}
