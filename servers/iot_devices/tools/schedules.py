"""IoT tools for schedules: recurring commands that set a device at a time of day on some days."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.iot_devices.models import Device, Schedule
from gym_mcp.servers.iot_devices.tools.common import (
    check_schedule_free,
    check_setting,
    kit,
    load_device,
    load_home,
    load_schedule,
    parse_days,
    parse_time,
    schedule_view,
)
from gym_mcp.servers.kit import ToolError, check_length, check_status, next_id

STATUSES = ("active", "paused")


@kit.tool(
    write=False,
    intent="List the[ {status}] schedules of home {home_id}[ for device {device_id}]",
    samples={"status": STATUSES},
)
def list_schedules(
    db: Session, home_id: str, device_id: str | None = None, status: str | None = None
) -> list[dict[str, Any]]:
    """List a home's schedules, by device and time, optionally only one device's or one status.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        home_id: Home id, e.g. "HOME-1001".
        device_id: Only this device's schedules, e.g. "DEV-1001".
        status: Only "active" or only "paused" schedules.
    """
    home = load_home(db, home_id)
    stmt = select(Schedule).join(Device, Device.id == Schedule.device_id).where(Device.home_id == home.id)
    if device_id is not None:
        device = load_device(db, device_id)
        if device.home_id != home.id:
            raise ToolError(f"Device {device.id} is in home {device.home_id}, not {home.id}.")
        stmt = stmt.where(Schedule.device_id == device.id)
    if status is not None:
        wanted = status.strip().lower()
        if wanted not in STATUSES:
            raise ToolError(f"status must be active or paused; got {status!r}.")
        stmt = stmt.where(Schedule.status == wanted)
    return [schedule_view(s) for s in db.scalars(stmt.order_by(Schedule.device_id, Schedule.time, Schedule.id))]


@kit.tool(
    write=True,
    intent="Schedule device {device_id} to set {attribute} to {value} at {time} on {days}[, named '{name}']",
    samples={
        "attribute": ("power", "power", "brightness", "brightness", "target_temp"),
        "value": ("on", "off", "20", "25", "30"),
        "time": ("06:45", "07:15", "08:30", "17:45", "20:15", "22:30"),
        "days": ("daily", "weekdays", "weekends", "mon,wed,fri", "sun"),
        "name": ("Wake up", "Evening lights", "Night mode", "Warm up before work", "Weekend lie-in"),
    },
)
def create_schedule(
    db: Session,
    device_id: str,
    attribute: str,
    value: str | int | float,
    time: str,
    days: str,
    name: str | None = None,
) -> dict[str, Any]:
    """Create an active schedule that sets one capability of a device at a time of day on some days.

    The setting is checked like set_device_state (a capability of the kind, in range). One device
    cannot have two active schedules at the same time on a shared day: the message names the one
    in the way. An offline device can be scheduled (it runs once it reconnects).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        device_id: Device id, e.g. "DEV-1001".
        attribute: The capability to set, e.g. "power" or "target_temp".
        value: The value to set it to, e.g. "on" or 20.
        time: Time of day, 24-hour HH:MM, e.g. "07:30".
        days: "daily", "weekdays", "weekends" or day names such as "mon,wed,fri".
        name: Optional label, up to 60 characters, e.g. "Wake up".
    """
    device = load_device(db, device_id)
    setting, text = check_setting(device, attribute, value)
    at, on = parse_time(time), parse_days(days)
    label = check_length((name or f"{device.name} {setting} at {at}").strip(), "name", 1, 60, ", e.g. 'Wake up'")
    check_schedule_free(db, device, at, on)
    schedule = Schedule(
        id=next_id(db, Schedule.id, "SCH"),
        device_id=device.id,
        name=label,
        time=at,
        days=on,
        attribute=setting,
        value=text,
        status="active",
        created_on=kit.today,
    )
    db.add(schedule)
    db.flush()
    return schedule_view(schedule)


@kit.tool(write=True, intent="Pause schedule {schedule_id}")
def pause_schedule(db: Session, schedule_id: str) -> dict[str, Any]:
    """Pause an active schedule: it stops running until resume_schedule.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        schedule_id: Schedule id, e.g. "SCH-1001".
    """
    schedule = load_schedule(db, schedule_id)
    check_status(schedule, {"paused": f"Schedule {schedule.id} is already paused; resume_schedule restarts it."})
    schedule.status = "paused"
    return schedule_view(schedule)


@kit.tool(write=True, intent="Resume schedule {schedule_id}")
def resume_schedule(db: Session, schedule_id: str) -> dict[str, Any]:
    """Resume a paused schedule, unless another active schedule now runs the device at the same time.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        schedule_id: Schedule id, e.g. "SCH-1001".
    """
    schedule = load_schedule(db, schedule_id)
    check_status(schedule, {"active": f"Schedule {schedule.id} is already active; nothing changed."})
    device = load_device(db, schedule.device_id)
    check_schedule_free(db, device, schedule.time, schedule.days, exclude=schedule.id)
    schedule.status = "active"
    return schedule_view(schedule)


@kit.tool(write=True, intent="Delete schedule {schedule_id}", confirm="always")
def delete_schedule(db: Session, schedule_id: str) -> dict[str, Any]:
    """Delete a schedule for good (active or paused). Irreversible; pause_schedule only stops it.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        schedule_id: Schedule id, e.g. "SCH-1001".
    """
    schedule = load_schedule(db, schedule_id)
    out = {**schedule_view(schedule), "deleted": True}
    db.delete(schedule)
    return out
