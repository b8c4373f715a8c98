"""What the calendar server's tests share: seed-data queries and small helpers."""

from __future__ import annotations

from typing import Any

from tests.helpers import LiveServer

DAY = "2026-02-16"  # a Monday with nothing seeded


BUSY_SQL = """
with busy as (
    select e.organizer_id as person_id, e.id as event_id, e.start, e."end"
    from events e where e.status = 'confirmed'
    union all
    select i.person_id, e.id, e.start, e."end"
    from invitations i join events e on e.id = i.event_id
    where e.status = 'confirmed' and i.response = 'accepted'
)
select a.person_id, a.event_id, b.event_id from busy a join busy b
on a.person_id = b.person_id and a.event_id < b.event_id and a.start < b."end" and b.start < a."end"
"""


def t(hm: str, day: str = DAY) -> str:
    return f"{day}T{hm}"


def make_event(s: LiveServer, organizer: str = "PER-1001", start: str = "10:00", end: str = "11:00", **kw: Any) -> dict:
    return s.ok("create_event", organizer_id=organizer, title="Test meeting", start=t(start), end=t(end), **kw)


def attendee_error(s: LiveServer, tool: str, event: dict, acting_person_id: str, person_id: str) -> str:
    """The message of an invite_attendee or remove_attendee call on ``event`` that must fail."""
    return s.error(tool, event_id=event["id"], acting_person_id=acting_person_id, person_id=person_id)


def past_event(s: LiveServer) -> tuple[str, str]:
    """A confirmed seeded event before today: (event id, organizer id)."""
    row = s.query(
        "select id, organizer_id from events where status = 'confirmed' and start < '2026-01-15' order by id limit 1"
    )
    return row[0]
