"""Video meeting tools for meetings: list and read them, schedule, invite, cancel, start and end (host only)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_length, check_status, next_id, parse_date, parse_datetime
from gym_mcp.servers.video_meeting.models import MEETING_STATUSES, Meeting, Participant
from gym_mcp.servers.video_meeting.tools.common import (
    check_host,
    in_progress,
    kit,
    load_meeting,
    load_room,
    load_user,
    log,
    meeting_view,
    minute,
    now,
    participant_of,
    room_clash,
)
from gym_mcp.servers.video_meeting.tools.samples import ENDS, STARTS, TITLES

MAX_HOURS = 8


@kit.tool(
    write=False,
    intent="List the[ {status}] meetings of user {user_id}[ on {day}]",
    samples={"status": ("scheduled", "live", "ended", "cancelled"), "day": ("2026-01-15", "2026-01-16", "2026-01-20")},
)
def list_meetings(db: Session, user_id: str, status: str | None = None, day: str | None = None) -> list[dict[str, Any]]:
    """List the meetings a user hosts or is a participant of, by start time, with their role and status in each.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        user_id: User id, e.g. "USR-1001".
        status: Only meetings in this status: scheduled, live, ended or cancelled.
        day: Only meetings starting on this day, e.g. "2026-01-15".
    """
    user = load_user(db, user_id)
    stmt = (
        select(Meeting, Participant)
        .join(Participant, Participant.meeting_id == Meeting.id)
        .where(Participant.user_id == user.id)
    )
    if status is not None:
        wanted = status.strip().lower()
        if wanted not in MEETING_STATUSES:
            raise ToolError(f"status must be one of {', '.join(MEETING_STATUSES)}; got {status!r}.")
        stmt = stmt.where(Meeting.status == wanted)
    if day is not None:
        on: date = parse_date(day, "day")
        stmt = stmt.where(func.date(Meeting.start) == on.isoformat())
    rows = db.execute(stmt.order_by(Meeting.start, Meeting.id)).all()
    return [{**meeting_view(db, m), "my_role": p.role, "my_status": p.status} for m, p in rows]


@kit.tool(write=False, intent="Show meeting {meeting_id} with its participants")
def get_meeting(db: Session, meeting_id: str) -> dict[str, Any]:
    """Get one meeting: time, room capacity, status, every participant with role and status, recordings.

    admitted is how many people are in the meeting now (it cannot exceed room_capacity);
    waiting lists the user ids in the waiting room.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        meeting_id: Meeting id, e.g. "MTG-1001".
    """
    return meeting_view(db, load_meeting(db, meeting_id), full=True)


@kit.tool(
    write=True,
    intent="Schedule '{title}' hosted by {host_id} in room {room_id} from {start} to {end}"
    "[, waiting room on: {waiting_room}]",
    samples={"title": TITLES, "start": STARTS, "end": ENDS},
)
def schedule_meeting(
    db: Session, host_id: str, title: str, room_id: str, start: str, end: str, waiting_room: bool = True
) -> dict[str, Any]:
    """Schedule a meeting in a room; the host is its first participant. Returns the new meeting.

    The time must be in the future, end after start on the same day, at most 8 hours. The room
    must be free: a room already booked by a scheduled or live meeting at that time is refused
    (list_rooms with start and end shows the free ones). Invite people with invite_user.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        host_id: User who hosts it, e.g. "USR-1001".
        title: Meeting title, 2 to 120 characters, e.g. "Launch planning".
        room_id: Room to book, e.g. "ROOM-1005".
        start: Start, ISO 8601 local time, e.g. "2026-02-10T09:30".
        end: End, same day, e.g. "2026-02-10T10:30".
        waiting_room: Whether people who join wait for the host to admit them (default true).
    """
    host = load_user(db, host_id, "host_id")
    name = check_length(title.strip(), "title", 2, 120, ", e.g. 'Launch planning'")
    room = load_room(db, room_id)
    begin, finish = parse_datetime(start, "start"), parse_datetime(end, "end")
    if finish <= begin or finish.date() != begin.date():
        raise ToolError(f"end {minute(finish)} must be after start {minute(begin)} on the same day.")
    if finish - begin > timedelta(hours=MAX_HOURS):
        raise ToolError(f"A meeting lasts at most {MAX_HOURS} hours; {minute(begin)} to {minute(finish)} is longer.")
    if begin <= now():
        raise ToolError(f"start {minute(begin)} is in the past; it is now {minute(now())}. Pick a later time.")
    clash = room_clash(db, room, begin, finish)
    if clash is not None:
        raise ToolError(
            f"Room {room.id} ({room.name}) is already booked at that time by {clash.id} ('{clash.title}', "
            f"{minute(clash.start)} to {minute(clash.end)}). Pick another time, or a free room: list_rooms with "
            "this start and end lists them."
        )
    meeting = Meeting(
        id=next_id(db, Meeting.id, "MTG"),
        title=name,
        host_id=host.id,
        room_id=room.id,
        start=begin,
        end=finish,
        status="scheduled",
        waiting_room=waiting_room,
    )
    db.add(meeting)
    db.add(Participant(meeting_id=meeting.id, user_id=host.id, role="host", status="invited"))
    db.flush()
    log(db, meeting, host, "scheduled")
    return meeting_view(db, meeting, full=True)


@kit.tool(write=True, intent="Invite {user_id} to meeting {meeting_id} on behalf of {acting_user_id}")
def invite_user(db: Session, meeting_id: str, acting_user_id: str, user_id: str) -> dict[str, Any]:
    """Invite a user to a scheduled or live meeting (host only).

    Refused when the user is already a participant (or was removed from it), or when the invited,
    waiting and admitted people already fill the room's capacity.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        meeting_id: Meeting id, e.g. "MTG-1001".
        acting_user_id: Who is inviting: must be the meeting's host, e.g. "USR-1003".
        user_id: User to invite, e.g. "USR-1020".
    """
    meeting = load_meeting(db, meeting_id)
    host = check_host(db, meeting, acting_user_id, "invite people")
    user = load_user(db, user_id)
    if meeting.status not in ("scheduled", "live"):
        raise ToolError(
            f"Meeting {meeting.id} is {meeting.status}; only a scheduled or live meeting takes invitations."
        )
    current = participant_of(db, meeting, user)
    if current is not None:
        raise ToolError(f"{user.name} ({user.id}) is already a participant of {meeting.id} ({current.status}).")
    room = load_room(db, meeting.room_id)
    active = db.scalar(
        select(func.count()).where(
            Participant.meeting_id == meeting.id, Participant.status.in_(("invited", "waiting", "admitted"))
        )
    )
    if (active or 0) >= room.capacity:
        raise ToolError(
            f"Room {room.id} ({room.name}) holds {room.capacity} people and {meeting.id} already has {active} invited "
            "or present; nobody more can be invited."
        )
    db.add(Participant(meeting_id=meeting.id, user_id=user.id, role="attendee", status="invited"))
    db.flush()
    log(db, meeting, host, "invited", user)
    return {"meeting_id": meeting.id, "user_id": user.id, "name": user.name, "status": "invited"}


@kit.tool(write=True, intent="Cancel meeting {meeting_id} on behalf of {acting_user_id}", confirm="always")
def cancel_meeting(db: Session, meeting_id: str, acting_user_id: str) -> dict[str, Any]:
    """Cancel a scheduled meeting (host only), freeing its room. Irreversible; a live meeting is ended instead.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        meeting_id: Meeting id, e.g. "MTG-1001".
        acting_user_id: Who cancels: must be the meeting's host, e.g. "USR-1003".
    """
    meeting = load_meeting(db, meeting_id)
    host = check_host(db, meeting, acting_user_id, "cancel it")
    check_status(
        meeting,
        {
            "live": f"Meeting {meeting.id} is live; a started meeting cannot be cancelled, end it with end_meeting.",
            "ended": f"Meeting {meeting.id} has already ended; only a scheduled meeting can be cancelled.",
            "cancelled": f"Meeting {meeting.id} is already cancelled.",
        },
    )
    meeting.status = "cancelled"
    log(db, meeting, host, "cancelled")
    return meeting_view(db, meeting)


@kit.tool(write=True, intent="Start meeting {meeting_id} on behalf of {acting_user_id}")
def start_meeting(db: Session, meeting_id: str, acting_user_id: str) -> dict[str, Any]:
    """Start a scheduled meeting (host only): it becomes live and the host is admitted.

    A meeting starts on the day it is scheduled for (early or late that day), not on another day.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        meeting_id: Meeting id, e.g. "MTG-1001".
        acting_user_id: Who starts it: must be the meeting's host, e.g. "USR-1003".
    """
    meeting = load_meeting(db, meeting_id)
    host = check_host(db, meeting, acting_user_id, "start it")
    check_status(
        meeting,
        {
            "live": f"Meeting {meeting.id} is already live.",
            "ended": f"Meeting {meeting.id} has already ended; schedule a new one with schedule_meeting.",
            "cancelled": f"Meeting {meeting.id} was cancelled; schedule a new one with schedule_meeting.",
        },
    )
    if meeting.start.date() != kit.today:
        raise ToolError(
            f"Meeting {meeting.id} is scheduled for {minute(meeting.start)}; a meeting can only be started on its day "
            f"and today is {kit.today}."
        )
    meeting.status = "live"
    row = participant_of(db, meeting, host)
    if row is not None:
        row.status = "admitted"
    log(db, meeting, host, "started")
    return meeting_view(db, meeting, full=True)


@kit.tool(write=True, intent="End meeting {meeting_id} on behalf of {acting_user_id}", confirm="always")
def end_meeting(db: Session, meeting_id: str, acting_user_id: str) -> dict[str, Any]:
    """End a live meeting for everyone (host only). Irreversible.

    A recording in progress is stopped and kept; everyone in the meeting or its waiting room leaves.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        meeting_id: Meeting id, e.g. "MTG-1001".
        acting_user_id: Who ends it: must be the meeting's host, e.g. "USR-1003".
    """
    meeting = load_meeting(db, meeting_id)
    host = check_host(db, meeting, acting_user_id, "end it")
    check_status(
        meeting,
        {
            "scheduled": f"Meeting {meeting.id} has not started; cancel it with cancel_meeting instead.",
            "ended": f"Meeting {meeting.id} has already ended.",
            "cancelled": f"Meeting {meeting.id} was cancelled; it never started.",
        },
    )
    recording = in_progress(db, meeting)
    if recording is not None:
        recording.status = "completed"
        log(db, meeting, host, "recording_stopped")
    present = db.scalars(
        select(Participant).where(
            Participant.meeting_id == meeting.id, or_(Participant.status == "admitted", Participant.status == "waiting")
        )
    ).all()
    for row in present:
        row.status = "left"
    meeting.status = "ended"
    log(db, meeting, host, "ended")
    return {
        **meeting_view(db, meeting),
        "people_left": len(present),
        "stopped_recording_id": recording.id if recording else None,
    }
