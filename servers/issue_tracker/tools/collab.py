"""Issue tracker tools for working together on an issue: comments, labels and watchers."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.issue_tracker.models import Comment, IssueLabel, User, Watcher
from gym_mcp.servers.issue_tracker.tools.common import (
    check_member,
    kit,
    labels_of,
    load_issue,
    load_user,
    watcher_ids,
)
from gym_mcp.servers.kit import ToolError, check_length, next_id

_LABEL = re.compile(r"^[a-z0-9][a-z0-9-]{0,29}$")
MAX_LABELS = 6
"""Most labels one issue may carry."""
LABEL_SAMPLES = ("regression", "tech-debt", "security", "ux", "performance", "customer-reported", "needs-triage")


def _label(value: str) -> str:
    """A label as stored: lower case, spaces as dashes; a `ToolError` when it is malformed."""
    text = value.strip().lower().replace(" ", "-")
    if not _LABEL.match(text):
        raise ToolError(
            f"label {value!r} is not valid: use 1 to 30 lower-case letters, digits or dashes, e.g. 'tech-debt'."
        )
    return text


@kit.tool(
    write=True,
    intent="Comment on issue {issue_id} as {author_id}: '{body}'",
    samples={
        "body": (
            "Picking this up today.",
            "Verified on staging, looks good.",
            "Can we split this into smaller issues?",
            "Blocked until the upstream fix lands.",
            "Added logs from the failing run.",
        )
    },
)
def add_comment(db: Session, issue_id: str, author_id: str, body: str) -> dict[str, Any]:
    """Post a comment on an issue. The author must be a member of the issue's project.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        issue_id: Issue key, e.g. "WEB-12".
        author_id: The member who writes it, e.g. "USR-1004".
        body: The text, 1 to 2000 characters, e.g. "Verified on staging, looks good.".
    """
    issue = load_issue(db, issue_id)
    author = load_user(db, author_id, "author_id")
    text = check_length(body.strip(), "body", 1, 2000, ", e.g. 'Verified on staging, looks good.'")
    check_member(db, author, issue.project_key, "comment on its issues")
    comment = Comment(
        id=next_id(db, Comment.id, "CMT"), issue_id=issue.id, author_id=author.id, body=text, posted_on=kit.today
    )
    db.add(comment)
    issue.updated_on = kit.today
    db.flush()
    return {"comment_id": comment.id, "issue_id": issue.id, "author_id": author.id, "posted_on": kit.today.isoformat()}


@kit.tool(write=False, intent="Show the comments on issue {issue_id}")
def list_comments(db: Session, issue_id: str) -> list[dict[str, Any]]:
    """List an issue's comments, oldest first, with author and date.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        issue_id: Issue key, e.g. "WEB-12".
    """
    issue = load_issue(db, issue_id)
    rows = db.execute(
        select(Comment, User.name)
        .join(User, User.id == Comment.author_id)
        .where(Comment.issue_id == issue.id)
        .order_by(Comment.posted_on, Comment.id)
    ).all()
    return [
        {
            "comment_id": c.id,
            "author_id": c.author_id,
            "author_name": name,
            "posted_on": c.posted_on.isoformat(),
            "body": c.body,
        }
        for c, name in rows
    ]


@kit.tool(write=True, intent="Label issue {issue_id} '{label}'", samples={"label": LABEL_SAMPLES})
def add_label(db: Session, issue_id: str, label: str) -> dict[str, Any]:
    """Add a label to an issue (at most 6 labels per issue).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        issue_id: Issue key, e.g. "WEB-12".
        label: 1 to 30 lower-case letters, digits or dashes, e.g. "tech-debt".
    """
    issue = load_issue(db, issue_id)
    name = _label(label)
    current = labels_of(db, issue.id)
    if name in current:
        raise ToolError(f"{issue.id} already has the label {name!r}; nothing changed.")
    if len(current) >= MAX_LABELS:
        raise ToolError(
            f"{issue.id} already has {len(current)} labels ({', '.join(current)}), the maximum is {MAX_LABELS}; "
            "remove one first (remove_label)."
        )
    db.add(IssueLabel(issue_id=issue.id, label=name))
    issue.updated_on = kit.today
    return {"issue_id": issue.id, "labels": sorted([*current, name])}


@kit.tool(write=True, intent="Remove the label '{label}' from issue {issue_id}", samples={"label": LABEL_SAMPLES})
def remove_label(db: Session, issue_id: str, label: str) -> dict[str, Any]:
    """Remove a label from an issue.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        issue_id: Issue key, e.g. "WEB-12".
        label: A label the issue has, e.g. "tech-debt" (get_issue lists them).
    """
    issue = load_issue(db, issue_id)
    name = label.strip().lower().replace(" ", "-")
    row = db.get(IssueLabel, (issue.id, name))
    if row is None:
        current = labels_of(db, issue.id)
        has = f"its labels are: {', '.join(current)}" if current else "it has no labels"
        raise ToolError(f"{issue.id} has no label {name!r}; {has}.")
    db.delete(row)
    issue.updated_on = kit.today
    return {"issue_id": issue.id, "removed": name, "labels": [x for x in labels_of(db, issue.id) if x != name]}


@kit.tool(write=True, intent="Make {user_id} watch issue {issue_id}")
def watch_issue(db: Session, issue_id: str, user_id: str) -> dict[str, Any]:
    """Add a user to an issue's watchers, so they follow its changes. Any user may watch any issue.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        issue_id: Issue key, e.g. "WEB-12".
        user_id: The user who will watch it, e.g. "USR-1004".
    """
    issue = load_issue(db, issue_id)
    user = load_user(db, user_id)
    if db.get(Watcher, (issue.id, user.id)) is not None:
        raise ToolError(f"{user.id} ({user.name}) already watches {issue.id}; nothing changed.")
    db.add(Watcher(issue_id=issue.id, user_id=user.id))
    db.flush()
    return {"issue_id": issue.id, "watchers": list(watcher_ids(db, issue.id))}


@kit.tool(write=True, intent="Stop {user_id} watching issue {issue_id}")
def unwatch_issue(db: Session, issue_id: str, user_id: str) -> dict[str, Any]:
    """Remove a user from an issue's watchers. The assignee keeps watching while assigned.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        issue_id: Issue key, e.g. "WEB-12".
        user_id: A current watcher, e.g. "USR-1004".
    """
    issue = load_issue(db, issue_id)
    user = load_user(db, user_id)
    row = db.get(Watcher, (issue.id, user.id))
    if row is None:
        watchers = ", ".join(watcher_ids(db, issue.id)) or "none"
        raise ToolError(f"{user.id} ({user.name}) does not watch {issue.id}; its watchers are: {watchers}.")
    if issue.assignee_id == user.id:
        raise ToolError(
            f"{user.id} is the assignee of {issue.id} and keeps watching it while assigned; "
            "assign it to someone else first (assign_issue)."
        )
    db.delete(row)
    db.flush()
    return {"issue_id": issue.id, "watchers": list(watcher_ids(db, issue.id))}
