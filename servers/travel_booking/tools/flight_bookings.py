"""Travel booking tools that book, reseat, change and cancel flights, under the fare rules."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, dollars, format_dollars, next_id
from gym_mcp.servers.travel_booking.models import CABINS, Booking, Flight, Seat
from gym_mcp.servers.travel_booking.tools.common import (
    booking_view,
    check_cabin,
    check_passport,
    free_seats,
    kit,
    load_fare_rule,
    load_flight,
    load_traveller,
    other_departures,
    own_booking,
    paid_cents,
)

SEAT_SAMPLES = ("10A", "11C", "12F", "13B", "14D", "15A", "16E", "1A", "2D")

_FREE_SHOWN = 8


def _fare_cents(flight: Flight, cabin: str, pct: int) -> int:
    base = flight.economy_fare_cents if cabin == "economy" else flight.business_fare_cents
    return base * pct // 100


def _free_list(free: list[str]) -> str:
    more = f" and {len(free) - _FREE_SHOWN} more" if len(free) > _FREE_SHOWN else ""
    return ", ".join(free[:_FREE_SHOWN]) + more


def _take_seat(db: Session, flight: Flight, cabin: str, seat: str | None) -> Seat:
    """The free seat to give a booking: the one asked for, or the first free one of the cabin."""
    free = free_seats(db, flight.id, cabin)
    if not free:
        alternatives = other_departures(db, flight, cabin)
        other = [c for c in CABINS if c != cabin and free_seats(db, flight.id, c)]
        hints = []
        if other:
            hints.append(f"the {other[0]} cabin has free seats")
        if alternatives:
            hints.append(f"other departures with free {cabin} seats: {', '.join(alternatives[:4])}")
        raise ToolError(
            f"The {cabin} cabin of flight {flight.id} is full; " + ("; ".join(hints) or "no other option") + "."
        )
    label = (seat or free[0]).strip().upper()
    row = db.get(Seat, (flight.id, label))
    if row is None:
        raise ToolError(
            f"Flight {flight.id} has no seat {label!r}; seats are rows 1-2 (business, A C D F) and rows 10-16 "
            f"(economy, A-F). Free {cabin} seats: {_free_list(free)}."
        )
    if row.cabin != cabin:
        raise ToolError(
            f"Seat {label} is in the {row.cabin} cabin, not {cabin}. Free {cabin} seats on {flight.id}: "
            f"{_free_list(free)}."
        )
    if row.taken:
        raise ToolError(f"Seat {label} on {flight.id} is taken. Free {cabin} seats: {_free_list(free)}.")
    return row


def _release(db: Session, booking: Booking) -> None:
    if booking.flight_id and booking.seat:
        seat = db.get(Seat, (booking.flight_id, booking.seat))
        if seat is not None and seat.booking_id == booking.id:
            seat.taken, seat.booking_id = False, None


@kit.tool(
    write=True,
    intent="Book traveller {traveller_id} on flight {flight_id} in {cabin} on a {fare_class} fare[ in seat {seat}]",
    samples={"cabin": CABINS, "fare_class": ("basic", "saver", "standard", "flex"), "seat": SEAT_SAMPLES},
)
def book_flight(
    db: Session, traveller_id: str, flight_id: str, cabin: str, fare_class: str, seat: str | None = None
) -> dict[str, Any]:
    """Book a traveller on a flight in a cabin and fare class, with a seat.

    The price is the cabin fare times the fare class's percentage (get_fare_rules). The seat
    must be free and in the chosen cabin; without one the first free seat of the cabin is
    given. International flights need a passport valid 6 months past departure
    (update_passport records one). Basic fares are economy only. A traveller can hold one
    active booking per flight.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        traveller_id: Traveller id, e.g. "TRV-1001".
        flight_id: Flight id from search_flights, e.g. "FLT-1001".
        cabin: "economy" or "business".
        fare_class: "basic", "saver", "standard" or "flex".
        seat: A free seat of the cabin from get_seat_map, e.g. "12C".
    """
    traveller = load_traveller(db, traveller_id)
    flight = load_flight(db, flight_id)
    cabin = check_cabin(cabin)
    rule = load_fare_rule(db, fare_class)
    if rule.economy_only and cabin != "economy":
        raise ToolError(f"The {rule.fare_class} fare is sold in economy only; use saver, standard or flex in {cabin}.")
    held = db.scalar(
        select(Booking).where(
            Booking.traveller_id == traveller.id, Booking.flight_id == flight.id, Booking.status != "cancelled"
        )
    )
    if held is not None:
        others = other_departures(db, flight, cabin)
        hint = f"; other departures on {flight.origin}-{flight.destination}: {', '.join(others[:4])}" if others else ""
        raise ToolError(f"{traveller.id} already holds booking {held.id} on flight {flight.id}{hint}.")
    check_passport(db, traveller, flight)
    row = _take_seat(db, flight, cabin, seat)
    booking = Booking(
        id=next_id(db, Booking.id, "BKG"),
        traveller_id=traveller.id,
        kind="flight",
        status="booked",
        flight_id=flight.id,
        cabin=cabin,
        fare_class=rule.fare_class,
        seat=row.seat,
        price_cents=_fare_cents(flight, cabin, rule.price_pct),
        fees_cents=0,
        points_redeemed=0,
        booked_on=kit.today,
    )
    db.add(booking)
    db.flush()
    row.taken, row.booking_id = True, booking.id
    out = booking_view(booking)
    out["departs_at"] = flight.departs_at.isoformat(timespec="minutes")
    return out


@kit.tool(
    write=True,
    intent="Move flight booking {booking_id} to seat {seat}",
    samples={"seat": SEAT_SAMPLES},
)
def select_seat(db: Session, booking_id: str, seat: str) -> dict[str, Any]:
    """Move a flight booking to another free seat in the same cabin (the old seat is released).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        booking_id: A flight booking id, e.g. "BKG-1001".
        seat: A free seat of the booking's cabin from get_seat_map, e.g. "14D".
    """
    booking = own_booking(db, booking_id, "flight")
    flight = load_flight(db, booking.flight_id or "")
    cabin = booking.cabin or "economy"
    label = seat.strip().upper()
    if label == booking.seat:
        raise ToolError(f"Booking {booking.id} already has seat {label}; nothing changed.")
    row = _take_seat(db, flight, cabin, label)
    old = booking.seat
    _release(db, booking)
    row.taken, row.booking_id = True, booking.id
    booking.seat = row.seat
    return {"booking_id": booking.id, "flight_id": flight.id, "cabin": cabin, "seat": row.seat, "previous_seat": old}


@kit.tool(write=True, intent="Change flight booking {booking_id} to flight {new_flight_id}")
def change_flight(db: Session, booking_id: str, new_flight_id: str) -> dict[str, Any]:
    """Move a flight booking to another departure of the same route, paying the fare's change fee.

    The fee is the fare class's change fee plus the fare difference when the new departure costs
    more (no refund when it costs less). Basic fares cannot be changed. The booking keeps its
    cabin and fare class, gets the first free seat of that cabin on the new flight, and its
    status becomes "changed". International flights need a valid passport as for book_flight.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        booking_id: A flight booking id, e.g. "BKG-1001".
        new_flight_id: The departure to move to, same origin and destination, e.g. "FLT-1020".
    """
    booking = own_booking(db, booking_id, "flight")
    current = load_flight(db, booking.flight_id or "")
    new = load_flight(db, new_flight_id, "new_flight_id")
    rule = load_fare_rule(db, booking.fare_class or "")
    if rule.change_fee_cents is None:
        raise ToolError(
            f"Booking {booking.id} is on a {rule.fare_class} fare, which cannot be changed. It can only be cancelled "
            "(cancel_flight_booking), and a new flight booked."
        )
    if new.id == current.id:
        raise ToolError(f"Booking {booking.id} is already on flight {new.id}; nothing changed.")
    if (new.origin, new.destination) != (current.origin, current.destination):
        others = other_departures(db, current)
        hint = f" Departures on that route: {', '.join(others)}." if others else ""
        raise ToolError(
            f"Flight {new.id} flies {new.origin}-{new.destination}, but the booking is for "
            f"{current.origin}-{current.destination}; a change keeps the route.{hint}"
        )
    traveller = load_traveller(db, booking.traveller_id)
    check_passport(db, traveller, new)
    cabin = booking.cabin or "economy"
    row = _take_seat(db, new, cabin, None)
    new_price = _fare_cents(new, cabin, rule.price_pct)
    difference = max(new_price - booking.price_cents, 0)
    fee = rule.change_fee_cents + difference
    _release(db, booking)
    row.taken, row.booking_id = True, booking.id
    previous = booking.flight_id
    booking.flight_id, booking.seat, booking.status = new.id, row.seat, "changed"
    booking.price_cents += difference
    booking.fees_cents += rule.change_fee_cents
    out = booking_view(booking)
    out.update(
        previous_flight_id=previous,
        departs_at=new.departs_at.isoformat(timespec="minutes"),
        change_fee=dollars(rule.change_fee_cents),
        fare_difference=dollars(difference),
        charged=dollars(fee),
    )
    return out


@kit.tool(write=True, intent="Cancel flight booking {booking_id}", confirm="always")
def cancel_flight_booking(db: Session, booking_id: str) -> dict[str, Any]:
    """Cancel a flight booking for good and release its seat; the refund follows the fare rules.

    Refund = what was paid (price + fees - points redeemed) minus the fare's cancellation fee; a
    non-refundable fare (basic, saver) refunds nothing. Redeemed points are not returned. This
    cannot be undone: confirm with the traveller first.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        booking_id: A flight booking id, e.g. "BKG-1001".
    """
    booking = own_booking(db, booking_id, "flight")
    rule = load_fare_rule(db, booking.fare_class or "")
    paid = paid_cents(booking)
    if rule.cancel_fee_cents is None:
        fee, refund, note = paid, 0, f"{rule.fare_class} fares are non-refundable"
    else:
        fee = min(rule.cancel_fee_cents, paid)
        refund = paid - fee
        note = f"{rule.fare_class} fare: cancellation fee {format_dollars(rule.cancel_fee_cents)}"
    _release(db, booking)
    booking.status, booking.cancelled_on, booking.refund_cents = "cancelled", kit.today, refund
    return {
        "booking_id": booking.id,
        "status": "cancelled",
        "flight_id": booking.flight_id,
        "paid": dollars(paid),
        "cancellation_fee": dollars(fee),
        "refund": dollars(refund),
        "rule": note,
    }
