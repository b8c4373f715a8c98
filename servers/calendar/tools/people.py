"""Calendar tools that find people and show their profile."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.calendar.models import Person
from gym_mcp.servers.calendar.tools.common import LIKE_ESCAPE, kit, like_pattern, load_person, person_view
from gym_mcp.servers.kit import check_limit


@kit.tool(
    write=False,
    intent="Find people whose name, email or department contains '{query}'[, at most {limit} of them]",
    samples={"query": ("Zara", "Okafor", "Sales", "Engineering", "mikhail", "Legal", "Chen")},
)
def find_person(db: Session, query: str, limit: int = 10) -> list[dict[str, Any]]:
    """Find people whose name, email or department contains the text (case-insensitive).

    Use this to turn a name like "Priya" into a person id. Returns a list of people with id,
    name, email, department and working hours; an empty list when nobody matches.

    Args:
        db: Database session (supplied by the server).
        query: Part of a name, email or department, e.g. "priya" or "Sales".
        limit: Maximum number of people to return, 1-100.
    """
    check_limit(limit)
    pattern = like_pattern(query, 'part of a name, email or department, e.g. "priya"')
    stmt = (
        select(Person)
        .where(
            or_(
                func.lower(Person.name).like(pattern, escape=LIKE_ESCAPE),
                func.lower(Person.email).like(pattern, escape=LIKE_ESCAPE),
                func.lower(Person.department).like(pattern, escape=LIKE_ESCAPE),
            )
        )
        .order_by(Person.name, Person.id)
        .limit(limit)
    )
    return [person_view(p) for p in db.scalars(stmt)]


@kit.tool(write=False, intent="Show the profile and working hours of {person_id}")
def get_person(db: Session, person_id: str) -> dict[str, Any]:
    """Get one person's profile: name, email, department and working hours (Monday-Friday).

    Args:
        db: Database session (supplied by the server).
        person_id: The person's id, e.g. "PER-1001".
    """
    person = load_person(db, person_id)
    return {**person_view(person), "working_days": "Monday-Friday"}
