"""Travel booking tools that read flights, seat maps and fare rules."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, dollars, parse_date
from gym_mcp.servers.travel_booking.models import CABINS, FareRule, Flight, Seat
from gym_mcp.servers.travel_booking.tools.common import (
    DATE_ERROR,
    check_cabin,
    fee_text,
    flight_view,
    free_seats,
    kit,
    load_airport,
    load_fare_rule,
    load_flight,
)

AIRPORT_SAMPLES = ("JFK", "LAX", "LHR", "BOS", "SEA", "ORD", "SFO", "MIA", "CDG", "NRT")


@kit.tool(
    write=False,
    intent="Find flights from {origin} to {destination}[ on {date}][ with free {cabin} seats]",
    samples={
        "origin": AIRPORT_SAMPLES,
        "destination": AIRPORT_SAMPLES,
        "date": ("2026-02-03", "2026-02-20", "2026-03-10", "2026-04-01"),
        "cabin": CABINS,
    },
)
def search_flights(
    db: Session, origin: str, destination: str, date: str | None = None, cabin: str | None = None
) -> list[dict[str, Any]]:
    """Search scheduled departures between two airports, earliest first.

    Each result has the flight id to book, number, times, whether it is international (a
    passport is then required), the base fare of each cabin and the free seats per cabin. Fare
    classes change the price (get_fare_rules). An empty list means no departure matches.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        origin: Departure airport IATA code, e.g. "JFK".
        destination: Arrival airport IATA code, e.g. "LHR".
        date: Only departures on this day, ISO format, e.g. "2026-02-20".
        cabin: Only flights with a free seat in this cabin: "economy" or "business".
    """
    start = load_airport(db, origin, "origin")
    end = load_airport(db, destination, "destination")
    if start.id == end.id:
        raise ToolError(f"origin and destination are both {start.id}; pick two different airports.")
    stmt = select(Flight).where(
        Flight.origin == start.id,
        Flight.destination == end.id,
        Flight.departs_at >= datetime.combine(kit.today, datetime.min.time()),
    )
    if date is not None:
        day = parse_date(date, "date", DATE_ERROR)
        first = datetime.combine(day, datetime.min.time())
        stmt = stmt.where(Flight.departs_at >= first, Flight.departs_at < first + timedelta(days=1))
    wanted = check_cabin(cabin) if cabin is not None else None
    flights = db.scalars(stmt.order_by(Flight.departs_at))
    return [flight_view(db, f) for f in flights if wanted is None or free_seats(db, f.id, wanted)]


@kit.tool(write=False, intent="Show the details of flight {flight_id}")
def get_flight(db: Session, flight_id: str) -> dict[str, Any]:
    """Get one flight: route, times, aircraft, cabin fares, free seats per cabin and the price of each fare class.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        flight_id: Flight id, e.g. "FLT-1001".
    """
    flight = load_flight(db, flight_id)
    out = flight_view(db, flight)
    out["aircraft"] = flight.aircraft
    rules = db.scalars(select(FareRule).order_by(FareRule.price_pct))
    out["prices"] = {
        r.fare_class: {
            cabin: dollars(base * r.price_pct // 100)
            for cabin, base in (("economy", flight.economy_fare_cents), ("business", flight.business_fare_cents))
            if cabin == "economy" or not r.economy_only
        }
        for r in rules
    }
    return out


@kit.tool(
    write=False, intent="Show the seat map of flight {flight_id}[ for the {cabin} cabin]", samples={"cabin": CABINS}
)
def get_seat_map(db: Session, flight_id: str, cabin: str | None = None) -> dict[str, Any]:
    """Get a flight's seat map: the free and the taken seats of each cabin.

    Business is rows 1-2 (seats A, C, D, F), economy rows 10-16 (seats A-F). Use a free seat
    with book_flight or select_seat.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        flight_id: Flight id, e.g. "FLT-1001".
        cabin: Only this cabin: "economy" or "business".
    """
    flight = load_flight(db, flight_id)
    cabins = [check_cabin(cabin)] if cabin is not None else list(CABINS)
    out: dict[str, Any] = {"flight_id": flight.id, "cabins": {}}
    for name in cabins:
        seats = db.scalars(select(Seat).where(Seat.flight_id == flight.id, Seat.cabin == name)).all()
        order = sorted(seats, key=lambda s: (int(s.seat[:-1]), s.seat[-1]))
        out["cabins"][name] = {
            "free": free_seats(db, flight.id, name),
            "taken": [s.seat for s in order if s.taken],
        }
    return out


@kit.tool(
    write=False,
    intent="Explain the fare rules[ of the {fare_class} fare]",
    samples={"fare_class": ("basic", "saver", "standard", "flex")},
)
def get_fare_rules(db: Session, fare_class: str | None = None) -> list[dict[str, Any]]:
    """Get the fare rules: price (as % of the cabin fare), change fee and cancellation fee of each fare class.

    change_fee null means the fare cannot be changed; cancellation_fee null means it is
    non-refundable (cancelling refunds nothing). Basic fares are sold in economy only.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        fare_class: Only this class: "basic", "saver", "standard" or "flex".
    """
    rules = (
        [load_fare_rule(db, fare_class)]
        if fare_class is not None
        else db.scalars(select(FareRule).order_by(FareRule.price_pct))
    )
    return [
        {
            "fare_class": r.fare_class,
            "label": r.label,
            "price_percent_of_cabin_fare": r.price_pct,
            "change_fee": None if r.change_fee_cents is None else dollars(r.change_fee_cents),
            "cancellation_fee": None if r.cancel_fee_cents is None else dollars(r.cancel_fee_cents),
            "summary": (
                f"changes {fee_text(r.change_fee_cents, 'not allowed')}; "
                + ("cancellation non-refundable" if r.cancel_fee_cents is None else "cancellation fee ")
                + fee_text(r.cancel_fee_cents, "")
                + ("; economy only" if r.economy_only else "")
            ),
        }
        for r in rules
    ]
