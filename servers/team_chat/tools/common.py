"""What the team chat tools share: the kit, id lookups, the channel rules and result shapes.

Who acts: every tool that reads a channel or changes anything takes the acting user as its
``user_id`` argument (there is no logged-in "current user"); the rules below are checked for that
user. A deactivated user cannot act.
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import Finder, ServerKit, ToolError, check_length, pick
from gym_mcp.servers.team_chat.data import seed
from gym_mcp.servers.team_chat.models import (
    NOW,
    TODAY,
    Base,
    Channel,
    Membership,
    Message,
    Pin,
    Reaction,
    User,
    Workspace,
)

__all__ = [
    "CHANNEL_NAME",
    "INSTRUCTIONS",
    "NOW",
    "acting_user",
    "channel_view",
    "check_can_post",
    "check_can_read",
    "check_member",
    "check_not_archived",
    "check_text",
    "is_member",
    "kit",
    "load_channel",
    "load_message",
    "load_user",
    "load_workspace",
    "member_ids",
    "message_view",
    "norm_emoji",
    "user_brief",
]

INSTRUCTIONS = f"""\
Team chat (a Slack-like workspace tool). Workspaces ("WKS-1001") hold users ("USR-1001") and
channels ("CHN-1001"); channels hold messages ("MSG-10001"), thread replies, emoji reactions and
pins; users also send direct messages ("DM-1001"). There is no logged-in user: every tool that
acts or reads a channel takes the acting user as user_id, and the rules are checked for them.
Private channels are visible and writable only to their members; a user posts only in channels
they are a member of (join_channel a public one; a member must invite_to_channel for a private
one). Archived channels are read-only: unarchive_channel first. Only a message's author can edit
or delete it. Channel names are lowercase letters, digits and dashes, unique in a workspace.
Find ids with list_users, list_channels and list_messages. Now is {NOW.isoformat(timespec="minutes")}."""

kit = ServerKit(
    "team_chat",
    base=Base,
    seed=seed,
    instructions=INSTRUCTIONS,
    today=TODAY,
    samples={"limit": (3, 5, 10, 20)},
    inline=True,
)

CHANNEL_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
"""A valid channel name: lowercase letters and digits in words joined by single dashes."""

_EMOJI = re.compile(r"^[a-z0-9_+\-]{1,40}$")

# -- lookups ------------------------------------------------------------------------------------

_MISSING = "No {noun} with id {id!r} ({field}). {Noun} ids look like '{example}'; {hint}."
load_workspace = Finder(
    Workspace, "workspace", "WKS-1001", "the workspace ids are WKS-1001 and WKS-1002", message=_MISSING
)
load_user = Finder(User, "user", "USR-1001", "use list_users with the workspace id to see valid ones", message=_MISSING)
load_channel = Finder(
    Channel, "channel", "CHN-1001", "use list_channels with the acting user's id to see valid ones", message=_MISSING
)
load_message = Finder(
    Message,
    "message",
    "MSG-10001",
    "use list_messages or search_messages to see valid ones",
    message=_MISSING,
)


def acting_user(db: Session, user_id: str) -> User:
    """The user a call acts as: must exist and not be deactivated.

    Args:
        db: The session of the call.
        user_id: The acting user's id as the model gave it.

    Returns:
        The user.

    Raises:
        ToolError: No such user, or the user is deactivated.
    """
    user = load_user(db, user_id)
    if user.deactivated:
        raise ToolError(
            f"User {user.id} ({user.full_name}) is deactivated and cannot act; "
            "act as an active user of the workspace (list_users shows them)."
        )
    return user


def member_ids(db: Session, channel: Channel) -> list[str]:
    """Ids of a channel's members, in id order."""
    return list(
        db.scalars(select(Membership.user_id).where(Membership.channel_id == channel.id).order_by(Membership.user_id))
    )


def is_member(db: Session, channel: Channel, user: User) -> bool:
    """Whether the user is a member of the channel."""
    found = db.scalar(select(Membership.id).where(Membership.channel_id == channel.id, Membership.user_id == user.id))
    return found is not None


def _check_workspace(channel: Channel, user: User) -> None:
    if channel.workspace_id != user.workspace_id:
        raise ToolError(
            f"Channel #{channel.name} ({channel.id}) is in workspace {channel.workspace_id}, but user {user.id} "
            f"belongs to {user.workspace_id}; use a channel of the user's own workspace (list_channels)."
        )


def check_can_read(db: Session, channel: Channel, user: User) -> None:
    """Anyone in the workspace reads a public channel; only members read a private one.

    Raises:
        ToolError: The channel is in another workspace, or private and the user is no member.
    """
    _check_workspace(channel, user)
    if channel.is_private and not is_member(db, channel, user):
        raise ToolError(
            f"#{channel.name} ({channel.id}) is a private channel and {user.id} is not a member; only its "
            "members can read it. A member must invite_to_channel them first."
        )


def check_not_archived(channel: Channel, action: str) -> None:
    """Archived channels are read-only.

    Args:
        channel: The channel.
        action: What was refused, e.g. ``"post in it"``.

    Raises:
        ToolError: The channel is archived.
    """
    if channel.archived:
        raise ToolError(
            f"#{channel.name} ({channel.id}) is archived and read-only; you cannot {action}. "
            "Use unarchive_channel first."
        )


def check_member(db: Session, channel: Channel, user: User, action: str) -> None:
    """Only members of a channel may do ``action`` in it.

    Raises:
        ToolError: The user is not a member; the message says how they become one.
    """
    _check_workspace(channel, user)
    if is_member(db, channel, user):
        return
    if channel.is_private:
        raise ToolError(
            f"{user.id} is not a member of the private channel #{channel.name} ({channel.id}), so they cannot "
            f"{action}; only members can. A member must invite_to_channel them first."
        )
    raise ToolError(
        f"{user.id} is not a member of #{channel.name} ({channel.id}), so they cannot {action}; "
        "join_channel first (it is public)."
    )


def check_can_post(db: Session, channel: Channel, user: User, action: str = "post in it") -> None:
    """Posting needs a channel that is not archived and of which the user is a member."""
    _check_workspace(channel, user)
    check_not_archived(channel, action)
    check_member(db, channel, user, action)


def check_text(text: str, field: str = "text") -> str:
    """A message text: trimmed, 1 to 4000 characters."""
    return check_length(text.strip(), field, 1, 4000, ", e.g. 'Deploy is done'")


def norm_emoji(emoji: str) -> str:
    """An emoji name without colons, lower case: ``":Tada:"`` -> ``"tada"``.

    Raises:
        ToolError: The name is empty or holds other characters than letters, digits, ``_+-``.
    """
    name = emoji.strip().strip(":").strip().lower()
    if not _EMOJI.match(name):
        raise ToolError(
            f"emoji {emoji!r} is not an emoji name; use a name like 'thumbsup', 'tada' or ':eyes:' "
            "(letters, digits, _ + -)."
        )
    return name


# -- result shapes ------------------------------------------------------------------------------


def user_brief(user: User) -> dict[str, Any]:
    """The fields of a user a model needs in a list."""
    out: dict[str, Any] = {"user_id": user.id, **pick(user, "display_name", "full_name", "title", "presence")}
    if user.status_text or user.status_emoji:
        out["status"] = {"text": user.status_text, "emoji": user.status_emoji}
    if user.deactivated:
        out["deactivated"] = True
    return out


def channel_view(db: Session, channel: Channel, user: User | None = None) -> dict[str, Any]:
    """The fields of a channel a model needs; ``is_member`` when a user is given."""
    count = db.scalar(select(func.count()).select_from(Membership).where(Membership.channel_id == channel.id))
    out: dict[str, Any] = {
        "channel_id": channel.id,
        "name": channel.name,
        "is_private": channel.is_private,
        "archived": channel.archived,
        "topic": channel.topic,
        "member_count": count,
    }
    if user is not None:
        out["is_member"] = is_member(db, channel, user)
    return out


def message_view(db: Session, message: Message) -> dict[str, Any]:
    """A message with its author, reply count, reactions (emoji -> users) and pinned flag."""
    out: dict[str, Any] = {
        "message_id": message.id,
        "channel_id": message.channel_id,
        "user_id": message.user_id,
        "text": message.text,
        "posted_at": message.posted_at.isoformat(timespec="minutes"),
        "edited": message.edited,
    }
    if message.parent_id:
        out["thread_of"] = message.parent_id
    else:
        out["reply_count"] = db.scalar(select(func.count()).select_from(Message).where(Message.parent_id == message.id))
    reactions: dict[str, list[str]] = {}
    for r in db.scalars(select(Reaction).where(Reaction.message_id == message.id).order_by(Reaction.id)):
        reactions.setdefault(r.emoji, []).append(r.user_id)
    if reactions:
        out["reactions"] = [{"emoji": e, "count": len(u), "users": u} for e, u in reactions.items()]
    if db.scalar(select(Pin.id).where(Pin.message_id == message.id)) is not None:
        out["pinned"] = True
    return out
