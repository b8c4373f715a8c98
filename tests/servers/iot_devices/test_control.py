"""The IoT devices server, driven through a real MCP client on an in-memory database: commanding devices."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump, scalar
from tests.servers.iot_devices.common import device, logged, state


def test_set_device_state(iot: LiveServer) -> None:
    light = device(
        iot,
        "light",
        extra="AND d.id IN (SELECT device_id FROM device_states WHERE attribute = 'color_temp' AND value != '3000')",
    )
    old = state(iot, light, "color_temp")
    out = iot.ok("set_device_state", device_id=light, attribute="Color_Temp", value=3000)
    assert (out["old_value"], out["new_value"], out["changed"]) == (int(old or 0), 3000, True)
    assert state(iot, light, "color_temp") == "3000"
    assert logged(iot, light) == [("color_temp", old, "3000", "manual")]
    again = iot.ok("set_device_state", device_id=light, attribute="color_temp", value="3000")
    assert again["changed"] is False
    assert len(logged(iot, light)) == 1
    speaker = device(iot, "speaker")
    assert iot.ok("set_device_state", device_id=speaker, attribute="volume", value="35%")["new_value"] == 35


def test_set_device_state_refusals_change_nothing(iot: LiveServer) -> None:
    light, lock, sensor = device(iot, "light"), device(iot, "lock"), device(iot, "sensor")
    before = dump(iot)
    err = iot.error("set_device_state", device_id=lock, attribute="brightness", value=50)
    assert "is a lock" in err
    assert "A lock can set: lock" in err
    err = iot.error("set_device_state", device_id=sensor, attribute="temperature", value=20)
    assert "a reading it reports, not a setting" in err
    assert "none (it only reports readings)" in err
    assert "0 to 100 %" in iot.error("set_device_state", device_id=light, attribute="brightness", value=150)
    assert "in steps of 100" in iot.error("set_device_state", device_id=light, attribute="color_temp", value=3050)
    assert "must be on or off" in iot.error("set_device_state", device_id=light, attribute="power", value="dim")
    assert "must be a number" in iot.error("set_device_state", device_id=light, attribute="brightness", value="max")
    offline = device(iot, "light", "offline")
    err = iot.error("set_device_state", device_id=offline, attribute="power", value="on")
    assert "is offline (last seen 2026-01-" in err
    assert "cannot be commanded" in err
    assert dump(iot) == before


def test_turn_on_and_off(iot: LiveServer) -> None:
    plug = device(iot, "plug", extra="AND d.id IN (SELECT device_id FROM device_states WHERE value = 'off')")
    assert iot.ok("turn_on_device", device_id=plug)["new_value"] == "on"
    assert state(iot, plug, "power") == "on"
    assert iot.ok("turn_off_device", device_id=plug)["old_value"] == "on"
    assert state(iot, plug, "power") == "off"
    assert [e[2] for e in logged(iot, plug)] == ["on", "off"]
    before = dump(iot)
    assert "A blind can set: position" in iot.error("turn_on_device", device_id=device(iot, "blind"))
    assert "offline" in iot.error("turn_off_device", device_id=device(iot, "camera", "offline"))
    assert dump(iot) == before


def test_set_brightness(iot: LiveServer) -> None:
    light = device(
        iot,
        "light",
        extra="AND d.id IN (SELECT device_id FROM device_states WHERE attribute = 'brightness' AND value != '60')",
    )
    assert iot.ok("set_brightness", device_id=light, brightness=60)["new_value"] == 60
    assert state(iot, light, "brightness") == "60"
    before = dump(iot)
    assert "0 to 100" in iot.error("set_brightness", device_id=light, brightness=101)
    assert "A thermostat can set: power, target_temp, mode" in iot.error(
        "set_brightness", device_id=device(iot, "thermostat"), brightness=50
    )
    assert dump(iot) == before


def test_set_thermostat(iot: LiveServer) -> None:
    thermostat = device(
        iot,
        "thermostat",
        extra="AND d.id IN (SELECT device_id FROM device_states WHERE attribute = 'mode' AND value != 'eco')",
    )
    out = iot.ok("set_thermostat", device_id=thermostat, target_temp_c=21.5, mode="ECO")
    assert out["target_temp_c"] == 21.5
    assert (state(iot, thermostat, "target_temp"), state(iot, thermostat, "mode")) == ("21.5", "eco")
    before = dump(iot)
    assert "10 to 30 C in steps of 0.5" in iot.error("set_thermostat", device_id=thermostat, target_temp_c=31)
    assert "10 to 30 C" in iot.error("set_thermostat", device_id=thermostat, target_temp_c=21.25)
    # both settings are checked before either is made
    assert "heat or cool or auto or eco" in iot.error(
        "set_thermostat", device_id=thermostat, target_temp_c=19, mode="turbo"
    )
    light = device(iot, "light")
    err = iot.error("set_thermostat", device_id=light, target_temp_c=20)
    assert "is a light, not a thermostat" in err
    home_thermostat = scalar(
        iot,
        "SELECT d.id FROM devices d JOIN devices l ON l.home_id = d.home_id WHERE l.id = ? AND d.kind = 'thermostat'",
        light,
    )
    assert home_thermostat in err  # names the thermostats of that home
    assert "offline" in iot.error("set_thermostat", device_id=device(iot, "thermostat", "offline"), target_temp_c=20)
    assert dump(iot) == before


def test_lock_and_unlock(iot: LiveServer) -> None:
    home_lock = device(iot, "lock", extra="AND h.mode IN ('home', 'night')")
    if state(iot, home_lock, "lock") == "locked":
        assert iot.ok("unlock_door", device_id=home_lock)["new_value"] == "unlocked"
    assert iot.ok("lock_door", device_id=home_lock)["new_value"] == "locked"
    assert iot.ok("unlock_door", device_id=home_lock)["new_value"] == "unlocked"
    assert state(iot, home_lock, "lock") == "unlocked"
    before = dump(iot)
    away_lock = device(iot, "lock", extra="AND h.mode IN ('away', 'vacation')")
    err = iot.error("unlock_door", device_id=away_lock)
    assert "mode, which keeps its doors locked" in err
    assert "set_home_mode" in err
    assert "offline" in iot.error("lock_door", device_id=device(iot, "lock", "offline"))
    err = iot.error("lock_door", device_id=device(iot, "light"))
    assert "is a light, not a lock. The locks of home" in err
    assert err.index(", unlocked") < err.index(", locked")  # the ones to lock come first
    assert dump(iot) == before
