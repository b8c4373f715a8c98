"""The travel booking server through a real MCP client: booking, reseating, changing and cancelling flights."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import assert_error, one, scalar
from tests.servers.travel_booking.common import (
    INTERNATIONAL,
    active_flight_booking,
    booking_row,
    free_flight,
    free_seat,
    good_traveller,
    taken_seat,
)


def test_book_flight(travel: LiveServer) -> None:
    traveller = good_traveller(travel)
    flight = free_flight(travel, traveller)
    seat = free_seat(travel, flight, "business")
    top = travel.query("SELECT max(id) FROM bookings")[0][0]
    out = travel.ok(
        "book_flight", traveller_id=traveller, flight_id=flight, cabin="Business", fare_class="flex", seat=seat
    )
    business = scalar(travel, "SELECT business_fare_cents FROM flights WHERE id = ?", flight)
    assert out["booking_id"] == f"BKG-{int(top[4:]) + 1}"
    assert (out["cabin"], out["fare_class"], out["seat"], out["status"]) == ("business", "flex", seat, "booked")
    assert out["price"] == business * 135 // 100 / 100
    assert booking_row(travel, out["booking_id"], "flight_id", "seat", "price_cents", "booked_on") == (
        flight,
        seat,
        business * 135 // 100,
        "2026-01-15",
    )
    assert travel.query("SELECT taken, booking_id FROM seats WHERE flight_id = ? AND seat = ?", flight, seat) == [
        (1, out["booking_id"])
    ]
    err = assert_error(
        travel,
        "book_flight",
        "already holds",
        out["booking_id"],
        traveller_id=traveller,
        flight_id=flight,
        cabin="economy",
        fare_class="standard",
    )
    assert "other departures" in err


def test_book_flight_seat_and_fare_rules(travel: LiveServer) -> None:
    traveller = good_traveller(travel)
    flight = free_flight(travel, traveller, international=False)
    args = {"traveller_id": traveller, "flight_id": flight}
    before = travel.query("SELECT count(*) FROM bookings")[0][0]
    err = assert_error(
        travel,
        "book_flight",
        "is taken",
        "Free economy seats",
        cabin="economy",
        fare_class="standard",
        seat=taken_seat(travel, flight),
        **args,
    )
    assert free_seat(travel, flight) in err
    assert_error(
        travel,
        "book_flight",
        "in the business cabin, not economy",
        cabin="economy",
        fare_class="standard",
        seat=free_seat(travel, flight, "business"),
        **args,
    )
    assert_error(travel, "book_flight", "has no seat '40A'", cabin="economy", fare_class="standard", seat="40A", **args)
    assert_error(travel, "book_flight", "economy only", cabin="business", fare_class="basic", **args)
    assert_error(travel, "book_flight", "fare_class must be one of", cabin="economy", fare_class="premium", **args)
    assert_error(travel, "book_flight", "cabin must be one of", cabin="first", fare_class="flex", **args)
    assert travel.query("SELECT count(*) FROM bookings")[0][0] == before
    first = travel.ok("get_seat_map", flight_id=flight, cabin="economy")["cabins"]["economy"]["free"][0]
    out = travel.ok("book_flight", cabin="economy", fare_class="basic", **args)
    assert out["seat"] == first  # the first free seat of the map
    full_flight, cabin = one(
        travel, "SELECT flight_id, cabin FROM seats GROUP BY flight_id, cabin HAVING min(taken) = 1 ORDER BY 1"
    )
    fare = "standard"
    assert_error(
        travel,
        "book_flight",
        f"The {cabin} cabin of flight {full_flight} is full",
        traveller_id=scalar(travel, "SELECT id FROM travellers WHERE passport_expiry > '2030-01-01' ORDER BY id DESC"),
        flight_id=full_flight,
        cabin=cabin,
        fare_class=fare,
    )


def test_book_flight_passport_checks(travel: LiveServer) -> None:
    flight = scalar(travel, f"SELECT id FROM flights WHERE id IN ({INTERNATIONAL}) ORDER BY departs_at DESC")
    args = {"flight_id": flight, "cabin": "economy", "fare_class": "standard"}
    nobody = scalar(travel, "SELECT id FROM travellers WHERE passport_number IS NULL ORDER BY id")
    assert_error(
        travel, "book_flight", "no passport on file", "international", "update_passport", traveller_id=nobody, **args
    )
    expired = scalar(travel, "SELECT id FROM travellers WHERE passport_expiry < '2026-01-15' ORDER BY id")
    assert_error(travel, "book_flight", "expired on", traveller_id=expired, **args)
    soon = scalar(
        travel, "SELECT id FROM travellers WHERE passport_expiry BETWEEN '2026-01-15' AND '2026-08-01' ORDER BY id"
    )
    assert_error(travel, "book_flight", "within 6 months", "must be valid until", traveller_id=soon, **args)
    assert travel.query("SELECT count(*) FROM bookings WHERE flight_id = ? AND booked_on = '2026-01-15'", flight) == [
        (0,)
    ]
    travel.ok("update_passport", traveller_id=soon, passport_number="P5512048", country="US", expiry_date="2034-01-01")
    assert travel.ok("book_flight", traveller_id=soon, **args)["status"] == "booked"
    domestic = free_flight(travel, nobody, international=False)
    assert travel.ok("book_flight", traveller_id=nobody, flight_id=domestic, cabin="economy", fare_class="saver")


def test_select_seat(travel: LiveServer) -> None:
    booking, _, flight, old = active_flight_booking(travel, "standard")
    cabin = booking_row(travel, booking, "cabin")[0]
    new = free_seat(travel, flight, cabin)
    out = travel.ok("select_seat", booking_id=booking, seat=new.lower())
    assert out == {"booking_id": booking, "flight_id": flight, "cabin": cabin, "seat": new, "previous_seat": old}
    assert travel.query(
        "SELECT seat, taken, booking_id FROM seats WHERE flight_id = ? AND seat IN (?, ?) ORDER BY seat = ?",
        flight,
        old,
        new,
        new,
    ) == [(old, 0, None), (new, 1, booking)]
    assert booking_row(travel, booking, "seat") == (new,)
    assert_error(travel, "select_seat", "already has seat", booking_id=booking, seat=new)
    assert_error(travel, "select_seat", "is taken", booking_id=booking, seat=taken_seat(travel, flight, cabin))
    other = "business" if cabin == "economy" else "economy"
    assert_error(
        travel,
        "select_seat",
        f"in the {other} cabin",
        booking_id=booking,
        seat=scalar(travel, "SELECT seat FROM seats WHERE flight_id = ? AND cabin = ?", flight, other),
    )
    hotel = scalar(travel, "SELECT id FROM bookings WHERE kind = 'hotel' ORDER BY id")
    assert_error(travel, "select_seat", "is a hotel booking, not a flight booking", booking_id=hotel, seat="10A")
    cancelled = scalar(travel, "SELECT id FROM bookings WHERE kind = 'flight' AND status = 'cancelled' ORDER BY id")
    assert_error(travel, "select_seat", "was cancelled", booking_id=cancelled, seat="10A")


def test_change_flight(travel: LiveServer) -> None:
    booking, traveller, flight, seat = active_flight_booking(travel, "standard")
    price, cabin = booking_row(travel, booking, "price_cents", "cabin")
    origin, dest = one(travel, "SELECT origin, destination FROM flights WHERE id = ?", flight)
    target = scalar(
        travel,
        """SELECT id FROM flights WHERE origin = ? AND destination = ? AND id != ?
            AND (SELECT count(*) FROM seats s WHERE s.flight_id = flights.id AND s.cabin = ? AND NOT taken) > 0
            ORDER BY departs_at""",
        origin,
        dest,
        flight,
        cabin,
    )
    elsewhere = scalar(travel, "SELECT id FROM flights WHERE origin != ? ORDER BY id", origin)
    err = assert_error(travel, "change_flight", "a change keeps the route", booking_id=booking, new_flight_id=elsewhere)
    assert target in err
    assert_error(travel, "change_flight", "already on flight", booking_id=booking, new_flight_id=flight)
    out = travel.ok("change_flight", booking_id=booking, new_flight_id=target)
    fare = scalar(travel, f"SELECT {cabin}_fare_cents FROM flights WHERE id = ?", target)
    difference = max(fare - price, 0)
    assert out["status"] == "changed" and out["previous_flight_id"] == flight
    assert out["change_fee"] == 75 and out["fare_difference"] == difference / 100
    assert out["charged"] == (7500 + difference) / 100
    assert booking_row(travel, booking, "flight_id", "status", "fees_cents", "price_cents") == (
        target,
        "changed",
        7500,
        price + difference,
    )
    assert travel.query("SELECT taken, booking_id FROM seats WHERE flight_id = ? AND seat = ?", flight, seat) == [
        (0, None)
    ]
    assert travel.query("SELECT count(*) FROM seats WHERE flight_id = ? AND booking_id = ?", target, booking) == [(1,)]
    basic = active_flight_booking(travel, "basic")[0]
    assert_error(
        travel,
        "change_flight",
        "basic fare, which cannot be changed",
        "cancel_flight_booking",
        booking_id=basic,
        new_flight_id=target,
    )


def test_cancel_flight_booking(travel: LiveServer) -> None:
    booking, _, flight, seat = active_flight_booking(travel, "standard")
    price = booking_row(travel, booking, "price_cents + fees_cents")[0]
    out = travel.ok("cancel_flight_booking", booking_id=booking)
    assert out["status"] == "cancelled"
    assert out["cancellation_fee"] == min(150, price / 100)
    assert out["refund"] == max(price - 15000, 0) / 100
    assert booking_row(travel, booking, "status", "cancelled_on", "refund_cents") == (
        "cancelled",
        "2026-01-15",
        max(price - 15000, 0),
    )
    assert travel.query("SELECT taken, booking_id FROM seats WHERE flight_id = ? AND seat = ?", flight, seat) == [
        (0, None)
    ]
    assert_error(travel, "cancel_flight_booking", "was cancelled", booking_id=booking)
    basic = active_flight_booking(travel, "basic")[0]
    out = travel.ok("cancel_flight_booking", booking_id=basic)
    assert out["refund"] == 0 and "non-refundable" in out["rule"]
    car = scalar(travel, "SELECT id FROM bookings WHERE kind = 'car' AND status = 'booked' ORDER BY id")
    assert_error(travel, "cancel_flight_booking", "is a car booking", booking_id=car)
    assert_error(travel, "cancel_flight_booking", "list_bookings", booking_id="BKG-1")
