"""Team chat tools for channels: list, inspect, create, join, leave, invite, archive and set the topic."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_length, next_id
from gym_mcp.servers.team_chat.models import Channel, Membership, Message, Pin
from gym_mcp.servers.team_chat.tools.common import (
    CHANNEL_NAME,
    acting_user,
    channel_view,
    check_can_read,
    check_member,
    check_not_archived,
    is_member,
    kit,
    load_channel,
    load_user,
    member_ids,
    user_brief,
)

TOPIC_SAMPLES = (
    "Q1 launch planning",
    "Weekly sync notes and action items",
    "Customer feedback from the beta",
    "On-call handoffs, see the runbook",
    "Everything about the 2026 offsite",
)

UNDELETABLE = "general"
"""The workspace-wide channel, which cannot be left nor archived."""


@kit.tool(
    write=False,
    intent="List the channels {user_id} can see[ (include archived ones: {include_archived})]",
)
def list_channels(db: Session, user_id: str, include_archived: bool = False) -> list[dict[str, Any]]:
    """List the channels of the acting user's workspace that they can see, by name.

    Shows every public channel and the private channels the user is a member of, each with
    {channel_id, name, is_private, archived, topic, member_count, is_member}. Use it to find a
    channel id from its name. Archived channels are left out unless include_archived is true.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        user_id: The acting user, whose workspace and memberships decide what is listed, e.g. "USR-1001".
        include_archived: Also list archived (read-only) channels.
    """
    user = acting_user(db, user_id)
    mine = select(Membership.channel_id).where(Membership.user_id == user.id)
    stmt = select(Channel).where(
        Channel.workspace_id == user.workspace_id, or_(Channel.is_private.is_(False), Channel.id.in_(mine))
    )
    if not include_archived:
        stmt = stmt.where(Channel.archived.is_(False))
    return [channel_view(db, c, user) for c in db.scalars(stmt.order_by(Channel.name))]


@kit.tool(write=False, intent="Show the details and members of channel {channel_id} for {user_id}")
def get_channel(db: Session, channel_id: str, user_id: str) -> dict[str, Any]:
    """Get one channel in full: name, visibility, archived flag, topic, creator, members and pinned messages.

    A private channel can only be read by its members.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        channel_id: Channel id, e.g. "CHN-1001".
        user_id: The acting user reading it, e.g. "USR-1001".
    """
    user = acting_user(db, user_id)
    channel = load_channel(db, channel_id)
    check_can_read(db, channel, user)
    out = channel_view(db, channel, user)
    out["workspace_id"] = channel.workspace_id
    out["creator_id"] = channel.creator_id
    out["created_on"] = channel.created_on.isoformat()
    out["members"] = [user_brief(load_user(db, uid)) for uid in member_ids(db, channel)]
    out["pinned_message_ids"] = list(
        db.scalars(select(Pin.message_id).where(Pin.channel_id == channel.id).order_by(Pin.pinned_at, Pin.id))
    )
    return out


@kit.tool(
    write=True,
    intent="Create the[ {visibility}] channel '{channel_name}' as {user_id}[ with the topic '{topic}']",
    samples={
        "channel_name": (
            "launch-planning",
            "q1-okrs",
            "customer-feedback",
            "offsite-2026",
            "mobile-app",
            "security-review",
            "data-platform",
            "book-club",
        ),
        "visibility": ("public", "private"),
        "topic": TOPIC_SAMPLES,
    },
)
def create_channel(
    db: Session, user_id: str, channel_name: str, visibility: str = "public", topic: str | None = None
) -> dict[str, Any]:
    """Create a channel in the acting user's workspace; the creator becomes its first member.

    Names are 1 to 40 lowercase letters, digits and single dashes ("launch-planning", not
    "Launch Planning") and unique in the workspace, archived channels included.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        user_id: The acting user who creates it, e.g. "USR-1001".
        channel_name: The channel name without '#', e.g. "launch-planning".
        visibility: "public" (anyone in the workspace can find and join it) or "private" (members only).
        topic: Optional topic, up to 250 characters, e.g. "Q1 launch planning".
    """
    user = acting_user(db, user_id)
    kind = visibility.strip().lower()
    if kind not in ("public", "private"):
        raise ToolError(f"visibility must be 'public' or 'private'; got {visibility!r}")
    wanted = channel_name.strip().lstrip("#")
    if not CHANNEL_NAME.match(wanted) or len(wanted) > 40:
        slug = "-".join(part for part in "".join(c if c.isalnum() else " " for c in wanted.lower()).split())[:40]
        hint = f"; try {slug!r}" if slug and slug != wanted else ""
        raise ToolError(
            f"Channel name {channel_name!r} is not valid: use 1 to 40 lowercase letters, digits and single dashes, "
            f"e.g. 'launch-planning'{hint}."
        )
    clash = db.scalar(select(Channel).where(Channel.workspace_id == user.workspace_id, Channel.name == wanted))
    if clash is not None:
        state = ", archived: unarchive_channel it to reuse it" if clash.archived else ""
        raise ToolError(
            f"A channel named #{wanted} already exists in {user.workspace_id} ({clash.id}{state}); "
            "channel names are unique in a workspace, pick another name."
        )
    text = check_length((topic or "").strip(), "topic", 0, 250)
    channel = Channel(
        id=next_id(db, Channel.id, "CHN"),
        workspace_id=user.workspace_id,
        name=wanted,
        is_private=kind == "private",
        archived=False,
        topic=text,
        creator_id=user.id,
        created_on=kit.today,
    )
    db.add(channel)
    db.flush()
    db.add(
        Membership(id=next_id(db, Membership.id, "MEM"), channel_id=channel.id, user_id=user.id, joined_on=kit.today)
    )
    db.flush()
    return channel_view(db, channel, user)


@kit.tool(write=True, intent="Have {user_id} join channel {channel_id}")
def join_channel(db: Session, channel_id: str, user_id: str) -> dict[str, Any]:
    """Join a public channel of one's own workspace, to post in it.

    Private channels cannot be joined: a member must invite_to_channel. Archived channels
    cannot be joined until unarchived.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        channel_id: Channel id, e.g. "CHN-1003".
        user_id: The acting user who joins, e.g. "USR-1001".
    """
    user = acting_user(db, user_id)
    channel = load_channel(db, channel_id)
    check_can_read(db, channel, user)  # other workspace, or private and not a member
    if is_member(db, channel, user):
        raise ToolError(f"{user.id} is already a member of #{channel.name} ({channel.id}); nothing changed.")
    check_not_archived(channel, "join it")
    db.add(
        Membership(id=next_id(db, Membership.id, "MEM"), channel_id=channel.id, user_id=user.id, joined_on=kit.today)
    )
    db.flush()
    return {"channel_id": channel.id, "name": channel.name, "user_id": user.id, "joined": True}


@kit.tool(write=True, intent="Have {user_id} leave channel {channel_id}")
def leave_channel(db: Session, channel_id: str, user_id: str) -> dict[str, Any]:
    """Leave a channel; the user's messages stay. Nobody can leave #general.

    Leaving a private channel means only an invitation from a member brings one back.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        channel_id: Channel id, e.g. "CHN-1003".
        user_id: The acting user who leaves, e.g. "USR-1001".
    """
    user = acting_user(db, user_id)
    channel = load_channel(db, channel_id)
    if not is_member(db, channel, user):
        raise ToolError(f"{user.id} is not a member of #{channel.name} ({channel.id}); nothing to leave.")
    if channel.name == UNDELETABLE:
        raise ToolError(f"#{UNDELETABLE} ({channel.id}) is the workspace-wide channel; nobody can leave it.")
    db.execute(delete(Membership).where(Membership.channel_id == channel.id, Membership.user_id == user.id))
    return {"channel_id": channel.id, "name": channel.name, "user_id": user.id, "left": True}


@kit.tool(write=True, intent="Have {user_id} add {invitee_user_id} to channel {channel_id}")
def invite_to_channel(db: Session, channel_id: str, user_id: str, invitee_user_id: str) -> dict[str, Any]:
    """Add another user of the workspace to a channel; the acting user must be a member of it.

    This is the only way into a private channel. The channel must not be archived, and the
    invitee must be active and not already a member.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        channel_id: Channel id, e.g. "CHN-1010".
        user_id: The acting user, a member of the channel, e.g. "USR-1001".
        invitee_user_id: The user to add, e.g. "USR-1007".
    """
    user = acting_user(db, user_id)
    channel = load_channel(db, channel_id)
    check_not_archived(channel, "invite anyone to it")
    check_member(db, channel, user, "invite people to it")
    invitee = load_user(db, invitee_user_id, "invitee_user_id")
    if invitee.workspace_id != channel.workspace_id:
        raise ToolError(
            f"{invitee.id} belongs to workspace {invitee.workspace_id}, not {channel.workspace_id}; "
            "only users of the channel's workspace can be added (list_users)."
        )
    if invitee.deactivated:
        raise ToolError(f"{invitee.id} ({invitee.full_name}) is deactivated and cannot be added to channels.")
    if is_member(db, channel, invitee):
        raise ToolError(f"{invitee.id} is already a member of #{channel.name} ({channel.id}); nothing changed.")
    db.add(
        Membership(id=next_id(db, Membership.id, "MEM"), channel_id=channel.id, user_id=invitee.id, joined_on=kit.today)
    )
    db.flush()
    return {"channel_id": channel.id, "name": channel.name, "added_user_id": invitee.id, "added_by": user.id}


@kit.tool(write=True, intent="Archive channel {channel_id} as {user_id}", confirm="always")
def archive_channel(db: Session, channel_id: str, user_id: str) -> dict[str, Any]:
    """Archive a channel: it becomes read-only (no posts, replies, edits, reactions, pins or joins).

    Only a member can archive it, and #general cannot be archived. Its history stays readable;
    unarchive_channel reverses it. Confirm with the user before archiving.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        channel_id: Channel id, e.g. "CHN-1005".
        user_id: The acting user, a member of the channel, e.g. "USR-1001".
    """
    user = acting_user(db, user_id)
    channel = load_channel(db, channel_id)
    if channel.archived:
        raise ToolError(f"#{channel.name} ({channel.id}) is already archived; nothing changed.")
    if channel.name == UNDELETABLE:
        raise ToolError(f"#{UNDELETABLE} ({channel.id}) is the workspace-wide channel and cannot be archived.")
    check_member(db, channel, user, "archive it")
    channel.archived = True
    messages = db.scalars(select(Message.id).where(Message.channel_id == channel.id)).all()
    return {"channel_id": channel.id, "name": channel.name, "archived": True, "messages_kept": len(messages)}


@kit.tool(write=True, intent="Unarchive channel {channel_id} as {user_id}")
def unarchive_channel(db: Session, channel_id: str, user_id: str) -> dict[str, Any]:
    """Unarchive an archived channel so people can post, react and pin in it again (members only).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        channel_id: Channel id of an archived channel, e.g. "CHN-1013".
        user_id: The acting user, a member of the channel, e.g. "USR-1001".
    """
    user = acting_user(db, user_id)
    channel = load_channel(db, channel_id)
    if not channel.archived:
        raise ToolError(f"#{channel.name} ({channel.id}) is not archived; only archived channels can be unarchived.")
    check_member(db, channel, user, "unarchive it")
    channel.archived = False
    return {"channel_id": channel.id, "name": channel.name, "archived": False}


@kit.tool(
    write=True,
    intent="Set the topic of channel {channel_id} to '{topic}' as {user_id}",
    samples={"topic": TOPIC_SAMPLES},
)
def set_topic(db: Session, channel_id: str, user_id: str, topic: str) -> dict[str, Any]:
    """Set (or clear, with "") a channel's topic; members only, and not in an archived channel.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        channel_id: Channel id, e.g. "CHN-1003".
        user_id: The acting user, a member of the channel, e.g. "USR-1001".
        topic: The new topic, up to 250 characters, e.g. "Q1 launch planning".
    """
    user = acting_user(db, user_id)
    channel = load_channel(db, channel_id)
    check_not_archived(channel, "change its topic")
    check_member(db, channel, user, "change its topic")
    text = check_length(topic.strip(), "topic", 0, 250)
    if text == channel.topic:
        raise ToolError(f"#{channel.name} ({channel.id}) already has that topic; nothing changed.")
    previous, channel.topic = channel.topic, text
    return {"channel_id": channel.id, "name": channel.name, "topic": text, "previous_topic": previous}
