"""The IoT devices server, driven through a real MCP client on an in-memory database: homes and modes."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump, one, scalar
from tests.servers.iot_devices.common import state

UNLOCKED = """SELECT h.id, d.id FROM homes h JOIN devices d ON d.home_id = h.id JOIN device_states s ON s.device_id = d.id
              WHERE h.mode IN ('home', 'night') AND d.status = 'online' AND s.attribute = 'lock'
              AND s.value = 'unlocked' ORDER BY h.id, d.id"""


def test_list_homes(iot: LiveServer) -> None:
    homes = iot.ok("list_homes")
    assert [h["home_id"] for h in homes] == [r[0] for r in iot.query("SELECT id FROM homes ORDER BY id")]
    home_id, owner = one(iot, "SELECT id, owner FROM homes ORDER BY id")
    found = iot.ok("list_homes", query=owner.split()[1].upper())
    assert home_id in [h["home_id"] for h in found]
    devices = scalar(iot, "SELECT count(*) FROM devices WHERE home_id = ?", home_id)
    assert next(h for h in found if h["home_id"] == home_id)["devices"] == devices
    assert len(iot.ok("list_homes", limit=3)) == 3
    assert iot.ok("list_homes", query="zzz-nowhere") == []
    assert "limit must be between 1 and 100" in iot.error("list_homes", limit=0)


def test_get_home(iot: LiveServer) -> None:
    home_id = scalar(iot, "SELECT home_id FROM devices WHERE status = 'offline' ORDER BY id")
    out = iot.ok("get_home", home_id=home_id.lower())
    rooms = iot.query("SELECT id FROM rooms WHERE home_id = ? ORDER BY id", home_id)
    assert [r["room_id"] for r in out["rooms"]] == [r[0] for r in rooms]
    total = scalar(iot, "SELECT count(*) FROM devices WHERE home_id = ?", home_id)
    assert sum(r["devices"] for r in out["rooms"]) == sum(out["devices_by_kind"].values()) == total
    assert out["offline_devices"] >= 1
    err = iot.error("get_home", home_id="HOME-9999")
    assert "HOME-9999" in err
    assert "list_homes" in err


def test_set_home_mode_needs_locked_doors(iot: LiveServer) -> None:
    home_id, lock = one(iot, UNLOCKED)
    before = dump(iot)
    err = iot.error("set_home_mode", home_id=home_id, mode="away")
    assert lock in err
    assert "lock_door" in err
    assert "nothing was changed" in err
    assert "must be one of home, away, night, vacation" in iot.error("set_home_mode", home_id=home_id, mode="party")
    assert dump(iot) == before
    for (device_id,) in iot.query(
        "SELECT d.id FROM devices d JOIN device_states s ON s.device_id = d.id WHERE d.home_id = ? "
        "AND d.status = 'online' AND s.attribute = 'lock' AND s.value = 'unlocked'",
        home_id,
    ):
        iot.ok("lock_door", device_id=device_id)
        assert state(iot, device_id, "lock") == "locked"
    previous = scalar(iot, "SELECT mode FROM homes WHERE id = ?", home_id)
    out = iot.ok("set_home_mode", home_id=home_id, mode="Away")
    assert out == {"home_id": home_id, "mode": "away", "previous_mode": previous}
    assert scalar(iot, "SELECT mode FROM homes WHERE id = ?", home_id) == "away"
    assert "already in away mode" in iot.error("set_home_mode", home_id=home_id, mode="away")
    assert iot.ok("set_home_mode", home_id=home_id, mode="night")["previous_mode"] == "away"
