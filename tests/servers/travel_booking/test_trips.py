"""The travel booking server through a real MCP client: bookings and itineraries."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import assert_error, one, scalar
from tests.servers.travel_booking.common import booking_row


def test_list_and_get_bookings(travel: LiveServer) -> None:
    traveller = scalar(travel, "SELECT traveller_id FROM bookings GROUP BY 1 ORDER BY count(*) DESC, 1")
    out = travel.ok("list_bookings", traveller_id=traveller)
    ids = [r[0] for r in travel.query("SELECT id FROM bookings WHERE traveller_id = ? ORDER BY id DESC", traveller)]
    assert [b["booking_id"] for b in out] == ids
    flights = travel.ok("list_bookings", traveller_id=traveller, kind="flight")
    assert flights and all(b["kind"] == "flight" and "seat" in b for b in flights)
    cancelled = travel.ok("list_bookings", traveller_id=traveller, status="cancelled")
    assert all(b["status"] == "cancelled" and "refund" in b for b in cancelled)
    assert_error(travel, "list_bookings", "kind must be", traveller_id=traveller, kind="train")
    assert_error(travel, "list_bookings", "status must be", traveller_id=traveller, status="pending")
    hotel = scalar(travel, "SELECT id FROM bookings WHERE kind = 'hotel' ORDER BY id")
    got = travel.ok("get_booking", booking_id=hotel)
    check_in, check_out = booking_row(travel, hotel, "check_in", "check_out")
    assert (got["starts_on"], got["ends_on"]) == (check_in, check_out)
    assert_error(travel, "get_booking", "BKG-1001", booking_id="BKG-99")


def test_create_and_get_itinerary(travel: LiveServer) -> None:
    traveller = scalar(travel, "SELECT traveller_id FROM bookings WHERE status = 'booked' ORDER BY id")
    top = travel.query("SELECT max(id) FROM itineraries")[0][0]
    out = travel.ok("create_itinerary", traveller_id=traveller, trip_name="  Lisbon getaway ")
    assert out == {
        "itinerary_id": f"ITN-{int(top[4:]) + 1}",
        "traveller_id": traveller,
        "name": "Lisbon getaway",
        "bookings": [],
    }
    assert travel.query("SELECT traveller_id, name, created_on FROM itineraries WHERE id = ?", out["itinerary_id"]) == [
        (traveller, "Lisbon getaway", "2026-01-15")
    ]
    assert_error(
        travel, "create_itinerary", "already has an itinerary named", traveller_id=traveller, trip_name="lisbon GETAWAY"
    )
    assert_error(travel, "create_itinerary", "3 to 80", traveller_id=traveller, trip_name="x")
    seeded = scalar(
        travel, "SELECT itinerary_id FROM bookings WHERE itinerary_id IS NOT NULL AND status != 'cancelled' ORDER BY 1"
    )
    got = travel.ok("get_itinerary", itinerary_id=seeded)
    members = travel.query(
        "SELECT id, price_cents + fees_cents - points_redeemed, status FROM bookings WHERE itinerary_id = ?", seeded
    )
    assert sorted(b["booking_id"] for b in got["bookings"]) == sorted(m[0] for m in members)
    assert got["total_paid"] == sum(m[1] for m in members if m[2] != "cancelled") / 100
    assert got["starts_on"] <= got["ends_on"]
    assert_error(travel, "get_itinerary", "get_traveller", itinerary_id="ITN-1")


def test_add_to_itinerary(travel: LiveServer) -> None:
    booking, traveller = one(
        travel, "SELECT id, traveller_id FROM bookings WHERE itinerary_id IS NULL AND status = 'booked' ORDER BY id"
    )
    trip = travel.ok("create_itinerary", traveller_id=traveller, trip_name="Test trip")["itinerary_id"]
    out = travel.ok("add_to_itinerary", itinerary_id=trip, booking_id=booking)
    assert out["bookings_in_itinerary"] == 1
    assert booking_row(travel, booking, "itinerary_id") == (trip,)
    assert travel.ok("get_itinerary", itinerary_id=trip)["bookings"][0]["booking_id"] == booking
    assert_error(
        travel, "add_to_itinerary", "already in itinerary", "nothing changed", itinerary_id=trip, booking_id=booking
    )
    elsewhere = scalar(
        travel,
        "SELECT id FROM bookings WHERE traveller_id = ? AND itinerary_id IS NOT NULL AND itinerary_id != ? "
        "AND status != 'cancelled' UNION SELECT NULL ORDER BY 1 DESC",
        traveller,
        trip,
    )
    if elsewhere:
        assert_error(travel, "add_to_itinerary", "one itinerary only", itinerary_id=trip, booking_id=elsewhere)
    stranger = scalar(
        travel, "SELECT id FROM bookings WHERE traveller_id != ? AND status = 'booked' ORDER BY id", traveller
    )
    assert_error(travel, "add_to_itinerary", "belongs to", itinerary_id=trip, booking_id=stranger)
    cancelled = travel.ok(
        "cancel_car_booking",
        booking_id=travel.ok(
            "book_car",
            traveller_id=traveller,
            car_id=scalar(travel, "SELECT id FROM cars WHERE in_service ORDER BY id DESC"),
            pickup_date="2026-04-01",
            dropoff_date="2026-04-03",
        )["booking_id"],
    )["booking_id"]
    assert_error(travel, "add_to_itinerary", "is cancelled", itinerary_id=trip, booking_id=cancelled)
