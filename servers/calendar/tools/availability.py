"""Calendar tools for availability: when someone is busy, a common free slot, free rooms."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.calendar.models import Event, Room
from gym_mcp.servers.calendar.tools.common import busy_events, date_range, iso_minute, kit, load_person, room_view
from gym_mcp.servers.calendar.tools.samples import ENDS, ROOM_DAYS, STARTS, day_times
from gym_mcp.servers.kit import ToolError, check_between, check_limit, parse_date, parse_datetime

_SLOT_STEP = 15  # minutes; find_free_slot proposes starts on this grid


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
    person = load_person(db, person_id)
    first, last = date_range(start_date, end_date, max_days=31)
    start = datetime.combine(first, time.min)
    end = datetime.combine(last + timedelta(days=1), time.min)
    busy: list[dict[str, str]] = []
    tentative: list[dict[str, str]] = []
    for event in busy_events(db, person.id, start, end, include_tentative=True):
        entry = {
            "start": iso_minute(event.start),
            "end": iso_minute(event.end),
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
    check_between(duration_minutes, 15, 480, "duration_minutes")
    people = [load_person(db, pid, "person_ids entry") for pid in dict.fromkeys(person_ids)]
    day = parse_date(date, "date")
    if day < kit.today:
        raise ToolError(f"date {day.isoformat()} is in the past; today is {kit.today.isoformat()}.")
    if day.weekday() >= 5:
        raise ToolError(
            f"date {day.isoformat()} is a {day.strftime('%A')}; working days are Monday-Friday, pick a weekday."
        )
    window_start = datetime.combine(day, max(time.fromisoformat(p.work_start) for p in people))
    window_end = datetime.combine(day, min(time.fromisoformat(p.work_end) for p in people))
    hours = f"{window_start:%H:%M}-{window_end:%H:%M}"
    duration = timedelta(minutes=duration_minutes)
    if window_end - window_start < duration:
        raise ToolError(
            f"The common working hours of these people ({hours}) are shorter than {duration_minutes} minutes."
        )

    busy: list[tuple[datetime, datetime]] = []
    for person in people:
        for event in busy_events(db, person.id, window_start, window_end, include_tentative=True):
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
            windows.append({"start": iso_minute(start), "end": iso_minute(end)})
            if slot is None:
                slot = {"start": iso_minute(aligned), "end": iso_minute(aligned + duration)}
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
        "start": day_times(ROOM_DAYS, STARTS),
        "end": day_times(ROOM_DAYS, ENDS),
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
    check_limit(limit)
    stmt = select(Room).where(Room.capacity >= min_capacity)
    if (start is None) != (end is None):
        raise ToolError("Give both start and end (to list rooms free at that time) or neither.")
    if start is not None and end is not None:
        begin, finish = parse_datetime(start, "start"), parse_datetime(end, "end")
        if finish <= begin:
            raise ToolError(f"end {iso_minute(finish)} must be after start {iso_minute(begin)}.")
        taken = select(Event.room_id).where(
            Event.room_id.is_not(None), Event.status == "confirmed", Event.start < finish, Event.end > begin
        )
        stmt = stmt.where(Room.id.not_in(taken))
    return [room_view(r) for r in db.scalars(stmt.order_by(Room.capacity, Room.id).limit(limit))]
