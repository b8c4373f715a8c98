"""What the vehicle tools share: the kit, id lookups, the driving and energy rules, service due dates, result shapes."""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import Finder, ServerKit, ToolError, pick
from gym_mcp.servers.vehicle.data import seed
from gym_mcp.servers.vehicle.models import (
    TODAY,
    Base,
    ChargingSession,
    Driver,
    Profile,
    ServiceCenter,
    ServiceRecord,
    Trip,
    Vehicle,
)

__all__ = [
    "active_session",
    "add_months",
    "energy_left",
    "is_moving",
    "kit",
    "label",
    "load_center",
    "load_driver",
    "load_profile",
    "load_service",
    "load_trip",
    "load_vehicle",
    "need_powertrain",
    "range_km",
    "refuse_while_moving",
    "service_due",
    "vehicle_view",
]

INSTRUCTIONS = f"""\
Fleet app of FleetCo: remote control of company cars. Vehicles ("VEH-1001") are electric ("ev":
battery, charge limit 50-100%, charge cable) or burn fuel ("fuel": a tank); each is parked, driving
(moving when its speed is above 0) or charging. Drivers ("DRV-1001") drive a vehicle once
registered on it with a profile ("PRF-1001": seat and mirror presets). Trips ("TRP-1001") are
started and ended here; charging sessions ("CHG-1001") and refuels ("FUL-1001") are logged;
workshops ("CTR-1001") take service bookings ("SRV-1001"). Start with list_vehicles, then
get_vehicle_status for one vehicle's state. Cabin climate accepts 16-28 C. Today is {TODAY.isoformat()}."""

kit = ServerKit(
    "vehicle", base=Base, seed=seed, instructions=INSTRUCTIONS, today=TODAY, samples={"limit": (3, 5, 10)}, inline=True
)

# -- lookups ------------------------------------------------------------------------------------

_MISSING = "No {noun} with id {id!r}. {Noun} ids look like '{example}'; {hint}."
load_vehicle = Finder(Vehicle, "vehicle", "VEH-1001", "use list_vehicles to see valid ones", message=_MISSING)
load_driver = Finder(Driver, "driver", "DRV-1001", "use list_drivers to see valid ones", message=_MISSING)
load_profile = Finder(
    Profile, "profile", "PRF-1001", "use list_profiles with the vehicle's id to see valid ones", message=_MISSING
)
load_trip = Finder(Trip, "trip", "TRP-1001", "use list_trips with the vehicle's id to see valid ones", message=_MISSING)
load_center = Finder(
    ServiceCenter, "service center", "CTR-1001", "use list_service_centers to see valid ones", message=_MISSING
)
load_service = Finder(
    ServiceRecord,
    "service record",
    "SRV-1001",
    "use list_service_records with the vehicle's id to see valid ones",
    message=_MISSING,
)

# -- rules --------------------------------------------------------------------------------------


def label(vehicle: Vehicle) -> str:
    """How a vehicle reads in a message, e.g. ``"VEH-1001 (Pool car 1, Tesla Model 3)"``."""
    return f"{vehicle.id} ({vehicle.nickname}, {vehicle.make} {vehicle.model})"


def is_moving(vehicle: Vehicle) -> bool:
    """Whether a vehicle is driving with a speed above 0 (stopped at a light counts as not moving)."""
    return vehicle.state == "driving" and vehicle.speed_kmh > 0


def refuse_while_moving(vehicle: Vehicle, action: str) -> None:
    """Refuse an action that is unsafe while the vehicle moves."""
    if is_moving(vehicle):
        raise ToolError(
            f"{label(vehicle)} is moving at {vehicle.speed_kmh} km/h; it is not allowed to {action} while the "
            "vehicle moves. Try again once it has stopped (get_vehicle_status shows its speed). Nothing changed."
        )


def need_powertrain(vehicle: Vehicle, powertrain: str, action: str) -> None:
    """Refuse an electric-only or fuel-only action on the other kind of vehicle, naming the right tool."""
    if vehicle.powertrain == powertrain:
        return
    if powertrain == "ev":
        raise ToolError(
            f"{label(vehicle)} runs on fuel, so it cannot {action}; only electric vehicles charge. "
            "Use log_refuel for a fuel vehicle."
        )
    raise ToolError(
        f"{label(vehicle)} is electric, so it cannot {action}; only fuel vehicles take fuel. "
        "Use start_charging for an electric vehicle."
    )


def energy_left(vehicle: Vehicle) -> float:
    """KWh in the battery (ev) or litres in the tank (fuel)."""
    if vehicle.powertrain == "ev":
        return (vehicle.battery_pct or 0) * (vehicle.battery_kwh or 0) / 100
    return vehicle.fuel_liters or 0.0


def range_km(vehicle: Vehicle) -> int:
    """How far the vehicle can drive on what it holds, rounded down."""
    return int(energy_left(vehicle) * 100 / vehicle.consumption)


def active_session(db: Session, vehicle: Vehicle) -> ChargingSession | None:
    """The vehicle's charging session in progress, if any."""
    return db.scalar(
        select(ChargingSession).where(ChargingSession.vehicle_id == vehicle.id, ChargingSession.status == "active")
    )


def add_months(day: date, months: int) -> date:
    """The same day ``months`` later, clipped to the end of a shorter month."""
    year, month = divmod(day.month - 1 + months, 12)
    year += day.year
    month += 1
    for last in (31, 30, 29, 28):
        try:
            return date(year, month, min(day.day, last))
        except ValueError:
            continue
    raise AssertionError("unreachable")


def service_due(vehicle: Vehicle) -> dict[str, Any]:
    """When the next inspection is due (whichever of km or months comes first) and the status.

    ``overdue`` once the odometer passed the due km or today passed the due date; ``due_soon``
    within 1000 km or 30 days; else ``ok``.
    """
    due_km = vehicle.last_service_km + vehicle.service_interval_km
    due_on = add_months(vehicle.last_service_on, vehicle.service_interval_months)
    km_left = due_km - vehicle.odometer_km
    days_left = (due_on - kit.today).days
    if km_left <= 0 or days_left <= 0:
        status = "overdue"
    elif km_left <= 1000 or days_left <= 30:
        status = "due_soon"
    else:
        status = "ok"
    return {
        "status": status,
        "due_at_km": due_km,
        "due_on": due_on.isoformat(),
        "km_left": km_left,
        "days_left": days_left,
        "last_inspection_on": vehicle.last_service_on.isoformat(),
        "interval": f"{vehicle.service_interval_km} km or {vehicle.service_interval_months} months",
    }


# -- result shapes ------------------------------------------------------------------------------


def vehicle_view(vehicle: Vehicle, *, full: bool = False) -> dict[str, Any]:
    """The fields of a vehicle a model needs; ``full`` adds energy details, climate and the service status."""
    out: dict[str, Any] = {
        "vehicle_id": vehicle.id,
        **pick(vehicle, "nickname", "make", "model", "plate", "powertrain", "state", "speed_kmh", "locked"),
        "trunk_open": vehicle.trunk_open,
    }
    if vehicle.powertrain == "ev":
        out["battery_pct"] = vehicle.battery_pct
    else:
        out["fuel_liters"] = vehicle.fuel_liters
    out["service_status"] = service_due(vehicle)["status"]
    if not full:
        return out
    if vehicle.powertrain == "ev":
        out.update(
            battery_kwh=vehicle.battery_kwh, charge_limit_pct=vehicle.charge_limit_pct, plugged_in=vehicle.plugged_in
        )
    else:
        out["tank_liters"] = vehicle.tank_liters
    out.update(
        range_km=range_km(vehicle),
        odometer_km=vehicle.odometer_km,
        climate={"on": vehicle.climate_on, "target_c": vehicle.cabin_target_c},
        active_profile_id=vehicle.active_profile_id,
        service=service_due(vehicle),
    )
    return out
