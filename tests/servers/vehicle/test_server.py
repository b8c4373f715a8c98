"""The vehicle server through a real MCP client: the server as a whole."""

from __future__ import annotations

from gym_mcp.servers.vehicle import kit
from tests.helpers import LiveServer
from tests.servers.helpers import (
    assert_every_tool_described,
    assert_listed_with_kinds,
    dump,
    intent_placeholders,
    listed_tools,
    tool_params,
)
from tests.servers.vehicle.common import MOVING, TABLES, registered

WRITES = {
    "lock_vehicle",
    "unlock_vehicle",
    "open_trunk",
    "close_trunk",
    "set_climate",
    "set_charge_limit",
    "start_charging",
    "finish_charging",
    "unplug_vehicle",
    "log_refuel",
    "start_trip",
    "end_trip",
    "create_profile",
    "update_profile",
    "activate_profile",
    "delete_profile",
    "book_service",
    "cancel_service",
    "complete_service",
}
READS = {
    "list_vehicles",
    "get_vehicle_status",
    "list_energy_log",
    "list_trips",
    "list_drivers",
    "list_profiles",
    "list_service_centers",
    "list_service_records",
}


def test_tools_are_listed_with_kinds(veh: LiveServer) -> None:
    assert_listed_with_kinds(veh, kit, writes=WRITES, reads=READS)
    assert set(kit.tools) == WRITES | READS
    assert {n for n, info in kit.tools.items() if info.write} == WRITES
    metas = {t.name: t.meta for t in listed_tools(veh)}
    assert metas["delete_profile"]["gym_mcp/confirm"] == "always"
    assert metas["cancel_service"]["gym_mcp/confirm"] == "always"
    assert metas["list_vehicles"]["gym_mcp/kind"] == "read"


def test_every_tool_and_parameter_is_described(veh: LiveServer) -> None:
    assert_every_tool_described(veh, min_description=20)


def test_intents_and_samples() -> None:
    for name, info in kit.tools.items():
        outside, inside = intent_placeholders(name, info)
        for p in tool_params(info):
            literal = not p.name.endswith("_id") and p.annotation not in ("bool", "bool | None")
            if literal and p.name in outside | inside:
                assert len(info.samples.get(p.name, ())) >= 2, f"{name}.{p.name} needs samples"


def test_seed_has_enough_entities(veh: LiveServer) -> None:
    counts = {t: veh.query(f"SELECT count(*) FROM {t}")[0][0] for t in TABLES}
    assert sum(counts.values()) >= 250
    assert counts["vehicles"] >= 50
    assert counts["drivers"] >= 40
    assert counts["profiles"] >= 100
    assert counts["service_centers"] == 10

    def count(sql: str) -> int:
        return veh.query(f"SELECT count(*) FROM {sql}")[0][0]

    for state in ("parked", "driving", "charging"):
        assert count(f"vehicles WHERE state = '{state}'") >= 3, state
    assert count(f"vehicles WHERE {MOVING}") >= 5
    assert count("vehicles WHERE state = 'driving' AND speed_kmh = 0") >= 1
    for status in ("booked", "completed", "cancelled"):
        assert count(f"service_records WHERE status = '{status}'") >= 5, status
    for status in ("in_progress", "completed"):
        assert count(f"trips WHERE status = '{status}'") >= 5, status
    assert count("vehicles WHERE trunk_open = 1") >= 2
    assert count("vehicles WHERE locked = 0 AND trunk_open = 0") >= 3
    assert count("vehicles WHERE powertrain = 'ev' AND battery_pct < 20 AND plugged_in = 0") >= 2
    assert (
        count(
            "vehicles WHERE powertrain = 'ev' AND plugged_in = 1 AND state = 'parked' AND battery_pct < charge_limit_pct"
        )
        >= 3
    )
    assert count("drivers WHERE license_expires < '2026-01-15'") >= 3
    assert count("drivers WHERE id NOT IN (SELECT driver_id FROM profiles)") >= 3
    assert count("(SELECT vehicle_id FROM profiles GROUP BY vehicle_id HAVING count(*) = 4)") >= 3
    statuses = {v["service_status"] for v in veh.ok("list_vehicles")}
    assert statuses == {"ok", "due_soon", "overdue"}


def test_seed_is_internally_consistent(veh: LiveServer) -> None:
    # a driving vehicle has one trip in progress, driven by the driver of its active profile
    assert (
        veh.query(
            """SELECT v.id FROM vehicles v LEFT JOIN trips t ON t.vehicle_id = v.id AND t.status = 'in_progress'
           LEFT JOIN profiles p ON p.id = v.active_profile_id
           WHERE v.state = 'driving' AND (t.id IS NULL OR p.driver_id != t.driver_id)"""
        )
        == []
    )
    assert veh.query("SELECT vehicle_id FROM trips WHERE status = 'in_progress' GROUP BY 1 HAVING count(*) > 1") == []
    # every trip's driver is registered on the vehicle; completed trips end before the odometer
    assert (
        veh.query(
            """SELECT t.id FROM trips t LEFT JOIN profiles p ON p.vehicle_id = t.vehicle_id AND p.driver_id = t.driver_id
           JOIN vehicles v ON v.id = t.vehicle_id
           WHERE p.id IS NULL OR t.start_odometer_km + coalesce(t.distance_km, 0) > v.odometer_km"""
        )
        == []
    )
    # charging means an electric vehicle, plugged in, with one active session below its limit
    assert (
        veh.query(
            """SELECT v.id FROM vehicles v LEFT JOIN charging_sessions s ON s.vehicle_id = v.id AND s.status = 'active'
           WHERE (v.state = 'charging') != (s.id IS NOT NULL) OR (v.state = 'charging' AND (v.plugged_in = 0
              OR s.target_pct > v.charge_limit_pct))"""
        )
        == []
    )
    assert (
        veh.query("SELECT id FROM vehicles WHERE powertrain = 'fuel' AND (plugged_in = 1 OR battery_pct IS NOT NULL)")
        == []
    )
    assert veh.query("SELECT id FROM vehicles WHERE fuel_liters > tank_liters OR battery_pct > 100") == []
    assert veh.query("SELECT id FROM vehicles WHERE locked = 1 AND trunk_open = 1") == []
    # a workshop services the powertrain of every vehicle booked there; one booking per vehicle
    assert (
        veh.query(
            """SELECT r.id FROM service_records r JOIN vehicles v ON v.id = r.vehicle_id
           JOIN service_centers c ON c.id = r.center_id
           WHERE (v.powertrain = 'ev' AND c.services_ev = 0) OR (v.powertrain = 'fuel' AND c.services_fuel = 0)"""
        )
        == []
    )
    assert (
        veh.query("SELECT vehicle_id FROM service_records WHERE status = 'booked' GROUP BY 1 HAVING count(*) > 1") == []
    )
    assert veh.query("SELECT id FROM service_records WHERE strftime('%w', scheduled_on) = '0'") == []


def test_same_seed_same_data_other_seed_other_data(veh: LiveServer) -> None:
    assert dump(veh) == dump(LiveServer(kit, seed=0))
    other = dump(LiveServer(kit, seed=1))
    assert other != dump(veh)
    assert other["vehicles"] != dump(veh)["vehicles"]


def test_replaying_calls_gives_identical_state() -> None:
    servers = [LiveServer(kit, seed=0), LiveServer(kit, seed=0)]
    results = []
    for server in servers:
        car, driver, _ = registered(server, "v.plugged_in = 0 AND v.trunk_open = 0 AND v.powertrain = 'fuel'")
        trip = server.ok("start_trip", vehicle_id=car, driver_id=driver)
        results.append([trip, server.ok("end_trip", trip_id=trip["trip_id"], distance_km=12)])
    assert results[0] == results[1]
    assert dump(servers[0]) == dump(servers[1])
