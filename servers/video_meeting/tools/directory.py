"""Video meeting tools that look up users and rooms."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_limit, parse_datetime, pick
from gym_mcp.servers.video_meeting.models import Room, User
from gym_mcp.servers.video_meeting.tools.common import kit, minute, room_clash
from gym_mcp.servers.video_meeting.tools.samples import ENDS, STARTS


@kit.tool(
    write=False,
    intent="Find the users matching '{query}'[, at most {limit} of them]",
    samples={"query": ("Patel", "Kim", "Engineering", "Sales", "nora", "Okafor", "Design")},
)
def find_users(db: Session, query: str, limit: int = 10) -> list[dict[str, Any]]:
    """Search users by name, email or department (case-insensitive, partial match).

    Use this to get a user id (for host_id, user_id or acting_user_id) from a name. Returns
    {user_id, name, email, department} per user; an empty list means no match.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        query: Part of a name, email or department, e.g. "patel" or "Engineering".
        limit: Maximum number of users to return, 1 to 100, e.g. 10.
    """
    check_limit(limit)
    text = query.strip().lower()
    if len(text) < 2:
        raise ToolError("query must have at least 2 characters, e.g. a last name like 'Patel'")
    cols = (User.name, User.email, User.department)
    rows = db.scalars(
        select(User)
        .where(or_(*(func.lower(c).contains(text, autoescape=True) for c in cols)))
        .order_by(User.id)
        .limit(limit)
    )
    return [{"user_id": u.id, **pick(u, "name", "email", "department")} for u in rows]


@kit.tool(
    write=False,
    intent="List the meeting rooms[ for at least {min_capacity} people][ that are free from {start} to {end}]",
    samples={"min_capacity": (4, 6, 10, 20), "start": STARTS, "end": ENDS},
)
def list_rooms(
    db: Session, min_capacity: int | None = None, start: str | None = None, end: str | None = None
) -> list[dict[str, Any]]:
    """List the virtual rooms with their capacity, smallest first; optionally only big or free ones.

    Give start and end together to keep only rooms with no scheduled or live meeting in that time.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        min_capacity: Only rooms that hold at least this many people, e.g. 6.
        start: Start of the time the room must be free, e.g. "2026-02-10T09:30".
        end: End of that time, same day, e.g. "2026-02-10T10:30".
    """
    stmt = select(Room).order_by(Room.capacity, Room.id)
    if min_capacity is not None:
        if min_capacity < 1:
            raise ToolError(f"min_capacity must be at least 1, got {min_capacity}.")
        stmt = stmt.where(Room.capacity >= min_capacity)
    rooms = list(db.scalars(stmt))
    if (start is None) != (end is None):
        raise ToolError("Give both start and end to find free rooms, e.g. '2026-02-10T09:30' and '2026-02-10T10:30'.")
    if start is not None and end is not None:
        begin, finish = parse_datetime(start, "start"), parse_datetime(end, "end")
        if finish <= begin:
            raise ToolError(f"end {minute(finish)} must be after start {minute(begin)}.")
        rooms = [r for r in rooms if room_clash(db, r, begin, finish) is None]
    return [{"room_id": r.id, **pick(r, "name", "capacity")} for r in rooms]
