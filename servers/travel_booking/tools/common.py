"""What the travel booking tools share: the kit, id lookups, the booking rules, result shapes.

The rules live here so that every tool applies them the same way: fare rules (change and
cancellation fees, basic fares that cannot change), seat availability, the passport check of
international flights, hotel room availability per night and car availability per day.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import Finder, ServerKit, ToolError, dollars, format_dollars, norm_id, parse_date, pick
from gym_mcp.servers.travel_booking.data import seed
from gym_mcp.servers.travel_booking.models import (
    CABINS,
    TODAY,
    Airport,
    Base,
    Booking,
    Car,
    FareRule,
    Flight,
    Hotel,
    Itinerary,
    Membership,
    RoomType,
    Seat,
    Traveller,
)

__all__ = [
    "DATE_ERROR",
    "MAX_NIGHTS",
    "PASSPORT_MONTHS",
    "booking_view",
    "car_clashes",
    "check_cabin",
    "check_dates",
    "check_passport",
    "fee_text",
    "flight_view",
    "free_rooms",
    "free_seats",
    "is_international",
    "kit",
    "load_airport",
    "load_booking",
    "load_car",
    "load_fare_rule",
    "load_flight",
    "load_hotel",
    "load_itinerary",
    "load_membership",
    "load_traveller",
    "other_departures",
    "own_booking",
    "paid_cents",
]

INSTRUCTIONS = f"""\
Travel agency back office. Travellers ("TRV-1001") book flights ("FLT-1001", one departure of a
flight number), hotels ("HTL-1001") and rental cars ("CAR-1001"); each booking is a "BKG-1001"
of kind flight, hotel or car, and itineraries ("ITN-1001") group a traveller's bookings.
Airports are IATA codes ("JFK"). Find a traveller with list_travellers, then search_flights /
search_hotels / search_cars to pick what to book. Flights have economy and business cabins and
fare classes basic, saver, standard and flex (get_fare_rules: change and cancellation fees).
International flights need a passport valid 6 months past departure. Loyalty memberships
("LOY-1001") hold points worth 1 cent each, redeemable on bookings. Dates are ISO
("2026-02-14"); amounts are dollars. Today is {TODAY.isoformat()}."""

DATE_ERROR = '{field} {value!r} is not a valid date; use ISO 8601 such as "2026-02-14".'
MAX_NIGHTS = 30
"""Longest hotel stay or car rental, in days."""
PASSPORT_MONTHS = 6
"""An international traveller's passport must be valid this many months past departure."""

kit = ServerKit(
    "travel_booking",
    base=Base,
    seed=seed,
    instructions=INSTRUCTIONS,
    today=TODAY,
    samples={"limit": (3, 5, 10, 20)},
    inline=True,
)

# -- lookups ------------------------------------------------------------------------------------

_MISSING = "No {noun} with id {id!r}. {Noun} ids look like '{example}'; {hint}."
load_traveller = Finder(
    Traveller, "traveller", "TRV-1001", "use list_travellers with a name or email to find one", message=_MISSING
)
load_flight = Finder(
    Flight, "flight", "FLT-1001", "use search_flights with an origin and destination to find one", message=_MISSING
)
load_hotel = Finder(Hotel, "hotel", "HTL-1001", "use search_hotels with a city to find one", message=_MISSING)
load_car = Finder(Car, "car", "CAR-1001", "use search_cars with an airport code to find one", message=_MISSING)
load_booking = Finder(
    Booking, "booking", "BKG-1001", "use list_bookings with the traveller's id to see valid ones", message=_MISSING
)
load_itinerary = Finder(
    Itinerary, "itinerary", "ITN-1001", "use get_traveller to see a traveller's itineraries", message=_MISSING
)
load_membership = Finder(
    Membership, "membership", "LOY-1001", "use get_loyalty with the traveller's id to see valid ones", message=_MISSING
)


def load_airport(db: Session, code: str, field: str) -> Airport:
    """An airport by IATA code, or a `ToolError` that lists the codes served."""
    airport = db.get(Airport, norm_id(code))
    if airport is None:
        codes = ", ".join(db.scalars(select(Airport.id).order_by(Airport.id)))
        raise ToolError(f"{field} {code!r} is not an airport we serve; use an IATA code, one of: {codes}.")
    return airport


def load_fare_rule(db: Session, fare_class: str) -> FareRule:
    """The rules of a fare class, or a `ToolError` that lists the classes."""
    rule = db.get(FareRule, fare_class.strip().lower())
    if rule is None:
        classes = ", ".join(db.scalars(select(FareRule.fare_class).order_by(FareRule.price_pct)))
        raise ToolError(f"fare_class must be one of {classes}; got {fare_class!r}. get_fare_rules explains each.")
    return rule


def check_cabin(cabin: str) -> str:
    """A cabin name in lower case, or a `ToolError`."""
    value = cabin.strip().lower()
    if value not in CABINS:
        raise ToolError(f"cabin must be one of {', '.join(CABINS)}; got {cabin!r}.")
    return value


def own_booking(db: Session, booking_id: str, kind: str) -> Booking:
    """A booking of the given kind that is not cancelled, or a `ToolError` saying what to use instead."""
    booking = load_booking(db, booking_id)
    if booking.kind != kind:
        others = db.scalars(
            select(Booking.id)
            .where(Booking.traveller_id == booking.traveller_id, Booking.kind == kind, Booking.status != "cancelled")
            .order_by(Booking.id)
        ).all()
        hint = (
            f"{booking.traveller_id}'s active {kind} bookings: {', '.join(others)}"
            if others
            else f"{booking.traveller_id} has no active {kind} booking"
        )
        raise ToolError(f"Booking {booking.id} is a {booking.kind} booking, not a {kind} booking; {hint}.")
    if booking.status == "cancelled":
        raise ToolError(f"Booking {booking.id} was cancelled on {booking.cancelled_on}; a cancelled booking is final.")
    return booking


# -- dates ----------------------------------------------------------------------------------------


def check_dates(start: str, end: str, start_field: str, end_field: str, what: str) -> tuple[date, date]:
    """Parse a date range that starts today or later and ends 1 to `MAX_NIGHTS` days after it starts."""
    first = parse_date(start, start_field, DATE_ERROR)
    last = parse_date(end, end_field, DATE_ERROR)
    if first < kit.today:
        raise ToolError(f"{start_field} {first} is in the past; today is {kit.today}. Pick a date from today on.")
    if last <= first:
        raise ToolError(f"{end_field} {last} must be after {start_field} {first}; a {what} lasts at least one day.")
    if (last - first).days > MAX_NIGHTS:
        raise ToolError(
            f"A {what} lasts at most {MAX_NIGHTS} days; {start_field} {first} to {end_field} {last} is "
            f"{(last - first).days}."
        )
    return first, last


# -- flights: seats and passports ---------------------------------------------------------------------


def free_seats(db: Session, flight_id: str, cabin: str) -> list[str]:
    """Free seats of a flight's cabin, in seat-map order."""
    seats = db.scalars(select(Seat).where(Seat.flight_id == flight_id, Seat.cabin == cabin, Seat.taken.is_(False)))
    return [s.seat for s in sorted(seats, key=lambda s: (int(s.seat[:-1]), s.seat[-1]))]


def is_international(db: Session, flight: Flight) -> bool:
    """Whether a flight crosses a border."""
    origin, dest = db.get(Airport, flight.origin), db.get(Airport, flight.destination)
    return origin is not None and dest is not None and origin.country != dest.country


def _months_after(day: date, months: int) -> date:
    """The same day ``months`` later (the month's last day when it is shorter)."""
    month = day.month - 1 + months
    year, month = day.year + month // 12, month % 12 + 1
    for d in (day.day, 30, 29, 28):
        try:
            return date(year, month, d)
        except ValueError:
            continue
    raise AssertionError("unreachable")


def check_passport(db: Session, traveller: Traveller, flight: Flight) -> None:
    """An international flight needs a passport valid `PASSPORT_MONTHS` months past its departure."""
    if not is_international(db, flight):
        return
    route = f"{flight.origin} to {flight.destination}"
    departs = flight.departs_at.date()
    fix = "Record a valid passport with update_passport first."
    if traveller.passport_number is None or traveller.passport_expiry is None:
        raise ToolError(
            f"{traveller.name} ({traveller.id}) has no passport on file, and flight {flight.id} ({route}) is "
            f"international. {fix}"
        )
    expiry = traveller.passport_expiry
    if expiry < kit.today:
        raise ToolError(
            f"{traveller.name}'s passport expired on {expiry} (today is {kit.today}); flight {flight.id} ({route}) "
            f"is international. {fix}"
        )
    needed = _months_after(departs, PASSPORT_MONTHS)
    if expiry < needed:
        raise ToolError(
            f"{traveller.name}'s passport expires on {expiry}, within {PASSPORT_MONTHS} months of the departure of "
            f"international flight {flight.id} ({route}) on {departs}; it must be valid until at least {needed}. {fix}"
        )


def other_departures(db: Session, flight: Flight, cabin: str | None = None) -> list[str]:
    """Other departures on the same route (with a free seat in ``cabin`` when given), by date."""
    rows = db.scalars(
        select(Flight)
        .where(Flight.origin == flight.origin, Flight.destination == flight.destination, Flight.id != flight.id)
        .order_by(Flight.departs_at)
    )
    return [f.id for f in rows if cabin is None or free_seats(db, f.id, cabin)]


# -- hotels and cars --------------------------------------------------------------------------------


def free_rooms(db: Session, room: RoomType, first: date, last: date, *, ignore: str | None = None) -> dict[date, int]:
    """Rooms of a type still free each night from ``first`` up to (not including) ``last``."""
    stays = db.scalars(
        select(Booking).where(
            Booking.hotel_id == room.hotel_id,
            Booking.room_type == room.room_type,
            Booking.status != "cancelled",
            Booking.check_in < last,
            Booking.check_out > first,
        )
    ).all()
    out = {}
    day = first
    while day < last:
        used = sum(
            1 for s in stays if s.id != ignore and s.check_in and s.check_out and s.check_in <= day < s.check_out
        )
        out[day] = room.total_rooms - used
        day += timedelta(days=1)
    return out


def car_clashes(db: Session, car: Car, first: date, last: date) -> Sequence[Booking]:
    """Active bookings of a car that overlap the days from ``first`` to ``last``."""
    return db.scalars(
        select(Booking)
        .where(
            Booking.car_id == car.id,
            Booking.status != "cancelled",
            Booking.pickup_date < last,
            Booking.dropoff_date > first,
        )
        .order_by(Booking.pickup_date)
    ).all()


# -- money and result shapes --------------------------------------------------------------------------


def paid_cents(booking: Booking) -> int:
    """What the traveller paid in money: price and fees, less the points redeemed (1 point = 1 cent)."""
    return booking.price_cents + booking.fees_cents - booking.points_redeemed


def flight_view(db: Session, flight: Flight) -> dict[str, Any]:
    """The fields of a flight a model needs, with the free seats per cabin."""
    return {
        "flight_id": flight.id,
        **pick(flight, "number", "airline", "origin", "destination"),
        "departs_at": flight.departs_at.isoformat(timespec="minutes"),
        "arrives_at": flight.arrives_at.isoformat(timespec="minutes"),
        "international": is_international(db, flight),
        "fares": {"economy": dollars(flight.economy_fare_cents), "business": dollars(flight.business_fare_cents)},
        "free_seats": {cabin: len(free_seats(db, flight.id, cabin)) for cabin in CABINS},
    }


def booking_view(booking: Booking) -> dict[str, Any]:
    """The fields of a booking a model needs (those of its kind only)."""
    out: dict[str, Any] = {
        "booking_id": booking.id,
        **pick(booking, "kind", "status", "traveller_id"),
    }
    if booking.kind == "flight":
        out.update(pick(booking, "flight_id", "cabin", "fare_class", "seat"))
    elif booking.kind == "hotel":
        out.update(pick(booking, "hotel_id", "room_type", "check_in", "check_out"))
    else:
        out.update(pick(booking, "car_id", "pickup_date", "dropoff_date"))
    out["price"] = dollars(booking.price_cents)
    if booking.fees_cents:
        out["fees"] = dollars(booking.fees_cents)
    if booking.points_redeemed:
        out["points_redeemed"] = booking.points_redeemed
    out["paid"] = dollars(paid_cents(booking))
    if booking.itinerary_id:
        out["itinerary_id"] = booking.itinerary_id
    if booking.status == "cancelled":
        out["cancelled_on"] = booking.cancelled_on
        out["refund"] = dollars(booking.refund_cents or 0)
    return out


def fee_text(cents: int | None, none: str) -> str:
    """A fee for messages, or ``none`` when the fare does not allow the action."""
    return none if cents is None else format_dollars(cents)
