"""What the IoT tools share: the kit, id lookups, the capability rules, schedule times, result shapes.

A setting travels as text or a number (``"on"``, ``55``, ``"21.5"``) and is stored as canonical
text; `check_setting` refuses an attribute the device's kind cannot set (naming what it can) and
a value outside the capability's words or range. `apply_setting` changes one setting of an
online device and logs the change.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.iot_devices.data import day_set, seed
from gym_mcp.servers.iot_devices.models import (
    DAY_NAMES,
    KINDS,
    TODAY,
    Automation,
    Base,
    Device,
    DeviceEvent,
    DeviceState,
    Home,
    Kind,
    Room,
    Scene,
    SceneAction,
    Schedule,
)
from gym_mcp.servers.kit import Finder, ServerKit, ToolError, next_id, parse_date, pick

__all__ = [
    "apply_setting",
    "automation_view",
    "check_online",
    "check_schedule_free",
    "check_setting",
    "date_span",
    "device_view",
    "kind_of",
    "kit",
    "load_automation",
    "load_device",
    "load_home",
    "load_room",
    "load_scene",
    "load_schedule",
    "parse_days",
    "parse_time",
    "scene_view",
    "schedule_view",
    "states_of",
    "typed",
]

INSTRUCTIONS = f"""\
Smart-home hub of Brightnest. Homes ("HOME-1001") have rooms ("ROOM-1001") and devices
("DEV-1001") of these kinds: light, thermostat, lock, camera, plug, speaker, blind and sensor.
Each kind can set only its own capabilities (get_device lists them with their allowed values:
brightness 0-100, thermostat target_temp 10-30 C in 0.5 steps...); sensors only report readings.
An offline device cannot be commanded. Schedules ("SCH-1001") set a device at a time of day on
some days (two active schedules of one device cannot share a time), scenes ("SCN-1001") apply
several settings at once (all or nothing), automations ("AUT-1001") set a device when another
emits an event. Start with list_homes, then get_home / list_devices. Dates look like
"2026-01-20"; today is {TODAY.isoformat()}."""

kit = ServerKit(
    "iot_devices",
    base=Base,
    seed=seed,
    instructions=INSTRUCTIONS,
    today=TODAY,
    samples={"limit": (5, 10, 20)},
    inline=True,
)

# -- lookups ------------------------------------------------------------------------------------

_MISSING = "No {noun} with id {id!r}. {Noun} ids look like '{example}'; {hint}."
load_home = Finder(Home, "home", "HOME-1001", "use list_homes to see valid ones", message=_MISSING)
load_room = Finder(Room, "room", "ROOM-1001", "use get_home to see the rooms of a home", message=_MISSING)
load_device = Finder(
    Device, "device", "DEV-1001", "use list_devices with the home's id to see valid ones", message=_MISSING
)
load_schedule = Finder(
    Schedule, "schedule", "SCH-1001", "use list_schedules with the home's id to see valid ones", message=_MISSING
)
load_scene = Finder(
    Scene, "scene", "SCN-1001", "use list_scenes with the home's id to see valid ones", message=_MISSING
)
load_automation = Finder(
    Automation, "automation", "AUT-1001", "use list_automations with the home's id to see valid ones", message=_MISSING
)


def kind_of(device: Device) -> Kind:
    """The kind of a device (its capabilities, readings and events)."""
    return KINDS[device.kind]


# -- capabilities ---------------------------------------------------------------------------------


def typed(value: str) -> str | int | float:
    """A stored value for results: numbers as numbers (``"55"`` -> 55, ``"21.5"`` -> 21.5), words as text."""
    try:
        number = float(value)
    except ValueError:
        return value
    return int(number) if number.is_integer() else number


def check_setting(device: Device, attribute: str, value: str | int | float) -> tuple[str, str]:
    """Validate a setting for a device's kind; return (attribute, canonical value text).

    Raises:
        ToolError: The kind cannot set the attribute (the message names what it can set), or the
            value is not one of the capability's words or is outside its range or step.
    """
    kind = kind_of(device)
    name = attribute.strip().lower() if isinstance(attribute, str) else ""
    cap = kind.capability(name)
    label = f"{device.id} ({device.name}) is a {kind.name}"
    if cap is None:
        what = "a reading it reports, not a setting" if name in kind.readings else "not a capability of that kind"
        raise ToolError(
            f"Cannot set {attribute!r}: {label} and {attribute!r} is {what}. A {kind.name} can set: "
            f"{kind.capability_names}. get_device shows each capability's allowed values."
        )
    if cap.words:
        text = str(value).strip().lower()
        if text not in cap.words:
            raise ToolError(f"{cap.name} of a {kind.name} must be {cap.allowed}, got {value!r}.")
        return cap.name, text
    try:
        number = Decimal(str(value).strip().rstrip("%CcKk ").strip()) if not isinstance(value, bool) else None
    except InvalidOperation:
        number = None
    if number is None or not number.is_finite():
        raise ToolError(f"{cap.name} of a {kind.name} must be a number from {cap.allowed}, got {value!r}.")
    low, high, step = Decimal(str(cap.low)), Decimal(str(cap.high)), Decimal(str(cap.step))
    if not low <= number <= high or (number - low) % step != 0:
        raise ToolError(f"{cap.name} of a {kind.name} must be {cap.allowed}, got {value}; pick a value in that range.")
    return cap.name, f"{float(number):g}"


def check_online(device: Device) -> None:
    """Refuse to command an offline device, saying since when it is offline."""
    if device.status != "online":
        raise ToolError(
            f"Device {device.id} ({device.name}) is offline (last seen {device.last_seen_on}); an offline device "
            "cannot be commanded and nothing was changed. Try again once it reconnects, or use another device "
            "(list_devices with status='online')."
        )


def states_of(db: Session, device: Device) -> dict[str, str]:
    """A device's current settings and readings, by attribute."""
    rows = db.scalars(select(DeviceState).where(DeviceState.device_id == device.id).order_by(DeviceState.attribute))
    return {r.attribute: r.value for r in rows}


def apply_setting(db: Session, device: Device, attribute: str, value: str, source: str) -> dict[str, Any]:
    """Set one (already checked) setting of an online device; log it when it changes.

    Returns:
        {device_id, attribute, old_value, new_value, changed}.
    """
    check_online(device)
    row = db.get(DeviceState, (device.id, attribute))
    old = row.value if row is not None else ""
    if row is None:
        db.add(DeviceState(device_id=device.id, attribute=attribute, value=value))
    else:
        row.value = value
    if old != value:
        db.add(
            DeviceEvent(
                id=next_id(db, DeviceEvent.id, "LOG"),
                device_id=device.id,
                attribute=attribute,
                old_value=old,
                new_value=value,
                source=source,
                logged_on=kit.today,
            )
        )
        db.flush()
    return {
        "device_id": device.id,
        "attribute": attribute,
        "old_value": typed(old) if old else None,
        "new_value": typed(value),
        "changed": old != value,
    }


# -- schedule times -----------------------------------------------------------------------------

_DAY_ALIASES = {"daily": set(DAY_NAMES), "weekdays": set(DAY_NAMES[:5]), "weekends": {"sat", "sun"}}


def parse_time(value: str) -> str:
    """A time of day as ``HH:MM`` (24-hour), or a `ToolError` with an example."""
    text = value.strip() if isinstance(value, str) else ""
    match = re.fullmatch(r"(\d{1,2}):(\d{2})", text)
    if not match or int(match.group(1)) > 23 or int(match.group(2)) > 59:
        raise ToolError(f"time {value!r} is not a time of day; use 24-hour HH:MM such as '07:30' or '22:00'.")
    return f"{int(match.group(1)):02d}:{match.group(2)}"


def parse_days(value: str) -> str:
    """Days of the week as canonical text: daily, weekdays, weekends, or e.g. ``"mon,wed,fri"``."""
    text = value.strip().lower() if isinstance(value, str) else ""
    if text in _DAY_ALIASES:
        return text
    parts = [p.strip()[:3] for p in re.split(r"[,\s]+", text) if p.strip()]
    if not parts or any(p not in DAY_NAMES for p in parts):
        raise ToolError(
            f"days {value!r} is not valid; use 'daily', 'weekdays', 'weekends' or day names such as 'mon,wed,fri'."
        )
    chosen = set(parts)
    for alias, days in _DAY_ALIASES.items():
        if chosen == days:
            return alias
    return ",".join(d for d in DAY_NAMES if d in chosen)


def check_schedule_free(db: Session, device: Device, time: str, days: str, exclude: str | None = None) -> None:
    """Refuse a second active schedule of a device at the same time on a shared day."""
    rows = db.scalars(
        select(Schedule)
        .where(Schedule.device_id == device.id, Schedule.time == time, Schedule.status == "active")
        .order_by(Schedule.id)
    )
    for other in rows:
        shared = day_set(other.days) & day_set(days)
        if other.id != exclude and shared:
            common = ",".join(d for d in DAY_NAMES if d in shared)
            raise ToolError(
                f"Schedule conflict: {other.id} ('{other.name}') already runs {device.id} at {time} on {other.days} "
                f"(shared days: {common}); one device cannot have two schedules at the same time. Pick another "
                f"time or days, or pause_schedule / delete_schedule {other.id} first."
            )


def date_span(start_date: str | None, end_date: str | None) -> tuple[date, date]:
    """An inclusive date range up to yesterday; by default the seven days before today."""
    last = parse_date(end_date, "end_date") if end_date else kit.today - timedelta(days=1)
    first = parse_date(start_date, "start_date") if start_date else last - timedelta(days=6)
    if last < first:
        raise ToolError(f"end_date {last} is before start_date {first}; swap them.")
    if last >= kit.today:
        raise ToolError(
            f"end_date {last} has no readings yet: readings end yesterday, {kit.today - timedelta(days=1)}."
        )
    if (last - first).days >= 92:
        raise ToolError("The date range is limited to 92 days; ask for a shorter range.")
    return first, last


# -- result shapes ------------------------------------------------------------------------------


def device_view(db: Session, device: Device, *, full: bool = False) -> dict[str, Any]:
    """The fields of a device a model needs; ``full`` adds capabilities, events and recent changes."""
    room = db.get(Room, device.room_id)
    out: dict[str, Any] = {
        "device_id": device.id,
        **pick(device, "name", "kind", "home_id", "room_id"),
        "room": room.name if room else None,
        "status": device.status,
        "state": {k: typed(v) for k, v in states_of(db, device).items()},
    }
    if not full:
        return out
    kind = kind_of(device)
    out["brand"] = device.brand
    out["last_seen_on"] = device.last_seen_on.isoformat()
    out["capabilities"] = {c.name: c.allowed for c in kind.capabilities}
    out["readings"] = list(kind.readings)
    out["trigger_events"] = list(kind.events)
    recent = db.scalars(
        select(DeviceEvent).where(DeviceEvent.device_id == device.id).order_by(DeviceEvent.id.desc()).limit(5)
    )
    out["recent_changes"] = [
        {**pick(e, "attribute", "source"), "from": typed(e.old_value), "to": typed(e.new_value), "on": e.logged_on}
        for e in recent
    ]
    return out


def schedule_view(schedule: Schedule) -> dict[str, Any]:
    """The fields of a schedule a model needs."""
    return {
        "schedule_id": schedule.id,
        **pick(schedule, "device_id", "name", "time", "days", "attribute"),
        "value": typed(schedule.value),
        "status": schedule.status,
    }


def scene_view(db: Session, scene: Scene) -> dict[str, Any]:
    """A scene with its settings."""
    actions = db.scalars(
        select(SceneAction)
        .where(SceneAction.scene_id == scene.id)
        .order_by(SceneAction.device_id, SceneAction.attribute)
    )
    return {
        "scene_id": scene.id,
        **pick(scene, "home_id", "name", "last_applied_on"),
        "settings": [{**pick(a, "device_id", "attribute"), "value": typed(a.value)} for a in actions],
    }


def automation_view(automation: Automation) -> dict[str, Any]:
    """The fields of an automation a model needs."""
    return {
        "automation_id": automation.id,
        **pick(automation, "home_id", "name", "trigger_device_id", "trigger_event"),
        **pick(automation, "action_device_id", "action_attribute"),
        "action_value": typed(automation.action_value),
        "enabled": automation.enabled,
    }
