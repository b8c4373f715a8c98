"""IoT tools for devices: list and read them, move one to another room, remove one from its home."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.iot_devices.models import (
    KINDS,
    Automation,
    Device,
    DeviceEvent,
    DeviceState,
    EnergyReading,
    Room,
    SceneAction,
    Schedule,
)
from gym_mcp.servers.iot_devices.tools.common import device_view, kit, load_device, load_home, load_room
from gym_mcp.servers.kit import ToolError

STATUSES = ("online", "offline")


@kit.tool(
    write=False,
    intent="List the[ {status}][ {kind}] devices of home {home_id}[ in room {room_id}]",
    samples={"kind": ("light", "lock", "thermostat", "camera", "plug", "sensor"), "status": STATUSES},
)
def list_devices(
    db: Session, home_id: str, room_id: str | None = None, kind: str | None = None, status: str | None = None
) -> list[dict[str, Any]]:
    """List a home's devices with their current state, optionally only one room, kind or status.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        home_id: Home id, e.g. "HOME-1001".
        room_id: Only devices in this room of the home, e.g. "ROOM-1001" (get_home lists the rooms).
        kind: Only this kind: light, thermostat, lock, camera, plug, speaker, blind or sensor.
        status: Only "online" or only "offline" devices.
    """
    home = load_home(db, home_id)
    stmt = select(Device).where(Device.home_id == home.id)
    if room_id is not None:
        room = load_room(db, room_id)
        if room.home_id != home.id:
            raise ToolError(f"Room {room.id} belongs to {room.home_id}, not {home.id}; get_home lists its rooms.")
        stmt = stmt.where(Device.room_id == room.id)
    if kind is not None:
        wanted = kind.strip().lower()
        if wanted not in KINDS:
            raise ToolError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}.")
        stmt = stmt.where(Device.kind == wanted)
    if status is not None:
        state = status.strip().lower()
        if state not in STATUSES:
            raise ToolError(f"status must be online or offline; got {status!r}.")
        stmt = stmt.where(Device.status == state)
    return [device_view(db, d) for d in db.scalars(stmt.order_by(Device.id))]


@kit.tool(write=False, intent="Show device {device_id} with its capabilities")
def get_device(db: Session, device_id: str) -> dict[str, Any]:
    """Get one device: status, current state, the capabilities it can set with their allowed values.

    Also lists the readings it reports, the events it can trigger automations with, and its last
    five setting changes.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        device_id: Device id, e.g. "DEV-1001".
    """
    return device_view(db, load_device(db, device_id), full=True)


@kit.tool(write=True, intent="Move device {device_id} to room {room_id}")
def move_device(db: Session, device_id: str, room_id: str) -> dict[str, Any]:
    """Move a device to another room of the same home (its settings, schedules and scenes stay).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        device_id: Device id, e.g. "DEV-1001".
        room_id: A room of the device's home, e.g. "ROOM-1002" (get_home lists them).
    """
    device = load_device(db, device_id)
    room = load_room(db, room_id)
    others = db.scalars(
        select(Room).where(Room.home_id == device.home_id, Room.id != device.room_id).order_by(Room.id)
    ).all()
    choices = ", ".join(f"{r.id} ({r.name})" for r in others)
    if room.home_id != device.home_id:
        raise ToolError(
            f"Room {room.id} is in home {room.home_id}, but device {device.id} is in {device.home_id}; a device "
            f"moves only within its home. Rooms it can move to: {choices}."
        )
    if room.id == device.room_id:
        raise ToolError(f"Device {device.id} is already in {room.id} ({room.name}). Other rooms: {choices}.")
    previous, device.room_id = device.room_id, room.id
    db.flush()
    return {**device_view(db, device), "previous_room_id": previous}


@kit.tool(write=True, intent="Remove device {device_id} from its home", confirm="always")
def remove_device(db: Session, device_id: str) -> dict[str, Any]:
    """Remove a device from its home for good, with its schedules, scene settings and history. Irreversible.

    Refused while an enabled automation triggers on the device or acts on it (disable_automation
    first); disabled automations that use it are deleted with it. Returns what was deleted.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        device_id: Device id, e.g. "DEV-1001".
    """
    device = load_device(db, device_id)
    uses = or_(Automation.trigger_device_id == device.id, Automation.action_device_id == device.id)
    automations = db.scalars(select(Automation).where(uses).order_by(Automation.id)).all()
    enabled = [a for a in automations if a.enabled]
    if enabled:
        names = ", ".join(f"{a.id} ('{a.name}')" for a in enabled)
        raise ToolError(
            f"Device {device.id} ({device.name}) is used by enabled automation(s) {names}; disable them with "
            "disable_automation first. Nothing was removed."
        )
    deleted = {
        "schedules": db.scalar(select(func.count()).where(Schedule.device_id == device.id)),
        "scene_settings": db.scalar(select(func.count()).where(SceneAction.device_id == device.id)),
        "automations": len(automations),
    }
    for automation in automations:
        db.delete(automation)
    for model in (Schedule, SceneAction, DeviceState, DeviceEvent, EnergyReading):
        db.execute(delete(model).where(model.device_id == device.id))
    db.delete(device)
    return {"device_id": device.id, "name": device.name, "home_id": device.home_id, "removed": True, "deleted": deleted}
