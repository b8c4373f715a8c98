"""The IoT devices server, driven through a real MCP client on an in-memory database: energy readings."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import scalar
from tests.servers.iot_devices.common import device


def test_get_energy_usage(iot: LiveServer) -> None:
    home_id = scalar(iot, "SELECT id FROM homes ORDER BY id")
    out = iot.ok("get_energy_usage", home_id=home_id, start_date="2026-01-01", end_date="2026-01-14")
    wh = scalar(
        iot,
        "SELECT sum(r.wh) FROM energy_readings r JOIN devices d ON d.id = r.device_id WHERE d.home_id = ?",
        home_id,
    )
    assert out["total_kwh"] == round(wh / 1000, 3)
    assert abs(sum(d["kwh"] for d in out["by_device"]) - out["total_kwh"]) < 0.01
    assert abs(sum(out["by_room"].values()) - out["total_kwh"]) < 0.01
    kwh = [d["kwh"] for d in out["by_device"]]
    assert kwh == sorted(kwh, reverse=True)
    week = iot.ok("get_energy_usage", home_id=home_id)
    assert (week["start_date"], week["end_date"]) == ("2026-01-08", "2026-01-14")
    assert "swap them" in iot.error("get_energy_usage", home_id=home_id, start_date="2026-01-10", end_date="2026-01-02")
    assert "readings end yesterday" in iot.error("get_energy_usage", home_id=home_id, end_date="2026-01-15")
    assert "92 days" in iot.error("get_energy_usage", home_id=home_id, start_date="2025-01-01", end_date="2026-01-10")
    assert "ISO 8601" in iot.error("get_energy_usage", home_id=home_id, start_date="Jan 3")


def test_list_energy_readings(iot: LiveServer) -> None:
    plug = device(iot, "plug")
    out = iot.ok("list_energy_readings", device_id=plug, start_date="2026-01-10", end_date="2026-01-12")
    rows = iot.query(
        "SELECT day, wh FROM energy_readings WHERE device_id = ? AND day BETWEEN '2026-01-10' AND '2026-01-12' "
        "ORDER BY day",
        plug,
    )
    assert out["readings"] == [{"day": d, "kwh": round(wh / 1000, 3)} for d, wh in rows]
    assert out["total_kwh"] == round(sum(wh for _, wh in rows) / 1000, 3)
    offline = device(iot, "light", "offline")
    seen = scalar(iot, "SELECT last_seen_on FROM devices WHERE id = ?", offline)
    days = [r["day"] for r in iot.ok("list_energy_readings", device_id=offline)["readings"]]
    assert all(day <= seen for day in days)
    err = iot.error("list_energy_readings", device_id=device(iot, "sensor"))
    assert "no energy readings" in err
    assert "get_energy_usage" in err
