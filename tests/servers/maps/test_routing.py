"""The maps server, driven through a real MCP client on an in-memory database: roads, directions, saved routes."""

from __future__ import annotations

from datetime import date, timedelta

from tests.helpers import LiveServer
from tests.servers.helpers import dump, one, scalar
from tests.servers.maps.common import CLOSED_TODAY, cut_off_place, open_place, route_pair


def test_list_roads(maps: LiveServer) -> None:
    closed = maps.ok("list_roads", status="closed", limit=200)["roads"]
    expected = maps.query(f"SELECT DISTINCT road_id FROM closures WHERE {CLOSED_TODAY} ORDER BY road_id")
    assert [r["road_id"] for r in closed] == [r[0] for r in expected]
    assert all(r["status"] == "closed" and r["closure_id"] for r in closed)
    market = maps.ok("list_roads", name="market", limit=200)
    assert market["more"] is False
    assert {r["name"] for r in market["roads"]} == {"Market Street"}
    assert market["roads"][0]["speed_kmh"] == 50
    opened = maps.ok("list_roads", status="open", limit=5)
    assert len(opened["roads"]) == 5
    assert opened["more"] is True
    incident_road = scalar(maps, "SELECT road_id FROM incidents WHERE status = 'active' ORDER BY id")
    listed = {r["road_id"]: r for r in maps.ok("list_roads", limit=200)["roads"]}
    assert listed[incident_road]["incident_delay_minutes"] > 0
    assert "status must be one of" in maps.error("list_roads", status="blocked")
    assert "at least 2 characters" in maps.error("list_roads", name="x")
    assert "limit must be between 1 and 200" in maps.error("list_roads", limit=201)


def _check_path(maps: LiveServer, route: dict, origin: str, dest: str) -> None:
    """The steps chain from the origin's node to the destination's and add up to the totals."""
    node = scalar(maps, "SELECT node_id FROM places WHERE id = ?", origin)
    for step in route["steps"]:
        ends = set(one(maps, "SELECT from_node_id, to_node_id FROM roads WHERE id = ?", step["road_id"]))
        assert ends == {step["from_node_id"], step["to_node_id"]}
        assert step["from_node_id"] == node
        node = step["to_node_id"]
    assert node == scalar(maps, "SELECT node_id FROM places WHERE id = ?", dest)
    assert route["road_ids"] == [s["road_id"] for s in route["steps"]]
    assert route["eta_minutes"] == round(route["drive_minutes"] + route["incident_delay_minutes"], 1)


def test_get_directions_fastest_and_shortest(maps: LiveServer) -> None:
    a, b = route_pair(maps)
    fastest = maps.ok("get_directions", from_place_id=a, to_place_id=b)
    shortest = maps.ok("get_directions", from_place_id=a, to_place_id=b, optimize="shortest")
    _check_path(maps, fastest, a, b)
    _check_path(maps, shortest, a, b)
    assert fastest["optimize"] == "fastest"
    assert fastest["travel_date"] == "2026-01-15"
    assert fastest["eta_minutes"] <= shortest["eta_minutes"]
    assert shortest["distance_km"] <= fastest["distance_km"]
    assert maps.ok("get_directions", from_place_id=a, to_place_id=b) == fastest  # deterministic
    closed = {r[0] for r in maps.query(f"SELECT road_id FROM closures WHERE {CLOSED_TODAY}")}
    assert not closed & set(fastest["road_ids"] + shortest["road_ids"])
    assert "both" in maps.error("get_directions", from_place_id=a, to_place_id=a)
    assert "in the past" in maps.error("get_directions", from_place_id=a, to_place_id=b, travel_date="2026-01-01")
    assert "90 days" in maps.error("get_directions", from_place_id=a, to_place_id=b, travel_date="2026-06-01")
    assert "not a valid date" in maps.error("get_directions", from_place_id=a, to_place_id=b, travel_date="soon")
    assert "optimize must be one of" in maps.error("get_directions", from_place_id=a, to_place_id=b, optimize="scenic")
    assert "to_place_id" in maps.error("get_directions", from_place_id=a, to_place_id="PLC-0000")


def test_routing_honours_closures(maps: LiveServer) -> None:
    place, closure, road, ends = cut_off_place(maps)
    start = open_place(maps)
    err = maps.error("get_directions", from_place_id=start, to_place_id=place)
    assert "No open road route" in err
    assert f"{closure} closes {road}" in err
    assert f"travel_date after {ends}" in err
    later = (date.fromisoformat(ends) + timedelta(days=1)).isoformat()
    after = maps.ok("get_directions", from_place_id=start, to_place_id=place, travel_date=later)
    assert after["road_ids"][-1] == road
    # closing a road the route takes sends it around; lifting the closure brings it back
    a, b = route_pair(maps)
    before = maps.ok("get_directions", from_place_id=a, to_place_id=b)
    middle = before["road_ids"][len(before["road_ids"]) // 2]
    new = maps.ok("close_road", road_id=middle, until="2026-01-31", reason="Water main repair")
    detour = maps.ok("get_directions", from_place_id=a, to_place_id=b)
    assert middle not in detour["road_ids"]
    assert detour["eta_minutes"] >= before["eta_minutes"]
    maps.ok("lift_closure", closure_id=new["closure_id"])
    assert maps.ok("get_directions", from_place_id=a, to_place_id=b) == before


def test_incident_delays_add_to_the_eta(maps: LiveServer) -> None:
    a, b = route_pair(maps)
    before = maps.ok("get_directions", from_place_id=a, to_place_id=b, optimize="shortest")
    quiet = next(s["road_id"] for s in before["steps"] if not s["incident_ids"])
    user = scalar(maps, "SELECT id FROM users ORDER BY id")
    maps.ok("report_incident", road_id=quiet, user_id=user, kind="accident", delay_minutes=30)
    after = maps.ok("get_directions", from_place_id=a, to_place_id=b, optimize="shortest")
    assert after["road_ids"] == before["road_ids"]  # distance decides, the delay only adds to the ETA
    assert after["incident_delay_minutes"] == before["incident_delay_minutes"] + 30
    assert after["eta_minutes"] == round(before["eta_minutes"] + 30, 1)


def test_save_route(maps: LiveServer) -> None:
    a, b = route_pair(maps)
    user = scalar(maps, "SELECT id FROM users WHERE id NOT IN (SELECT user_id FROM saved_routes) ORDER BY id")
    plan = maps.ok("get_directions", from_place_id=a, to_place_id=b, optimize="shortest")
    out = maps.ok(
        "save_route", user_id=user, from_place_id=a, to_place_id=b, name="Morning commute", optimize="shortest"
    )
    assert out["road_ids"] == plan["road_ids"]
    assert out["eta_minutes"] == plan["eta_minutes"]
    assert out["distance_km"] == plan["distance_km"]
    stored = one(
        maps, "SELECT user_id, name, optimize, road_ids, saved_on FROM saved_routes WHERE id = ?", out["route_id"]
    )
    assert stored == (user, "Morning commute", "shortest", ",".join(plan["road_ids"]), "2026-01-15")
    state = dump(maps)
    assert "already has a saved route named" in maps.error(
        "save_route", user_id=user, from_place_id=b, to_place_id=a, name="MORNING COMMUTE"
    )
    full = scalar(maps, "SELECT user_id FROM saved_routes GROUP BY user_id HAVING count(*) >= 8")
    assert "8 saved routes" in maps.error("save_route", user_id=full, from_place_id=a, to_place_id=b, name="Extra")
    place = cut_off_place(maps)[0]
    assert "No open road route" in maps.error("save_route", user_id=user, from_place_id=a, to_place_id=place, name="X1")
    assert "name must be 2 to 60" in maps.error("save_route", user_id=user, from_place_id=a, to_place_id=b, name=" ")
    assert "find_user" in maps.error("save_route", user_id="USR-0000", from_place_id=a, to_place_id=b, name="Trip")
    assert dump(maps) == state


def test_list_saved_routes(maps: LiveServer) -> None:
    user = scalar(maps, "SELECT user_id FROM saved_routes GROUP BY user_id HAVING count(*) >= 2 ORDER BY 1")
    routes = maps.ok("list_saved_routes", user_id=user)
    expected = maps.query("SELECT id, road_ids FROM saved_routes WHERE user_id = ? ORDER BY id", user)
    assert [r["route_id"] for r in routes] == [r[0] for r in expected]
    assert all(r["closed_road_ids"] == [] for r in routes)
    road = routes[0]["road_ids"][0]
    maps.ok("close_road", road_id=road, until="2026-01-20", reason="Resurfacing")
    assert maps.ok("list_saved_routes", user_id=user)[0]["closed_road_ids"] == [road]
    assert (
        maps.ok(
            "list_saved_routes",
            user_id=scalar(maps, "SELECT id FROM users WHERE id NOT IN (SELECT user_id FROM saved_routes)"),
        )
        == []
    )
    assert "find_user" in maps.error("list_saved_routes", user_id="USR-0000")
