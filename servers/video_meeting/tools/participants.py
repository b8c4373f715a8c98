"""Video meeting tools for the people in a live meeting: join, the waiting room, admitting and removing (host only)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError
from gym_mcp.servers.video_meeting.models import Meeting, Participant, Room
from gym_mcp.servers.video_meeting.tools.common import (
    admitted_count,
    check_host,
    check_live,
    kit,
    load_meeting,
    load_room,
    load_user,
    log,
    meeting_view,
    participant_of,
)


def _check_room(db: Session, meeting: Meeting, who: str) -> Room:
    """Refuse one more person in a meeting whose room is full."""
    room = load_room(db, meeting.room_id)
    inside = admitted_count(db, meeting)
    if inside >= room.capacity:
        raise ToolError(
            f"Room {room.id} ({room.name}) holds {room.capacity} people and {inside} are in meeting {meeting.id}, so "
            f"{who} cannot be let in. The host can make space with remove_participant; nothing was changed."
        )
    return room


@kit.tool(write=True, intent="Have user {user_id} join meeting {meeting_id}")
def join_meeting(db: Session, meeting_id: str, user_id: str) -> dict[str, Any]:
    """A user joins a live meeting: into the waiting room when it is on, else straight in if the room has space.

    Anyone with the link may join, invited or not; someone the host removed cannot rejoin.
    Returns the user's new status (waiting or admitted).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        meeting_id: Meeting id, e.g. "MTG-1001".
        user_id: User who joins, e.g. "USR-1020".
    """
    meeting = load_meeting(db, meeting_id)
    user = load_user(db, user_id)
    check_live(meeting, "join")
    row = participant_of(db, meeting, user)
    if row is not None and row.status in ("admitted", "waiting"):
        place = "in the meeting" if row.status == "admitted" else "in the waiting room"
        raise ToolError(f"{user.name} ({user.id}) is already {place} of {meeting.id}.")
    if row is not None and row.status == "removed":
        raise ToolError(f"{user.name} ({user.id}) was removed from {meeting.id} by the host and cannot rejoin it.")
    status = "waiting" if meeting.waiting_room and user.id != meeting.host_id else "admitted"
    if status == "admitted":
        _check_room(db, meeting, user.id)
    if row is None:
        row = Participant(meeting_id=meeting.id, user_id=user.id, role="attendee", status=status)
        db.add(row)
    else:
        row.status = status
    db.flush()
    log(db, meeting, user, "joined", user)
    return {"meeting_id": meeting.id, "user_id": user.id, "name": user.name, "status": status}


@kit.tool(
    write=True, intent="Admit {user_id} from the waiting room of meeting {meeting_id} on behalf of {acting_user_id}"
)
def admit_participant(db: Session, meeting_id: str, user_id: str, acting_user_id: str) -> dict[str, Any]:
    """Let a user in from the waiting room of a live meeting (host only), if the room has space.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        meeting_id: Meeting id, e.g. "MTG-1001".
        user_id: The waiting user, e.g. "USR-1020" (get_meeting lists who is waiting).
        acting_user_id: Who admits: must be the meeting's host, e.g. "USR-1003".
    """
    meeting = load_meeting(db, meeting_id)
    host = check_host(db, meeting, acting_user_id, "admit people")
    user = load_user(db, user_id)
    check_live(meeting, "admit anyone")
    row = participant_of(db, meeting, user)
    if row is None or row.status != "waiting":
        waiting = meeting_view(db, meeting, full=True)["waiting"]
        raise ToolError(
            f"{user.name} ({user.id}) is not in the waiting room of {meeting.id}"
            f"{f' (they are {row.status})' if row else ''}; waiting now: {', '.join(waiting) or 'nobody'}."
        )
    _check_room(db, meeting, user.id)
    row.status = "admitted"
    log(db, meeting, host, "admitted", user)
    return {**meeting_view(db, meeting), "admitted_user_id": user.id, "people_in": admitted_count(db, meeting)}


@kit.tool(
    write=True,
    intent="Remove {user_id} from meeting {meeting_id} on behalf of {acting_user_id}",
    confirm="always",
)
def remove_participant(db: Session, meeting_id: str, user_id: str, acting_user_id: str) -> dict[str, Any]:
    """Remove a user from a live meeting or its waiting room (host only); they cannot rejoin it. Irreversible.

    The host cannot remove themself (end_meeting ends the meeting for everyone).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        meeting_id: Meeting id, e.g. "MTG-1001".
        user_id: The user to remove, e.g. "USR-1020".
        acting_user_id: Who removes: must be the meeting's host, e.g. "USR-1003".
    """
    meeting = load_meeting(db, meeting_id)
    host = check_host(db, meeting, acting_user_id, "remove people")
    user = load_user(db, user_id)
    check_live(meeting, "remove anyone")
    if user.id == host.id:
        raise ToolError("The host cannot remove themself; end the meeting for everyone with end_meeting instead.")
    row = participant_of(db, meeting, user)
    if row is None or row.status not in ("admitted", "waiting"):
        raise ToolError(
            f"{user.name} ({user.id}) is not in meeting {meeting.id} or its waiting room"
            f"{f' (they are {row.status})' if row else ''}; nothing to remove."
        )
    row.status = "removed"
    log(db, meeting, host, "removed", user)
    return {**meeting_view(db, meeting), "removed_user_id": user.id, "people_in": admitted_count(db, meeting)}
