"""Team chat tools for messages: post, reply in a thread, read, search, edit and delete."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_length, check_limit, next_id
from gym_mcp.servers.team_chat.models import Channel, Membership, Message, Pin, Reaction
from gym_mcp.servers.team_chat.tools.common import (
    NOW,
    acting_user,
    check_can_post,
    check_can_read,
    check_not_archived,
    check_text,
    kit,
    load_channel,
    load_message,
    message_view,
)

TEXT_SAMPLES = (
    "Deploy is done, dashboards look green.",
    "Standup moved to 10:30 today.",
    "Can someone review the release notes?",
    "Lunch and learn on Friday at noon!",
    "The client demo went really well.",
    "Please update your tickets before the sprint review.",
)
REPLY_SAMPLES = (
    "Thanks, on it!",
    "I can take this one.",
    "Agreed, let's ship it.",
    "Can we discuss this at standup?",
    "Done, please take a look.",
)
EDIT_SAMPLES = (
    "Update: deploy is postponed to tomorrow.",
    "Correction: the meeting is at 3pm, not 2pm.",
    "Edited: link to the doc is in the channel topic.",
    "Fixed the typo, thanks for spotting it.",
)


def _new_message(db: Session, channel: Channel, user_id: str, text: str, parent_id: str | None) -> Message:
    message = Message(
        id=next_id(db, Message.id, "MSG", first=10001),
        channel_id=channel.id,
        user_id=user_id,
        parent_id=parent_id,
        text=text,
        posted_at=NOW,
        edited=False,
    )
    db.add(message)
    db.flush()
    return message


@kit.tool(
    write=True,
    intent="Post '{text}' in channel {channel_id} as {user_id}",
    samples={"text": TEXT_SAMPLES},
)
def post_message(db: Session, channel_id: str, user_id: str, text: str) -> dict[str, Any]:
    """Post a new top-level message in a channel as the acting user.

    The user must be a member (join_channel a public channel; a member must invite_to_channel
    them into a private one) and the channel must not be archived. To answer a message, use
    reply_in_thread instead.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        channel_id: Channel id, e.g. "CHN-1003".
        user_id: The acting user, the author of the message, e.g. "USR-1001".
        text: The message, 1 to 4000 characters, e.g. "Deploy is done".
    """
    user = acting_user(db, user_id)
    channel = load_channel(db, channel_id)
    body = check_text(text)
    check_can_post(db, channel, user)
    return message_view(db, _new_message(db, channel, user.id, body, None))


@kit.tool(
    write=True,
    intent="Reply '{text}' in the thread of message {message_id} as {user_id}",
    samples={"text": REPLY_SAMPLES},
)
def reply_in_thread(db: Session, message_id: str, user_id: str, text: str) -> dict[str, Any]:
    """Reply in the thread of a top-level message (the reply goes to the same channel).

    message_id must be a top-level message, not itself a reply: threads are one level deep. The
    user must be a member of the channel and the channel must not be archived.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        message_id: The top-level message to answer, e.g. "MSG-10001".
        user_id: The acting user, the author of the reply, e.g. "USR-1001".
        text: The reply, 1 to 4000 characters, e.g. "Thanks, on it!".
    """
    user = acting_user(db, user_id)
    parent = load_message(db, message_id)
    if parent.parent_id is not None:
        raise ToolError(
            f"{parent.id} is itself a reply in the thread of {parent.parent_id}; threads are one level deep. "
            f"Reply to the top-level message {parent.parent_id} instead."
        )
    body = check_text(text)
    channel = load_channel(db, parent.channel_id)
    check_can_post(db, channel, user, "reply in it")
    return message_view(db, _new_message(db, channel, user.id, body, parent.id))


@kit.tool(write=False, intent="Show the thread of message {message_id} as {user_id}")
def get_thread(db: Session, message_id: str, user_id: str) -> dict[str, Any]:
    """Get a thread: its top-level message and every reply, oldest first.

    Given a reply's id, returns the whole thread it belongs to. Private channels: members only.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        message_id: A top-level message or one of its replies, e.g. "MSG-10001".
        user_id: The acting user reading it, e.g. "USR-1001".
    """
    user = acting_user(db, user_id)
    message = load_message(db, message_id)
    parent = load_message(db, message.parent_id) if message.parent_id else message
    check_can_read(db, load_channel(db, parent.channel_id), user)
    replies = db.scalars(select(Message).where(Message.parent_id == parent.id).order_by(Message.posted_at, Message.id))
    return {"message": message_view(db, parent), "replies": [message_view(db, r) for r in replies]}


@kit.tool(
    write=False,
    intent="Show the[ {limit}] latest messages in channel {channel_id} as {user_id}",
)
def list_messages(db: Session, channel_id: str, user_id: str, limit: int = 20) -> dict[str, Any]:
    """List a channel's top-level messages, newest first, with reply counts, reactions and pins.

    Thread replies are left out (each message shows reply_count; use get_thread). Private
    channels can only be read by their members. Returns {channel_id, name, messages, more}; more
    is true when older messages exist beyond the limit.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        channel_id: Channel id, e.g. "CHN-1001".
        user_id: The acting user reading it, e.g. "USR-1001".
        limit: Maximum number of messages to return, 1 to 100.
    """
    check_limit(limit)
    user = acting_user(db, user_id)
    channel = load_channel(db, channel_id)
    check_can_read(db, channel, user)
    rows = list(
        db.scalars(
            select(Message)
            .where(Message.channel_id == channel.id, Message.parent_id.is_(None))
            .order_by(Message.posted_at.desc(), Message.id.desc())
            .limit(limit + 1)
        )
    )
    return {
        "channel_id": channel.id,
        "name": channel.name,
        "archived": channel.archived,
        "messages": [message_view(db, m) for m in rows[:limit]],
        "more": len(rows) > limit,
    }


@kit.tool(
    write=False,
    intent="Search the messages {user_id} can read for '{query}'[ in channel {channel_id}][, at most {limit} results]",
    samples={"query": ("deploy", "offsite", "review", "lunch", "invoice", "postmortem", "roadmap", "thanks")},
)
def search_messages(
    db: Session, user_id: str, query: str, channel_id: str | None = None, limit: int = 20
) -> list[dict[str, Any]]:
    """Search message texts (case-insensitive, partial match) in every channel the acting user can read.

    Covers public channels of the user's workspace and private channels they belong to, replies
    included, newest first. Give channel_id to search one channel only.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        user_id: The acting user searching, e.g. "USR-1001".
        query: Text to look for, at least 2 characters, e.g. "deploy".
        channel_id: Optional channel id to search in, e.g. "CHN-1003".
        limit: Maximum number of messages to return, 1 to 100.
    """
    check_limit(limit)
    user = acting_user(db, user_id)
    text = check_length(query.strip(), "query", 2, 100, ", e.g. 'deploy'")
    mine = select(Membership.channel_id).where(Membership.user_id == user.id)
    readable = select(Channel.id).where(
        Channel.workspace_id == user.workspace_id, or_(Channel.is_private.is_(False), Channel.id.in_(mine))
    )
    stmt = select(Message).where(Message.channel_id.in_(readable), Message.text.icontains(text, autoescape=True))
    if channel_id is not None:
        channel = load_channel(db, channel_id)
        check_can_read(db, channel, user)
        stmt = stmt.where(Message.channel_id == channel.id)
    rows = db.scalars(stmt.order_by(Message.posted_at.desc(), Message.id.desc()).limit(limit))
    return [message_view(db, m) for m in rows]


def _own_message(db: Session, message_id: str, user_id: str, action: str) -> Message:
    """A message the acting user wrote, in a channel that is not archived."""
    user = acting_user(db, user_id)
    message = load_message(db, message_id)
    if message.user_id != user.id:
        raise ToolError(
            f"Only the author of {message.id} ({message.user_id}) can {action} it; {user.id} is not the author."
        )
    check_not_archived(load_channel(db, message.channel_id), f"{action} messages in it")
    return message


@kit.tool(
    write=True,
    intent="Change the text of message {message_id} to '{text}' as {user_id}",
    samples={"text": EDIT_SAMPLES},
)
def edit_message(db: Session, message_id: str, user_id: str, text: str) -> dict[str, Any]:
    """Replace the text of a message; it is then marked edited. Only its author can edit it.

    The message's channel must not be archived.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        message_id: Message id, e.g. "MSG-10001".
        user_id: The acting user, who must be the message's author, e.g. "USR-1001".
        text: The new text, 1 to 4000 characters, e.g. "Update: deploy is postponed".
    """
    message = _own_message(db, message_id, user_id, "edit")
    body = check_text(text)
    if body == message.text:
        raise ToolError(f"{message.id} already has that text; nothing changed.")
    message.text = body
    message.edited = True
    message.edited_at = NOW
    return message_view(db, message)


@kit.tool(write=True, intent="Delete message {message_id} as {user_id}", confirm="always")
def delete_message(db: Session, message_id: str, user_id: str) -> dict[str, Any]:
    """Delete a message for good, with its reactions and pin; deleting a top-level message deletes its thread.

    Only its author can delete it, and not in an archived channel. It cannot be undone: confirm
    with the user first.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        message_id: Message id, e.g. "MSG-10001".
        user_id: The acting user, who must be the message's author, e.g. "USR-1001".
    """
    message = _own_message(db, message_id, user_id, "delete")
    replies = list(db.scalars(select(Message.id).where(Message.parent_id == message.id)))
    gone = [message.id, *replies]
    db.execute(delete(Reaction).where(Reaction.message_id.in_(gone)))
    db.execute(delete(Pin).where(Pin.message_id.in_(gone)))
    db.execute(delete(Message).where(Message.parent_id == message.id))
    db.delete(message)
    return {
        "message_id": message.id,
        "channel_id": message.channel_id,
        "deleted": True,
        "replies_deleted": len(replies),
    }
