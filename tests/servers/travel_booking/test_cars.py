"""The travel booking server through a real MCP client: rental cars."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import assert_error, one, scalar
from tests.servers.travel_booking.common import booking_row, good_traveller


def test_search_cars(travel: LiveServer) -> None:
    out = travel.ok("search_cars", location="lax", pickup_date="2026-02-10", dropoff_date="2026-02-13")
    in_service = {r[0] for r in travel.query("SELECT id FROM cars WHERE location = 'LAX' AND in_service")}
    assert {c["car_id"] for c in out} <= in_service
    assert [c["daily_rate"] for c in out] == sorted(c["daily_rate"] for c in out)
    assert all(c["total"] == round(c["daily_rate"] * 3, 2) for c in out)
    car, pickup, dropoff, location = one(
        travel,
        "SELECT b.car_id, b.pickup_date, b.dropoff_date, c.location FROM bookings b JOIN cars c ON c.id = b.car_id "
        "WHERE b.status = 'booked' ORDER BY b.id",
    )
    busy = travel.ok("search_cars", location=location, pickup_date=pickup, dropoff_date=dropoff)
    assert car not in [c["car_id"] for c in busy]
    workshop = scalar(travel, "SELECT id FROM cars WHERE NOT in_service ORDER BY id")
    where = scalar(travel, "SELECT location FROM cars WHERE id = ?", workshop)
    assert workshop not in [
        c["car_id"]
        for c in travel.ok("search_cars", location=where, pickup_date="2026-02-10", dropoff_date="2026-02-13")
    ]
    assert_error(
        travel,
        "search_cars",
        "car_class must be",
        location="LAX",
        pickup_date="2026-02-10",
        dropoff_date="2026-02-13",
        car_class="van",
    )
    assert_error(
        travel, "search_cars", "not an airport", location="Paris", pickup_date="2026-02-10", dropoff_date="2026-02-13"
    )


def test_book_car(travel: LiveServer) -> None:
    traveller = good_traveller(travel)
    car, rate = one(
        travel,
        "SELECT id, daily_rate_cents FROM cars WHERE in_service AND id NOT IN (SELECT car_id FROM bookings "
        "WHERE car_id IS NOT NULL) ORDER BY id",
    )
    args = {"traveller_id": traveller, "car_id": car}
    out = travel.ok("book_car", pickup_date="2026-02-14", dropoff_date="2026-02-17", **args)
    assert (out["kind"], out["days"], out["price"]) == ("car", 3, rate * 3 / 100)
    assert booking_row(travel, out["booking_id"], "car_id", "pickup_date", "dropoff_date") == (
        car,
        "2026-02-14",
        "2026-02-17",
    )
    assert_error(
        travel,
        "book_car",
        "already rented 2026-02-14 to 2026-02-17",
        pickup_date="2026-02-16",
        dropoff_date="2026-02-18",
        **args,
    )
    assert_error(travel, "book_car", "must be after", pickup_date="2026-02-20", dropoff_date="2026-02-20", **args)
    assert_error(travel, "book_car", "in the past", pickup_date="2026-01-01", dropoff_date="2026-01-03", **args)
    assert_error(travel, "book_car", "at most 30", pickup_date="2026-03-01", dropoff_date="2026-04-15", **args)
    workshop = scalar(travel, "SELECT id FROM cars WHERE NOT in_service ORDER BY id")
    assert_error(
        travel,
        "book_car",
        "out of service",
        traveller_id=traveller,
        car_id=workshop,
        pickup_date="2026-02-14",
        dropoff_date="2026-02-17",
    )
    assert travel.query("SELECT count(*) FROM bookings WHERE car_id = ?", car) == [(1,)]


def test_cancel_car_booking(travel: LiveServer) -> None:
    traveller = good_traveller(travel)
    car, rate = one(travel, "SELECT id, daily_rate_cents FROM cars WHERE in_service ORDER BY id DESC")
    args = {"traveller_id": traveller, "car_id": car}
    soon = travel.ok("book_car", pickup_date="2026-01-16", dropoff_date="2026-01-18", **args)["booking_id"]
    out = travel.ok("cancel_car_booking", booking_id=soon)
    assert (out["cancellation_fee"], out["refund"]) == (rate / 100, rate / 100)
    assert booking_row(travel, soon, "status", "refund_cents") == ("cancelled", rate)
    assert_error(travel, "cancel_car_booking", "was cancelled", booking_id=soon)
    hotel = scalar(travel, "SELECT id FROM bookings WHERE kind = 'hotel' ORDER BY id")
    assert_error(travel, "cancel_car_booking", "is a hotel booking", booking_id=hotel)
    later = scalar(
        travel,
        "SELECT id FROM bookings WHERE kind = 'car' AND status = 'booked' AND pickup_date > '2026-02-01' ORDER BY id",
    )
    out = travel.ok("cancel_car_booking", booking_id=later)
    assert out["cancellation_fee"] == 0 and out["refund"] == out["paid"]
