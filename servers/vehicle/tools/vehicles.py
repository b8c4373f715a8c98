"""Vehicle tools for the fleet and each car's body: list and read vehicles, doors, trunk, cabin climate."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError
from gym_mcp.servers.vehicle.models import CLIMATE_RANGE, POWERTRAINS, Vehicle
from gym_mcp.servers.vehicle.tools.common import (
    kit,
    label,
    load_vehicle,
    refuse_while_moving,
    service_due,
    vehicle_view,
)

STATES = ("parked", "driving", "charging")
SERVICE_STATUSES = ("ok", "due_soon", "overdue")


def _choice(value: str | None, allowed: tuple[str, ...], field: str) -> str | None:
    """A filter value in lower case, or a `ToolError` listing the allowed ones."""
    if value is None:
        return None
    wanted = value.strip().lower()
    if wanted not in allowed:
        raise ToolError(f"{field} must be one of {', '.join(allowed)}; got {value!r}")
    return wanted


@kit.tool(
    write=False,
    intent="List the fleet's[ {powertrain}] vehicles[ that are {state}][ whose service is {service_status}]",
    samples={"powertrain": POWERTRAINS, "state": STATES, "service_status": SERVICE_STATUSES},
)
def list_vehicles(
    db: Session, powertrain: str | None = None, state: str | None = None, service_status: str | None = None
) -> list[dict[str, Any]]:
    """List the fleet's vehicles with their state, lock, battery or fuel level and service status.

    Filters combine. service_status is "ok", "due_soon" (within 1000 km or 30 days of the next
    inspection) or "overdue". Use get_vehicle_status for one vehicle's full details.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        powertrain: Only "ev" (electric) or "fuel" vehicles, e.g. "ev".
        state: Only vehicles "parked", "driving" or "charging", e.g. "parked".
        service_status: Only vehicles whose service is "ok", "due_soon" or "overdue", e.g. "overdue".
    """
    kind = _choice(powertrain, POWERTRAINS, "powertrain")
    where = _choice(state, STATES, "state")
    service = _choice(service_status, SERVICE_STATUSES, "service_status")
    stmt = select(Vehicle).order_by(Vehicle.id)
    if kind:
        stmt = stmt.where(Vehicle.powertrain == kind)
    if where:
        stmt = stmt.where(Vehicle.state == where)
    rows = [v for v in db.scalars(stmt) if service is None or service_due(v)["status"] == service]
    return [vehicle_view(v) for v in rows]


@kit.tool(write=False, intent="Show the status of vehicle {vehicle_id}")
def get_vehicle_status(db: Session, vehicle_id: str) -> dict[str, Any]:
    """Get one vehicle's live state: speed, doors, trunk, battery or fuel and range, climate, profile, service.

    service tells when the next inspection is due (km and date, whichever comes first) and
    whether it is ok, due_soon or overdue.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        vehicle_id: Vehicle id, e.g. "VEH-1001".
    """
    return vehicle_view(load_vehicle(db, vehicle_id), full=True)


def _doors(vehicle: Vehicle) -> dict[str, Any]:
    """The result of a door or trunk command."""
    return {
        "vehicle_id": vehicle.id,
        "locked": vehicle.locked,
        "trunk_open": vehicle.trunk_open,
        "state": vehicle.state,
    }


@kit.tool(write=True, intent="Lock vehicle {vehicle_id}")
def lock_vehicle(db: Session, vehicle_id: str) -> dict[str, Any]:
    """Lock a vehicle's doors remotely (allowed while driving).

    The trunk must be closed first: a vehicle with an open trunk cannot be locked (close_trunk).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        vehicle_id: Vehicle id, e.g. "VEH-1001".
    """
    vehicle = load_vehicle(db, vehicle_id)
    if vehicle.locked:
        raise ToolError(f"{label(vehicle)} is already locked; nothing changed.")
    if vehicle.trunk_open:
        raise ToolError(f"The trunk of {label(vehicle)} is open; close it first (close_trunk), then lock.")
    vehicle.locked = True
    return _doors(vehicle)


@kit.tool(write=True, intent="Unlock vehicle {vehicle_id}")
def unlock_vehicle(db: Session, vehicle_id: str) -> dict[str, Any]:
    """Unlock a vehicle's doors remotely. Refused while the vehicle moves (speed above 0).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        vehicle_id: Vehicle id, e.g. "VEH-1001".
    """
    vehicle = load_vehicle(db, vehicle_id)
    if not vehicle.locked:
        raise ToolError(f"{label(vehicle)} is already unlocked; nothing changed.")
    refuse_while_moving(vehicle, "unlock the doors")
    vehicle.locked = False
    return _doors(vehicle)


@kit.tool(write=True, intent="Open the trunk of vehicle {vehicle_id}")
def open_trunk(db: Session, vehicle_id: str) -> dict[str, Any]:
    """Open a vehicle's trunk remotely. Refused while the vehicle moves, and while it is locked (unlock_vehicle first).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        vehicle_id: Vehicle id, e.g. "VEH-1001".
    """
    vehicle = load_vehicle(db, vehicle_id)
    if vehicle.trunk_open:
        raise ToolError(f"The trunk of {label(vehicle)} is already open; nothing changed.")
    refuse_while_moving(vehicle, "open the trunk")
    if vehicle.locked:
        raise ToolError(f"{label(vehicle)} is locked; unlock it first (unlock_vehicle), then open the trunk.")
    vehicle.trunk_open = True
    return _doors(vehicle)


@kit.tool(write=True, intent="Close the trunk of vehicle {vehicle_id}")
def close_trunk(db: Session, vehicle_id: str) -> dict[str, Any]:
    """Close a vehicle's open trunk remotely.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        vehicle_id: Vehicle id, e.g. "VEH-1001".
    """
    vehicle = load_vehicle(db, vehicle_id)
    if not vehicle.trunk_open:
        raise ToolError(f"The trunk of {label(vehicle)} is already closed; nothing changed.")
    vehicle.trunk_open = False
    return _doors(vehicle)


@kit.tool(
    write=True,
    intent="Set the cabin climate of vehicle {vehicle_id} to {temperature_c} degrees",
    samples={"temperature_c": (18, 19.5, 20, 21, 22, 23.5, 24)},
)
def set_climate(db: Session, vehicle_id: str, temperature_c: float) -> dict[str, Any]:
    """Turn the cabin climate on at a target temperature (16 to 28 C, in steps of 0.5).

    An electric vehicle below 20% battery that is not plugged in refuses it (the climate would
    drain the battery): charge it or plug it in first.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        vehicle_id: Vehicle id, e.g. "VEH-1001".
        temperature_c: Target cabin temperature in degrees Celsius, 16 to 28, e.g. 21.5.
    """
    vehicle = load_vehicle(db, vehicle_id)
    low, high = CLIMATE_RANGE
    if not low <= temperature_c <= high or (temperature_c * 2) % 1:
        raise ToolError(
            f"temperature_c must be between {low:g} and {high:g} C in steps of 0.5, got {temperature_c}; e.g. 21.5"
        )
    if vehicle.powertrain == "ev" and (vehicle.battery_pct or 0) < 20 and not vehicle.plugged_in:
        raise ToolError(
            f"{label(vehicle)} has {vehicle.battery_pct}% battery and is not plugged in; remote climate needs at "
            "least 20% or a plugged-in cable. Nothing changed."
        )
    if vehicle.climate_on and vehicle.cabin_target_c == temperature_c:
        raise ToolError(f"The climate of {label(vehicle)} is already on at {temperature_c:g} C; nothing changed.")
    vehicle.climate_on = True
    vehicle.cabin_target_c = float(temperature_c)
    return {"vehicle_id": vehicle.id, "climate": {"on": True, "target_c": vehicle.cabin_target_c}}
