"""Calendar tools that create, change and cancel events (the organizer's side)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from gym_mcp.servers.calendar.models import Event, Invitation, Person
from gym_mcp.servers.calendar.tools.common import (
    check_capacity,
    check_editable,
    check_organizer,
    check_person_free,
    check_room_free,
    check_span,
    event_detail,
    event_summary,
    event_to_change,
    headcount,
    kit,
    load_event,
    load_person,
    load_room,
)
from gym_mcp.servers.calendar.tools.samples import (
    CREATE_DAYS,
    DESCRIPTIONS,
    ENDS,
    GROUPS,
    STARTS,
    TITLES,
    UPDATE_DAYS,
    day_times,
)
from gym_mcp.servers.kit import ToolError, check_length, next_id, next_number, parse_datetime


@kit.tool(
    write=True,
    intent="Schedule '{title}' organized by {organizer_id} from {start} to {end}[ with {attendee_ids}]"
    "[ in room {room_id}][, described as '{description}']",
    samples={
        "title": TITLES,
        "start": day_times(CREATE_DAYS, STARTS),
        "end": day_times(CREATE_DAYS, ENDS),
        "attendee_ids": GROUPS,
        "description": DESCRIPTIONS,
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
    name = check_length(title.strip(), "title", 1, 200, ".")
    organizer = load_person(db, organizer_id, "organizer_id")
    begin, finish = parse_datetime(start, "start"), parse_datetime(end, "end")
    check_span(begin, finish)
    invitees: list[Person] = []
    for pid in attendee_ids or []:
        if pid == organizer.id:
            raise ToolError(f"{pid} is the organizer and attends automatically; leave them out of attendee_ids.")
        if any(p.id == pid for p in invitees):
            raise ToolError(f"{pid} appears twice in attendee_ids; list each attendee once.")
        invitees.append(load_person(db, pid, "attendee_ids entry"))
    if len(invitees) > 50:
        raise ToolError("At most 50 attendees per event.")
    check_person_free(db, organizer, begin, finish)
    room = None
    if room_id is not None:
        room = load_room(db, room_id)
        check_capacity(room, 1 + len(invitees))
        check_room_free(db, room, begin, finish)

    event = Event(
        id=next_id(db, Event.id, "EVT"),
        title=name,
        description=description.strip(),
        start=begin,
        end=finish,
        organizer_id=organizer.id,
        room_id=room.id if room else None,
        status="confirmed",
    )
    db.add(event)
    first_invitation = next_number(db, Invitation.id, "INV")
    for i, person in enumerate(invitees):
        event.invitations.append(Invitation(id=f"INV-{first_invitation + i}", person_id=person.id, response="pending"))
    db.flush()
    return event_detail(event)


@kit.tool(
    write=True,
    intent="Update event {event_id} on behalf of {acting_person_id}[: rename it to '{title}']"
    "[, move its start to {start}][, make it end at {end}][, move it to room {room_id}]"
    "[, set its description to '{description}']",
    samples={
        "title": TITLES,
        "start": day_times(UPDATE_DAYS, STARTS),
        "end": day_times(UPDATE_DAYS, ENDS),
        "description": DESCRIPTIONS,
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
    event = event_to_change(db, event_id, acting_person_id, "update", "be updated")
    if all(v is None for v in (title, start, end, room_id, description)):
        raise ToolError("Nothing to update: pass at least one of title, start, end, room_id, description.")
    changed: list[str] = []
    if title is not None:
        name = check_length(title.strip(), "title", 1, 200, ".")
        if name != event.title:
            changed.append("title")
    begin = parse_datetime(start, "start") if start is not None else event.start
    finish = parse_datetime(end, "end") if end is not None else begin + (event.end - event.start)
    moved = (begin, finish) != (event.start, event.end)
    if moved:
        check_span(begin, finish)
        check_person_free(db, event.organizer, begin, finish, event.id)
        for inv in event.invitations:
            if inv.response == "accepted":
                check_person_free(db, inv.person, begin, finish, event.id)
        changed += ["start", "end"]
    room = event.room
    if room_id is not None and room_id != event.room_id:
        room = load_room(db, room_id)
        check_capacity(room, headcount(event))
        changed.append("room_id")
    if room is not None and (moved or "room_id" in changed):
        check_room_free(db, room, begin, finish, event.id)
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
    return {**event_detail(event), "changed": changed}


@kit.tool(
    write=True,
    intent="Cancel event {event_id} on behalf of {acting_person_id}[ with the reason '{reason}']",
    confirm="always",
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
    event = load_event(db, event_id)
    check_organizer(db, event, acting_person_id, "cancel")
    if event.status == "cancelled":
        raise ToolError(f"{event.id} is already cancelled; nothing changed.")
    check_editable(event, "be cancelled")
    event.status = "cancelled"
    event.cancel_reason = reason.strip()[:500]
    return {**event_summary(event), "notified_invitees": len(event.invitations)}
