"""Travel booking tools for hotels: search by city and dates, read availability, book and cancel stays."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, dollars, format_dollars, next_id
from gym_mcp.servers.travel_booking.models import ROOM_TYPES, Booking, Hotel, RoomType
from gym_mcp.servers.travel_booking.tools.common import (
    booking_view,
    check_dates,
    free_rooms,
    kit,
    load_hotel,
    load_traveller,
    own_booking,
    paid_cents,
)

CHECK_IN_SAMPLES = ("2026-02-10", "2026-02-14", "2026-03-02", "2026-03-20")
CHECK_OUT_SAMPLES = ("2026-02-13", "2026-02-17", "2026-03-06", "2026-03-24")
CITY_SAMPLES = ("London", "Paris", "New York", "Tokyo", "Lisbon", "Chicago", "Seattle", "Toronto")
FREE_CANCELLATION_DAYS = 2
"""A stay cancelled fewer days than this before check-in costs one night."""


def _room_type(value: str) -> str:
    kind = value.strip().lower()
    if kind not in ROOM_TYPES:
        raise ToolError(f"room_type must be one of {', '.join(ROOM_TYPES)}; got {value!r}.")
    return kind


def _rooms(db: Session, hotel: Hotel) -> list[RoomType]:
    rows = db.scalars(select(RoomType).where(RoomType.hotel_id == hotel.id)).all()
    return sorted(rows, key=lambda r: ROOM_TYPES.index(r.room_type))


@kit.tool(
    write=False,
    intent="Find hotels in {city} from {check_in} to {check_out}[ with a free {room_type} room]",
    samples={
        "city": CITY_SAMPLES,
        "check_in": CHECK_IN_SAMPLES,
        "check_out": CHECK_OUT_SAMPLES,
        "room_type": ROOM_TYPES,
    },
)
def search_hotels(
    db: Session, city: str, check_in: str, check_out: str, room_type: str | None = None
) -> list[dict[str, Any]]:
    """Search the hotels of a city with rooms free for every night of a stay.

    Each result lists the room types free for the whole stay with the nightly rate and the total
    for the stay. An empty list means nothing is free (try other dates or a nearby city).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        city: City name, e.g. "London".
        check_in: Arrival date, ISO format, e.g. "2026-02-14".
        check_out: Departure date, after check_in, e.g. "2026-02-17".
        room_type: Only this room type: "standard", "deluxe" or "suite".
    """
    first, last = check_dates(check_in, check_out, "check_in", "check_out", "stay")
    wanted = _room_type(room_type) if room_type is not None else None
    name = city.strip().lower()
    hotels = db.scalars(select(Hotel).where(func.lower(Hotel.city) == name).order_by(Hotel.id)).all()
    if not hotels:
        cities = ", ".join(db.scalars(select(Hotel.city).distinct().order_by(Hotel.city)))
        raise ToolError(f"No hotels in {city!r}; cities with hotels: {cities}.")
    nights = (last - first).days
    out = []
    for hotel in hotels:
        free = []
        for room in _rooms(db, hotel):
            if wanted not in (None, room.room_type):
                continue
            left = min(free_rooms(db, room, first, last).values())
            if left > 0:
                free.append(
                    {
                        "room_type": room.room_type,
                        "rooms_free": left,
                        "nightly_rate": dollars(room.nightly_rate_cents),
                        "total": dollars(room.nightly_rate_cents * nights),
                    }
                )
        if free:
            out.append({"hotel_id": hotel.id, "name": hotel.name, "stars": hotel.stars, "rooms": free})
    return out


@kit.tool(
    write=False,
    intent="Show hotel {hotel_id} with its room availability[ from {check_in} to {check_out}]",
    samples={"check_in": CHECK_IN_SAMPLES, "check_out": CHECK_OUT_SAMPLES},
)
def get_hotel(db: Session, hotel_id: str, check_in: str | None = None, check_out: str | None = None) -> dict[str, Any]:
    """Get a hotel: address, stars, room types with rates, and how many rooms are free each night.

    Without dates, availability covers the next 7 nights from today.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        hotel_id: Hotel id, e.g. "HTL-1001".
        check_in: First night of the window, ISO format, e.g. "2026-02-14" (give check_out too).
        check_out: Day after the last night, e.g. "2026-02-17".
    """
    hotel = load_hotel(db, hotel_id)
    if (check_in is None) != (check_out is None):
        raise ToolError("Give both check_in and check_out, or neither (the next 7 nights).")
    if check_in is not None and check_out is not None:
        first, last = check_dates(check_in, check_out, "check_in", "check_out", "stay")
    else:
        first, last = kit.today, kit.today + timedelta(days=7)
    rooms = []
    for room in _rooms(db, hotel):
        free = free_rooms(db, room, first, last)
        rooms.append(
            {
                "room_type": room.room_type,
                "total_rooms": room.total_rooms,
                "max_guests": room.max_guests,
                "nightly_rate": dollars(room.nightly_rate_cents),
                "free_by_night": {day.isoformat(): n for day, n in free.items()},
            }
        )
    return {
        "hotel_id": hotel.id,
        "name": hotel.name,
        "city": hotel.city,
        "country": hotel.country,
        "stars": hotel.stars,
        "address": hotel.address,
        "rooms": rooms,
    }


@kit.tool(
    write=True,
    intent="Book a {room_type} room at hotel {hotel_id} for traveller {traveller_id} from {check_in} to {check_out}",
    samples={"room_type": ROOM_TYPES, "check_in": CHECK_IN_SAMPLES, "check_out": CHECK_OUT_SAMPLES},
)
def book_hotel(
    db: Session, traveller_id: str, hotel_id: str, room_type: str, check_in: str, check_out: str
) -> dict[str, Any]:
    """Book a hotel room for a traveller for the nights from check-in to check-out.

    check_out must be after check_in (at most 30 nights), check_in today or later, and a room of
    the type must be free every night (get_hotel shows availability). The price is the nightly
    rate times the nights.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        traveller_id: Traveller id, e.g. "TRV-1001".
        hotel_id: Hotel id from search_hotels, e.g. "HTL-1001".
        room_type: "standard", "deluxe" or "suite".
        check_in: Arrival date, ISO format, e.g. "2026-02-14".
        check_out: Departure date, e.g. "2026-02-17".
    """
    traveller = load_traveller(db, traveller_id)
    hotel = load_hotel(db, hotel_id)
    kind = _room_type(room_type)
    first, last = check_dates(check_in, check_out, "check_in", "check_out", "stay")
    rooms = {r.room_type: r for r in _rooms(db, hotel)}
    room = rooms.get(kind)
    if room is None:
        raise ToolError(f"{hotel.name} ({hotel.id}) has no {kind} rooms; it has {', '.join(rooms)}.")
    full = [day.isoformat() for day, n in free_rooms(db, room, first, last).items() if n <= 0]
    if full:
        others = [t for t, r in rooms.items() if t != kind and min(free_rooms(db, r, first, last).values()) > 0]
        hint = f"; free for the whole stay: {', '.join(others)}" if others else "; no other room type is free either"
        raise ToolError(
            f"No {kind} room is free at {hotel.id} on the night(s) of {', '.join(full)}{hint}. "
            "Try other dates or another hotel (search_hotels)."
        )
    nights = (last - first).days
    booking = Booking(
        id=next_id(db, Booking.id, "BKG"),
        traveller_id=traveller.id,
        kind="hotel",
        status="booked",
        hotel_id=hotel.id,
        room_type=kind,
        check_in=first,
        check_out=last,
        price_cents=room.nightly_rate_cents * nights,
        fees_cents=0,
        points_redeemed=0,
        booked_on=kit.today,
    )
    db.add(booking)
    db.flush()
    out = booking_view(booking)
    out["nights"] = nights
    return out


@kit.tool(write=True, intent="Cancel hotel booking {booking_id}", confirm="always")
def cancel_hotel_booking(db: Session, booking_id: str) -> dict[str, Any]:
    """Cancel a hotel booking for good; the room is freed.

    Free until 2 days before check-in; later, one night's rate is charged and the rest refunded.
    Redeemed points are not returned. This cannot be undone: confirm with the traveller first.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        booking_id: A hotel booking id, e.g. "BKG-1001".
    """
    booking = own_booking(db, booking_id, "hotel")
    room = db.get(RoomType, (booking.hotel_id, booking.room_type))
    paid = paid_cents(booking)
    days_before = ((booking.check_in or kit.today) - kit.today).days
    late = days_before < FREE_CANCELLATION_DAYS
    fee = min(room.nightly_rate_cents if room and late else 0, paid)
    booking.status, booking.cancelled_on, booking.refund_cents = "cancelled", kit.today, paid - fee
    rule = (
        f"cancelled {days_before} day(s) before check-in: one night ({format_dollars(fee)}) is charged"
        if late
        else f"free cancellation up to {FREE_CANCELLATION_DAYS} days before check-in"
    )
    return {
        "booking_id": booking.id,
        "status": "cancelled",
        "hotel_id": booking.hotel_id,
        "paid": dollars(paid),
        "cancellation_fee": dollars(fee),
        "refund": dollars(paid - fee),
        "rule": rule,
    }
