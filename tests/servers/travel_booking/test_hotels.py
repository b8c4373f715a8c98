"""The travel booking server through a real MCP client: hotels, availability by date, stays."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import assert_error, one, scalar
from tests.servers.travel_booking.common import booking_row, good_traveller


def test_search_hotels(travel: LiveServer) -> None:
    out = travel.ok("search_hotels", city="london", check_in="2026-02-10", check_out="2026-02-13")
    ids = [r[0] for r in travel.query("SELECT id FROM hotels WHERE city = 'London' ORDER BY id")]
    assert [h["hotel_id"] for h in out] == ids
    standard = next(r for r in out[0]["rooms"] if r["room_type"] == "standard")
    rate = scalar(
        travel, "SELECT nightly_rate_cents FROM room_types WHERE hotel_id = ? AND room_type = 'standard'", ids[0]
    )
    assert standard["total"] == rate * 3 / 100
    suites = travel.ok("search_hotels", city="London", check_in="2026-02-10", check_out="2026-02-13", room_type="suite")
    assert all([r["room_type"] for r in h["rooms"]] == ["suite"] for h in suites)
    assert_error(
        travel,
        "search_hotels",
        "No hotels in",
        "Lisbon",
        city="Atlantis",
        check_in="2026-02-10",
        check_out="2026-02-13",
    )
    assert_error(travel, "search_hotels", "must be after", city="London", check_in="2026-02-10", check_out="2026-02-10")
    assert_error(travel, "search_hotels", "in the past", city="London", check_in="2026-01-02", check_out="2026-01-05")
    assert_error(travel, "search_hotels", "at most 30", city="London", check_in="2026-02-01", check_out="2026-03-20")
    assert_error(
        travel,
        "search_hotels",
        "room_type must be",
        city="London",
        check_in="2026-02-10",
        check_out="2026-02-13",
        room_type="penthouse",
    )


def test_get_hotel(travel: LiveServer) -> None:
    hotel, room_type, check_in, check_out = one(
        travel,
        "SELECT hotel_id, room_type, check_in, check_out FROM bookings WHERE kind = 'hotel' AND status = 'booked' ORDER BY id",
    )
    total = scalar(travel, "SELECT total_rooms FROM room_types WHERE hotel_id = ? AND room_type = ?", hotel, room_type)
    out = travel.ok("get_hotel", hotel_id=hotel, check_in=check_in, check_out=check_out)
    nights = next(r for r in out["rooms"] if r["room_type"] == room_type)["free_by_night"]
    assert nights[check_in] < total
    assert len(travel.ok("get_hotel", hotel_id=hotel)["rooms"][0]["free_by_night"]) == 7
    assert_error(travel, "get_hotel", "both check_in and check_out", hotel_id=hotel, check_in="2026-02-10")
    assert_error(travel, "get_hotel", "search_hotels", hotel_id="HTL-1")


def test_book_hotel(travel: LiveServer) -> None:
    traveller = good_traveller(travel)
    hotel, rate = one(
        travel, "SELECT hotel_id, nightly_rate_cents FROM room_types WHERE room_type = 'deluxe' ORDER BY 1"
    )
    args = {"traveller_id": traveller, "hotel_id": hotel}
    out = travel.ok("book_hotel", room_type="Deluxe", check_in="2026-02-14", check_out="2026-02-17", **args)
    assert (out["kind"], out["room_type"], out["nights"], out["price"]) == ("hotel", "deluxe", 3, rate * 3 / 100)
    assert booking_row(travel, out["booking_id"], "hotel_id", "check_in", "check_out", "status") == (
        hotel,
        "2026-02-14",
        "2026-02-17",
        "booked",
    )
    assert_error(
        travel, "book_hotel", "must be after", room_type="deluxe", check_in="2026-02-17", check_out="2026-02-14", **args
    )
    assert_error(
        travel, "book_hotel", "in the past", room_type="deluxe", check_in="2026-01-10", check_out="2026-01-12", **args
    )
    no_suite = scalar(
        travel,
        "SELECT id FROM hotels WHERE id NOT IN (SELECT hotel_id FROM room_types WHERE room_type = 'suite') ORDER BY id",
    )
    assert_error(
        travel,
        "book_hotel",
        "has no suite rooms",
        traveller_id=traveller,
        hotel_id=no_suite,
        room_type="suite",
        check_in="2026-02-14",
        check_out="2026-02-17",
    )


def test_no_overbooking(travel: LiveServer) -> None:
    traveller = good_traveller(travel)
    hotel, total = one(
        travel, "SELECT hotel_id, total_rooms FROM room_types WHERE room_type = 'suite' ORDER BY total_rooms, hotel_id"
    )
    args = {"traveller_id": traveller, "hotel_id": hotel, "room_type": "suite"}
    taken = travel.query(
        "SELECT count(*) FROM bookings WHERE hotel_id = ? AND room_type = 'suite' AND status != 'cancelled' "
        "AND check_in <= '2026-04-20' AND check_out > '2026-04-20'",
        hotel,
    )[0][0]
    for _ in range(total - taken):
        travel.ok("book_hotel", check_in="2026-04-20", check_out="2026-04-22", **args)
    err = assert_error(
        travel,
        "book_hotel",
        "No suite room is free",
        "2026-04-20",
        check_in="2026-04-19",
        check_out="2026-04-21",
        **args,
    )
    assert "2026-04-19" not in err.split("night(s) of")[1].split(";")[0] or taken
    rooms = travel.ok("get_hotel", hotel_id=hotel, check_in="2026-04-20", check_out="2026-04-22")["rooms"]
    assert next(r for r in rooms if r["room_type"] == "suite")["free_by_night"]["2026-04-20"] == 0


def test_cancel_hotel_booking(travel: LiveServer) -> None:
    traveller = good_traveller(travel)
    hotel, rate = one(
        travel, "SELECT hotel_id, nightly_rate_cents FROM room_types WHERE room_type = 'standard' ORDER BY 1"
    )
    args = {"traveller_id": traveller, "hotel_id": hotel, "room_type": "standard"}
    early = travel.ok("book_hotel", check_in="2026-03-02", check_out="2026-03-04", **args)["booking_id"]
    out = travel.ok("cancel_hotel_booking", booking_id=early)
    assert (out["cancellation_fee"], out["refund"]) == (0, rate * 2 / 100)
    assert booking_row(travel, early, "status", "refund_cents", "cancelled_on") == ("cancelled", rate * 2, "2026-01-15")
    late = travel.ok("book_hotel", check_in="2026-01-16", check_out="2026-01-19", **args)["booking_id"]
    out = travel.ok("cancel_hotel_booking", booking_id=late)
    assert (out["cancellation_fee"], out["refund"]) == (rate / 100, rate * 2 / 100)
    assert "one night" in out["rule"]
    assert_error(travel, "cancel_hotel_booking", "was cancelled", booking_id=late)
    flight = scalar(travel, "SELECT id FROM bookings WHERE kind = 'flight' ORDER BY id")
    assert_error(travel, "cancel_hotel_booking", "is a flight booking, not a hotel booking", booking_id=flight)
