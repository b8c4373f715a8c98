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
calls always yields the same ids. `common` holds the kit and the rules, `samples` the synthesis
hints; each area module registers its tools on import, and the order below is the order the
model sees them in.
"""

from gym_mcp.servers.calendar.tools.common import kit

# isort: off
from gym_mcp.servers.calendar.tools import people, events, availability, scheduling, attendees, rooms  # noqa: F401

# isort: on

__all__ = ["kit"]
