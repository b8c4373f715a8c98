"""What the IoT devices server's tests share: seed-data queries."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import scalar

TABLES = (
    "homes",
    "rooms",
    "devices",
    "device_states",
    "device_events",
    "schedules",
    "scenes",
    "scene_actions",
    "automations",
    "energy_readings",
)


def state(server: LiveServer, device_id: str, attribute: str) -> str | None:
    """A device's stored value of one attribute (None when it has none)."""
    rows = server.query("SELECT value FROM device_states WHERE device_id = ? AND attribute = ?", device_id, attribute)
    return rows[0][0] if rows else None


def device(server: LiveServer, kind: str, status: str = "online", extra: str = "") -> str:
    """The first device of a kind and status (and an extra SQL condition on ``d``)."""
    return scalar(
        server,
        f"SELECT d.id FROM devices d JOIN homes h ON h.id = d.home_id WHERE d.kind = ? AND d.status = ? {extra} "
        "ORDER BY d.id",
        kind,
        status,
    )


def logged(server: LiveServer, device_id: str) -> list[tuple[str, str, str, str]]:
    """(attribute, old, new, source) of a device's changes logged today."""
    return server.query(
        "SELECT attribute, old_value, new_value, source FROM device_events WHERE device_id = ? "
        "AND logged_on = '2026-01-15' ORDER BY id",
        device_id,
    )
