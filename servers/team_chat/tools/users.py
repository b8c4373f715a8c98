"""Team chat tools for people: find users, show a profile, set a status, and direct messages."""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_length, check_limit, next_id
from gym_mcp.servers.team_chat.models import PRESENCES, Channel, DirectMessage, Membership, User
from gym_mcp.servers.team_chat.tools.common import (
    NOW,
    acting_user,
    check_text,
    kit,
    load_user,
    load_workspace,
    norm_emoji,
    user_brief,
)


def _dm_view(dm: DirectMessage) -> dict[str, Any]:
    return {
        "dm_id": dm.id,
        "from_user_id": dm.user_id,
        "to_user_id": dm.to_user_id,
        "text": dm.text,
        "sent_at": dm.sent_at.isoformat(timespec="minutes"),
    }


@kit.tool(
    write=False,
    intent="List the users of workspace {workspace_id}[ matching '{query}'][, at most {limit} of them]",
    samples={"query": ("garcia", "engineer", "designer", "chen", "product", "sofia", "manager")},
)
def list_users(
    db: Session, workspace_id: str, query: str | None = None, include_deactivated: bool = False, limit: int = 50
) -> list[dict[str, Any]]:
    """List a workspace's people with display name, full name, title, presence and status.

    Filter with query (case-insensitive, partial match on display name, full name, email or
    title). Deactivated users are left out unless include_deactivated is true.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        workspace_id: Workspace id, e.g. "WKS-1001".
        query: Optional text to match, e.g. "garcia" or "designer".
        include_deactivated: Also list deactivated users.
        limit: Maximum number of users to return, 1 to 100.
    """
    check_limit(limit)
    ws = load_workspace(db, workspace_id)
    stmt = select(User).where(User.workspace_id == ws.id)
    if query is not None and query.strip():
        text = query.strip()
        stmt = stmt.where(
            or_(
                User.display_name.icontains(text, autoescape=True),
                User.full_name.icontains(text, autoescape=True),
                User.email.icontains(text, autoescape=True),
                User.title.icontains(text, autoescape=True),
            )
        )
    if not include_deactivated:
        stmt = stmt.where(User.deactivated.is_(False))
    return [user_brief(u) for u in db.scalars(stmt.order_by(User.id).limit(limit))]


@kit.tool(write=False, intent="Show the profile of user {user_id}")
def get_user(db: Session, user_id: str) -> dict[str, Any]:
    """Get one user's profile: names, email, title, presence, status and the channels they belong to.

    Only the user's public channels are listed, and private ones are counted.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        user_id: User id, e.g. "USR-1001".
    """
    user = load_user(db, user_id)
    channels = db.scalars(
        select(Channel)
        .join(Membership, Membership.channel_id == Channel.id)
        .where(Membership.user_id == user.id)
        .order_by(Channel.name)
    ).all()
    return {
        **user_brief(user),
        "workspace_id": user.workspace_id,
        "email": user.email,
        "deactivated": user.deactivated,
        "channels": [{"channel_id": c.id, "name": c.name} for c in channels if not c.is_private],
        "private_channel_count": sum(c.is_private for c in channels),
    }


@kit.tool(
    write=True,
    intent="Set {user_id}'s status to '{status_text}'[ with the emoji :{status_emoji}:][ and presence {presence}]",
    samples={
        "status_text": ("In a meeting", "On vacation", "Out sick", "Focusing", "Commuting", "Back at 2pm"),
        "status_emoji": ("calendar", "palm_tree", "face_with_thermometer", "headphones", "bus"),
        "presence": PRESENCES,
    },
)
def set_status(
    db: Session, user_id: str, status_text: str, status_emoji: str | None = None, presence: str | None = None
) -> dict[str, Any]:
    """Set the acting user's own status text (and optionally emoji and presence); "" clears the text.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        user_id: The acting user whose status changes, e.g. "USR-1001".
        status_text: Status text, up to 100 characters, e.g. "In a meeting"; "" clears the status.
        status_emoji: Optional emoji name, e.g. "calendar" or ":palm_tree:".
        presence: Optional presence: "active", "away" or "dnd" (do not disturb).
    """
    user = acting_user(db, user_id)
    text = check_length(status_text.strip(), "status_text", 0, 100, ", e.g. 'In a meeting'")
    emoji = norm_emoji(status_emoji) if status_emoji else ("" if not text else user.status_emoji)
    if presence is not None:
        wanted = presence.strip().lower()
        if wanted not in PRESENCES:
            raise ToolError(f"presence must be one of {', '.join(PRESENCES)}; got {presence!r}")
        user.presence = wanted
    user.status_text = text
    user.status_emoji = emoji if text else ""
    return user_brief(user) | {"status": {"text": user.status_text, "emoji": user.status_emoji}}


@kit.tool(
    write=True,
    intent="Send a direct message '{text}' from {user_id} to {to_user_id}",
    samples={
        "text": (
            "Do you have a minute to chat?",
            "Thanks for your help today!",
            "Can you send me the slides?",
            "Running 5 minutes late.",
            "Lunch tomorrow?",
        )
    },
)
def send_direct_message(db: Session, user_id: str, to_user_id: str, text: str) -> dict[str, Any]:
    """Send a private direct message from the acting user to another active user of the same workspace.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        user_id: The acting user, the sender, e.g. "USR-1001".
        to_user_id: The recipient, e.g. "USR-1004".
        text: The message, 1 to 4000 characters, e.g. "Lunch tomorrow?".
    """
    sender = acting_user(db, user_id)
    recipient = load_user(db, to_user_id, "to_user_id")
    body = check_text(text)
    if recipient.id == sender.id:
        raise ToolError(f"{sender.id} cannot send a direct message to themselves; pick another to_user_id.")
    if recipient.workspace_id != sender.workspace_id:
        raise ToolError(
            f"{recipient.id} is in workspace {recipient.workspace_id}, not {sender.workspace_id}; direct messages "
            "stay within one workspace (list_users shows its people)."
        )
    if recipient.deactivated:
        raise ToolError(f"{recipient.id} ({recipient.full_name}) is deactivated and cannot receive messages.")
    dm = DirectMessage(
        id=next_id(db, DirectMessage.id, "DM"),
        workspace_id=sender.workspace_id,
        user_id=sender.id,
        to_user_id=recipient.id,
        text=body,
        sent_at=NOW,
    )
    db.add(dm)
    db.flush()
    return _dm_view(dm)


@kit.tool(
    write=False,
    intent="Show the direct messages between {user_id} and {with_user_id}[, the latest {limit}]",
)
def list_direct_messages(db: Session, user_id: str, with_user_id: str, limit: int = 20) -> dict[str, Any]:
    """List the direct messages between the acting user and one other user, newest first.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        user_id: The acting user reading their conversation, e.g. "USR-1001".
        with_user_id: The other person in the conversation, e.g. "USR-1004".
        limit: Maximum number of messages to return, 1 to 100.
    """
    check_limit(limit)
    user = acting_user(db, user_id)
    other = load_user(db, with_user_id, "with_user_id")
    if other.id == user.id:
        raise ToolError("with_user_id must be another user than user_id.")
    pair = or_(
        and_(DirectMessage.user_id == user.id, DirectMessage.to_user_id == other.id),
        and_(DirectMessage.user_id == other.id, DirectMessage.to_user_id == user.id),
    )
    total = db.scalar(select(func.count()).select_from(DirectMessage).where(pair)) or 0
    rows = db.scalars(
        select(DirectMessage).where(pair).order_by(DirectMessage.sent_at.desc(), DirectMessage.id.desc()).limit(limit)
    )
    return {"with_user_id": other.id, "messages": [_dm_view(d) for d in rows], "total": total}
