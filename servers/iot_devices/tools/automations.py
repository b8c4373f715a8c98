"""IoT tools for automations: when one device emits an event (the trigger), set another device (the action)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.iot_devices.models import Automation
from gym_mcp.servers.iot_devices.tools.common import (
    automation_view,
    check_setting,
    kind_of,
    kit,
    load_automation,
    load_device,
    load_home,
)
from gym_mcp.servers.kit import ToolError, check_length, next_id


def _check_clash(db: Session, automation: Automation) -> None:
    """Refuse a second enabled automation that sets the same device attribute on the same trigger."""
    other = db.scalar(
        select(Automation)
        .where(
            Automation.enabled.is_(True),
            Automation.id != automation.id,
            Automation.trigger_device_id == automation.trigger_device_id,
            Automation.trigger_event == automation.trigger_event,
            Automation.action_device_id == automation.action_device_id,
            Automation.action_attribute == automation.action_attribute,
        )
        .order_by(Automation.id)
    )
    if other is not None:
        raise ToolError(
            f"Enabled automation {other.id} ('{other.name}') already sets {other.action_attribute} of "
            f"{other.action_device_id} to {other.action_value} when {other.trigger_device_id} reports "
            f"{other.trigger_event}; two automations cannot set one attribute on the same trigger. Disable "
            f"{other.id} with disable_automation first, or choose another trigger or action."
        )


@kit.tool(
    write=False,
    intent="List the[ {status}] automations of home {home_id}",
    samples={"status": ("enabled", "disabled")},
)
def list_automations(db: Session, home_id: str, status: str | None = None) -> list[dict[str, Any]]:
    """List a home's automations (trigger device and event, action device, attribute and value).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        home_id: Home id, e.g. "HOME-1001".
        status: Only "enabled" or only "disabled" automations; leave out for all.
    """
    home = load_home(db, home_id)
    stmt = select(Automation).where(Automation.home_id == home.id)
    if status is not None:
        wanted = status.strip().lower()
        if wanted not in ("enabled", "disabled"):
            raise ToolError(f"status must be enabled or disabled; got {status!r}.")
        stmt = stmt.where(Automation.enabled.is_(wanted == "enabled"))
    return [automation_view(a) for a in db.scalars(stmt.order_by(Automation.id))]


@kit.tool(
    write=True,
    intent="Create an automation: when device {trigger_device_id} reports {trigger_event}, set the "
    "{action_attribute} of device {action_device_id} to {action_value}[, named '{name}']",
    samples={
        "trigger_event": ("motion_detected", "unlocked", "motion_detected", "person_detected", "locked", "opened"),
        "action_attribute": ("power", "power", "power", "brightness", "volume"),
        "action_value": ("on", "off", "on", "25"),
        "name": ("Welcome light", "Night path", "Intruder alert", "Lights out", "Warm welcome"),
    },
)
def create_automation(
    db: Session,
    trigger_device_id: str,
    trigger_event: str,
    action_device_id: str,
    action_attribute: str,
    action_value: str | int | float,
    name: str | None = None,
) -> dict[str, Any]:
    """Create an enabled automation: when the trigger device emits an event, set a capability of another device.

    Both devices must be in the same home and differ. The event must be one the trigger's kind
    emits (get_device lists its trigger_events: a sensor reports motion_detected, a lock
    unlocked...), and the action must be a valid setting of the action device's kind. Refused if
    an enabled automation already sets that attribute on the same trigger.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        trigger_device_id: The device whose event starts it, e.g. "DEV-1012".
        trigger_event: The event, e.g. "motion_detected", "unlocked" or "turned_on".
        action_device_id: The device to set, e.g. "DEV-1002".
        action_attribute: Its capability to set, e.g. "power".
        action_value: The value to set, e.g. "on" or 40.
        name: Optional label, up to 60 characters, e.g. "Welcome light".
    """
    trigger = load_device(db, trigger_device_id, "trigger_device_id")
    action = load_device(db, action_device_id, "action_device_id")
    if trigger.id == action.id:
        raise ToolError(f"trigger_device_id and action_device_id are both {trigger.id}; pick two different devices.")
    if trigger.home_id != action.home_id:
        raise ToolError(
            f"Device {action.id} is in home {action.home_id} but the trigger {trigger.id} is in {trigger.home_id}; "
            f"an automation links devices of one home (list_devices with home_id {trigger.home_id})."
        )
    kind = kind_of(trigger)
    event = trigger_event.strip().lower()
    if event not in kind.events:
        raise ToolError(
            f"A {kind.name} like {trigger.id} ({trigger.name}) does not emit {trigger_event!r}; its events are: "
            f"{', '.join(kind.events)}."
        )
    attribute, value = check_setting(action, action_attribute, action_value)
    label = (name or f"When {trigger.name} reports {event}: {action.name} {attribute} {value}").strip()
    automation = Automation(
        id=next_id(db, Automation.id, "AUT"),
        home_id=trigger.home_id,
        name=check_length(label[:60] if name is None else label, "name", 1, 60, ", e.g. 'Welcome light'"),
        trigger_device_id=trigger.id,
        trigger_event=event,
        action_device_id=action.id,
        action_attribute=attribute,
        action_value=value,
        enabled=True,
        created_on=kit.today,
    )
    _check_clash(db, automation)
    db.add(automation)
    db.flush()
    return automation_view(automation)


@kit.tool(write=True, intent="Enable automation {automation_id}")
def enable_automation(db: Session, automation_id: str) -> dict[str, Any]:
    """Enable a disabled automation, unless an enabled one already sets that attribute on the same trigger.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        automation_id: Automation id, e.g. "AUT-1001".
    """
    automation = load_automation(db, automation_id)
    if automation.enabled:
        raise ToolError(f"Automation {automation.id} is already enabled; nothing changed.")
    _check_clash(db, automation)
    automation.enabled = True
    return automation_view(automation)


@kit.tool(write=True, intent="Disable automation {automation_id}")
def disable_automation(db: Session, automation_id: str) -> dict[str, Any]:
    """Disable an enabled automation: it stays listed but no longer runs (enable_automation restores it).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        automation_id: Automation id, e.g. "AUT-1001".
    """
    automation = load_automation(db, automation_id)
    if not automation.enabled:
        raise ToolError(f"Automation {automation.id} is already disabled; nothing changed.")
    automation.enabled = False
    return automation_view(automation)
