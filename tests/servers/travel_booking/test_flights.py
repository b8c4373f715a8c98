"""The travel booking server through a real MCP client: searching flights, seat maps and fare rules."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import assert_error, one, scalar


def test_search_flights(travel: LiveServer) -> None:
    flights = travel.ok("search_flights", origin="jfk", destination="LHR")
    ids = [
        r[0]
        for r in travel.query("SELECT id FROM flights WHERE origin = 'JFK' AND destination = 'LHR' ORDER BY departs_at")
    ]
    assert [f["flight_id"] for f in flights] == ids and len(ids) == 4
    first = flights[0]
    assert first["international"] is True
    free = travel.query(
        "SELECT count(*) FROM seats WHERE flight_id = ? AND cabin = 'economy' AND NOT taken", first["flight_id"]
    )[0][0]
    assert first["free_seats"]["economy"] == free
    day = first["departs_at"][:10]
    assert [f["flight_id"] for f in travel.ok("search_flights", origin="JFK", destination="LHR", date=day)] == [ids[0]]
    assert travel.ok("search_flights", origin="JFK", destination="NRT") == []
    assert travel.ok("search_flights", origin="JFK", destination="LAX")[0]["international"] is False
    full = scalar(
        travel, "SELECT flight_id FROM seats WHERE cabin = 'business' GROUP BY flight_id HAVING min(taken) = 1"
    )
    origin, dest = one(travel, "SELECT origin, destination FROM flights WHERE id = ?", full)
    listed = travel.ok("search_flights", origin=origin, destination=dest, cabin="business")
    assert full not in [f["flight_id"] for f in listed]
    assert_error(travel, "search_flights", "IATA code", "JFK", origin="XXX", destination="LHR")
    assert_error(travel, "search_flights", "two different", origin="JFK", destination="JFK")
    assert_error(travel, "search_flights", "ISO 8601", origin="JFK", destination="LHR", date="tomorrow")
    assert_error(travel, "search_flights", "cabin must be", origin="JFK", destination="LHR", cabin="first")


def test_get_flight(travel: LiveServer) -> None:
    out = travel.ok("get_flight", flight_id="FLT-1001")
    economy, business = one(travel, "SELECT economy_fare_cents, business_fare_cents FROM flights WHERE id = 'FLT-1001'")
    assert out["fares"] == {"economy": economy / 100, "business": business / 100}
    assert out["prices"]["standard"] == {"economy": economy / 100, "business": business / 100}
    assert out["prices"]["basic"] == {"economy": economy * 80 // 100 / 100}
    assert_error(travel, "get_flight", "FLT-1001", "search_flights", flight_id="FLT-9")


def test_get_seat_map(travel: LiveServer) -> None:
    out = travel.ok("get_seat_map", flight_id="FLT-1001")
    assert set(out["cabins"]) == {"economy", "business"}
    economy = out["cabins"]["economy"]
    assert len(economy["free"]) + len(economy["taken"]) == 42
    assert len(out["cabins"]["business"]["free"]) + len(out["cabins"]["business"]["taken"]) == 8
    taken = {
        r[0]
        for r in travel.query("SELECT seat FROM seats WHERE flight_id = 'FLT-1001' AND cabin = 'economy' AND taken")
    }
    assert set(economy["taken"]) == taken
    only = travel.ok("get_seat_map", flight_id="FLT-1001", cabin="business")
    assert list(only["cabins"]) == ["business"]
    assert_error(travel, "get_seat_map", "cabin must be", flight_id="FLT-1001", cabin="premium")
    assert_error(travel, "get_seat_map", "search_flights", flight_id="nope")


def test_get_fare_rules(travel: LiveServer) -> None:
    rules = {r["fare_class"]: r for r in travel.ok("get_fare_rules")}
    assert list(rules) == ["basic", "saver", "standard", "flex"]
    assert rules["basic"]["change_fee"] is None and rules["basic"]["cancellation_fee"] is None
    assert rules["standard"]["change_fee"] == 75 and rules["standard"]["cancellation_fee"] == 150
    assert "non-refundable" in rules["saver"]["summary"]
    assert travel.ok("get_fare_rules", fare_class="Flex")[0]["change_fee"] == 0
    assert_error(travel, "get_fare_rules", "basic, saver, standard, flex", fare_class="premium")
