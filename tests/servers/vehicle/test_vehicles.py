"""The vehicle server through a real MCP client: the fleet, doors, trunk and climate."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump
from tests.servers.vehicle.common import MOVING, row, vehicle


def test_list_vehicles(veh: LiveServer) -> None:
    everything = veh.ok("list_vehicles")
    assert len(everything) == veh.query("SELECT count(*) FROM vehicles")[0][0]
    evs = veh.ok("list_vehicles", powertrain="EV", state="parked")
    assert evs
    assert all(v["powertrain"] == "ev" and v["state"] == "parked" and "battery_pct" in v for v in evs)
    overdue = veh.ok("list_vehicles", service_status="overdue")
    assert overdue
    assert {v["service_status"] for v in overdue} == {"overdue"}
    assert "powertrain must be one of" in veh.error("list_vehicles", powertrain="diesel")
    assert "service_status must be one of" in veh.error("list_vehicles", service_status="late")


def test_get_vehicle_status(veh: LiveServer) -> None:
    ev = vehicle(veh, "powertrain = 'ev'")
    out = veh.ok("get_vehicle_status", vehicle_id=ev.lower())
    pct, kwh, consumption, odometer = row(veh, ev, "battery_pct", "battery_kwh", "consumption", "odometer_km")
    assert out["range_km"] == int(pct * kwh / consumption)
    assert out["odometer_km"] == odometer
    assert out["service"]["status"] in ("ok", "due_soon", "overdue")
    assert {"charge_limit_pct", "plugged_in", "climate"} <= set(out)
    fuel = veh.ok("get_vehicle_status", vehicle_id=vehicle(veh, "powertrain = 'fuel'"))
    assert "tank_liters" in fuel
    assert "battery_pct" not in fuel
    assert "list_vehicles" in veh.error("get_vehicle_status", vehicle_id="VEH-9")


def test_unlock_and_lock(veh: LiveServer) -> None:
    parked = vehicle(veh, "locked = 1 AND state = 'parked'")
    assert veh.ok("unlock_vehicle", vehicle_id=parked)["locked"] is False
    assert row(veh, parked, "locked") == (0,)
    assert "already unlocked" in veh.error("unlock_vehicle", vehicle_id=parked)
    assert veh.ok("lock_vehicle", vehicle_id=parked)["locked"] is True
    assert "already locked" in veh.error("lock_vehicle", vehicle_id=parked)
    stopped = vehicle(veh, "state = 'driving' AND speed_kmh = 0")
    assert veh.ok("unlock_vehicle", vehicle_id=stopped)["locked"] is False  # stopped at a light


def test_door_errors_change_nothing(veh: LiveServer) -> None:
    state = dump(veh)
    moving = vehicle(veh, MOVING)
    err = veh.error("unlock_vehicle", vehicle_id=moving)
    assert "is moving at" in err
    assert "km/h" in err
    assert "is moving" in veh.error("open_trunk", vehicle_id=moving)
    open_trunk = vehicle(veh, "trunk_open = 1")
    assert "close_trunk" in veh.error("lock_vehicle", vehicle_id=open_trunk)
    assert "already open" in veh.error("open_trunk", vehicle_id=open_trunk)
    assert "unlock_vehicle" in veh.error("open_trunk", vehicle_id=vehicle(veh, "locked = 1 AND state = 'parked'"))
    assert "already closed" in veh.error("close_trunk", vehicle_id=vehicle(veh, "trunk_open = 0"))
    assert dump(veh) == state


def test_trunk(veh: LiveServer) -> None:
    car = vehicle(veh, "locked = 0 AND trunk_open = 0")
    assert veh.ok("open_trunk", vehicle_id=car)["trunk_open"] is True
    assert row(veh, car, "trunk_open") == (1,)
    assert veh.ok("close_trunk", vehicle_id=car)["trunk_open"] is False
    assert veh.ok("lock_vehicle", vehicle_id=car)["locked"] is True


def test_set_climate(veh: LiveServer) -> None:
    car = vehicle(veh, "powertrain = 'fuel' AND climate_on = 0")
    out = veh.ok("set_climate", vehicle_id=car, temperature_c=22.5)
    assert out["climate"] == {"on": True, "target_c": 22.5}
    assert row(veh, car, "climate_on", "cabin_target_c") == (1, 22.5)
    assert "already on at 22.5" in veh.error("set_climate", vehicle_id=car, temperature_c=22.5)
    low = vehicle(veh, "powertrain = 'ev' AND battery_pct < 20 AND plugged_in = 0")
    state = dump(veh)
    err = veh.error("set_climate", vehicle_id=low, temperature_c=21)
    assert "at least 20%" in err
    for bad in (15.5, 28.5, 21.3):
        assert "between 16 and 28" in veh.error("set_climate", vehicle_id=car, temperature_c=bad)
    assert dump(veh) == state
