"""The vehicle server through a real MCP client: trips."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump, one, scalar
from tests.servers.vehicle.common import CAN_DRIVE, registered, row, vehicle


def test_list_trips(veh: LiveServer) -> None:
    car = vehicle(veh, "state = 'driving'")
    trips = veh.ok("list_trips", vehicle_id=car, limit=100)
    assert len(trips) == veh.query("SELECT count(*) FROM trips WHERE vehicle_id = ?", car)[0][0]
    assert trips[0]["status"] == "in_progress"
    assert [t["started_on"] for t in trips] == sorted((t["started_on"] for t in trips), reverse=True)
    done = veh.ok("list_trips", vehicle_id=car, status="completed", limit=1)
    assert len(done) == 1
    assert done[0]["distance_km"] > 0
    assert "status must be one of" in veh.error("list_trips", vehicle_id=car, status="planned")


def test_start_and_end_trip(veh: LiveServer) -> None:
    car, driver, profile = registered(
        veh, f"v.plugged_in = 0 AND v.trunk_open = 0 AND v.powertrain = 'fuel' AND ({CAN_DRIVE})"
    )
    odometer, fuel, consumption = row(veh, car, "odometer_km", "fuel_liters", "consumption")
    trip = veh.ok("start_trip", vehicle_id=car, driver_id=driver, destination="Head office")
    assert (trip["status"], trip["active_profile_id"], trip["start_odometer_km"]) == ("in_progress", profile, odometer)
    assert row(veh, car, "state", "speed_kmh", "active_profile_id") == ("driving", 0, profile)
    assert "already on a trip" in veh.error("start_trip", vehicle_id=car, driver_id=driver)
    out = veh.ok("end_trip", trip_id=trip["trip_id"], distance_km=25)
    used = round(25 * consumption / 100, 1)
    assert (out["status"], out["distance_km"], out["energy_used"], out["odometer_km"]) == (
        "completed",
        25,
        used,
        odometer + 25,
    )
    assert row(veh, car, "state", "odometer_km", "fuel_liters") == ("parked", odometer + 25, round(fuel - used, 1))
    assert "already completed" in veh.error("end_trip", trip_id=trip["trip_id"], distance_km=5)


def test_end_trip_battery_and_range(veh: LiveServer) -> None:
    trip, car = one(
        veh,
        "SELECT t.id, v.id FROM trips t JOIN vehicles v ON v.id = t.vehicle_id WHERE t.status = 'in_progress' AND v.powertrain = 'ev' ORDER BY t.id",
    )
    pct, kwh, consumption = row(veh, car, "battery_pct", "battery_kwh", "consumption")
    state = dump(veh)
    reach = int(pct * kwh / consumption)
    assert f"at most {reach} km" in veh.error("end_trip", trip_id=trip, distance_km=reach + 2)
    assert "between 1 and 1500" in veh.error("end_trip", trip_id=trip, distance_km=0)
    assert dump(veh) == state
    veh.ok("end_trip", trip_id=trip, distance_km=10)
    drop = -(-round(10 * consumption / 100, 1) * 100 // kwh)
    assert row(veh, car, "battery_pct") == (pct - drop,)


def test_start_trip_refusals_change_nothing(veh: LiveServer) -> None:
    state = dump(veh)
    car, driver, _ = registered(veh, "v.plugged_in = 1 AND v.state = 'parked'")
    assert "unplug_vehicle" in veh.error("start_trip", vehicle_id=car, driver_id=driver)
    car, driver, _ = registered(veh, "v.trunk_open = 1")
    assert "close_trunk" in veh.error("start_trip", vehicle_id=car, driver_id=driver)
    stranger = scalar(veh, "SELECT id FROM drivers WHERE id NOT IN (SELECT driver_id FROM profiles) ORDER BY id")
    err = veh.error("start_trip", vehicle_id=car, driver_id=stranger)
    assert "not registered" in err
    assert "create_profile" in err
    car, driver = one(
        veh,
        "SELECT p.vehicle_id, d.id FROM profiles p JOIN drivers d ON d.id = p.driver_id JOIN vehicles v ON v.id = p.vehicle_id WHERE d.license_expires < '2026-01-15' AND v.state = 'parked' ORDER BY p.id",
    )
    assert "expired" in veh.error("start_trip", vehicle_id=car, driver_id=driver)
    charging = vehicle(veh, "state = 'charging'")
    assert "finish_charging" in veh.error("start_trip", vehicle_id=charging, driver_id=driver)
    assert "list_drivers" in veh.error("start_trip", vehicle_id=car, driver_id="DRV-42")
    assert dump(veh) == state
