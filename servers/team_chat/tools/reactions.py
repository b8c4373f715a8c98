"""Team chat tools for reactions and pins: add and remove an emoji, pin, unpin and list pins."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, next_id
from gym_mcp.servers.team_chat.data import EMOJIS
from gym_mcp.servers.team_chat.models import Message, Pin, Reaction
from gym_mcp.servers.team_chat.tools.common import (
    NOW,
    acting_user,
    check_can_read,
    check_member,
    check_not_archived,
    kit,
    load_channel,
    load_message,
    message_view,
    norm_emoji,
)

MAX_PINS = 10
"""Most messages one channel may have pinned."""


def _reactions(db: Session, message: Message) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in db.scalars(select(Reaction).where(Reaction.message_id == message.id).order_by(Reaction.id)):
        counts[r.emoji] = counts.get(r.emoji, 0) + 1
    return counts


@kit.tool(
    write=True,
    intent="React with :{emoji}: to message {message_id} as {user_id}",
    samples={"emoji": EMOJIS},
)
def add_reaction(db: Session, message_id: str, user_id: str, emoji: str) -> dict[str, Any]:
    """Add an emoji reaction to a message as the acting user.

    A user adds each emoji once per message (a second identical reaction is refused). The user
    must be able to read the channel (members only for a private one), and it must not be archived.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        message_id: Message id, e.g. "MSG-10001".
        user_id: The acting user who reacts, e.g. "USR-1001".
        emoji: Emoji name, with or without colons, e.g. "thumbsup" or ":tada:".
    """
    user = acting_user(db, user_id)
    message = load_message(db, message_id)
    name = norm_emoji(emoji)
    channel = load_channel(db, message.channel_id)
    check_can_read(db, channel, user)
    check_not_archived(channel, "react in it")
    taken = db.scalar(
        select(Reaction.id).where(
            Reaction.message_id == message.id, Reaction.user_id == user.id, Reaction.emoji == name
        )
    )
    if taken is not None:
        raise ToolError(f"{user.id} already reacted with :{name}: to {message.id}; each emoji counts once per user.")
    db.add(Reaction(id=next_id(db, Reaction.id, "RXN"), message_id=message.id, user_id=user.id, emoji=name))
    db.flush()
    return {"message_id": message.id, "user_id": user.id, "emoji": name, "reactions": _reactions(db, message)}


@kit.tool(
    write=True,
    intent="Remove {user_id}'s :{emoji}: reaction from message {message_id}",
    samples={"emoji": EMOJIS},
)
def remove_reaction(db: Session, message_id: str, user_id: str, emoji: str) -> dict[str, Any]:
    """Remove one of the acting user's own emoji reactions from a message.

    Not in an archived channel. Only the user's own reaction can be removed.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        message_id: Message id, e.g. "MSG-10001".
        user_id: The acting user whose reaction goes, e.g. "USR-1001".
        emoji: Emoji name, with or without colons, e.g. "thumbsup".
    """
    user = acting_user(db, user_id)
    message = load_message(db, message_id)
    name = norm_emoji(emoji)
    channel = load_channel(db, message.channel_id)
    check_can_read(db, channel, user)
    check_not_archived(channel, "remove reactions in it")
    reaction = db.scalar(
        select(Reaction).where(Reaction.message_id == message.id, Reaction.user_id == user.id, Reaction.emoji == name)
    )
    if reaction is None:
        mine = db.scalars(
            select(Reaction.emoji).where(Reaction.message_id == message.id, Reaction.user_id == user.id)
        ).all()
        has = f"; their reactions there: {', '.join(':' + e + ':' for e in mine)}" if mine else ""
        raise ToolError(f"{user.id} has no :{name}: reaction on {message.id}{has}.")
    db.delete(reaction)
    db.flush()
    return {"message_id": message.id, "user_id": user.id, "removed": name, "reactions": _reactions(db, message)}


@kit.tool(write=True, intent="Pin message {message_id} as {user_id}")
def pin_message(db: Session, message_id: str, user_id: str) -> dict[str, Any]:
    """Pin a message to its channel so everyone finds it; members only, at most 10 pins per channel.

    The channel must not be archived and the message must not be pinned already.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        message_id: Message id, e.g. "MSG-10001".
        user_id: The acting user, a member of the channel, e.g. "USR-1001".
    """
    user = acting_user(db, user_id)
    message = load_message(db, message_id)
    channel = load_channel(db, message.channel_id)
    check_not_archived(channel, "pin messages in it")
    check_member(db, channel, user, "pin messages in it")
    pin = db.scalar(select(Pin).where(Pin.message_id == message.id))
    if pin is not None:
        raise ToolError(f"{message.id} is already pinned in #{channel.name} (by {pin.user_id}); nothing changed.")
    pinned = db.scalars(select(Pin.message_id).where(Pin.channel_id == channel.id).order_by(Pin.id)).all()
    if len(pinned) >= MAX_PINS:
        raise ToolError(
            f"#{channel.name} ({channel.id}) already has {MAX_PINS} pinned messages, the maximum; "
            f"unpin_message one of them first ({', '.join(pinned)})."
        )
    pin = Pin(
        id=next_id(db, Pin.id, "PIN"), message_id=message.id, channel_id=channel.id, user_id=user.id, pinned_at=NOW
    )
    db.add(pin)
    db.flush()
    return {"pin_id": pin.id, "message_id": message.id, "channel_id": channel.id, "pinned_by": user.id}


@kit.tool(write=True, intent="Unpin message {message_id} as {user_id}")
def unpin_message(db: Session, message_id: str, user_id: str) -> dict[str, Any]:
    """Unpin a pinned message (the message stays); members only, not in an archived channel.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        message_id: Id of a pinned message, e.g. "MSG-10001".
        user_id: The acting user, a member of the channel, e.g. "USR-1001".
    """
    user = acting_user(db, user_id)
    message = load_message(db, message_id)
    channel = load_channel(db, message.channel_id)
    pin = db.scalar(select(Pin).where(Pin.message_id == message.id))
    if pin is None:
        raise ToolError(f"{message.id} is not pinned; list_pins shows the pinned messages of #{channel.name}.")
    check_not_archived(channel, "unpin messages in it")
    check_member(db, channel, user, "unpin messages in it")
    db.delete(pin)
    return {"message_id": message.id, "channel_id": channel.id, "unpinned": True}


@kit.tool(write=False, intent="List the pinned messages of channel {channel_id} as {user_id}")
def list_pins(db: Session, channel_id: str, user_id: str) -> dict[str, Any]:
    """List a channel's pinned messages, oldest pin first, with who pinned each.

    Private channels can only be read by their members.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        channel_id: Channel id, e.g. "CHN-1001".
        user_id: The acting user reading it, e.g. "USR-1001".
    """
    user = acting_user(db, user_id)
    channel = load_channel(db, channel_id)
    check_can_read(db, channel, user)
    pins = db.scalars(select(Pin).where(Pin.channel_id == channel.id).order_by(Pin.pinned_at, Pin.id))
    return {
        "channel_id": channel.id,
        "name": channel.name,
        "pins": [
            {
                "pin_id": p.id,
                "pinned_by": p.user_id,
                "pinned_at": p.pinned_at.isoformat(timespec="minutes"),
                "message": message_view(db, load_message(db, p.message_id)),
            }
            for p in pins
        ],
    }
