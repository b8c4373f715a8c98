"""The vehicle server through a real MCP client: drivers and their profiles."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump, one, scalar
from tests.servers.vehicle.common import MOVING, registered, row, vehicle

UNREGISTERED = "SELECT id FROM drivers WHERE id NOT IN (SELECT driver_id FROM profiles) AND license_expires >= '2026-01-15' ORDER BY id"


def test_list_drivers(veh: LiveServer) -> None:
    everyone = veh.ok("list_drivers")
    assert len(everyone) == 45
    expired = [d for d in everyone if not d["license_valid"]]
    assert expired
    assert all(d["license_expires"] < "2026-01-15" for d in expired)
    first = everyone[0]
    matches = veh.ok("list_drivers", query=first["name"].split()[1].upper())
    assert first["driver_id"] in [d["driver_id"] for d in matches]
    assert first["vehicle_ids"] == [
        r[0]
        for r in veh.query(
            "SELECT vehicle_id FROM profiles WHERE driver_id = ? ORDER BY vehicle_id", first["driver_id"]
        )
    ]
    assert veh.ok("list_drivers", query="zz-nobody") == []


def test_list_profiles(veh: LiveServer) -> None:
    car, profile = one(
        veh, "SELECT id, active_profile_id FROM vehicles WHERE active_profile_id IS NOT NULL ORDER BY id"
    )
    profiles = veh.ok("list_profiles", vehicle_id=car)
    assert [p["profile_id"] for p in profiles] == [
        r[0] for r in veh.query("SELECT id FROM profiles WHERE vehicle_id = ? ORDER BY id", car)
    ]
    assert [p["profile_id"] for p in profiles if p["active"]] == [profile]
    assert "list_vehicles" in veh.error("list_profiles", vehicle_id="VEH-0")


def test_create_profile(veh: LiveServer) -> None:
    driver = scalar(veh, UNREGISTERED)
    car = vehicle(veh, "id IN (SELECT vehicle_id FROM profiles GROUP BY vehicle_id HAVING count(*) < 4)")
    out = veh.ok("create_profile", vehicle_id=car, driver_id=driver, seat_position=12, mirror_tilt=-2)
    assert (out["seat_position"], out["seat_recline"], out["mirror_tilt"], out["active"]) == (12, 105, -2, False)
    assert one(veh, "SELECT driver_id, vehicle_id FROM profiles WHERE id = ?", out["profile_id"]) == (driver, car)
    state = dump(veh)
    assert out["profile_id"] in veh.error("create_profile", vehicle_id=car, driver_id=driver, seat_position=5)
    full = vehicle(veh, "id IN (SELECT vehicle_id FROM profiles GROUP BY vehicle_id HAVING count(*) = 4)")
    assert "delete_profile" in veh.error("create_profile", vehicle_id=full, driver_id=driver, seat_position=5)
    expired = scalar(
        veh,
        "SELECT id FROM drivers WHERE license_expires < '2026-01-15' AND id NOT IN (SELECT driver_id FROM profiles WHERE vehicle_id = ?) ORDER BY id",
        car,
    )
    assert "expired" in veh.error("create_profile", vehicle_id=car, driver_id=expired, seat_position=5)
    assert "between 1 and 20" in veh.error("create_profile", vehicle_id=car, driver_id=expired, seat_position=25)
    assert "between 90 and 130" in veh.error(
        "create_profile", vehicle_id=car, driver_id=expired, seat_position=5, seat_recline=80
    )
    assert dump(veh) == state


def test_update_profile(veh: LiveServer) -> None:
    profile = scalar(veh, "SELECT id FROM profiles WHERE seat_position != 15 ORDER BY id")
    out = veh.ok("update_profile", profile_id=profile, seat_position=15, seat_recline=110)
    assert (out["seat_position"], out["seat_recline"]) == (15, 110)
    assert one(veh, "SELECT seat_position, seat_recline FROM profiles WHERE id = ?", profile) == (15, 110)
    state = dump(veh)
    assert "already has these presets" in veh.error("update_profile", profile_id=profile, seat_position=15)
    assert "Nothing to change" in veh.error("update_profile", profile_id=profile)
    moving = scalar(veh, f"SELECT active_profile_id FROM vehicles WHERE {MOVING} ORDER BY id")
    assert "moving" in veh.error("update_profile", profile_id=moving, seat_position=1)
    assert "between -10 and 10" in veh.error("update_profile", profile_id=profile, mirror_tilt=11)
    assert dump(veh) == state


def test_activate_profile(veh: LiveServer) -> None:
    car, _, profile = registered(veh, "(v.active_profile_id IS NULL OR v.active_profile_id != p.id)")
    out = veh.ok("activate_profile", vehicle_id=car, profile_id=profile)
    assert out["active_profile"]["active"] is True
    assert row(veh, car, "active_profile_id") == (profile,)
    state = dump(veh)
    assert "already active" in veh.error("activate_profile", vehicle_id=car, profile_id=profile)
    other, elsewhere = one(veh, "SELECT id, vehicle_id FROM profiles WHERE vehicle_id != ? ORDER BY id", car)
    err = veh.error("activate_profile", vehicle_id=car, profile_id=other)
    assert f"registered on {elsewhere}, not on {car}" in err
    assert profile in err  # names the vehicle's own profiles
    moving, idle = one(
        veh,
        f"SELECT v.id, p.id FROM vehicles v JOIN profiles p ON p.vehicle_id = v.id WHERE v.{MOVING.replace(' AND ', ' AND v.')} AND p.id != v.active_profile_id ORDER BY v.id",
    )
    assert "moving" in veh.error("activate_profile", vehicle_id=moving, profile_id=idle)
    car, expired = one(
        veh,
        "SELECT p.vehicle_id, p.id FROM profiles p JOIN drivers d ON d.id = p.driver_id JOIN vehicles v ON v.id = p.vehicle_id WHERE d.license_expires < '2026-01-15' AND v.state != 'driving' AND (v.active_profile_id IS NULL OR v.active_profile_id != p.id) ORDER BY p.id",
    )
    assert "expired" in veh.error("activate_profile", vehicle_id=car, profile_id=expired)
    assert dump(veh) == state


def test_delete_profile(veh: LiveServer) -> None:
    car, profile = one(
        veh,
        "SELECT id, active_profile_id FROM vehicles WHERE state = 'parked' AND active_profile_id IS NOT NULL ORDER BY id",
    )
    out = veh.ok("delete_profile", profile_id=profile)
    assert out == {"deleted_profile_id": profile, "vehicle_id": car, "driver_id": out["driver_id"]}
    assert veh.query("SELECT id FROM profiles WHERE id = ?", profile) == []
    assert row(veh, car, "active_profile_id") == (None,)
    assert "list_profiles" in veh.error("delete_profile", profile_id=profile)
    state = dump(veh)
    driving = scalar(veh, "SELECT active_profile_id FROM vehicles WHERE state = 'driving' ORDER BY id")
    assert "end_trip" in veh.error("delete_profile", profile_id=driving)
    assert dump(veh) == state
