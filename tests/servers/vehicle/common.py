"""What the vehicle server's tests share: seed-data queries."""

from __future__ import annotations

from typing import Any

from tests.helpers import LiveServer
from tests.servers.helpers import one, scalar

TABLES = (
    "drivers",
    "vehicles",
    "profiles",
    "trips",
    "charging_sessions",
    "fuel_logs",
    "service_centers",
    "service_records",
)
MOVING = "state = 'driving' AND speed_kmh > 0"
CAN_DRIVE = """powertrain = 'fuel' OR battery_pct * battery_kwh / consumption >= 5"""


def vehicle(server: LiveServer, where: str, *params: Any) -> str:
    """The first vehicle (by id) that meets an SQL condition."""
    return scalar(server, f"SELECT id FROM vehicles WHERE {where} ORDER BY id", *params)


def row(server: LiveServer, vehicle_id: str, *columns: str) -> tuple[Any, ...]:
    """Some columns of a vehicle."""
    return one(server, f"SELECT {', '.join(columns)} FROM vehicles WHERE id = ?", vehicle_id)


def registered(server: LiveServer, where: str = "1") -> tuple[str, str, str]:
    """(vehicle, driver with a valid licence, their profile) for a parked vehicle that meets ``where``."""
    return one(
        server,
        f"""SELECT v.id, d.id, p.id FROM vehicles v JOIN profiles p ON p.vehicle_id = v.id
            JOIN drivers d ON d.id = p.driver_id
            WHERE d.license_expires >= '2026-01-15' AND v.state = 'parked' AND {where} ORDER BY v.id, p.id""",
    )
