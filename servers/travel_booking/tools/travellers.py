"""Travel booking tools for travellers: find them, read their profile, record a passport."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_limit, parse_date
from gym_mcp.servers.travel_booking.models import Airport, Booking, Itinerary, Membership, Traveller
from gym_mcp.servers.travel_booking.tools.common import DATE_ERROR, kit, load_traveller

_PASSPORT = re.compile(r"[A-Z0-9]{6,9}")


def _passport(traveller: Traveller) -> dict[str, Any] | None:
    if traveller.passport_number is None:
        return None
    expiry = traveller.passport_expiry
    return {
        "number": traveller.passport_number,
        "country": traveller.passport_country,
        "expiry_date": expiry,
        "expired": expiry is not None and expiry < kit.today,
    }


@kit.tool(
    write=False,
    intent="List the travellers[ matching '{query}'][, showing at most {limit}]",
    samples={"query": ("Garcia", "Larsen", "Rossi", "Chen", "Okafor", "Sophia", "Kim", "Priya")},
)
def list_travellers(db: Session, query: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
    """List travellers, optionally only those whose name or email matches a text.

    Use this first to get a traveller id when you only know a name or an email. Returns a list
    of {traveller_id, name, email, home_airport, has_passport}; an empty list means no match.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        query: Part of a first name, last name, full name or email (case-insensitive), e.g. "garcia".
        limit: Maximum number of travellers to return, 1 to 100.
    """
    check_limit(limit)
    stmt = select(Traveller)
    if query is not None:
        text = query.strip().lower()
        if len(text) < 2:
            raise ToolError("query must have at least 2 characters, e.g. a last name like 'Garcia'.")
        full_name = func.lower(Traveller.first_name + " " + Traveller.last_name)
        stmt = stmt.where(
            or_(full_name.contains(text, autoescape=True), Traveller.email.contains(text, autoescape=True))
        )
    rows = db.scalars(stmt.order_by(Traveller.id).limit(limit))
    return [
        {
            "traveller_id": t.id,
            "name": t.name,
            "email": t.email,
            "home_airport": t.home_airport,
            "has_passport": t.passport_number is not None,
        }
        for t in rows
    ]


@kit.tool(write=False, intent="Show the profile of traveller {traveller_id}")
def get_traveller(db: Session, traveller_id: str) -> dict[str, Any]:
    """Get a traveller's profile: contact details, passport, loyalty memberships, itineraries, bookings.

    The passport shows its number, issuing country and expiry date (null when none is on file);
    international flights need one valid 6 months past departure.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        traveller_id: Traveller id, e.g. "TRV-1001".
    """
    t = load_traveller(db, traveller_id)
    memberships = db.scalars(select(Membership).where(Membership.traveller_id == t.id).order_by(Membership.id))
    itineraries = db.scalars(select(Itinerary).where(Itinerary.traveller_id == t.id).order_by(Itinerary.id))
    active = db.scalar(
        select(func.count()).select_from(Booking).where(Booking.traveller_id == t.id, Booking.status != "cancelled")
    )
    return {
        "traveller_id": t.id,
        "name": t.name,
        "email": t.email,
        "phone": t.phone,
        "home_airport": t.home_airport,
        "date_of_birth": t.date_of_birth,
        "passport": _passport(t),
        "memberships": [
            {"membership_id": m.id, "program": m.program, "tier": m.tier, "points_balance": m.points_balance}
            for m in memberships
        ],
        "itineraries": [{"itinerary_id": i.id, "name": i.name} for i in itineraries],
        "active_bookings": active,
    }


@kit.tool(
    write=True,
    intent="Record passport {passport_number} issued by {country} and expiring on {expiry_date} for traveller "
    "{traveller_id}",
    samples={
        "passport_number": ("X48213907", "P55120483", "K90317744", "A1234567", "M77004215"),
        "country": ("US", "GB", "CA", "FR", "DE", "JP"),
        "expiry_date": ("2030-06-30", "2031-03-15", "2033-11-20", "2035-01-09"),
    },
)
def update_passport(
    db: Session, traveller_id: str, passport_number: str, country: str, expiry_date: str
) -> dict[str, Any]:
    """Record a traveller's passport, replacing the one on file (e.g. after a renewal).

    The passport must not have expired; for international flights it must also be valid 6
    months past the departure date, which book_flight checks.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        traveller_id: Traveller id, e.g. "TRV-1001".
        passport_number: 6 to 9 letters and digits, e.g. "X48213907".
        country: Issuing country as a 2-letter ISO code, e.g. "US".
        expiry_date: Expiry date, ISO format, e.g. "2031-03-15".
    """
    t = load_traveller(db, traveller_id)
    number = passport_number.strip().upper().replace(" ", "")
    if not _PASSPORT.fullmatch(number):
        raise ToolError(
            f"passport_number must be 6 to 9 letters and digits, e.g. 'X48213907'; got {passport_number!r}."
        )
    code = country.strip().upper()
    if not re.fullmatch(r"[A-Z]{2}", code):
        raise ToolError(f"country must be a 2-letter ISO code such as 'US' or 'GB'; got {country!r}.")
    known = set(db.scalars(select(Airport.country)))
    if code not in known:
        raise ToolError(f"country {code!r} is not one we issue travel for; use one of {', '.join(sorted(known))}.")
    expiry = parse_date(expiry_date, "expiry_date", DATE_ERROR)
    if expiry <= kit.today:
        raise ToolError(
            f"expiry_date {expiry} is not after today ({kit.today}); an expired passport cannot be recorded. "
            "Ask for the renewed passport's details."
        )
    if (t.passport_number, t.passport_country, t.passport_expiry) == (number, code, expiry):
        raise ToolError(f"{t.id} already has passport {number} ({code}, expires {expiry}) on file; nothing changed.")
    previous = _passport(t)
    t.passport_number, t.passport_country, t.passport_expiry = number, code, expiry
    return {"traveller_id": t.id, "passport": _passport(t), "previous_passport": previous}
