"""IoT tools that command one device now: any setting, power, brightness, thermostat, door locks."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.iot_devices.models import Device, Home
from gym_mcp.servers.iot_devices.tools.common import apply_setting, check_setting, kit, load_device, states_of, typed
from gym_mcp.servers.kit import ToolError


def _of_kind(db: Session, device: Device, kind: str, first: str = "") -> Device:
    """The device when it is of that kind; else a `ToolError` naming the home's devices of that kind.

    For locks each is listed with its state, those in state ``first`` (e.g. "unlocked") first.
    """
    if device.kind == kind:
        return device
    others = db.scalars(select(Device).where(Device.home_id == device.home_id, Device.kind == kind).order_by(Device.id))
    listed = [(d, states_of(db, d).get("lock", "")) for d in others]
    listed.sort(key=lambda pair: pair[1] != first)
    names = ", ".join(f"{d.id} ({d.name}, {d.status}{', ' + state if state else ''})" for d, state in listed)
    raise ToolError(
        f"Device {device.id} ({device.name}) is a {device.kind}, not a {kind}. The {kind}s of home {device.home_id}: "
        f"{names or 'none'}."
    )


def _set(db: Session, device_id: str, attribute: str, value: str | int | float) -> dict[str, Any]:
    """Check and apply one setting from a direct command; the result names the device."""
    device = load_device(db, device_id)
    name, text = check_setting(device, attribute, value)
    return {"name": device.name, "kind": device.kind, **apply_setting(db, device, name, text, "manual")}


@kit.tool(
    write=True,
    intent="Set the {attribute} of device {device_id} to {value}",
    samples={
        "attribute": ("power", "power", "brightness", "brightness", "volume", "target_temp"),
        "value": ("on", "off", "25", "20", "30"),
    },
)
def set_device_state(db: Session, device_id: str, attribute: str, value: str | int | float) -> dict[str, Any]:
    """Set one capability of a device to a value, e.g. a light's color_temp or a speaker's volume.

    The attribute must be a capability of the device's kind (get_device lists them with their
    allowed values: brightness/volume/position 0-100, target_temp 10-30 C in 0.5 steps,
    color_temp 2700-6500 K in steps of 100, power on/off...), and the device must be online.
    Readings (a sensor's temperature, a lock's battery) cannot be set. Returns the old and new
    value; changed is false when it already had that value.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        device_id: Device id, e.g. "DEV-1001".
        attribute: The capability to set, e.g. "brightness", "power", "mode" or "volume".
        value: The new value, a word or a number as the capability needs, e.g. "on", 60 or "21.5".
    """
    return _set(db, device_id, attribute, value)


@kit.tool(write=True, intent="Turn on device {device_id}")
def turn_on_device(db: Session, device_id: str) -> dict[str, Any]:
    """Switch a device on (its power capability); locks, blinds and sensors have no power switch.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        device_id: Device id, e.g. "DEV-1001".
    """
    return _set(db, device_id, "power", "on")


@kit.tool(write=True, intent="Turn off device {device_id}")
def turn_off_device(db: Session, device_id: str) -> dict[str, Any]:
    """Switch a device off (its power capability); locks, blinds and sensors have no power switch.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        device_id: Device id, e.g. "DEV-1001".
    """
    return _set(db, device_id, "power", "off")


@kit.tool(
    write=True,
    intent="Set the brightness of light {device_id} to {brightness}%",
    samples={"brightness": (10, 25, 40, 60, 80, 100)},
)
def set_brightness(db: Session, device_id: str, brightness: int) -> dict[str, Any]:
    """Dim or brighten a light: brightness 0 to 100 percent (only lights have brightness).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        device_id: Device id of a light, e.g. "DEV-1001".
        brightness: Percent, 0 to 100, e.g. 60.
    """
    return _set(db, device_id, "brightness", brightness)


@kit.tool(
    write=True,
    intent="Set thermostat {device_id} to {target_temp_c} C[ in {mode} mode]",
    samples={"target_temp_c": (18, 19.5, 20, 21, 22.5, 24), "mode": ("heat", "cool", "auto", "eco")},
)
def set_thermostat(db: Session, device_id: str, target_temp_c: float, mode: str | None = None) -> dict[str, Any]:
    """Set a thermostat's target temperature (10 to 30 C in 0.5 steps) and optionally its mode.

    Both changes are checked before either is made. Returns the thermostat's changes.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        device_id: Device id of a thermostat, e.g. "DEV-1005".
        target_temp_c: Target in degrees Celsius, 10 to 30 in steps of 0.5, e.g. 21.5.
        mode: Optional mode: "heat", "cool", "auto" or "eco".
    """
    device = _of_kind(db, load_device(db, device_id), "thermostat")
    changes = [check_setting(device, "target_temp", target_temp_c)]
    if mode is not None:
        changes.append(check_setting(device, "mode", mode))
    applied = [apply_setting(db, device, name, text, "manual") for name, text in changes]
    return {
        "device_id": device.id,
        "name": device.name,
        "target_temp_c": typed(changes[0][1]),
        "changes": applied,
    }


@kit.tool(write=True, intent="Lock door lock {device_id}")
def lock_door(db: Session, device_id: str) -> dict[str, Any]:
    """Lock a door lock (only locks can be locked); the lock must be online.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        device_id: Device id of a lock, e.g. "DEV-1004".
    """
    _of_kind(db, load_device(db, device_id), "lock", first="unlocked")
    return _set(db, device_id, "lock", "locked")


@kit.tool(write=True, intent="Unlock door lock {device_id}", confirm="always")
def unlock_door(db: Session, device_id: str) -> dict[str, Any]:
    """Unlock a door lock, letting anyone in; confirm with the user first. The lock must be online.

    Refused while the home is in away or vacation mode (switch it to home mode with
    set_home_mode first).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        device_id: Device id of a lock, e.g. "DEV-1004".
    """
    device = _of_kind(db, load_device(db, device_id), "lock", first="locked")
    home = db.get(Home, device.home_id)
    if home is not None and home.mode in ("away", "vacation"):
        raise ToolError(
            f"Home {home.id} is in {home.mode} mode, which keeps its doors locked; switch it to home mode with "
            f"set_home_mode before unlocking {device.id} ({device.name}). Nothing was changed."
        )
    return _set(db, device_id, "lock", "unlocked")
