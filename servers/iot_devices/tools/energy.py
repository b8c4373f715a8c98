"""IoT tools for energy: daily readings of a device and a home's use over a date range."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gym_mcp.servers.iot_devices.models import Device, EnergyReading, Room
from gym_mcp.servers.iot_devices.tools.common import date_span, kit, load_device, load_home
from gym_mcp.servers.kit import ToolError

START_SAMPLES = ("2026-01-01", "2026-01-04", "2026-01-07", "2026-01-08")
END_SAMPLES = ("2026-01-10", "2026-01-12", "2026-01-14")


def _kwh(wh: int) -> float:
    """Watt-hours as kilowatt-hours rounded to 3 decimals."""
    return round(wh / 1000, 3)


@kit.tool(
    write=False,
    intent="Show the energy use of home {home_id}[ from {start_date}][ through {end_date}]",
    samples={"start_date": START_SAMPLES, "end_date": END_SAMPLES},
)
def get_energy_usage(
    db: Session, home_id: str, start_date: str | None = None, end_date: str | None = None
) -> dict[str, Any]:
    """Total energy a home used over a date range, in kWh, with the totals per device and per room.

    Readings are daily and end yesterday; the range defaults to the seven days before today and
    is at most 92 days. Devices are listed from the biggest user down.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        home_id: Home id, e.g. "HOME-1001".
        start_date: First day, e.g. "2026-01-01".
        end_date: Last day, at the latest yesterday, e.g. "2026-01-14".
    """
    home = load_home(db, home_id)
    first, last = date_span(start_date, end_date)
    rows = db.execute(
        select(Device.id, Device.name, Device.room_id, func.sum(EnergyReading.wh))
        .join(EnergyReading, EnergyReading.device_id == Device.id)
        .where(Device.home_id == home.id, EnergyReading.day >= first, EnergyReading.day <= last)
        .group_by(Device.id, Device.name, Device.room_id)
        .order_by(func.sum(EnergyReading.wh).desc(), Device.id)
    ).all()
    rooms = {r.id: r.name for r in db.scalars(select(Room).where(Room.home_id == home.id))}
    per_room: dict[str, int] = {}
    for _, _, room_id, wh in rows:
        per_room[rooms.get(room_id, room_id)] = per_room.get(rooms.get(room_id, room_id), 0) + wh
    return {
        "home_id": home.id,
        "start_date": first.isoformat(),
        "end_date": last.isoformat(),
        "total_kwh": _kwh(sum(r[3] for r in rows)),
        "by_device": [{"device_id": d, "name": n, "kwh": _kwh(wh)} for d, n, _, wh in rows],
        "by_room": {room: _kwh(wh) for room, wh in sorted(per_room.items(), key=lambda x: (-x[1], x[0]))},
    }


@kit.tool(
    write=False,
    intent="List the daily energy readings of device {device_id}[ from {start_date}][ through {end_date}]",
    samples={"start_date": START_SAMPLES, "end_date": END_SAMPLES},
)
def list_energy_readings(
    db: Session, device_id: str, start_date: str | None = None, end_date: str | None = None
) -> dict[str, Any]:
    """A device's daily energy readings in kWh over a date range, with their total.

    Readings end yesterday (and on the last day an offline device was seen); the range defaults
    to the seven days before today. Sensors run on batteries and have no readings.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        device_id: Device id, e.g. "DEV-1001".
        start_date: First day, e.g. "2026-01-01".
        end_date: Last day, at the latest yesterday, e.g. "2026-01-14".
    """
    device = load_device(db, device_id)
    if device.kind == "sensor":
        raise ToolError(
            f"Device {device.id} ({device.name}) is a battery-powered sensor and has no energy readings; "
            f"get_energy_usage with home_id {device.home_id} shows the devices that do."
        )
    first, last = date_span(start_date, end_date)
    rows = db.scalars(
        select(EnergyReading)
        .where(EnergyReading.device_id == device.id, EnergyReading.day >= first, EnergyReading.day <= last)
        .order_by(EnergyReading.day)
    ).all()
    return {
        "device_id": device.id,
        "name": device.name,
        "start_date": first.isoformat(),
        "end_date": last.isoformat(),
        "readings": [{"day": r.day.isoformat(), "kwh": _kwh(r.wh)} for r in rows],
        "total_kwh": _kwh(sum(r.wh for r in rows)),
    }
