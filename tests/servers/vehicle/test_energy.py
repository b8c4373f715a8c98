"""The vehicle server through a real MCP client: charge limits, charging and refuels."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump, one
from tests.servers.vehicle.common import row, vehicle

PLUGGED_BELOW_LIMIT = "powertrain = 'ev' AND plugged_in = 1 AND state = 'parked' AND battery_pct < charge_limit_pct - 5"


def test_list_energy_log(veh: LiveServer) -> None:
    ev = vehicle(veh, "state = 'charging'")
    out = veh.ok("list_energy_log", vehicle_id=ev)
    assert out["powertrain"] == "ev"
    sessions = out["charging_sessions"]
    assert len(sessions) == veh.query("SELECT count(*) FROM charging_sessions WHERE vehicle_id = ?", ev)[0][0]
    assert sessions[0]["status"] == "active"
    fuel = vehicle(veh, "powertrain = 'fuel'")
    refuels = veh.ok("list_energy_log", vehicle_id=fuel, limit=1)["refuels"]
    assert len(refuels) == 1
    assert refuels[0]["cost"] > 0
    assert "limit must be between 1 and 100" in veh.error("list_energy_log", vehicle_id=fuel, limit=0)


def test_set_charge_limit(veh: LiveServer) -> None:
    ev = vehicle(veh, "powertrain = 'ev' AND charge_limit_pct != 95")
    assert veh.ok("set_charge_limit", vehicle_id=ev, limit_pct=95)["charge_limit_pct"] == 95
    assert row(veh, ev, "charge_limit_pct") == (95,)
    state = dump(veh)
    assert "already 95%" in veh.error("set_charge_limit", vehicle_id=ev, limit_pct=95)
    for bad in (49, 101):
        assert "between 50 and 100" in veh.error("set_charge_limit", vehicle_id=ev, limit_pct=bad)
    err = veh.error("set_charge_limit", vehicle_id=vehicle(veh, "powertrain = 'fuel'"), limit_pct=80)
    assert "runs on fuel" in err
    assert "log_refuel" in err
    assert dump(veh) == state


def test_charge_then_unplug(veh: LiveServer) -> None:
    ev = vehicle(veh, PLUGGED_BELOW_LIMIT)
    pct, limit, kwh = row(veh, ev, "battery_pct", "charge_limit_pct", "battery_kwh")
    out = veh.ok("start_charging", vehicle_id=ev)
    assert (out["state"], out["status"], out["start_pct"], out["target_pct"]) == ("charging", "active", pct, limit)
    assert "already charging" in veh.error("start_charging", vehicle_id=ev)
    assert "finish_charging" in veh.error("unplug_vehicle", vehicle_id=ev)
    done = veh.ok("finish_charging", vehicle_id=ev)
    energy = round((limit - pct) * kwh / 100, 1)
    assert (done["battery_pct"], done["energy_kwh"], done["cost"]) == (limit, energy, round(energy * 30) / 100)
    assert row(veh, ev, "battery_pct", "state", "plugged_in") == (limit, "parked", 1)
    assert one(veh, "SELECT status FROM charging_sessions WHERE id = ?", out["session_id"]) == ("completed",)
    assert "no charging session" in veh.error("finish_charging", vehicle_id=ev)
    assert veh.ok("unplug_vehicle", vehicle_id=ev)["plugged_in"] is False
    assert "not plugged in" in veh.error("unplug_vehicle", vehicle_id=ev)


def test_start_charging_errors_change_nothing(veh: LiveServer) -> None:
    state = dump(veh)
    ev = vehicle(veh, PLUGGED_BELOW_LIMIT)
    pct, limit = row(veh, ev, "battery_pct", "charge_limit_pct")
    assert "set_charge_limit" in veh.error("start_charging", vehicle_id=ev, target_pct=limit + 1)
    assert "nothing to charge" in veh.error("start_charging", vehicle_id=ev, target_pct=pct)
    full = vehicle(veh, "powertrain = 'ev' AND plugged_in = 1 AND state = 'parked' AND battery_pct >= charge_limit_pct")
    assert "already at" in veh.error("start_charging", vehicle_id=full)
    assert "not plugged in" in veh.error(
        "start_charging", vehicle_id=vehicle(veh, "powertrain = 'ev' AND plugged_in = 0 AND state = 'parked'")
    )
    assert "is driving" in veh.error(
        "start_charging", vehicle_id=vehicle(veh, "powertrain = 'ev' AND state = 'driving'")
    )
    assert "only electric vehicles charge" in veh.error(
        "start_charging", vehicle_id=vehicle(veh, "powertrain = 'fuel'")
    )
    assert dump(veh) == state


def test_log_refuel(veh: LiveServer) -> None:
    car = vehicle(veh, "powertrain = 'fuel' AND state = 'parked' AND tank_liters - fuel_liters > 20")
    before = row(veh, car, "fuel_liters")[0]
    out = veh.ok("log_refuel", vehicle_id=car, liters=12.5, price_per_liter=1.9)
    assert out["fuel_liters"] == round(before + 12.5, 1)
    assert out["cost"] == 23.75
    assert one(
        veh, "SELECT liters, price_per_liter_cents, cost_cents, filled_on FROM fuel_logs WHERE id = ?", out["refuel_id"]
    ) == (12.5, 190, 2375, "2026-01-15")
    state = dump(veh)
    tank, fuel = row(veh, car, "tank_liters", "fuel_liters")
    err = veh.error("log_refuel", vehicle_id=car, liters=tank)
    assert f"at most {round(tank - fuel, 1):g} L" in err
    assert "at most 1 decimal" in veh.error("log_refuel", vehicle_id=car, liters=1.25)
    assert "start_charging" in veh.error("log_refuel", vehicle_id=vehicle(veh, "powertrain = 'ev'"), liters=10)
    assert "is driving" in veh.error(
        "log_refuel", vehicle_id=vehicle(veh, "powertrain = 'fuel' AND state = 'driving'"), liters=5
    )
    assert dump(veh) == state
