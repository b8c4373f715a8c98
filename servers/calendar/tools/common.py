"""What the calendar tools share: the kit, time formats, id lookups, the booking rules, result shapes."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.calendar.data import TODAY, seed
from gym_mcp.servers.calendar.models import Base, Event, Invitation, Person, Room
from gym_mcp.servers.calendar.tools.samples import LIMITS
from gym_mcp.servers.kit import Finder, ServerKit, ToolError, parse_date, pick

__all__ = [
    "LIKE_ESCAPE",
    "busy_events",
    "check_capacity",
    "check_editable",
    "check_organizer",
    "check_person_free",
    "check_room_free",
    "check_span",
    "date_range",
    "day_start",
    "event_detail",
    "event_summary",
    "event_to_change",
    "headcount",
    "iso_minute",
    "kit",
    "like_pattern",
    "load_event",
    "load_invitation",
    "load_person",
    "load_room",
    "person_view",
    "room_view",
    "span_text",
]


INSTRUCTIONS = f"""\
Company calendar: people (PER-1001...), meeting rooms (ROOM-101...), events (EVT-1001...) and \
invitations (INV-1001...). Today is {TODAY.isoformat()}. Times are local, timezone-free ISO 8601 strings \
such as "2026-01-20T10:00"; dates look like "2026-01-20". Working hours are Monday-Friday, usually \
09:00-17:00 (see get_person). Rules: nobody may be double-booked (organizer or accepted invitee), \
rooms cannot be double-booked or over capacity, events cannot be created in or moved into the past, \
and only the organizer may change or cancel an event. Look people up with find_person, find a \
common free time with find_free_slot, then create_event."""

kit = ServerKit(
    "calendar", base=Base, seed=seed, instructions=INSTRUCTIONS, today=TODAY, samples={"limit": LIMITS}, inline=True
)

# -- times -----------------------------------------------------------------------------------------


def iso_minute(value: datetime) -> str:
    """Format a datetime as ``YYYY-MM-DDTHH:MM``."""
    return value.strftime("%Y-%m-%dT%H:%M")


def date_range(start_date: str | None, end_date: str | None, *, max_days: int) -> tuple[date, date]:
    """Parse an inclusive date range; defaults to today and the following six days."""
    first = parse_date(start_date, "start_date") if start_date else kit.today
    last = parse_date(end_date, "end_date") if end_date else first + timedelta(days=6)
    if last < first:
        raise ToolError(f"end_date {last.isoformat()} is before start_date {first.isoformat()}; swap them.")
    if (last - first).days + 1 > max_days:
        raise ToolError(f"The date range is limited to {max_days} days; ask for a shorter range.")
    return first, last


LIKE_ESCAPE = "/"  # the escape character of `like_pattern`: ``.like(pattern, escape=LIKE_ESCAPE)``


def like_pattern(query: str, example: str) -> str:
    """A case-insensitive ``LIKE`` pattern that finds the query anywhere in a text.

    Args:
        query: The search text as the model gave it.
        example: What to pass instead of an empty query, for the message.

    Returns:
        The pattern, e.g. ``"%budget%"`` (``"%50/%%"`` for ``"50%"``).

    Raises:
        ToolError: The query is empty.
    """
    text = query.strip().lower()
    if not text:
        raise ToolError(f"query is empty; pass {example}.")
    # "%" and "_" are searched for as themselves, not as wildcards (escaped; see LIKE_ESCAPE)
    escaped = text.replace(LIKE_ESCAPE, LIKE_ESCAPE * 2)
    escaped = escaped.replace("%", LIKE_ESCAPE + "%").replace("_", LIKE_ESCAPE + "_")
    return f"%{escaped}%"


def day_start() -> datetime:
    """Midnight at the start of the server's today."""
    return datetime.combine(kit.today, time.min)


def span_text(start: datetime, end: datetime) -> str:
    """Human-readable time span, e.g. ``2026-01-20 10:00-11:00``."""
    return f"{start:%Y-%m-%d %H:%M}-{end:%H:%M}"


# -- lookups -----------------------------------------------------------------------------------

_MISSING = 'Unknown {field} {id!r}. {Noun} ids look like "{example}"; {hint}.'
load_person = Finder(
    Person,
    "person",
    "PER-1001",
    "use find_person to look someone up by name or email",
    message=_MISSING,
    normalize=False,
)
load_room = Finder(Room, "room", "ROOM-101", "use list_rooms to see them", message=_MISSING, normalize=False)
load_event = Finder(
    Event, "event", "EVT-1001", "use list_events or search_events to find one", message=_MISSING, normalize=False
)
load_invitation = Finder(
    Invitation,
    "invitation",
    "INV-1001",
    "use list_invitations (for a person) or get_event (for an event) to find one",
    message=_MISSING,
    normalize=False,
)


# -- business rules --------------------------------------------------------------------------------


def busy_events(
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


def check_person_free(
    db: Session, person: Person, start: datetime, end: datetime, exclude_event_id: str | None = None
) -> None:
    """Refuse a time at which the person is already busy, naming the conflicting event."""
    conflicts = busy_events(db, person.id, start, end, exclude_event_id=exclude_event_id)
    if conflicts:
        other = conflicts[0]
        raise ToolError(
            f"Double booking: {person.name} ({person.id}) is already busy {span_text(other.start, other.end)} "
            f'with {other.id} "{other.title}", which overlaps {span_text(start, end)}. Choose another time '
            "(find_free_slot finds one that suits everyone)."
        )


def check_room_free(
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
            f"Room {room.id} ({room.name}) is already booked {span_text(other.start, other.end)} for "
            f'{other.id} "{other.title}". Pick another room (list_rooms with start and end lists free '
            "rooms) or another time."
        )


def check_capacity(room: Room, headcount: int) -> None:
    """Refuse more people than the room holds."""
    if headcount > room.capacity:
        raise ToolError(
            f"Room {room.id} ({room.name}) holds {room.capacity} people but the event would have "
            f"{headcount} (organizer plus invitees who have not declined). Book a larger room "
            f"(list_rooms with min_capacity={headcount}) or invite fewer people."
        )


def headcount(event: Event) -> int:
    """Organizer plus invitees who have not declined."""
    return 1 + sum(1 for inv in event.invitations if inv.response != "declined")


def check_span(start: datetime, end: datetime) -> None:
    """An event ends after it starts, on the same day, and does not start before today."""
    if end <= start:
        raise ToolError(f"end {iso_minute(end)} must be after start {iso_minute(start)}.")
    if end.date() != start.date() and end != datetime.combine(start.date() + timedelta(days=1), time.min):
        raise ToolError(
            f"An event must start and end on the same day; {iso_minute(start)} to {iso_minute(end)} spans several days."
        )
    if start < day_start():
        raise ToolError(
            f"start {iso_minute(start)} is in the past: today is {kit.today.isoformat()}, and events can only "
            "be created or moved to today or later."
        )


def check_organizer(db: Session, event: Event, acting_person_id: str, action: str) -> None:
    """Only the organizer may change an event."""
    load_person(db, acting_person_id, "acting_person_id")
    if event.organizer_id != acting_person_id:
        raise ToolError(
            f"Only the organizer of {event.id}, {event.organizer.name} ({event.organizer_id}), "
            f"can {action} it; {acting_person_id} is not the organizer."
        )


def check_editable(event: Event, action: str) -> None:
    """Cancelled and past events are read-only."""
    if event.status == "cancelled":
        raise ToolError(f'{event.id} "{event.title}" is cancelled; a cancelled event cannot {action}.')
    if event.start < day_start():
        raise ToolError(
            f'{event.id} "{event.title}" took place on {event.start.date().isoformat()}, before today '
            f"({kit.today.isoformat()}); past events cannot {action}."
        )


def event_to_change(db: Session, event_id: str, acting_person_id: str, action: str, change: str) -> Event:
    """Load an event that the acting person organizes and that may still change.

    Args:
        db: The session of the tool call.
        event_id: The event, as the model gave it.
        acting_person_id: Who acts; must be the organizer.
        action: What they do to it, for the message, e.g. ``"book a room for"``.
        change: What the event cannot do if cancelled or past, e.g. ``"change rooms"``.

    Returns:
        The event.
    """
    event = load_event(db, event_id)
    check_organizer(db, event, acting_person_id, action)
    check_editable(event, change)
    return event


# -- result shapes ---------------------------------------------------------------------------------


def event_summary(event: Event) -> dict[str, Any]:
    """Compact event fields for lists."""
    return {
        "id": event.id,
        "title": event.title,
        "start": iso_minute(event.start),
        "end": iso_minute(event.end),
        "organizer_id": event.organizer_id,
        "room_id": event.room_id,
        "status": event.status,
    }


def event_detail(event: Event) -> dict[str, Any]:
    """Full event view: organizer, room, attendees and their responses."""
    detail: dict[str, Any] = {
        "id": event.id,
        "title": event.title,
        "description": event.description,
        "start": iso_minute(event.start),
        "end": iso_minute(event.end),
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
        "headcount": headcount(event),
    }
    if event.status == "cancelled":
        detail["cancel_reason"] = event.cancel_reason
    return detail


def person_view(person: Person) -> dict[str, Any]:
    """Compact person fields."""
    return {
        **pick(person, "id", "name", "email", "department"),
        "working_hours": f"{person.work_start}-{person.work_end}",
    }


def room_view(room: Room) -> dict[str, Any]:
    """Compact room fields."""
    return {
        **pick(room, "id", "name", "floor", "capacity"),
        "features": [f for f in room.features.split(",") if f],
    }
