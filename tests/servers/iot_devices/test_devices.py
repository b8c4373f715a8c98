"""The IoT devices server, driven through a real MCP client on an in-memory database: devices."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump, one, scalar


def test_list_devices(iot: LiveServer) -> None:
    home_id = scalar(iot, "SELECT home_id FROM devices WHERE status = 'offline' ORDER BY id")
    everything = iot.ok("list_devices", home_id=home_id)
    assert [d["device_id"] for d in everything] == [
        r[0] for r in iot.query("SELECT id FROM devices WHERE home_id = ? ORDER BY id", home_id)
    ]
    offline = iot.ok("list_devices", home_id=home_id, status="offline")
    assert offline
    assert {d["status"] for d in offline} == {"offline"}
    lights = iot.ok("list_devices", home_id=home_id, kind="LIGHT")
    assert {d["kind"] for d in lights} == {"light"}
    assert all("power" in d["state"] for d in lights)
    room = lights[0]["room_id"]
    assert {d["room_id"] for d in iot.ok("list_devices", home_id=home_id, room_id=room)} == {room}
    other_room = scalar(iot, "SELECT id FROM rooms WHERE home_id != ? ORDER BY id", home_id)
    assert "get_home" in iot.error("list_devices", home_id=home_id, room_id=other_room)
    assert "kind must be one of" in iot.error("list_devices", home_id=home_id, kind="toaster")
    assert "online or offline" in iot.error("list_devices", home_id=home_id, status="broken")


def test_get_device(iot: LiveServer) -> None:
    sensor = scalar(iot, "SELECT id FROM devices WHERE kind = 'sensor' ORDER BY id")
    out = iot.ok("get_device", device_id=sensor)
    assert out["capabilities"] == {}
    assert set(out["readings"]) == {"temperature", "humidity", "motion", "battery"}
    assert "motion_detected" in out["trigger_events"]
    thermostat = iot.ok("get_device", device_id=scalar(iot, "SELECT id FROM devices WHERE kind = 'thermostat'"))
    assert thermostat["capabilities"]["target_temp"] == "10 to 30 C in steps of 0.5"
    assert "current_temp" in thermostat["state"]
    changed = scalar(iot, "SELECT device_id FROM device_events ORDER BY id DESC")
    assert iot.ok("get_device", device_id=changed)["recent_changes"]
    assert "list_devices" in iot.error("get_device", device_id="DEV-0001")


def test_move_device(iot: LiveServer) -> None:
    device_id, home_id, room_id = one(iot, "SELECT id, home_id, room_id FROM devices ORDER BY id")
    target = scalar(iot, "SELECT id FROM rooms WHERE home_id = ? AND id != ? ORDER BY id", home_id, room_id)
    out = iot.ok("move_device", device_id=device_id, room_id=target)
    assert (out["room_id"], out["previous_room_id"]) == (target, room_id)
    assert scalar(iot, "SELECT room_id FROM devices WHERE id = ?", device_id) == target
    before = dump(iot)
    err = iot.error("move_device", device_id=device_id, room_id=target)
    assert "already in" in err
    assert room_id in err  # names the rooms it can move to
    foreign = scalar(iot, "SELECT id FROM rooms WHERE home_id != ? ORDER BY id", home_id)
    assert "only within its home" in iot.error("move_device", device_id=device_id, room_id=foreign)
    assert "get_home" in iot.error("move_device", device_id=device_id, room_id="ROOM-0001")
    assert dump(iot) == before


def test_remove_device(iot: LiveServer) -> None:
    busy, automation = one(
        iot,
        "SELECT d.id, a.id FROM devices d JOIN automations a ON a.action_device_id = d.id AND a.enabled ORDER BY d.id",
    )
    before = dump(iot)
    err = iot.error("remove_device", device_id=busy)
    assert automation in err
    assert "disable_automation" in err
    assert dump(iot) == before
    device_id = scalar(
        iot,
        "SELECT d.id FROM devices d JOIN schedules s ON s.device_id = d.id JOIN scene_actions x ON x.device_id = d.id "
        "WHERE d.id NOT IN (SELECT trigger_device_id FROM automations UNION SELECT action_device_id FROM automations) "
        "ORDER BY d.id",
    )
    out = iot.ok("remove_device", device_id=device_id)
    assert out["removed"] is True
    assert out["deleted"]["schedules"] >= 1
    assert out["deleted"]["scene_settings"] >= 1
    for table in (
        "devices WHERE id",
        "schedules WHERE device_id",
        "scene_actions WHERE device_id",
        "device_states WHERE device_id",
        "energy_readings WHERE device_id",
    ):
        assert scalar(iot, f"SELECT count(*) FROM {table} = ?", device_id) == 0
    assert "list_devices" in iot.error("remove_device", device_id=device_id)
