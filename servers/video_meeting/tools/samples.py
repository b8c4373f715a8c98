"""Synthesis hints of the video meeting tools: literal sample values that mostly succeed on seed data.

Ids are drawn from the live database by the synthesizer. Meetings are seeded up to 2026-01-27,
so new ones go on 2026-02-10 and 2026-02-11, when every room is free; a start and an end drawn
independently fall on the same day half of the time, and then always make a 30-150 minute meeting.
"""

from __future__ import annotations

__all__ = ["ENDS", "STARTS", "TITLES"]

DAYS = ("2026-02-10", "2026-02-11")
STARTS = tuple(f"{day}T{hm}" for day in DAYS for hm in ("09:00", "09:30", "10:00"))
ENDS = tuple(f"{day}T{hm}" for day in DAYS for hm in ("10:30", "11:00", "11:30"))
TITLES = ("Launch planning", "Hiring sync", "Vendor call", "Design critique", "Budget check-in", "Team retro")
