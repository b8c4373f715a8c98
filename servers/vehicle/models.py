"""Data model of the vehicle server: vehicles, drivers and their profiles, trips, energy, service.

A vehicle is electric (``ev``: a battery, a charge limit, a charge cable) or burns fuel (``fuel``:
a tank). It is ``parked``, ``driving`` (with a speed; moving when the speed is above 0) or
``charging``. Ids are stable, human-readable strings (``VEH-1001``, ``DRV-1001``, ``PRF-1001``,
``TRP-1001``, ``CHG-1001``, ``FUL-1001``, ``CTR-1001``, ``SRV-1001``); new ones take the next
number after the largest in the table, so replaying the same calls yields the same ids.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Boolean, Date, Float, ForeignKey, Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from gym_mcp.servers.kit import string_id, volatile_timestamp

__all__ = [
    "CHARGE_LIMIT_RANGE",
    "CLIMATE_RANGE",
    "HOME_PRICE_CENTS",
    "MAX_PROFILES",
    "POWERTRAINS",
    "SERVICE_TYPES",
    "TODAY",
    "Base",
    "ChargingSession",
    "Driver",
    "FuelLog",
    "Profile",
    "ServiceCenter",
    "ServiceRecord",
    "Trip",
    "Vehicle",
]

TODAY = date(2026, 1, 15)
"""The server's fixed reference date (the kit's ``today``)."""

POWERTRAINS = ("ev", "fuel")
CLIMATE_RANGE = (16.0, 28.0)
"""Cabin temperatures the climate control accepts, in degrees Celsius."""
CHARGE_LIMIT_RANGE = (50, 100)
"""Charge limits an electric vehicle accepts, in percent."""
MAX_PROFILES = 4
"""Most driver profiles one vehicle stores."""
HOME_PRICE_CENTS = 30
"""What a kWh costs on the fleet's chargers, in cents."""
SERVICE_TYPES = {
    "inspection": ("ev", "fuel"),
    "oil_change": ("fuel",),
    "battery_check": ("ev",),
    "tire_rotation": ("ev", "fuel"),
    "brake_service": ("ev", "fuel"),
}
"""Service types and the powertrains each applies to; only an inspection resets the service interval."""


class Base(DeclarativeBase):
    """Declarative base of the vehicle tables."""


class Driver(Base):
    """A person allowed to drive fleet vehicles once registered on one (a profile)."""

    __tablename__ = "drivers"

    id: Mapped[str] = string_id()
    first_name: Mapped[str] = mapped_column(String(60))
    last_name: Mapped[str] = mapped_column(String(60))
    email: Mapped[str] = mapped_column(String(120), unique=True)
    license_expires: Mapped[date] = mapped_column(Date)

    @property
    def name(self) -> str:
        """Full name, e.g. ``"Maya Lindqvist"``."""
        return f"{self.first_name} {self.last_name}"


class Vehicle(Base):
    """A fleet vehicle and its live state (doors, trunk, energy, climate, service counters)."""

    __tablename__ = "vehicles"

    id: Mapped[str] = string_id()
    nickname: Mapped[str] = mapped_column(String(40))
    make: Mapped[str] = mapped_column(String(40))
    model: Mapped[str] = mapped_column(String(40))
    year: Mapped[int] = mapped_column(Integer)
    plate: Mapped[str] = mapped_column(String(12), unique=True)
    powertrain: Mapped[str] = mapped_column(String(8))
    state: Mapped[str] = mapped_column(String(12), default="parked")
    speed_kmh: Mapped[int] = mapped_column(Integer, default=0)
    odometer_km: Mapped[int] = mapped_column(Integer)
    locked: Mapped[bool] = mapped_column(Boolean, default=True)
    trunk_open: Mapped[bool] = mapped_column(Boolean, default=False)
    consumption: Mapped[float] = mapped_column(Float)
    """kWh (ev) or litres (fuel) per 100 km."""
    battery_kwh: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
    battery_pct: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
    charge_limit_pct: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
    plugged_in: Mapped[bool] = mapped_column(Boolean, default=False)
    tank_liters: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
    fuel_liters: Mapped[float | None] = mapped_column(Float, nullable=True, default=None)
    climate_on: Mapped[bool] = mapped_column(Boolean, default=False)
    cabin_target_c: Mapped[float] = mapped_column(Float, default=21.0)
    active_profile_id: Mapped[str | None] = mapped_column(String(16), nullable=True, default=None)
    service_interval_km: Mapped[int] = mapped_column(Integer)
    service_interval_months: Mapped[int] = mapped_column(Integer)
    last_service_km: Mapped[int] = mapped_column(Integer)
    last_service_on: Mapped[date] = mapped_column(Date)


class Profile(Base):
    """A driver registered on one vehicle, with their seat and mirror presets."""

    __tablename__ = "profiles"

    id: Mapped[str] = string_id()
    driver_id: Mapped[str] = mapped_column(ForeignKey("drivers.id"), index=True)
    vehicle_id: Mapped[str] = mapped_column(ForeignKey("vehicles.id"), index=True)
    seat_position: Mapped[int] = mapped_column(Integer)
    seat_recline: Mapped[int] = mapped_column(Integer)
    mirror_tilt: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = volatile_timestamp()


class Trip(Base):
    """A drive of one vehicle by one driver: in progress, then completed with its distance."""

    __tablename__ = "trips"

    id: Mapped[str] = string_id()
    vehicle_id: Mapped[str] = mapped_column(ForeignKey("vehicles.id"), index=True)
    driver_id: Mapped[str] = mapped_column(ForeignKey("drivers.id"), index=True)
    destination: Mapped[str] = mapped_column(String(80))
    status: Mapped[str] = mapped_column(String(12))
    started_on: Mapped[date] = mapped_column(Date)
    ended_on: Mapped[date | None] = mapped_column(Date, nullable=True, default=None)
    start_odometer_km: Mapped[int] = mapped_column(Integer)
    distance_km: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
    energy_used: Mapped[float | None] = mapped_column(Float, nullable=True, default=None)
    """kWh (ev) or litres (fuel) the trip used."""


class ChargingSession(Base):
    """Charging of an electric vehicle up to a target: active, then completed."""

    __tablename__ = "charging_sessions"

    id: Mapped[str] = string_id()
    vehicle_id: Mapped[str] = mapped_column(ForeignKey("vehicles.id"), index=True)
    status: Mapped[str] = mapped_column(String(12))
    started_on: Mapped[date] = mapped_column(Date)
    start_pct: Mapped[int] = mapped_column(Integer)
    target_pct: Mapped[int] = mapped_column(Integer)
    energy_kwh: Mapped[float | None] = mapped_column(Float, nullable=True, default=None)
    cost_cents: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)


class FuelLog(Base):
    """A refuelling of a fuel vehicle."""

    __tablename__ = "fuel_logs"

    id: Mapped[str] = string_id()
    vehicle_id: Mapped[str] = mapped_column(ForeignKey("vehicles.id"), index=True)
    filled_on: Mapped[date] = mapped_column(Date)
    liters: Mapped[float] = mapped_column(Float)
    price_per_liter_cents: Mapped[int] = mapped_column(Integer)
    cost_cents: Mapped[int] = mapped_column(Integer)
    odometer_km: Mapped[int] = mapped_column(Integer)


class ServiceCenter(Base):
    """A workshop; some are certified for electric vehicles, some service fuel vehicles."""

    __tablename__ = "service_centers"

    id: Mapped[str] = string_id()
    name: Mapped[str] = mapped_column(String(80))
    city: Mapped[str] = mapped_column(String(40))
    services_ev: Mapped[bool] = mapped_column(Boolean)
    services_fuel: Mapped[bool] = mapped_column(Boolean)


class ServiceRecord(Base):
    """A workshop visit: booked, then completed (or cancelled)."""

    __tablename__ = "service_records"

    id: Mapped[str] = string_id()
    vehicle_id: Mapped[str] = mapped_column(ForeignKey("vehicles.id"), index=True)
    center_id: Mapped[str] = mapped_column(ForeignKey("service_centers.id"), index=True)
    service_type: Mapped[str] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(12))
    scheduled_on: Mapped[date] = mapped_column(Date)
    odometer_km: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
    cost_cents: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
