"""Calendar tools that read events: a person's calendar, one event, search, pending invitations."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.calendar.models import Event, Invitation
from gym_mcp.servers.calendar.tools.common import (
    LIKE_ESCAPE,
    date_range,
    day_start,
    event_detail,
    event_summary,
    iso_minute,
    kit,
    like_pattern,
    load_event,
    load_person,
)
from gym_mcp.servers.kit import ToolError, check_limit, parse_date


@kit.tool(
    write=False,
    intent="List the events on {person_id}'s calendar[ from {start_date}][ through {end_date}]"
    "[, at most {limit} of them]",
    samples={
        "start_date": ("2026-01-15", "2026-01-19", "2026-01-26", "2026-02-02"),
        "end_date": ("2026-02-06", "2026-02-13", "2026-02-27", "2026-03-06"),
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
    check_limit(limit)
    person = load_person(db, person_id)
    first, last = date_range(start_date, end_date, max_days=92)
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
        out.append({**event_summary(event), "role": role})
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
    return event_detail(load_event(db, event_id))


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
    check_limit(limit)
    pattern = like_pattern(query, 'a word from the title, e.g. "budget"')
    stmt = select(Event).where(
        or_(
            func.lower(Event.title).like(pattern, escape=LIKE_ESCAPE),
            func.lower(Event.description).like(pattern, escape=LIKE_ESCAPE),
        )
    )
    first = parse_date(start_date, "start_date") if start_date else None
    last = parse_date(end_date, "end_date") if end_date else None
    if first and last and last < first:
        raise ToolError(f"end_date {last.isoformat()} is before start_date {first.isoformat()}; swap them.")
    if first:
        stmt = stmt.where(Event.start >= datetime.combine(first, time.min))
    if last:
        stmt = stmt.where(Event.start < datetime.combine(last + timedelta(days=1), time.min))
    return [event_summary(e) for e in db.scalars(stmt.order_by(Event.start, Event.id).limit(limit))]


@kit.tool(
    write=False,
    intent="List {person_id}'s[ {response}] invitations to upcoming events[, at most {limit} of them]",
    samples={"response": ("pending", "accepted", "declined", "tentative")},
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
    check_limit(limit)
    person = load_person(db, person_id)
    allowed = ("pending", "accepted", "declined", "tentative", "any")
    if response not in allowed:
        raise ToolError(f"response must be one of {', '.join(allowed)}; got {response!r}.")
    stmt = (
        select(Invitation, Event)
        .join(Event, Invitation.event_id == Event.id)
        .where(Invitation.person_id == person.id, Event.status == "confirmed", Event.start >= day_start())
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
            "start": iso_minute(ev.start),
            "end": iso_minute(ev.end),
            "organizer_id": ev.organizer_id,
            "room_id": ev.room_id,
        }
        for inv, ev in rows
    ]
