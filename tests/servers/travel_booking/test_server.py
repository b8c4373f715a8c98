"""The travel booking server, driven through a real MCP client on an in-memory database: the server as a whole."""

from __future__ import annotations

from gym_mcp.servers.travel_booking import kit
from tests.helpers import LiveServer
from tests.servers.helpers import (
    assert_listed_with_kinds,
    dump,
)
from tests.servers.travel_booking.common import INTERNATIONAL, TABLES, free_flight, good_traveller


def test_tools_are_listed_with_kinds(travel: LiveServer) -> None:
    writes = {
        "update_passport",
        "book_flight",
        "select_seat",
        "change_flight",
        "cancel_flight_booking",
        "book_hotel",
        "cancel_hotel_booking",
        "book_car",
        "cancel_car_booking",
        "create_itinerary",
        "add_to_itinerary",
        "redeem_points",
    }
    reads = {
        "list_travellers",
        "get_traveller",
        "search_flights",
        "get_flight",
        "get_seat_map",
        "get_fare_rules",
        "search_hotels",
        "get_hotel",
        "search_cars",
        "list_bookings",
        "get_booking",
        "get_itinerary",
        "get_loyalty",
    }
    assert_listed_with_kinds(travel, kit, writes=writes, reads=reads)
    assert set(kit.tools) == writes | reads
    assert len(kit.tools) >= 20
    confirmed = {n for n, info in kit.tools.items() if info.confirm}
    assert confirmed == {"cancel_flight_booking", "cancel_hotel_booking", "cancel_car_booking"}


def test_seed_has_enough_consistent_entities(travel: LiveServer) -> None:
    counts = {t: travel.query(f"SELECT count(*) FROM {t}")[0][0] for t in TABLES}
    assert sum(counts.values()) - counts["seats"] >= 200
    assert counts["travellers"] >= 50
    assert counts["flights"] >= 40
    assert counts["hotels"] >= 20
    assert counts["cars"] >= 40
    assert counts["bookings"] >= 100
    assert counts["memberships"] >= 50
    # error paths are reachable
    assert travel.query("SELECT count(*) FROM travellers WHERE passport_number IS NULL")[0][0] >= 2
    assert travel.query("SELECT count(*) FROM travellers WHERE passport_expiry < '2026-09-01'")[0][0] >= 2
    assert travel.query("SELECT count(*) FROM bookings WHERE status = 'cancelled'")[0][0] >= 5
    assert travel.query("SELECT count(*) FROM bookings WHERE fare_class = 'basic' AND status = 'booked'")[0][0] >= 2
    assert travel.query("SELECT count(*) FROM cars WHERE NOT in_service")[0][0] >= 2
    full = "SELECT count(*) FROM (SELECT flight_id, cabin FROM seats GROUP BY 1, 2 HAVING min(taken) = 1)"
    assert travel.query(full)[0][0] >= 2
    # seats held by bookings match the bookings, and no booked traveller lacks a valid passport
    assert travel.query(
        "SELECT count(*) FROM bookings b JOIN seats s ON s.booking_id = b.id "
        "WHERE s.flight_id != b.flight_id OR s.seat != b.seat OR b.status = 'cancelled' OR NOT s.taken"
    ) == [(0,)]
    assert travel.query(
        "SELECT count(*) FROM bookings WHERE kind = 'flight' AND status != 'cancelled' "
        "AND id NOT IN (SELECT booking_id FROM seats WHERE booking_id IS NOT NULL)"
    ) == [(0,)]
    assert travel.query(
        f"""SELECT count(*) FROM bookings b JOIN travellers t ON t.id = b.traveller_id JOIN flights f
            ON f.id = b.flight_id WHERE b.flight_id IN ({INTERNATIONAL})
            AND (t.passport_expiry IS NULL OR t.passport_expiry < date(f.departs_at, '+6 months'))"""
    ) == [(0,)]
    # each membership's balance is the sum of its ledger
    assert travel.query(
        "SELECT count(*) FROM memberships m WHERE points_balance != "
        "(SELECT sum(points) FROM point_transactions p WHERE p.membership_id = m.id)"
    ) == [(0,)]


def test_same_seed_same_data_other_seed_other_data(travel: LiveServer) -> None:
    assert dump(travel) == dump(LiveServer(kit, seed=0))
    other = dump(LiveServer(kit, seed=1))
    assert other["travellers"] != dump(travel)["travellers"]
    assert other["bookings"] != dump(travel)["bookings"]


def test_replaying_calls_gives_identical_state() -> None:
    servers = [LiveServer(kit, seed=0), LiveServer(kit, seed=0)]
    results = []
    for server in servers:
        traveller = good_traveller(server)
        flight = free_flight(server, traveller)
        booked = server.ok("book_flight", traveller_id=traveller, flight_id=flight, cabin="economy", fare_class="flex")
        trip = server.ok("create_itinerary", traveller_id=traveller, trip_name="Replay trip")
        results.append(
            [
                booked,
                trip,
                server.ok("add_to_itinerary", itinerary_id=trip["itinerary_id"], booking_id=booked["booking_id"]),
                server.ok("cancel_flight_booking", booking_id=booked["booking_id"]),
            ]
        )
    assert results[0] == results[1]
    assert dump(servers[0]) == dump(servers[1])
