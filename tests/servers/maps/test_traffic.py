"""The maps server, driven through a real MCP client on an in-memory database: incidents and closures."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump, one, scalar
from tests.servers.maps.common import CLOSED_TODAY


def test_list_incidents(maps: LiveServer) -> None:
    everything = maps.ok("list_incidents", limit=100)
    assert len(everything) == scalar(maps, "SELECT count(*) FROM incidents")
    dates = [i["reported_on"] for i in everything]
    assert dates == sorted(dates, reverse=True)
    active = maps.ok("list_incidents", status="active", limit=100)
    assert len(active) == scalar(maps, "SELECT count(*) FROM incidents WHERE status = 'active'")
    assert {i["status"] for i in active} == {"active"}
    road = active[0]["road_id"]
    assert {i["road_id"] for i in maps.ok("list_incidents", road_id=road)} == {road}
    assert len(maps.ok("list_incidents", limit=2)) == 2
    assert "status must be one of" in maps.error("list_incidents", status="open")
    assert "list_roads" in maps.error("list_incidents", road_id="RD-0001")


def test_report_incident(maps: LiveServer) -> None:
    road = scalar(
        maps,
        f"SELECT id FROM roads WHERE id NOT IN (SELECT road_id FROM incidents) AND id NOT IN (SELECT road_id FROM closures WHERE {CLOSED_TODAY}) ORDER BY id",
    )
    user = scalar(maps, "SELECT id FROM users ORDER BY id DESC")
    out = maps.ok("report_incident", road_id=road.lower(), user_id=user, kind="Hazard")
    assert (out["kind"], out["delay_minutes"], out["status"]) == ("hazard", 5, "active")
    stored = one(
        maps,
        "SELECT road_id, reporter_id, kind, delay_minutes, status, reported_on FROM incidents WHERE id = ?",
        out["incident_id"],
    )
    assert stored == (road, user, "hazard", 5, "active", "2026-01-15")
    crash = maps.ok("report_incident", road_id=road, user_id=user, kind="accident", delay_minutes=40)
    assert crash["delay_minutes"] == 40
    assert crash["incident_id"] == f"INC-{int(out['incident_id'][4:]) + 1}"
    state = dump(maps)
    err = maps.error("report_incident", road_id=road, user_id=user, kind="hazard")
    assert out["incident_id"] in err
    assert "clear_incident" in err
    closed, closure = one(maps, f"SELECT road_id, id FROM closures WHERE {CLOSED_TODAY} ORDER BY id")
    err = maps.error("report_incident", road_id=closed, user_id=user, kind="accident")
    assert "closed today" in err
    assert closure in err
    assert "kind must be one of" in maps.error("report_incident", road_id=road, user_id=user, kind="flood")
    assert "between 1 and 120" in maps.error(
        "report_incident", road_id=road, user_id=user, kind="congestion", delay_minutes=0
    )
    assert "list_roads" in maps.error("report_incident", road_id="RD-9999", user_id=user, kind="hazard")
    assert "find_user" in maps.error("report_incident", road_id=road, user_id="USR-9999", kind="hazard")
    assert dump(maps) == state


def test_clear_incident(maps: LiveServer) -> None:
    incident = scalar(maps, "SELECT id FROM incidents WHERE status = 'active' ORDER BY id")
    out = maps.ok("clear_incident", incident_id=incident)
    assert (out["status"], out["cleared_on"]) == ("cleared", "2026-01-15")
    assert one(maps, "SELECT status, cleared_on FROM incidents WHERE id = ?", incident) == ("cleared", "2026-01-15")
    state = dump(maps)
    assert "already cleared on 2026-01-15" in maps.error("clear_incident", incident_id=incident)
    old = scalar(maps, "SELECT id FROM incidents WHERE status = 'cleared' AND cleared_on < '2026-01-15' ORDER BY id")
    assert "already cleared" in maps.error("clear_incident", incident_id=old)
    assert "list_incidents" in maps.error("clear_incident", incident_id="INC-0001")
    assert dump(maps) == state


def test_list_closures(maps: LiveServer) -> None:
    everything = maps.ok("list_closures")
    assert len(everything) == scalar(maps, "SELECT count(*) FROM closures")
    assert {c["status"] for c in everything} == {"active", "scheduled", "ended", "lifted"}
    active = maps.ok("list_closures", status="active")
    assert {c["closure_id"] for c in active} == {
        r[0] for r in maps.query(f"SELECT id FROM closures WHERE {CLOSED_TODAY}")
    }
    for c in maps.ok("list_closures", status="scheduled"):
        assert c["starts_on"] > "2026-01-15"
    road = active[0]["road_id"]
    assert {c["road_id"] for c in maps.ok("list_closures", road_id=road)} == {road}
    assert "status must be one of" in maps.error("list_closures", status="open")


def test_close_road(maps: LiveServer) -> None:
    road = scalar(maps, "SELECT id FROM roads WHERE id NOT IN (SELECT road_id FROM closures) ORDER BY id")
    out = maps.ok("close_road", road_id=road, until="2026-01-31", reason="Street festival", starts_on="2026-01-20")
    assert (out["status"], out["starts_on"], out["ends_on"]) == ("scheduled", "2026-01-20", "2026-01-31")
    assert one(maps, "SELECT road_id, reason, lifted_on FROM closures WHERE id = ?", out["closure_id"]) == (
        road,
        "Street festival",
        None,
    )
    assert [r["road_id"] for r in maps.ok("list_roads", status="closed", limit=200)["roads"]].count(road) == 0
    state = dump(maps)
    err = maps.error("close_road", road_id=road, until="2026-01-22", reason="Parade")
    assert out["closure_id"] in err
    assert "overlaps" in err
    assert "in the past" in maps.error("close_road", road_id=road, until="2026-01-10", reason="Parade")
    assert "before starts_on" in maps.error(
        "close_road", road_id=road, until="2026-02-02", reason="Parade", starts_on="2026-02-05"
    )
    assert "90 days" in maps.error(
        "close_road", road_id=road, until="2026-05-01", reason="Parade", starts_on="2026-02-05"
    )
    assert "reason must be 3 to 120" in maps.error(
        "close_road", road_id=road, until="2026-02-20", reason="x", starts_on="2026-02-05"
    )
    assert dump(maps) == state
    later = maps.ok("close_road", road_id=road, until="2026-02-20", reason="Resurfacing", starts_on="2026-02-01")
    assert later["status"] == "scheduled"


def test_lift_closure(maps: LiveServer) -> None:
    closure, road = one(maps, f"SELECT id, road_id FROM closures WHERE {CLOSED_TODAY} ORDER BY id")
    out = maps.ok("lift_closure", closure_id=closure)
    assert (out["status"], out["lifted_on"]) == ("lifted", "2026-01-15")
    assert road not in [r["road_id"] for r in maps.ok("list_roads", status="closed", limit=200)["roads"]]
    state = dump(maps)
    assert "already lifted on 2026-01-15" in maps.error("lift_closure", closure_id=closure)
    ended = scalar(maps, "SELECT id FROM closures WHERE ends_on < '2026-01-15' AND lifted_on IS NULL ORDER BY id")
    assert "nothing left to lift" in maps.error("lift_closure", closure_id=ended)
    assert "list_closures" in maps.error("lift_closure", closure_id="CLS-0001")
    assert dump(maps) == state
    scheduled = scalar(maps, "SELECT id FROM closures WHERE starts_on > '2026-01-15' ORDER BY id")
    assert maps.ok("lift_closure", closure_id=scheduled)["status"] == "lifted"
