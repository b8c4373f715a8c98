"""Tools of the calendar server: people, rooms, meetings, invitations and availability.

Business rules the tools enforce (each broken rule is a `ToolError` that says how to fix it):

* nobody is double-booked: the organiser and every invitee who accepted are busy during a
  confirmed event, and a new or moved event (or an acceptance) may not overlap their other
  busy time; tentative and pending answers block nothing;
* a room holds one confirmed event at a time, and at most ``capacity`` people (the organiser
  plus every invitee who has not declined);
* times are timezone-free ISO 8601 (``"2026-01-20T10:00"``); an event ends after it starts, on
  the same day, and is never created in or moved into the past (before ``kit.today``);
* only the organiser changes an event; cancelled and past events are read-only;
* only the invitee answers an invitation, and nobody is invited twice.

New ids are the next number after the largest one in the database, so replaying the same
calls always yields the same ids.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.calendar.data import TODAY, seed
from gym_mcp.servers.calendar.models import Base, Event, Invitation, Person, Room
from gym_mcp.servers.kit import ServerKit, ToolError

__all__ = ["kit"]

INSTRUCTIONS = f"""\
Company calendar: people (PER-1001...), meeting rooms (ROOM-101...), events (EVT-1001...) and \
invitations (INV-1001...). Today is {TODAY.isoformat()}. Times are local, timezone-free ISO 8601 strings \
such as "2026-01-20T10:00"; dates look like "2026-01-20". Working hours are Monday-Friday, usually \
09:00-17:00 (see get_person). Rules: nobody may be double-booked (organizer or accepted invitee), \
rooms cannot be double-booked or over capacity, events cannot be created in or moved into the past, \
and only the organizer may change or cancel an event. Look people up with find_person, find a \
common free time with find_free_slot, then create_event."""

kit = ServerKit("calendar", base=Base, seed=seed, instructions=INSTRUCTIONS, today=TODAY)

_RESPONSE_CHOICES = ("accepted", "declined", "tentative")
_MAX_LIMIT = 100
_SLOT_STEP = 15  # minutes; find_free_slot proposes starts on this grid

# -- parsing and formatting ------------------------------------------------------------------


def _fmt(value: datetime) -> str:
    """Format a datetime as ``YYYY-MM-DDTHH:MM``."""
    return value.strftime("%Y-%m-%dT%H:%M")


def _parse_datetime(value: str, field: str) -> datetime:
    """Parse an ISO 8601 local date-time argument, with an error the model can act on."""
    text = value.strip() if isinstance(value, str) else ""
    example = 'ISO 8601 local time such as "2026-01-20T10:00"'
    if "T" not in text and " " not in text:
        raise ToolError(f"{field} {value!r} is not a date-time; use {example} (date and time of day).")
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise ToolError(f"{field} {value!r} is not a valid date-time; use {example}.") from None
    if parsed.tzinfo is not None:
        raise ToolError(f"{field} {value!r} has a timezone offset; times are timezone-free, use {example}.")
    if parsed.second or parsed.microsecond:
        raise ToolError(f"{field} {value!r} has seconds; times are to the minute, use {example}.")
    return parsed


def _parse_date(value: str, field: str) -> date:
    """Parse an ISO 8601 date argument (``YYYY-MM-DD``)."""
    try:
        return date.fromisoformat(value.strip())
    except (ValueError, AttributeError):
        raise ToolError(f'{field} {value!r} is not a valid date; use ISO 8601 such as "2026-01-20".') from None


def _date_range(start_date: str | None, end_date: str | None, *, max_days: int) -> tuple[date, date]:
    """Parse an inclusive date range; defaults to today and the following six days."""
    first = _parse_date(start_date, "start_date") if start_date else kit.today
    last = _parse_date(end_date, "end_date") if end_date else first + timedelta(days=6)
    if last < first:
        raise ToolError(f"end_date {last.isoformat()} is before start_date {first.isoformat()}; swap them.")
    if (last - first).days + 1 > max_days:
        raise ToolError(f"The date range is limited to {max_days} days; ask for a shorter range.")
    return first, last


def _check_limit(limit: int) -> None:
    """Reject a list limit outside 1..100."""
    if not 1 <= limit <= _MAX_LIMIT:
        raise ToolError(f"limit must be between 1 and {_MAX_LIMIT}, got {limit}.")


def _hm(value: str) -> time:
    """Parse an ``"HH:MM"`` working-hours string."""
    return time.fromisoformat(value)


def _day_start() -> datetime:
    """Midnight at the start of the server's today."""
    return datetime.combine(kit.today, time.min)


def _span(start: datetime, end: datetime) -> str:
    """Human-readable time span, e.g. ``2026-01-20 10:00-11:00``."""
    return f"{start:%Y-%m-%d %H:%M}-{end:%H:%M}"


# -- lookups ---------------------------------------------------------------------------------


def _person(db: Session, person_id: str, field: str = "person_id") -> Person:
    """Load a person or explain how to find a valid id."""
    person = db.get(Person, person_id)
    if person is None:
        raise ToolError(
            f'Unknown {field} {person_id!r}. Person ids look like "PER-1001"; '
            "use find_person to look someone up by name or email."
        )
    return person


def _room(db: Session, room_id: str) -> Room:
    """Load a room or explain how to find a valid id."""
    room = db.get(Room, room_id)
    if room is None:
        raise ToolError(f'Unknown room_id {room_id!r}. Room ids look like "ROOM-101"; use list_rooms to see them.')
    return room


def _event(db: Session, event_id: str) -> Event:
    """Load an event or explain how to find a valid id."""
    event = db.get(Event, event_id)
    if event is None:
        raise ToolError(
            f'Unknown event_id {event_id!r}. Event ids look like "EVT-1001"; '
            "use list_events or search_events to find one."
        )
    return event


def _invitation(db: Session, invitation_id: str) -> Invitation:
    """Load an invitation or explain how to find a valid id."""
    invitation = db.get(Invitation, invitation_id)
    if invitation is None:
        raise ToolError(
            f'Unknown invitation_id {invitation_id!r}. Invitation ids look like "INV-1001"; '
            "use list_invitations (for a person) or get_event (for an event) to find one."
        )
    return invitation


def _next_id(db: Session, column: Any, prefix: str) -> str:
    """The next id after the largest numeric suffix in `column` (deterministic on replay)."""
    numbers = [int(value.split("-", 1)[1]) for value in db.scalars(select(column))]
    return f"{prefix}-{max(numbers, default=1000) + 1}"


# -- business rules --------------------------------------------------------------------------


def _busy_events(
    db: Session,
    person_id: str,
    start: datetime,
    end: datetime,
    *,
    exclude_event_id: str | None = None,
    include_tentative: bool = False,
) -> list[Event]:
    """Confirmed events overlapping [start, end) that the person organises or accepted."""
    responses = ["accepted", "tentative"] if include_tentative else ["accepted"]
    answered = select(Invitation.event_id).where(Invitation.person_id == person_id, Invitation.response.in_(responses))
    stmt = select(Event).where(
        Event.status == "confirmed",
        Event.start < end,
        Event.end > start,
        or_(Event.organizer_id == person_id, Event.id.in_(answered)),
    )
    if exclude_event_id is not None:
        stmt = stmt.where(Event.id != exclude_event_id)
    return list(db.scalars(stmt.order_by(Event.start, Event.id)))


def _check_person_free(
    db: Session, person: Person, start: datetime, end: datetime, exclude_event_id: str | None = None
) -> None:
    """Refuse a time at which the person is already busy, naming the conflicting event."""
    conflicts = _busy_events(db, person.id, start, end, exclude_event_id=exclude_event_id)
    if conflicts:
        other = conflicts[0]
        raise ToolError(
            f"Double booking: {person.name} ({person.id}) is already busy {_span(other.start, other.end)} "
            f'with {other.id} "{other.title}", which overlaps {_span(start, end)}. Choose another time '
            "(find_free_slot finds one that suits everyone)."
        )


def _check_room_free(
    db: Session, room: Room, start: datetime, end: datetime, exclude_event_id: str | None = None
) -> None:
    """Refuse a room that is already booked at that time, naming the conflicting event."""
    stmt = select(Event).where(
        Event.room_id == room.id, Event.status == "confirmed", Event.start < end, Event.end > start
    )
    if exclude_event_id is not None:
        stmt = stmt.where(Event.id != exclude_event_id)
    other = db.scalars(stmt.order_by(Event.start, Event.id)).first()
    if other is not None:
        raise ToolError(
            f"Room {room.id} ({room.name}) is already booked {_span(other.start, other.end)} for "
            f'{other.id} "{other.title}". Pick another room (list_rooms with start and end lists free '
            "rooms) or another time."
        )


def _check_capacity(room: Room, headcount: int) -> None:
    """Refuse more people than the room holds."""
    if headcount > room.capacity:
        raise ToolError(
            f"Room {room.id} ({room.name}) holds {room.capacity} people but the event would have "
            f"{headcount} (organizer plus invitees who have not declined). Book a larger room "
            f"(list_rooms with min_capacity={headcount}) or invite fewer people."
        )


def _headcount(event: Event) -> int:
    """Organizer plus invitees who have not declined."""
    return 1 + sum(1 for inv in event.invitations if inv.response != "declined")


def _check_span(start: datetime, end: datetime) -> None:
    """An event ends after it starts, on the same day, and does not start before today."""
    if end <= start:
        raise ToolError(f"end {_fmt(end)} must be after start {_fmt(start)}.")
    if end.date() != start.date() and end != datetime.combine(start.date() + timedelta(days=1), time.min):
        raise ToolError(
            f"An event must start and end on the same day; {_fmt(start)} to {_fmt(end)} spans several days."
        )
    if start < _day_start():
        raise ToolError(
            f"start {_fmt(start)} is in the past: today is {kit.today.isoformat()}, and events can only "
            "be created or moved to today or later."
        )


def _check_organizer(db: Session, event: Event, acting_person_id: str, action: str) -> None:
    """Only the organizer may change an event."""
    _person(db, acting_person_id, "acting_person_id")
    if event.organizer_id != acting_person_id:
        raise ToolError(
            f"Only the organizer of {event.id}, {event.organizer.name} ({event.organizer_id}), "
            f"can {action} it; {acting_person_id} is not the organizer."
        )


def _check_editable(event: Event, action: str) -> None:
    """Cancelled and past events are read-only."""
    if event.status == "cancelled":
        raise ToolError(f'{event.id} "{event.title}" is cancelled; a cancelled event cannot {action}.')
    if event.start < _day_start():
        raise ToolError(
            f'{event.id} "{event.title}" took place on {event.start.date().isoformat()}, before today '
            f"({kit.today.isoformat()}); past events cannot {action}."
        )


# -- result shapes ---------------------------------------------------------------------------


def _event_summary(event: Event) -> dict[str, Any]:
    """Compact event fields for lists."""
    return {
        "id": event.id,
        "title": event.title,
        "start": _fmt(event.start),
        "end": _fmt(event.end),
        "organizer_id": event.organizer_id,
        "room_id": event.room_id,
        "status": event.status,
    }


def _event_detail(event: Event) -> dict[str, Any]:
    """Full event view: organizer, room, attendees and their responses."""
    detail: dict[str, Any] = {
        "id": event.id,
        "title": event.title,
        "description": event.description,
        "start": _fmt(event.start),
        "end": _fmt(event.end),
        "status": event.status,
        "organizer": {"id": event.organizer.id, "name": event.organizer.name},
        "room": None
        if event.room is None
        else {"id": event.room.id, "name": event.room.name, "capacity": event.room.capacity},
        "attendees": [
            {
                "invitation_id": inv.id,
                "person_id": inv.person_id,
                "name": inv.person.name,
                "response": inv.response,
            }
            for inv in event.invitations
        ],
        "headcount": _headcount(event),
    }
    if event.status == "cancelled":
        detail["cancel_reason"] = event.cancel_reason
    return detail


def _person_view(person: Person) -> dict[str, Any]:
    """Compact person fields."""
    return {
        "id": person.id,
        "name": person.name,
        "email": person.email,
        "department": person.department,
        "working_hours": f"{person.work_start}-{person.work_end}",
    }


def _room_view(room: Room) -> dict[str, Any]:
    """Compact room fields."""
    return {
        "id": room.id,
        "name": room.name,
        "floor": room.floor,
        "capacity": room.capacity,
        "features": [f for f in room.features.split(",") if f],
    }


# -- synthesis hints (intent templates and sample values, see `ToolInfo`) ---------------------
# Ids (person_id, event_id, room_id, ...) are drawn from the live database by the synthesizer;
# the samples below are literal values that mostly succeed on the seed-0 data. Writes use days
# after the last seeded event (2026-02-11), when everyone is free. A start and an end drawn
# independently fall on the same day half of the time, and then always make a 30-180 minute
# meeting (every start is before every end).


def _at(days: tuple[str, ...], times: tuple[str, ...]) -> tuple[str, ...]:
    """Every ``{day}T{time}`` combination, day by day."""
    return tuple(f"{day}T{hm}" for day in days for hm in times)


_STARTS = ("09:00", "09:30", "10:00", "10:30")
_ENDS = ("11:00", "11:30", "12:00")
_CREATE_DAYS = ("2026-02-17", "2026-02-19")
_UPDATE_DAYS = ("2026-02-18", "2026-02-24")
_ROOM_DAYS = ("2026-01-21", "2026-01-22")  # seeded days: some rooms are taken
_GROUPS = (
    ["PER-1002"],
    ["PER-1003", "PER-1011"],
    ["PER-1004", "PER-1008", "PER-1021"],
    ["PER-1014", "PER-1028"],
    ["PER-1007", "PER-1020", "PER-1022"],
    ["PER-1013", "PER-1039"],
    ["PER-1025"],
)
_TITLES = (
    "Atlas design review",
    "Q1 hiring plan review",
    "Customer call: Globex",
    "Security audit kickoff",
    "Onboarding sync",
    "Pricing workshop",
    "Vendor demo: Initech",
)
_DESCRIPTIONS = (
    "Walk through the open questions and agree on next steps",
    "Review the draft and collect feedback",
    "Status, risks and owners",
    "Bring your laptop",
    "Agenda to follow",
)
_LIMITS = (3, 5, 10, 20)


# -- READ tools ------------------------------------------------------------------------------


@kit.tool(
    write=False,
    intent="Find people whose name, email or department contains '{query}'[, at most {limit} of them]",
    samples={"query": ("Zara", "Okafor", "Sales", "Engineering", "mikhail", "Legal", "Chen"), "limit": _LIMITS},
)
def find_person(db: Session, query: str, limit: int = 10) -> list[dict[str, Any]]:
    """Find people whose name, email or department contains the text (case-insensitive).

    Use this to turn a name like "Priya" into a person id. Returns a list of people with id,
    name, email, department and working hours; an empty list when nobody matches.

    Args:
        db: Database session (supplied by the server).
        query: Part of a name, email or department, e.g. "priya" or "Sales".
        limit: Maximum number of people to return, 1-100.
    """
    _check_limit(limit)
    text = query.strip().lower()
    if not text:
        raise ToolError('query is empty; pass part of a name, email or department, e.g. "priya".')
    pattern = f"%{text}%"
    stmt = (
        select(Person)
        .where(
            or_(
                func.lower(Person.name).like(pattern),
                func.lower(Person.email).like(pattern),
                func.lower(Person.department).like(pattern),
            )
        )
        .order_by(Person.name, Person.id)
        .limit(limit)
    )
    return [_person_view(p) for p in db.scalars(stmt)]


@kit.tool(write=False, intent="Show the profile and working hours of {person_id}")
def get_person(db: Session, person_id: str) -> dict[str, Any]:
    """Get one person's profile: name, email, department and working hours (Monday-Friday).

    Args:
        db: Database session (supplied by the server).
        person_id: The person's id, e.g. "PER-1001".
    """
    person = _person(db, person_id)
    return {**_person_view(person), "working_days": "Monday-Friday"}


@kit.tool(
    write=False,
    intent="List the events on {person_id}'s calendar[ from {start_date}][ through {end_date}]"
    "[, at most {limit} of them]",
    samples={
        "start_date": ("2026-01-15", "2026-01-19", "2026-01-26", "2026-02-02"),
        "end_date": ("2026-02-06", "2026-02-13", "2026-02-27", "2026-03-06"),
        "limit": _LIMITS,
    },
)
def list_events(
    db: Session,
    person_id: str,
    start_date: str | None = None,
    end_date: str | None = None,
    include_cancelled: bool = False,
    limit: int = 50,
) -> list[dict[str, Any]]:
    """List a person's events (as organizer or invitee) in a date range, earliest first.

    Each event has id, title, start, end, organizer_id, room_id, status and the person's
    role: "organizer" or their invitation response (pending, accepted, declined, tentative).

    Args:
        db: Database session (supplied by the server).
        person_id: Whose calendar to read, e.g. "PER-1001".
        start_date: First day, inclusive, e.g. "2026-01-19". Defaults to today (2026-01-15).
        end_date: Last day, inclusive, e.g. "2026-01-23". Defaults to start_date + 6 days. At most 92 days.
        include_cancelled: Also list cancelled events.
        limit: Maximum number of events to return, 1-100.
    """
    _check_limit(limit)
    person = _person(db, person_id)
    first, last = _date_range(start_date, end_date, max_days=92)
    invited = select(Invitation.event_id).where(Invitation.person_id == person.id)
    stmt = select(Event).where(
        Event.start < datetime.combine(last + timedelta(days=1), time.min),
        Event.end > datetime.combine(first, time.min),
        or_(Event.organizer_id == person.id, Event.id.in_(invited)),
    )
    if not include_cancelled:
        stmt = stmt.where(Event.status == "confirmed")
    events = db.scalars(stmt.order_by(Event.start, Event.id).limit(limit))
    out = []
    for event in events:
        if event.organizer_id == person.id:
            role = "organizer"
        else:
            role = next(inv.response for inv in event.invitations if inv.person_id == person.id)
        out.append({**_event_summary(event), "role": role})
    return out


@kit.tool(write=False, intent="Show event {event_id} with its attendees and their responses")
def get_event(db: Session, event_id: str) -> dict[str, Any]:
    """Get one event in full: time, status, organizer, room, and every attendee with their response.

    Attendee entries carry the invitation_id needed by respond_to_invitation. headcount is the
    organizer plus invitees who have not declined (what counts against room capacity).

    Args:
        db: Database session (supplied by the server).
        event_id: The event's id, e.g. "EVT-1001".
    """
    return _event_detail(_event(db, event_id))


@kit.tool(
    write=False,
    intent="Search all events for '{query}'[ from {start_date}][ through {end_date}][, at most {limit} of them]",
    samples={
        "query": (
            "Quarterly business review",
            "postmortem",
            "Sprint planning",
            "Falcon",
            "budget",
            "Acme",
            "interview",
        ),
        "start_date": ("2026-01-01", "2026-01-12", "2026-01-15", "2026-01-22", "2026-02-02"),
        "end_date": ("2026-02-06", "2026-02-13", "2026-02-28", "2026-03-31"),
        "limit": _LIMITS,
    },
)
def search_events(
    db: Session,
    query: str,
    start_date: str | None = None,
    end_date: str | None = None,
    limit: int = 20,
) -> list[dict[str, Any]]:
    """Search all events (anyone's, cancelled included) whose title or description contains the text.

    Returns event summaries (id, title, start, end, organizer_id, room_id, status), earliest first.

    Args:
        db: Database session (supplied by the server).
        query: Text to look for, case-insensitive, e.g. "budget" or "Atlas".
        start_date: Only events on or after this day, e.g. "2026-01-19". Optional.
        end_date: Only events on or before this day, e.g. "2026-01-31". Optional.
        limit: Maximum number of events to return, 1-100.
    """
    _check_limit(limit)
    text = query.strip().lower()
    if not text:
        raise ToolError('query is empty; pass a word from the title, e.g. "budget".')
    pattern = f"%{text}%"
    stmt = select(Event).where(or_(func.lower(Event.title).like(pattern), func.lower(Event.description).like(pattern)))
    first = _parse_date(start_date, "start_date") if start_date else None
    last = _parse_date(end_date, "end_date") if end_date else None
    if first and last and last < first:
        raise ToolError(f"end_date {last.isoformat()} is before start_date {first.isoformat()}; swap them.")
    if first:
        stmt = stmt.where(Event.start >= datetime.combine(first, time.min))
    if last:
        stmt = stmt.where(Event.start < datetime.combine(last + timedelta(days=1), time.min))
    return [_event_summary(e) for e in db.scalars(stmt.order_by(Event.start, Event.id).limit(limit))]


@kit.tool(
    write=False,
    intent="List {person_id}'s[ {response}] invitations to upcoming events[, at most {limit} of them]",
    samples={"response": ("pending", "accepted", "declined", "tentative"), "limit": _LIMITS},
)
def list_invitations(db: Session, person_id: str, response: str = "pending", limit: int = 20) -> list[dict[str, Any]]:
    """List a person's invitations to upcoming (today or later), not-cancelled events, earliest first.

    Use it to see what someone still has to answer. Each entry has invitation_id, response,
    and the event's id, title, start, end, organizer_id and room_id.

    Args:
        db: Database session (supplied by the server).
        person_id: The invitee, e.g. "PER-1001".
        response: Which invitations: "pending" (default), "accepted", "declined", "tentative" or "any".
        limit: Maximum number of invitations to return, 1-100.
    """
    _check_limit(limit)
    person = _person(db, person_id)
    allowed = ("pending", "accepted", "declined", "tentative", "any")
    if response not in allowed:
        raise ToolError(f"response must be one of {', '.join(allowed)}; got {response!r}.")
    stmt = (
        select(Invitation, Event)
        .join(Event, Invitation.event_id == Event.id)
        .where(Invitation.person_id == person.id, Event.status == "confirmed", Event.start >= _day_start())
    )
    if response != "any":
        stmt = stmt.where(Invitation.response == response)
    rows = db.execute(stmt.order_by(Event.start, Event.id).limit(limit)).all()
    return [
        {
            "invitation_id": inv.id,
            "response": inv.response,
            "event_id": ev.id,
            "title": ev.title,
            "start": _fmt(ev.start),
            "end": _fmt(ev.end),
            "organizer_id": ev.organizer_id,
            "room_id": ev.room_id,
        }
        for inv, ev in rows
    ]


@kit.tool(
    write=False,
    intent="Show when {person_id} is busy[ from {start_date}][ through {end_date}]",
    samples={
        "start_date": ("2026-01-15", "2026-01-19", "2026-01-22", "2026-01-26", "2026-02-02"),
        "end_date": ("2026-02-06", "2026-02-10", "2026-02-13"),
    },
)
def check_availability(
    db: Session, person_id: str, start_date: str | None = None, end_date: str | None = None
) -> dict[str, Any]:
    """Show when a person is busy over a date range, with their working hours.

    busy lists confirmed events they organise or accepted (these block new bookings);
    tentative lists events they answered "tentative" (these do not block).

    Args:
        db: Database session (supplied by the server).
        person_id: The person, e.g. "PER-1001".
        start_date: First day, inclusive, e.g. "2026-01-19". Defaults to today (2026-01-15).
        end_date: Last day, inclusive, e.g. "2026-01-23". Defaults to start_date + 6 days. At most 31 days.
    """
    person = _person(db, person_id)
    first, last = _date_range(start_date, end_date, max_days=31)
    start = datetime.combine(first, time.min)
    end = datetime.combine(last + timedelta(days=1), time.min)
    busy: list[dict[str, str]] = []
    tentative: list[dict[str, str]] = []
    for event in _busy_events(db, person.id, start, end, include_tentative=True):
        entry = {
            "start": _fmt(event.start),
            "end": _fmt(event.end),
            "event_id": event.id,
            "title": event.title,
        }
        blocking = event.organizer_id == person.id or any(
            inv.person_id == person.id and inv.response == "accepted" for inv in event.invitations
        )
        (busy if blocking else tentative).append(entry)
    return {
        "person_id": person.id,
        "from": first.isoformat(),
        "to": last.isoformat(),
        "working_hours": f"{person.work_start}-{person.work_end}",
        "working_days": "Monday-Friday",
        "busy": busy,
        "tentative": tentative,
    }


@kit.tool(
    write=False,
    intent="Find the earliest free slot for {person_ids} on {date}[ lasting {duration_minutes} minutes]",
    samples={
        "person_ids": (
            ["PER-1001", "PER-1006"],
            ["PER-1004", "PER-1032"],
            ["PER-1002", "PER-1003", "PER-1011"],
            ["PER-1014", "PER-1016", "PER-1028"],
            ["PER-1015"],
            ["PER-1009", "PER-1024", "PER-1010"],
        ),
        "date": ("2026-01-20", "2026-01-22", "2026-01-27", "2026-02-03", "2026-02-10", "2026-02-17", "2026-02-19"),
        "duration_minutes": (30, 45, 60, 90, 120),
    },
)
def find_free_slot(db: Session, person_ids: list[str], date: str, duration_minutes: int = 30) -> dict[str, Any]:
    """Find the earliest time on a day when all the given people are free for the whole duration.

    Only their common working hours count (usually 09:00-17:00, Monday-Friday). A time is taken
    when someone organises or has accepted or tentatively accepted a confirmed event. Include
    the organizer in person_ids. Returns slot ({start, end}, ready for create_event, or null when
    nothing fits) and free_windows (every common free window long enough). Slots start on a
    quarter hour.

    Args:
        db: Database session (supplied by the server).
        person_ids: Everyone who must attend, organizer included, e.g. ["PER-1001", "PER-1002"].
        date: The day to search, ISO 8601, e.g. "2026-01-20". Today (2026-01-15) or later.
        duration_minutes: Meeting length in minutes, 15-480, e.g. 60.
    """
    if not person_ids:
        raise ToolError('person_ids is empty; pass at least one person id, e.g. ["PER-1001"].')
    if len(person_ids) > 20:
        raise ToolError("person_ids is limited to 20 people.")
    if not 15 <= duration_minutes <= 480:
        raise ToolError(f"duration_minutes must be between 15 and 480, got {duration_minutes}.")
    people = [_person(db, pid, "person_ids entry") for pid in dict.fromkeys(person_ids)]
    day = _parse_date(date, "date")
    if day < kit.today:
        raise ToolError(f"date {day.isoformat()} is in the past; today is {kit.today.isoformat()}.")
    if day.weekday() >= 5:
        raise ToolError(
            f"date {day.isoformat()} is a {day.strftime('%A')}; working days are Monday-Friday, pick a weekday."
        )
    window_start = datetime.combine(day, max(_hm(p.work_start) for p in people))
    window_end = datetime.combine(day, min(_hm(p.work_end) for p in people))
    hours = f"{window_start:%H:%M}-{window_end:%H:%M}"
    duration = timedelta(minutes=duration_minutes)
    if window_end - window_start < duration:
        raise ToolError(
            f"The common working hours of these people ({hours}) are shorter than {duration_minutes} minutes."
        )

    busy: list[tuple[datetime, datetime]] = []
    for person in people:
        for event in _busy_events(db, person.id, window_start, window_end, include_tentative=True):
            busy.append((event.start, event.end))
    busy.sort()
    free: list[tuple[datetime, datetime]] = []
    cursor = window_start
    for start, end in busy:
        if start > cursor:
            free.append((cursor, min(start, window_end)))
        cursor = max(cursor, end)
    if cursor < window_end:
        free.append((cursor, window_end))

    step = timedelta(minutes=_SLOT_STEP)
    slot = None
    windows = []
    for start, end in free:
        offset = (start - datetime.combine(day, time.min)) % step
        aligned = start if not offset else start + (step - offset)
        if aligned + duration <= end:
            windows.append({"start": _fmt(start), "end": _fmt(end)})
            if slot is None:
                slot = {"start": _fmt(aligned), "end": _fmt(aligned + duration)}
    result: dict[str, Any] = {
        "date": day.isoformat(),
        "person_ids": [p.id for p in people],
        "working_hours": hours,
        "duration_minutes": duration_minutes,
        "slot": slot,
        "free_windows": windows,
    }
    if slot is None:
        result["hint"] = f"No common free {duration_minutes} minutes on {day.isoformat()}; try another day."
    return result


@kit.tool(
    write=False,
    intent="List meeting rooms[ with at least {min_capacity} seats][ that are free from {start} to {end}]"
    "[, at most {limit} of them]",
    samples={
        "min_capacity": (2, 4, 6, 8, 10, 12, 16, 20),
        "start": _at(_ROOM_DAYS, _STARTS),
        "end": _at(_ROOM_DAYS, _ENDS),
        "limit": _LIMITS,
    },
)
def list_rooms(
    db: Session, min_capacity: int = 1, start: str | None = None, end: str | None = None, limit: int = 20
) -> list[dict[str, Any]]:
    """List meeting rooms with at least min_capacity seats, smallest first.

    Give start and end to list only rooms that are free for that whole time. Each room has id,
    name, floor, capacity and features (e.g. "video", "whiteboard").

    Args:
        db: Database session (supplied by the server).
        min_capacity: Minimum number of seats, e.g. 6.
        start: Optional start of the time the room must be free, e.g. "2026-01-20T10:00".
        end: Optional end of that time, e.g. "2026-01-20T11:00". Give both start and end, or neither.
        limit: Maximum number of rooms to return, 1-100.
    """
    _check_limit(limit)
    stmt = select(Room).where(Room.capacity >= min_capacity)
    if (start is None) != (end is None):
        raise ToolError("Give both start and end (to list rooms free at that time) or neither.")
    if start is not None and end is not None:
        begin, finish = _parse_datetime(start, "start"), _parse_datetime(end, "end")
        if finish <= begin:
            raise ToolError(f"end {_fmt(finish)} must be after start {_fmt(begin)}.")
        taken = select(Event.room_id).where(
            Event.room_id.is_not(None), Event.status == "confirmed", Event.start < finish, Event.end > begin
        )
        stmt = stmt.where(Room.id.not_in(taken))
    return [_room_view(r) for r in db.scalars(stmt.order_by(Room.capacity, Room.id).limit(limit))]


# -- WRITE tools -----------------------------------------------------------------------------


@kit.tool(
    write=True,
    intent="Schedule '{title}' organized by {organizer_id} from {start} to {end}[ with {attendee_ids}]"
    "[ in room {room_id}][, described as '{description}']",
    samples={
        "title": _TITLES,
        "start": _at(_CREATE_DAYS, _STARTS),
        "end": _at(_CREATE_DAYS, _ENDS),
        "attendee_ids": _GROUPS,
        "description": _DESCRIPTIONS,
    },
)
def create_event(
    db: Session,
    organizer_id: str,
    title: str,
    start: str,
    end: str,
    attendee_ids: list[str] | None = None,
    room_id: str | None = None,
    description: str = "",
) -> dict[str, Any]:
    """Create a confirmed event and send pending invitations to the attendees.

    Fails, changing nothing, if the organizer is already busy then, the room is booked or too
    small, the time is in the past, or end is not after start on the same day. Attendees are
    invited as "pending" (their own calendars are not checked until they accept; use
    find_free_slot first). Returns the new event with its id and invitation ids.

    Args:
        db: Database session (supplied by the server).
        organizer_id: Who organises (and attends), e.g. "PER-1001".
        title: Event title, 1-200 characters, e.g. "Atlas design review".
        start: Start time, ISO 8601 local, e.g. "2026-01-20T10:00". Today or later.
        end: End time, ISO 8601 local, same day, after start, e.g. "2026-01-20T11:00".
        attendee_ids: People to invite besides the organizer, e.g. ["PER-1002", "PER-1003"].
        room_id: Room to book, e.g. "ROOM-101"; omit for no room.
        description: Optional agenda or notes.
    """
    name = title.strip()
    if not 1 <= len(name) <= 200:
        raise ToolError("title must be 1 to 200 characters.")
    organizer = _person(db, organizer_id, "organizer_id")
    begin, finish = _parse_datetime(start, "start"), _parse_datetime(end, "end")
    _check_span(begin, finish)
    invitees: list[Person] = []
    for pid in attendee_ids or []:
        if pid == organizer.id:
            raise ToolError(f"{pid} is the organizer and attends automatically; leave them out of attendee_ids.")
        if any(p.id == pid for p in invitees):
            raise ToolError(f"{pid} appears twice in attendee_ids; list each attendee once.")
        invitees.append(_person(db, pid, "attendee_ids entry"))
    if len(invitees) > 50:
        raise ToolError("At most 50 attendees per event.")
    _check_person_free(db, organizer, begin, finish)
    room = None
    if room_id is not None:
        room = _room(db, room_id)
        _check_capacity(room, 1 + len(invitees))
        _check_room_free(db, room, begin, finish)

    event = Event(
        id=_next_id(db, Event.id, "EVT"),
        title=name,
        description=description.strip(),
        start=begin,
        end=finish,
        organizer_id=organizer.id,
        room_id=room.id if room else None,
        status="confirmed",
    )
    db.add(event)
    first_invitation = int(_next_id(db, Invitation.id, "INV").split("-")[1])
    for i, person in enumerate(invitees):
        event.invitations.append(Invitation(id=f"INV-{first_invitation + i}", person_id=person.id, response="pending"))
    db.flush()
    return _event_detail(event)


@kit.tool(
    write=True,
    intent="Update event {event_id} on behalf of {acting_person_id}[: rename it to '{title}']"
    "[, move its start to {start}][, make it end at {end}][, move it to room {room_id}]"
    "[, set its description to '{description}']",
    samples={
        "title": _TITLES,
        "start": _at(_UPDATE_DAYS, _STARTS),
        "end": _at(_UPDATE_DAYS, _ENDS),
        "description": _DESCRIPTIONS,
    },
)
def update_event(
    db: Session,
    event_id: str,
    acting_person_id: str,
    title: str | None = None,
    start: str | None = None,
    end: str | None = None,
    room_id: str | None = None,
    description: str | None = None,
) -> dict[str, Any]:
    """Change an upcoming event's title, description, time and/or room (organizer only).

    Pass only what changes. Giving only start moves the event and keeps its length. A new time
    must be free for the organizer, every invitee who accepted, and the room; otherwise nothing
    changes and the error names the conflicting event. Returns the updated event and the list
    of changed fields.

    Args:
        db: Database session (supplied by the server).
        event_id: The event to change, e.g. "EVT-1001".
        acting_person_id: Who is making the change; must be the organizer, e.g. "PER-1001".
        title: New title, 1-200 characters.
        start: New start, ISO 8601 local, e.g. "2026-01-21T14:00". Today or later.
        end: New end, ISO 8601 local, same day as start, e.g. "2026-01-21T15:00".
        room_id: New room, e.g. "ROOM-203" (use release_room to drop the room).
        description: New agenda or notes.
    """
    event = _event(db, event_id)
    _check_organizer(db, event, acting_person_id, "update")
    _check_editable(event, "be updated")
    if all(v is None for v in (title, start, end, room_id, description)):
        raise ToolError("Nothing to update: pass at least one of title, start, end, room_id, description.")
    changed: list[str] = []
    if title is not None:
        name = title.strip()
        if not 1 <= len(name) <= 200:
            raise ToolError("title must be 1 to 200 characters.")
        if name != event.title:
            changed.append("title")
    begin = _parse_datetime(start, "start") if start is not None else event.start
    finish = _parse_datetime(end, "end") if end is not None else begin + (event.end - event.start)
    moved = (begin, finish) != (event.start, event.end)
    if moved:
        _check_span(begin, finish)
        _check_person_free(db, event.organizer, begin, finish, event.id)
        for inv in event.invitations:
            if inv.response == "accepted":
                _check_person_free(db, inv.person, begin, finish, event.id)
        changed += ["start", "end"]
    room = event.room
    if room_id is not None and room_id != event.room_id:
        room = _room(db, room_id)
        _check_capacity(room, _headcount(event))
        changed.append("room_id")
    if room is not None and (moved or "room_id" in changed):
        _check_room_free(db, room, begin, finish, event.id)
    if description is not None and description.strip() != event.description:
        changed.append("description")

    if title is not None:
        event.title = title.strip()
    if description is not None:
        event.description = description.strip()
    event.start, event.end = begin, finish
    event.room_id = room.id if room is not None else None
    db.flush()
    db.refresh(event)
    return {**_event_detail(event), "changed": changed}


@kit.tool(
    write=True,
    intent="Cancel event {event_id} on behalf of {acting_person_id}[ with the reason '{reason}']",
    samples={
        "reason": (
            "Moved to next sprint",
            "Organizer is out sick",
            "No longer needed",
            "Merged into the weekly sync",
            "Client asked to reschedule",
        )
    },
)
def cancel_event(db: Session, event_id: str, acting_person_id: str, reason: str = "") -> dict[str, Any]:
    """Cancel an upcoming event (organizer only). It frees the room and everyone's time.

    The event and its invitations are kept with status "cancelled"; it cannot be undone.

    Args:
        db: Database session (supplied by the server).
        event_id: The event to cancel, e.g. "EVT-1001".
        acting_person_id: Who cancels; must be the organizer, e.g. "PER-1001".
        reason: Optional short reason shown to invitees, e.g. "Moved to next sprint".
    """
    event = _event(db, event_id)
    _check_organizer(db, event, acting_person_id, "cancel")
    if event.status == "cancelled":
        raise ToolError(f"{event.id} is already cancelled; nothing changed.")
    _check_editable(event, "be cancelled")
    event.status = "cancelled"
    event.cancel_reason = reason.strip()[:500]
    return {**_event_summary(event), "notified_invitees": len(event.invitations)}


@kit.tool(write=True, intent="Invite {person_id} to event {event_id} on behalf of {acting_person_id}")
def invite_attendee(db: Session, event_id: str, acting_person_id: str, person_id: str) -> dict[str, Any]:
    """Invite one more person to an upcoming event (organizer only); the invitation starts "pending".

    Fails if the person is already invited or is the organizer, or the event's room would be
    over capacity. Returns the new invitation.

    Args:
        db: Database session (supplied by the server).
        event_id: The event, e.g. "EVT-1001".
        acting_person_id: Who invites; must be the organizer, e.g. "PER-1001".
        person_id: The person to invite, e.g. "PER-1002".
    """
    event = _event(db, event_id)
    _check_organizer(db, event, acting_person_id, "invite people to")
    _check_editable(event, "get new invitees")
    person = _person(db, person_id)
    if person.id == event.organizer_id:
        raise ToolError(f"{person.id} is the organizer of {event.id} and attends already; no invitation needed.")
    existing = next((inv for inv in event.invitations if inv.person_id == person.id), None)
    if existing is not None:
        raise ToolError(
            f"{person.name} ({person.id}) is already invited to {event.id} ({existing.id}, response "
            f"{existing.response}); a person cannot be invited twice."
        )
    if event.room is not None:
        _check_capacity(event.room, _headcount(event) + 1)
    invitation = Invitation(id=_next_id(db, Invitation.id, "INV"), person_id=person.id, response="pending")
    event.invitations.append(invitation)
    db.flush()
    return {
        "invitation_id": invitation.id,
        "event_id": event.id,
        "person_id": person.id,
        "name": person.name,
        "response": invitation.response,
    }


@kit.tool(write=True, intent="Remove {person_id} from event {event_id} on behalf of {acting_person_id}")
def remove_attendee(db: Session, event_id: str, acting_person_id: str, person_id: str) -> dict[str, Any]:
    """Withdraw a person's invitation to an upcoming event (organizer only).

    The invitation is deleted and no longer counts against the room's capacity.

    Args:
        db: Database session (supplied by the server).
        event_id: The event, e.g. "EVT-1001".
        acting_person_id: Who removes; must be the organizer, e.g. "PER-1001".
        person_id: The invitee to remove, e.g. "PER-1002".
    """
    event = _event(db, event_id)
    _check_organizer(db, event, acting_person_id, "remove attendees from")
    _check_editable(event, "change attendees")
    person = _person(db, person_id)
    invitation = next((inv for inv in event.invitations if inv.person_id == person.id), None)
    if invitation is None:
        if person.id == event.organizer_id:
            raise ToolError(f"{person.id} is the organizer of {event.id}; to drop the event use cancel_event.")
        raise ToolError(f"{person.name} ({person.id}) is not invited to {event.id}; get_event lists its attendees.")
    event.invitations.remove(invitation)
    db.flush()
    return {"removed_invitation_id": invitation.id, "event_id": event.id, "person_id": person.id}


@kit.tool(
    write=True,
    intent="Mark invitation {invitation_id} as {response} on behalf of {person_id}",
    samples={"response": ("accepted", "declined", "tentative")},
)
def respond_to_invitation(db: Session, invitation_id: str, person_id: str, response: str) -> dict[str, Any]:
    """Answer an invitation as the invitee: accept, decline or tentatively accept.

    Accepting fails if the invitee is already busy then (the error names the conflicting event);
    decline that other event first or answer "tentative". Invitations to cancelled or past events
    cannot be answered. Returns the invitation with its new and previous response.

    Args:
        db: Database session (supplied by the server).
        invitation_id: The invitation, e.g. "INV-1001" (see list_invitations or get_event).
        person_id: The invitee answering, who must own the invitation, e.g. "PER-1002".
        response: "accepted", "declined" or "tentative".
    """
    invitation = _invitation(db, invitation_id)
    person = _person(db, person_id)
    if invitation.person_id != person.id:
        raise ToolError(
            f"{invitation.id} belongs to {invitation.person.name} ({invitation.person_id}); only the "
            f"invitee can answer it. Use list_invitations for {person.id}'s own invitations."
        )
    if response not in _RESPONSE_CHOICES:
        raise ToolError(f'response must be "accepted", "declined" or "tentative"; got {response!r}.')
    event = invitation.event
    if event.status == "cancelled":
        raise ToolError(f'{event.id} "{event.title}" was cancelled; its invitations can no longer be answered.')
    _check_editable(event, "be answered")
    if response == "accepted":
        _check_person_free(db, person, event.start, event.end, event.id)
    if invitation.response == "declined" and response != "declined" and event.room is not None:
        _check_capacity(event.room, _headcount(event) + 1)
    previous = invitation.response
    invitation.response = response
    return {
        "invitation_id": invitation.id,
        "event_id": event.id,
        "title": event.title,
        "start": _fmt(event.start),
        "end": _fmt(event.end),
        "response": response,
        "previous_response": previous,
    }


@kit.tool(write=True, intent="Book room {room_id} for event {event_id} on behalf of {acting_person_id}")
def book_room(db: Session, event_id: str, acting_person_id: str, room_id: str) -> dict[str, Any]:
    """Book a room for an upcoming event, or move it to another room (organizer only).

    The room must be free for the event's time and hold its headcount (organizer plus invitees
    who have not declined). Returns the event summary and previous_room_id.

    Args:
        db: Database session (supplied by the server).
        event_id: The event, e.g. "EVT-1001".
        acting_person_id: Who books; must be the organizer, e.g. "PER-1001".
        room_id: The room to book, e.g. "ROOM-201" (list_rooms with start and end shows free rooms).
    """
    event = _event(db, event_id)
    _check_organizer(db, event, acting_person_id, "book a room for")
    _check_editable(event, "change rooms")
    room = _room(db, room_id)
    if event.room_id == room.id:
        raise ToolError(f"{event.id} is already booked in {room.id} ({room.name}); nothing changed.")
    _check_capacity(room, _headcount(event))
    _check_room_free(db, room, event.start, event.end, event.id)
    previous = event.room_id
    event.room_id = room.id
    return {**_event_summary(event), "previous_room_id": previous}


@kit.tool(write=True, intent="Release the room booked for event {event_id} on behalf of {acting_person_id}")
def release_room(db: Session, event_id: str, acting_person_id: str) -> dict[str, Any]:
    """Give up an upcoming event's room booking (organizer only); the event stays, without a room.

    Args:
        db: Database session (supplied by the server).
        event_id: The event, e.g. "EVT-1001".
        acting_person_id: Who releases; must be the organizer, e.g. "PER-1001".
    """
    event = _event(db, event_id)
    _check_organizer(db, event, acting_person_id, "release the room of")
    _check_editable(event, "change rooms")
    if event.room_id is None:
        raise ToolError(f"{event.id} has no room booked; nothing to release.")
    previous = event.room_id
    event.room_id = None
    return {**_event_summary(event), "previous_room_id": previous}
