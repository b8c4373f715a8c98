"""What the video meeting tools share: the kit, the clock, id lookups, host and room rules, result shapes."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import Finder, ServerKit, ToolError, next_id, pick
from gym_mcp.servers.video_meeting.data import seed
from gym_mcp.servers.video_meeting.models import (
    NOW_TIME,
    TODAY,
    Base,
    Meeting,
    MeetingEvent,
    Participant,
    Recording,
    Room,
    User,
)

__all__ = [
    "admitted_count",
    "check_host",
    "check_live",
    "in_progress",
    "kit",
    "load_meeting",
    "load_room",
    "load_user",
    "log",
    "meeting_view",
    "minute",
    "now",
    "participant_of",
    "room_clash",
]

INSTRUCTIONS = f"""\
Lumen Meet, a video meeting service. Users ("USR-1001") host meetings ("MTG-1001") booked in
virtual rooms ("ROOM-1001") whose capacity caps how many people can be in a meeting at once; a
room cannot hold two meetings at the same time. A meeting is scheduled, started by its host (it
is then live) and ended, or cancelled before it starts. With the waiting room on, people who join
wait until the host admits them. Only the host can invite, admit, remove, start or stop a
recording, start, end or cancel: those tools take the acting user (acting_user_id) and refuse
anyone else. Recordings ("REC-1001") are made of live meetings only. Find people with find_users,
meetings with list_meetings, details with get_meeting. Times are timezone-free ISO 8601 such as
"2026-02-10T09:30"; it is now {TODAY.isoformat()} {NOW_TIME:%H:%M}."""

kit = ServerKit(
    "video_meeting",
    base=Base,
    seed=seed,
    instructions=INSTRUCTIONS,
    today=TODAY,
    samples={"limit": (5, 10, 20)},
    inline=True,
)

_MISSING = "No {noun} with id {id!r}. {Noun} ids look like '{example}'; {hint}."
load_user = Finder(User, "user", "USR-1001", "use find_users with a name or email to look one up", message=_MISSING)
load_room = Finder(Room, "room", "ROOM-1001", "use list_rooms to see valid ones", message=_MISSING)
load_meeting = Finder(
    Meeting, "meeting", "MTG-1001", "use list_meetings with a user's id to see valid ones", message=_MISSING
)


def now() -> datetime:
    """The server's fixed current time: the kit's today at 11:00."""
    return datetime.combine(kit.today, NOW_TIME)


def minute(value: datetime) -> str:
    """A datetime as ``YYYY-MM-DDTHH:MM``."""
    return value.strftime("%Y-%m-%dT%H:%M")


# -- rules ----------------------------------------------------------------------------------------


def check_host(db: Session, meeting: Meeting, acting_user_id: str, action: str) -> User:
    """The acting user, who must be the meeting's host; otherwise a `ToolError` naming the host."""
    acting = load_user(db, acting_user_id, "acting_user_id")
    if acting.id != meeting.host_id:
        host = db.get(User, meeting.host_id)
        who = f"{host.name} ({host.id})" if host else meeting.host_id
        raise ToolError(
            f"Only the host of {meeting.id} ('{meeting.title}'), {who}, can {action}; {acting.name} ({acting.id}) "
            "is not the host. Nothing was changed."
        )
    return acting


def check_live(meeting: Meeting, action: str) -> None:
    """Refuse an action that needs a live meeting, saying what the meeting's status allows."""
    if meeting.status == "live":
        return
    why = {
        "scheduled": f"it has not started yet (it is scheduled for {minute(meeting.start)}); its host starts it "
        "with start_meeting on that day",
        "ended": "it has already ended",
        "cancelled": "it was cancelled",
    }[meeting.status]
    raise ToolError(f"Cannot {action}: meeting {meeting.id} is not live, {why}.")


def participant_of(db: Session, meeting: Meeting, user: User) -> Participant | None:
    """A user's participant row in a meeting, if any."""
    return db.get(Participant, (meeting.id, user.id))


def admitted_count(db: Session, meeting: Meeting) -> int:
    """How many people are in the meeting now (admitted, host included)."""
    return (
        db.scalar(select(func.count()).where(Participant.meeting_id == meeting.id, Participant.status == "admitted"))
        or 0
    )


def in_progress(db: Session, meeting: Meeting) -> Recording | None:
    """The meeting's recording in progress, if any."""
    return db.scalar(
        select(Recording)
        .where(Recording.meeting_id == meeting.id, Recording.status == "recording")
        .order_by(Recording.id)
    )


def room_clash(db: Session, room: Room, start: datetime, end: datetime, exclude: str | None = None) -> Meeting | None:
    """A scheduled or live meeting of the room that overlaps start..end, if any."""
    return db.scalar(
        select(Meeting)
        .where(
            Meeting.room_id == room.id,
            Meeting.status.in_(("scheduled", "live")),
            Meeting.start < end,
            Meeting.end > start,
            Meeting.id != (exclude or ""),
        )
        .order_by(Meeting.start)
    )


def log(db: Session, meeting: Meeting, actor: User, action: str, user: User | None = None) -> None:
    """Add an entry to the meeting's activity log, timed at the fixed now."""
    db.add(
        MeetingEvent(
            id=next_id(db, MeetingEvent.id, "LOG"),
            meeting_id=meeting.id,
            acting_user_id=actor.id,
            action=action,
            user_id=user.id if user else None,
            at=now(),
        )
    )
    db.flush()


# -- result shapes --------------------------------------------------------------------------------


def meeting_view(db: Session, meeting: Meeting, *, full: bool = False) -> dict[str, Any]:
    """The fields of a meeting a model needs; ``full`` adds participants, recordings and the room's use."""
    room = db.get(Room, meeting.room_id)
    host = db.get(User, meeting.host_id)
    out: dict[str, Any] = {
        "meeting_id": meeting.id,
        "title": meeting.title,
        "host_id": meeting.host_id,
        "host_name": host.name if host else None,
        "room_id": meeting.room_id,
        "room_capacity": room.capacity if room else None,
        "start": minute(meeting.start),
        "end": minute(meeting.end),
        **pick(meeting, "status", "waiting_room"),
    }
    if not full:
        return out
    rows = db.execute(
        select(Participant, User.name)
        .join(User, User.id == Participant.user_id)
        .where(Participant.meeting_id == meeting.id)
        .order_by(Participant.role.desc(), Participant.user_id)
    ).all()
    out["participants"] = [{**pick(p, "user_id", "role", "status"), "name": name} for p, name in rows]
    out["admitted"] = sum(p.status == "admitted" for p, _ in rows)
    out["waiting"] = sorted(p.user_id for p, _ in rows if p.status == "waiting")
    recordings = db.scalars(select(Recording).where(Recording.meeting_id == meeting.id).order_by(Recording.id))
    out["recordings"] = [{"recording_id": r.id, **pick(r, "status", "recorded_on")} for r in recordings]
    return out
