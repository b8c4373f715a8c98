"""Data model of the IoT devices server: homes, rooms, devices and their states, schedules, scenes, automations.

What a device can do depends on its kind: `KINDS` lists each kind's settable capabilities (with
the values or the range each accepts), the readings it only reports, and the events it can
trigger an automation with. A device's current values live in ``device_states``, one row per
attribute, as text (``"on"``, ``"55"``, ``"21.5"``). Ids are stable, human-readable strings
(``HOME-1001``, ``ROOM-1001``, ``DEV-1001``, ``SCH-1001``, ``SCN-1001``, ``AUT-1001``,
``LOG-1001``); new ones take the next number after the largest in the table, so replaying the
same calls yields the same ids.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import Boolean, Date, ForeignKey, Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from gym_mcp.servers.kit import string_id, volatile_timestamp

__all__ = [
    "DAY_NAMES",
    "HOME_MODES",
    "KINDS",
    "TODAY",
    "Automation",
    "Base",
    "Capability",
    "Device",
    "DeviceEvent",
    "DeviceState",
    "EnergyReading",
    "Home",
    "Kind",
    "Room",
    "Scene",
    "SceneAction",
    "Schedule",
]

TODAY = date(2026, 1, 15)
"""The server's fixed reference date (the kit's ``today``)."""

HOME_MODES = ("home", "away", "night", "vacation")
DAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


@dataclass(frozen=True)
class Capability:
    """One settable attribute: either a set of words or a numeric range (with a step)."""

    name: str
    words: tuple[str, ...] = ()
    low: float = 0
    high: float = 0
    step: float = 1
    unit: str = ""

    @property
    def allowed(self) -> str:
        """What the capability accepts, for messages, e.g. ``"on or off"`` or ``"10 to 30 C"``."""
        if self.words:
            return " or ".join(self.words)
        unit = f" {self.unit}" if self.unit else ""
        step = f" in steps of {self.step:g}" if self.step != 1 else ""
        return f"{self.low:g} to {self.high:g}{unit}{step}"


@dataclass(frozen=True)
class Kind:
    """A device kind: what can be set, what it only reports, what events it emits."""

    name: str
    capabilities: tuple[Capability, ...]
    readings: tuple[str, ...]
    events: tuple[str, ...]

    def capability(self, attribute: str) -> Capability | None:
        """The settable capability of that name, or None."""
        return next((c for c in self.capabilities if c.name == attribute), None)

    @property
    def capability_names(self) -> str:
        """The settable attributes for messages, e.g. ``"power, brightness, color_temp"``."""
        return ", ".join(c.name for c in self.capabilities) or "none (it only reports readings)"


POWER = Capability("power", ("on", "off"))
ON_OFF_EVENTS = ("turned_on", "turned_off")
KINDS = {
    k.name: k
    for k in (
        Kind(
            "light",
            (
                POWER,
                Capability("brightness", low=0, high=100, unit="%"),
                Capability("color_temp", low=2700, high=6500, step=100, unit="K"),
            ),
            (),
            ON_OFF_EVENTS,
        ),
        Kind(
            "thermostat",
            (
                POWER,
                Capability("target_temp", low=10, high=30, step=0.5, unit="C"),
                Capability("mode", ("heat", "cool", "auto", "eco")),
            ),
            ("current_temp",),
            (*ON_OFF_EVENTS, "temperature_high", "temperature_low"),
        ),
        Kind("lock", (Capability("lock", ("locked", "unlocked")),), ("battery",), ("locked", "unlocked")),
        Kind(
            "camera",
            (POWER, Capability("recording", ("on", "off")), Capability("night_vision", ("on", "off"))),
            (),
            ("motion_detected", "person_detected"),
        ),
        Kind("plug", (POWER,), (), ON_OFF_EVENTS),
        Kind("speaker", (POWER, Capability("volume", low=0, high=100, unit="%")), (), ON_OFF_EVENTS),
        Kind("blind", (Capability("position", low=0, high=100, unit="% open"),), ("battery",), ("opened", "closed")),
        Kind(
            "sensor",
            (),
            ("temperature", "humidity", "motion", "battery"),
            ("motion_detected", "motion_cleared", "temperature_high", "temperature_low"),
        ),
    )
}
"""Every device kind by name."""


class Base(DeclarativeBase):
    """Declarative base of the IoT tables."""


class Home(Base):
    """A household with its mode (home, away, night or vacation)."""

    __tablename__ = "homes"

    id: Mapped[str] = string_id()
    name: Mapped[str] = mapped_column(String(80))
    owner: Mapped[str] = mapped_column(String(80))
    city: Mapped[str] = mapped_column(String(60))
    mode: Mapped[str] = mapped_column(String(12))


class Room(Base):
    """A room of a home."""

    __tablename__ = "rooms"

    id: Mapped[str] = string_id()
    home_id: Mapped[str] = mapped_column(ForeignKey("homes.id"), index=True)
    name: Mapped[str] = mapped_column(String(60))
    floor: Mapped[int] = mapped_column(Integer)


class Device(Base):
    """A connected device in a room; an offline one cannot be commanded."""

    __tablename__ = "devices"

    id: Mapped[str] = string_id()
    home_id: Mapped[str] = mapped_column(ForeignKey("homes.id"), index=True)
    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id"), index=True)
    name: Mapped[str] = mapped_column(String(80))
    kind: Mapped[str] = mapped_column(String(16))
    brand: Mapped[str] = mapped_column(String(40))
    status: Mapped[str] = mapped_column(String(10))
    last_seen_on: Mapped[date] = mapped_column(Date)
    created_at: Mapped[datetime] = volatile_timestamp()


class DeviceState(Base):
    """The current value of one attribute (setting or reading) of a device, as text."""

    __tablename__ = "device_states"

    device_id: Mapped[str] = mapped_column(ForeignKey("devices.id"), primary_key=True)
    attribute: Mapped[str] = mapped_column(String(20), primary_key=True)
    value: Mapped[str] = mapped_column(String(20))


class DeviceEvent(Base):
    """One change of a device's setting: who or what made it, from which value to which."""

    __tablename__ = "device_events"

    id: Mapped[str] = string_id()
    device_id: Mapped[str] = mapped_column(ForeignKey("devices.id"), index=True)
    attribute: Mapped[str] = mapped_column(String(20))
    old_value: Mapped[str] = mapped_column(String(20))
    new_value: Mapped[str] = mapped_column(String(20))
    source: Mapped[str] = mapped_column(String(40))
    logged_on: Mapped[date] = mapped_column(Date)


class Schedule(Base):
    """A recurring command: set one attribute of a device at a time of day on some days of the week."""

    __tablename__ = "schedules"

    id: Mapped[str] = string_id()
    device_id: Mapped[str] = mapped_column(ForeignKey("devices.id"), index=True)
    name: Mapped[str] = mapped_column(String(60))
    time: Mapped[str] = mapped_column(String(5))
    days: Mapped[str] = mapped_column(String(40))
    attribute: Mapped[str] = mapped_column(String(20))
    value: Mapped[str] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(10))
    created_on: Mapped[date] = mapped_column(Date)


class Scene(Base):
    """A named set of device settings of one home, applied all at once."""

    __tablename__ = "scenes"

    id: Mapped[str] = string_id()
    home_id: Mapped[str] = mapped_column(ForeignKey("homes.id"), index=True)
    name: Mapped[str] = mapped_column(String(60))
    last_applied_on: Mapped[date | None] = mapped_column(Date, nullable=True, default=None)


class SceneAction(Base):
    """One setting of a scene: a device attribute and the value the scene gives it."""

    __tablename__ = "scene_actions"

    scene_id: Mapped[str] = mapped_column(ForeignKey("scenes.id"), primary_key=True)
    device_id: Mapped[str] = mapped_column(ForeignKey("devices.id"), primary_key=True)
    attribute: Mapped[str] = mapped_column(String(20), primary_key=True)
    value: Mapped[str] = mapped_column(String(20))


class Automation(Base):
    """When a device emits an event (the trigger), set an attribute of another device (the action)."""

    __tablename__ = "automations"

    id: Mapped[str] = string_id()
    home_id: Mapped[str] = mapped_column(ForeignKey("homes.id"), index=True)
    name: Mapped[str] = mapped_column(String(60))
    trigger_device_id: Mapped[str] = mapped_column(ForeignKey("devices.id"), index=True)
    trigger_event: Mapped[str] = mapped_column(String(24))
    action_device_id: Mapped[str] = mapped_column(ForeignKey("devices.id"), index=True)
    action_attribute: Mapped[str] = mapped_column(String(20))
    action_value: Mapped[str] = mapped_column(String(20))
    enabled: Mapped[bool] = mapped_column(Boolean)
    created_on: Mapped[date] = mapped_column(Date)


class EnergyReading(Base):
    """Energy a device used on one day, in watt-hours."""

    __tablename__ = "energy_readings"

    device_id: Mapped[str] = mapped_column(ForeignKey("devices.id"), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    wh: Mapped[int] = mapped_column(Integer)
