"""Calendar tools that book a room for an event, or give the booking up."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from gym_mcp.servers.calendar.tools.common import (
    check_capacity,
    check_room_free,
    event_summary,
    event_to_change,
    headcount,
    kit,
    load_room,
)
from gym_mcp.servers.kit import ToolError


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
    event = event_to_change(db, event_id, acting_person_id, "book a room for", "change rooms")
    room = load_room(db, room_id)
    if event.room_id == room.id:
        raise ToolError(f"{event.id} is already booked in {room.id} ({room.name}); nothing changed.")
    check_capacity(room, headcount(event))
    check_room_free(db, room, event.start, event.end, event.id)
    previous = event.room_id
    event.room_id = room.id
    return {**event_summary(event), "previous_room_id": previous}


@kit.tool(write=True, intent="Release the room booked for event {event_id} on behalf of {acting_person_id}")
def release_room(db: Session, event_id: str, acting_person_id: str) -> dict[str, Any]:
    """Give up an upcoming event's room booking (organizer only); the event stays, without a room.

    Args:
        db: Database session (supplied by the server).
        event_id: The event, e.g. "EVT-1001".
        acting_person_id: Who releases; must be the organizer, e.g. "PER-1001".
    """
    event = event_to_change(db, event_id, acting_person_id, "release the room of", "change rooms")
    if event.room_id is None:
        raise ToolError(f"{event.id} has no room booked; nothing to release.")
    previous = event.room_id
    event.room_id = None
    return {**event_summary(event), "previous_room_id": previous}
