"""Opening hours and distances: the pure rules behind "is it open now" and "does it deliver here".

An interval is ``(weekday, opens, closes)`` with weekday 0 for Monday; when ``closes`` is not
after ``opens`` the interval runs past midnight into the next day (``("17:00", "02:00")``).
Distances are great-circle kilometres rounded to 0.1 km, the figure the tools show and compare.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime, time, timedelta

__all__ = ["Interval", "distance_km", "is_open", "next_opening"]

Interval = tuple[int, time, time]
"""One opening interval: (weekday, opens, closes)."""

EARTH_RADIUS_KM = 6371.0


def distance_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance between two points, rounded to 0.1 km.

    Args:
        lat1: Latitude of the first point, in degrees.
        lon1: Longitude of the first point, in degrees.
        lat2: Latitude of the second point, in degrees.
        lon2: Longitude of the second point, in degrees.

    Returns:
        The distance in kilometres, e.g. ``3.4``.
    """
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return round(2 * EARTH_RADIUS_KM * math.asin(math.sqrt(a)), 1)


def _spans(intervals: Sequence[Interval], start: datetime, days: int) -> list[tuple[datetime, datetime]]:
    """The opening spans of the days from the day before ``start`` to ``days`` days after it, in order."""
    out = []
    for offset in range(-1, days + 1):
        day = start.date() + timedelta(days=offset)
        for weekday, opens, closes in intervals:
            if weekday != day.weekday():
                continue
            begin = datetime.combine(day, opens)
            end = datetime.combine(day, closes)
            if end <= begin:
                end += timedelta(days=1)
            out.append((begin, end))
    return sorted(out)


def is_open(intervals: Sequence[Interval], at: datetime) -> bool:
    """Whether a place with these opening intervals is open at a moment.

    Args:
        intervals: Its opening intervals.
        at: The moment.

    Returns:
        True when some interval (including one from the day before that runs past midnight)
        holds ``at``.
    """
    return any(begin <= at < end for begin, end in _spans(intervals, at, 0))


def next_opening(intervals: Sequence[Interval], at: datetime) -> datetime | None:
    """When a place next opens after a moment.

    Args:
        intervals: Its opening intervals.
        at: The moment.

    Returns:
        The start of the first interval after ``at`` within a week, or None when it has no hours.
    """
    return next((begin for begin, _ in _spans(intervals, at, 7) if begin > at), None)
