"""The IoT devices server, driven through a real MCP client on an in-memory database: automations."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump, one, scalar

CLASH = """SELECT d.id, e.id FROM automations d JOIN automations e ON e.trigger_device_id = d.trigger_device_id
           AND e.trigger_event = d.trigger_event AND e.action_device_id = d.action_device_id
           AND e.action_attribute = d.action_attribute AND e.enabled WHERE NOT d.enabled ORDER BY d.id"""


def test_list_automations(iot: LiveServer) -> None:
    home_id = scalar(iot, "SELECT home_id FROM automations WHERE NOT enabled ORDER BY id")
    every = iot.ok("list_automations", home_id=home_id)
    assert len(every) == scalar(iot, "SELECT count(*) FROM automations WHERE home_id = ?", home_id)
    disabled = iot.ok("list_automations", home_id=home_id, status="disabled")
    assert disabled
    assert not any(a["enabled"] for a in disabled)
    assert all(a["enabled"] for a in iot.ok("list_automations", home_id=home_id, status="enabled"))
    assert "enabled or disabled" in iot.error("list_automations", home_id=home_id, status="on")


def test_create_automation(iot: LiveServer) -> None:
    sensor, home_id = one(iot, "SELECT id, home_id FROM devices WHERE kind = 'sensor' ORDER BY id")
    light = scalar(iot, "SELECT id FROM devices WHERE kind = 'light' AND home_id = ? ORDER BY id", home_id)
    args = {
        "trigger_device_id": sensor,
        "trigger_event": "Motion_Detected",
        "action_device_id": light,
        "action_attribute": "brightness",
        "action_value": 30,
    }
    out = iot.ok("create_automation", **args, name="Night path")
    assert (out["trigger_event"], out["action_value"], out["enabled"], out["home_id"]) == (
        "motion_detected",
        30,
        True,
        home_id,
    )
    assert iot.query("SELECT name, created_on FROM automations WHERE id = ?", out["automation_id"]) == [
        ("Night path", "2026-01-15")
    ]
    before = dump(iot)
    err = iot.error("create_automation", **{**args, "action_value": 80})
    assert out["automation_id"] in err
    assert "disable_automation" in err
    err = iot.error("create_automation", **{**args, "trigger_event": "unlocked"})
    assert "does not emit 'unlocked'" in err
    assert "motion_detected" in err
    assert "A light can set" in iot.error("create_automation", **{**args, "action_attribute": "volume"})
    assert "two different devices" in iot.error("create_automation", **{**args, "action_device_id": sensor})
    stranger = scalar(iot, "SELECT id FROM devices WHERE kind = 'light' AND home_id != ? ORDER BY id", home_id)
    assert "devices of one home" in iot.error("create_automation", **{**args, "action_device_id": stranger})
    assert dump(iot) == before


def test_enable_and_disable_automation(iot: LiveServer) -> None:
    disabled, enabled = one(iot, CLASH)
    before = dump(iot)
    err = iot.error("enable_automation", automation_id=disabled)
    assert enabled in err
    assert "already disabled" in iot.error("disable_automation", automation_id=disabled)
    assert dump(iot) == before
    assert iot.ok("disable_automation", automation_id=enabled)["enabled"] is False
    assert "already disabled" in iot.error("disable_automation", automation_id=enabled)
    assert iot.ok("enable_automation", automation_id=disabled)["enabled"] is True
    assert scalar(iot, "SELECT enabled FROM automations WHERE id = ?", disabled) == 1
    assert "already enabled" in iot.error("enable_automation", automation_id=disabled)
    assert "list_automations" in iot.error("enable_automation", automation_id="AUT-7")
