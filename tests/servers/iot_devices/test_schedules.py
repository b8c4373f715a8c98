"""The IoT devices server, driven through a real MCP client on an in-memory database: schedules."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump, one, scalar
from tests.servers.iot_devices.common import device


def test_list_schedules(iot: LiveServer) -> None:
    home_id = scalar(
        iot,
        "SELECT d.home_id FROM schedules s JOIN devices d ON d.id = s.device_id "
        "WHERE s.status = 'paused' ORDER BY s.id",
    )
    listed = iot.ok("list_schedules", home_id=home_id)
    expected = iot.query(
        "SELECT s.id FROM schedules s JOIN devices d ON d.id = s.device_id WHERE d.home_id = ?", home_id
    )
    assert {s["schedule_id"] for s in listed} == {r[0] for r in expected}
    paused = iot.ok("list_schedules", home_id=home_id, status="paused")
    assert paused
    assert {s["status"] for s in paused} == {"paused"}
    one_device = listed[0]["device_id"]
    assert {s["device_id"] for s in iot.ok("list_schedules", home_id=home_id, device_id=one_device)} == {one_device}
    stranger = scalar(iot, "SELECT id FROM devices WHERE home_id != ? ORDER BY id", home_id)
    assert "not " + home_id in iot.error("list_schedules", home_id=home_id, device_id=stranger)
    assert "active or paused" in iot.error("list_schedules", home_id=home_id, status="done")


def test_create_schedule(iot: LiveServer) -> None:
    thermostat = device(iot, "thermostat")
    out = iot.ok(
        "create_schedule",
        device_id=thermostat,
        attribute="target_temp",
        value=19.5,
        time="6:45",
        days="Mon, Tue, Wed, Thu, Fri",
    )
    assert (out["time"], out["days"], out["value"], out["status"]) == ("06:45", "weekdays", 19.5, "active")
    row = iot.query("SELECT device_id, attribute, value, created_on FROM schedules WHERE id = ?", out["schedule_id"])
    assert row == [(thermostat, "target_temp", "19.5", "2026-01-15")]
    weekend = iot.ok(
        "create_schedule",
        device_id=thermostat,
        attribute="power",
        value="off",
        time="06:45",
        days="sat,sun",
        name="Weekend off",
    )
    assert weekend["days"] == "weekends"
    assert weekend["schedule_id"] == f"SCH-{int(out['schedule_id'][4:]) + 1}"
    before = dump(iot)
    err = iot.error("create_schedule", device_id=thermostat, attribute="mode", value="eco", time="06:45", days="fri")
    assert f"Schedule conflict: {out['schedule_id']}" in err
    assert "shared days: fri" in err
    assert "HH:MM" in iot.error(
        "create_schedule", device_id=thermostat, attribute="power", value="on", time="25:00", days="daily"
    )
    assert "'weekdays'" in iot.error(
        "create_schedule", device_id=thermostat, attribute="power", value="on", time="07:00", days="someday"
    )
    assert "A thermostat can set" in iot.error(
        "create_schedule", device_id=thermostat, attribute="volume", value=5, time="07:00", days="daily"
    )
    assert dump(iot) == before


def test_pause_resume_and_delete_schedule(iot: LiveServer) -> None:
    active = scalar(iot, "SELECT id FROM schedules WHERE status = 'active' ORDER BY id")
    assert iot.ok("pause_schedule", schedule_id=active)["status"] == "paused"
    assert "already paused" in iot.error("pause_schedule", schedule_id=active)
    assert iot.ok("resume_schedule", schedule_id=active)["status"] == "active"
    assert "already active" in iot.error("resume_schedule", schedule_id=active)
    clash, other = one(
        iot,
        """SELECT p.id, a.id FROM schedules p JOIN schedules a ON a.device_id = p.device_id AND a.time = p.time
           AND a.days = p.days AND a.status = 'active' WHERE p.status = 'paused' ORDER BY p.id""",
    )
    before = dump(iot)
    err = iot.error("resume_schedule", schedule_id=clash)
    assert other in err
    assert "delete_schedule" in err
    assert dump(iot) == before
    out = iot.ok("delete_schedule", schedule_id=other)
    assert out["deleted"] is True
    assert iot.query("SELECT id FROM schedules WHERE id = ?", other) == []
    assert iot.ok("resume_schedule", schedule_id=clash)["status"] == "active"
    assert "list_schedules" in iot.error("delete_schedule", schedule_id=other)
