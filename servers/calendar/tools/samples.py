"""Synthesis hints of the calendar tools: literal sample values for their arguments (see `ToolInfo`).

Ids (person_id, event_id, room_id, ...) are drawn from the live database by the synthesizer;
the samples here are literal values that mostly succeed on the seed-0 data. Writes use days
after the last seeded event (2026-02-11), when everyone is free. A start and an end drawn
independently fall on the same day half of the time, and then always make a 30-180 minute
meeting (every start is before every end).
"""

from __future__ import annotations

__all__ = [
    "CREATE_DAYS",
    "DESCRIPTIONS",
    "ENDS",
    "GROUPS",
    "LIMITS",
    "ROOM_DAYS",
    "STARTS",
    "TITLES",
    "UPDATE_DAYS",
    "day_times",
]


def day_times(days: tuple[str, ...], times: tuple[str, ...]) -> tuple[str, ...]:
    """Every ``{day}T{time}`` combination, day by day."""
    return tuple(f"{day}T{hm}" for day in days for hm in times)


STARTS = ("09:00", "09:30", "10:00", "10:30")
ENDS = ("11:00", "11:30", "12:00")
CREATE_DAYS = ("2026-02-17", "2026-02-19")
UPDATE_DAYS = ("2026-02-18", "2026-02-24")
ROOM_DAYS = ("2026-01-21", "2026-01-22")  # seeded days: some rooms are taken
GROUPS = (
    ["PER-1002"],
    ["PER-1003", "PER-1011"],
    ["PER-1004", "PER-1008", "PER-1021"],
    ["PER-1014", "PER-1028"],
    ["PER-1007", "PER-1020", "PER-1022"],
    ["PER-1013", "PER-1039"],
    ["PER-1025"],
)
TITLES = (
    "Atlas design review",
    "Q1 hiring plan review",
    "Customer call: Globex",
    "Security audit kickoff",
    "Onboarding sync",
    "Pricing workshop",
    "Vendor demo: Initech",
)
DESCRIPTIONS = (
    "Walk through the open questions and agree on next steps",
    "Review the draft and collect feedback",
    "Status, risks and owners",
    "Bring your laptop",
    "Agenda to follow",
)
LIMITS = (3, 5, 10, 20)
