"""Travel booking tools for a traveller's bookings and the itineraries that group them."""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_length, dollars, next_id
from gym_mcp.servers.travel_booking.models import BOOKING_KINDS, BOOKING_STATUSES, Booking, Flight, Itinerary
from gym_mcp.servers.travel_booking.tools.common import (
    booking_view,
    kit,
    load_booking,
    load_itinerary,
    load_traveller,
    paid_cents,
)


def _dates(db: Session, booking: Booking) -> tuple[date | None, date | None]:
    if booking.kind == "flight":
        flight = db.get(Flight, booking.flight_id)
        return (flight.departs_at.date(), flight.arrives_at.date()) if flight else (None, None)
    if booking.kind == "hotel":
        return booking.check_in, booking.check_out
    return booking.pickup_date, booking.dropoff_date


@kit.tool(
    write=False,
    intent="List the[ {status}][ {kind}] bookings of traveller {traveller_id}",
    samples={"kind": BOOKING_KINDS, "status": BOOKING_STATUSES},
)
def list_bookings(
    db: Session, traveller_id: str, kind: str | None = None, status: str | None = None
) -> list[dict[str, Any]]:
    """List a traveller's bookings (flights, hotels, cars), newest first.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        traveller_id: Traveller id, e.g. "TRV-1001".
        kind: Only this kind: "flight", "hotel" or "car".
        status: Only this status: "booked", "changed" or "cancelled".
    """
    traveller = load_traveller(db, traveller_id)
    stmt = select(Booking).where(Booking.traveller_id == traveller.id)
    if kind is not None:
        if kind.strip().lower() not in BOOKING_KINDS:
            raise ToolError(f"kind must be one of {', '.join(BOOKING_KINDS)}; got {kind!r}.")
        stmt = stmt.where(Booking.kind == kind.strip().lower())
    if status is not None:
        if status.strip().lower() not in BOOKING_STATUSES:
            raise ToolError(f"status must be one of {', '.join(BOOKING_STATUSES)}; got {status!r}.")
        stmt = stmt.where(Booking.status == status.strip().lower())
    return [booking_view(b) for b in db.scalars(stmt.order_by(Booking.id.desc()))]


@kit.tool(write=False, intent="Show booking {booking_id}")
def get_booking(db: Session, booking_id: str) -> dict[str, Any]:
    """Get one booking with its dates, price, fees, points redeemed, what was paid and any refund.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        booking_id: Booking id, e.g. "BKG-1001".
    """
    booking = load_booking(db, booking_id)
    out = booking_view(booking)
    start, end = _dates(db, booking)
    out.update(starts_on=start, ends_on=end, booked_on=booking.booked_on)
    return out


@kit.tool(
    write=True,
    intent="Create an itinerary named '{trip_name}' for traveller {traveller_id}",
    samples={
        "trip_name": ("Lisbon getaway", "Q1 sales trip", "Tokyo conference", "Spring break", "London client visit")
    },
)
def create_itinerary(db: Session, traveller_id: str, trip_name: str) -> dict[str, Any]:
    """Create an empty itinerary (a named trip) for a traveller; add bookings with add_to_itinerary.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        traveller_id: Traveller id, e.g. "TRV-1001".
        trip_name: The trip's name, 3 to 80 characters, unique per traveller, e.g. "Lisbon getaway".
    """
    traveller = load_traveller(db, traveller_id)
    text = check_length(trip_name.strip(), "trip_name", 3, 80, ", e.g. 'Lisbon getaway'")
    clash = db.scalar(
        select(Itinerary).where(Itinerary.traveller_id == traveller.id, func.lower(Itinerary.name) == text.lower())
    )
    if clash is not None:
        raise ToolError(
            f"{traveller.id} already has an itinerary named {clash.name!r} ({clash.id}); pick another name."
        )
    itinerary = Itinerary(
        id=next_id(db, Itinerary.id, "ITN"), traveller_id=traveller.id, name=text, created_on=kit.today
    )
    db.add(itinerary)
    db.flush()
    return {"itinerary_id": itinerary.id, "traveller_id": traveller.id, "name": text, "bookings": []}


@kit.tool(write=False, intent="Show itinerary {itinerary_id}")
def get_itinerary(db: Session, itinerary_id: str) -> dict[str, Any]:
    """Get an itinerary: its bookings in date order, the trip's first and last day and its total cost.

    The total counts what was paid for the bookings that are not cancelled.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        itinerary_id: Itinerary id, e.g. "ITN-1001".
    """
    itinerary = load_itinerary(db, itinerary_id)
    bookings = db.scalars(select(Booking).where(Booking.itinerary_id == itinerary.id).order_by(Booking.id)).all()
    items = []
    for b in bookings:
        start, end = _dates(db, b)
        items.append((start or date.max, {**booking_view(b), "starts_on": start, "ends_on": end}))
    items.sort(key=lambda p: (p[0], p[1]["booking_id"]))
    active = [b for b in bookings if b.status != "cancelled"]
    days = [d for b in active for d in _dates(db, b) if d is not None]
    return {
        "itinerary_id": itinerary.id,
        "traveller_id": itinerary.traveller_id,
        "name": itinerary.name,
        "starts_on": min(days) if days else None,
        "ends_on": max(days) if days else None,
        "total_paid": dollars(sum(paid_cents(b) for b in active)),
        "bookings": [item for _, item in items],
    }


@kit.tool(write=True, intent="Add booking {booking_id} to itinerary {itinerary_id}")
def add_to_itinerary(db: Session, itinerary_id: str, booking_id: str) -> dict[str, Any]:
    """Add one of a traveller's bookings to one of their itineraries.

    The booking and the itinerary must belong to the same traveller, the booking must not be
    cancelled, and a booking sits in at most one itinerary.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        itinerary_id: Itinerary id, e.g. "ITN-1001".
        booking_id: Booking id, e.g. "BKG-1001".
    """
    itinerary = load_itinerary(db, itinerary_id)
    booking = load_booking(db, booking_id)
    if booking.traveller_id != itinerary.traveller_id:
        own = db.scalars(
            select(Itinerary.id).where(Itinerary.traveller_id == booking.traveller_id).order_by(Itinerary.id)
        ).all()
        hint = (
            f"{booking.traveller_id}'s itineraries: {', '.join(own)}"
            if own
            else f"create one for {booking.traveller_id} with create_itinerary"
        )
        raise ToolError(
            f"Booking {booking.id} belongs to {booking.traveller_id} but itinerary {itinerary.id} belongs to "
            f"{itinerary.traveller_id}; {hint}."
        )
    if booking.status == "cancelled":
        raise ToolError(f"Booking {booking.id} is cancelled; only active bookings can be added to an itinerary.")
    if booking.itinerary_id == itinerary.id:
        raise ToolError(f"Booking {booking.id} is already in itinerary {itinerary.id}; nothing changed.")
    if booking.itinerary_id is not None:
        raise ToolError(
            f"Booking {booking.id} is already in itinerary {booking.itinerary_id}; a booking belongs to one "
            "itinerary only."
        )
    booking.itinerary_id = itinerary.id
    count = db.scalar(select(func.count()).select_from(Booking).where(Booking.itinerary_id == itinerary.id))
    return {
        "itinerary_id": itinerary.id,
        "booking_id": booking.id,
        "kind": booking.kind,
        "bookings_in_itinerary": count,
    }
