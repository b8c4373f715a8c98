"""Vehicle tools for energy: charge limits and charging of electric vehicles, refuels of fuel vehicles."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_between, check_limit, next_id, to_cents
from gym_mcp.servers.vehicle.models import CHARGE_LIMIT_RANGE, HOME_PRICE_CENTS, ChargingSession, FuelLog
from gym_mcp.servers.vehicle.tools.common import (
    active_session,
    kit,
    label,
    load_vehicle,
    need_powertrain,
    range_km,
)


def _session_view(session: ChargingSession) -> dict[str, Any]:
    """The fields of a charging session a model needs."""
    return {
        "session_id": session.id,
        "status": session.status,
        "started_on": session.started_on.isoformat(),
        "start_pct": session.start_pct,
        "target_pct": session.target_pct,
        "energy_kwh": session.energy_kwh,
        "cost": None if session.cost_cents is None else session.cost_cents / 100,
    }


@kit.tool(write=False, intent="Show the charging or refuel history of vehicle {vehicle_id}[, at most {limit} entries]")
def list_energy_log(db: Session, vehicle_id: str, limit: int = 10) -> dict[str, Any]:
    """List a vehicle's charging sessions (electric) or refuels (fuel), newest first.

    An electric vehicle's entries are charging sessions (an "active" one is charging now);
    a fuel vehicle's are refuels with litres, price per litre and cost.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        vehicle_id: Vehicle id, e.g. "VEH-1001".
        limit: Maximum number of entries to return, 1 to 100, e.g. 10.
    """
    check_limit(limit)
    vehicle = load_vehicle(db, vehicle_id)
    if vehicle.powertrain == "ev":
        sessions = db.scalars(
            select(ChargingSession)
            .where(ChargingSession.vehicle_id == vehicle.id)
            .order_by(ChargingSession.started_on.desc(), ChargingSession.id.desc())
            .limit(limit)
        )
        return {"vehicle_id": vehicle.id, "powertrain": "ev", "charging_sessions": [_session_view(s) for s in sessions]}
    logs = db.scalars(
        select(FuelLog).where(FuelLog.vehicle_id == vehicle.id).order_by(FuelLog.filled_on.desc(), FuelLog.id.desc())
    )
    return {
        "vehicle_id": vehicle.id,
        "powertrain": "fuel",
        "refuels": [
            {
                "refuel_id": f.id,
                "filled_on": f.filled_on.isoformat(),
                "liters": f.liters,
                "price_per_liter": f.price_per_liter_cents / 100,
                "cost": f.cost_cents / 100,
                "odometer_km": f.odometer_km,
            }
            for f in list(logs)[:limit]
        ],
    }


@kit.tool(
    write=True,
    intent="Set the charge limit of vehicle {vehicle_id} to {limit_pct}%",
    samples={"limit_pct": (60, 70, 75, 85, 95, 100)},
)
def set_charge_limit(db: Session, vehicle_id: str, limit_pct: int) -> dict[str, Any]:
    """Set the battery level an electric vehicle stops charging at, 50 to 100%.

    Electric vehicles only. A charging session in progress keeps its own target.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        vehicle_id: Vehicle id, e.g. "VEH-1001".
        limit_pct: The new charge limit in percent, 50 to 100, e.g. 80.
    """
    vehicle = load_vehicle(db, vehicle_id)
    need_powertrain(vehicle, "ev", "have a charge limit")
    check_between(limit_pct, *CHARGE_LIMIT_RANGE, "limit_pct", end="%; pick a limit in that range, e.g. 80.")
    if vehicle.charge_limit_pct == limit_pct:
        raise ToolError(f"The charge limit of {label(vehicle)} is already {limit_pct}%; nothing changed.")
    vehicle.charge_limit_pct = limit_pct
    return {"vehicle_id": vehicle.id, "charge_limit_pct": limit_pct, "battery_pct": vehicle.battery_pct}


@kit.tool(
    write=True, intent="Start charging vehicle {vehicle_id}[ up to {target_pct}%]", samples={"target_pct": (70, 75, 80)}
)
def start_charging(db: Session, vehicle_id: str, target_pct: int | None = None) -> dict[str, Any]:
    """Start charging a parked electric vehicle that is plugged in, up to a target (default: its charge limit).

    Refused for a fuel vehicle, a vehicle that is not plugged in or is driving, one already
    charging, and a target not above the battery level or above the charge limit (raise the limit
    with set_charge_limit). The vehicle's state becomes "charging"; finish_charging ends it.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        vehicle_id: Vehicle id, e.g. "VEH-1001".
        target_pct: Battery level to charge to in percent, at most the charge limit, e.g. 80.
    """
    vehicle = load_vehicle(db, vehicle_id)
    need_powertrain(vehicle, "ev", "charge")
    running = active_session(db, vehicle)
    if running is not None:
        raise ToolError(
            f"{label(vehicle)} is already charging ({running.id}, to {running.target_pct}%); finish_charging ends it."
        )
    if vehicle.state == "driving":
        raise ToolError(f"{label(vehicle)} is driving; it can charge only when parked and plugged in.")
    if not vehicle.plugged_in:
        raise ToolError(
            f"{label(vehicle)} is not plugged in; charging needs the cable connected at the vehicle first. Nothing "
            "changed."
        )
    assert vehicle.battery_pct is not None
    assert vehicle.charge_limit_pct is not None
    limit = vehicle.charge_limit_pct
    target = limit if target_pct is None else target_pct
    if target > limit:
        raise ToolError(
            f"target_pct {target}% is above the charge limit of {label(vehicle)} ({limit}%); charge to at most "
            f"{limit}% or raise the limit first with set_charge_limit."
        )
    if target <= vehicle.battery_pct:
        raise ToolError(
            f"The battery of {label(vehicle)} is already at {vehicle.battery_pct}%, not below the target of "
            f"{target}%; there is nothing to charge."
        )
    session = ChargingSession(
        id=next_id(db, ChargingSession.id, "CHG"),
        vehicle_id=vehicle.id,
        status="active",
        started_on=kit.today,
        start_pct=vehicle.battery_pct,
        target_pct=target,
    )
    db.add(session)
    vehicle.state = "charging"
    db.flush()
    return {"vehicle_id": vehicle.id, "state": vehicle.state, **_session_view(session)}


@kit.tool(write=True, intent="Finish the charging session of vehicle {vehicle_id}")
def finish_charging(db: Session, vehicle_id: str) -> dict[str, Any]:
    """End a vehicle's charging session once it reached its target: the battery is at the target.

    The session is completed with the energy added and its cost (0.30 per kWh); the vehicle is
    parked again and stays plugged in (unplug_vehicle releases the cable).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        vehicle_id: Vehicle id, e.g. "VEH-1001".
    """
    vehicle = load_vehicle(db, vehicle_id)
    need_powertrain(vehicle, "ev", "charge")
    session = active_session(db, vehicle)
    if session is None:
        raise ToolError(f"{label(vehicle)} has no charging session in progress; start_charging starts one.")
    assert vehicle.battery_kwh is not None
    session.energy_kwh = round((session.target_pct - session.start_pct) * vehicle.battery_kwh / 100, 1)
    session.cost_cents = round(session.energy_kwh * HOME_PRICE_CENTS)
    session.status = "completed"
    vehicle.battery_pct = session.target_pct
    vehicle.state = "parked"
    return {
        "vehicle_id": vehicle.id,
        "state": vehicle.state,
        "battery_pct": vehicle.battery_pct,
        "range_km": range_km(vehicle),
        **_session_view(session),
    }


@kit.tool(write=True, intent="Unplug the charge cable of vehicle {vehicle_id}")
def unplug_vehicle(db: Session, vehicle_id: str) -> dict[str, Any]:
    """Release the charge cable of a plugged-in electric vehicle. Refused while it is charging (finish_charging first).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        vehicle_id: Vehicle id, e.g. "VEH-1001".
    """
    vehicle = load_vehicle(db, vehicle_id)
    need_powertrain(vehicle, "ev", "be unplugged")
    if not vehicle.plugged_in:
        raise ToolError(f"{label(vehicle)} is not plugged in; nothing changed.")
    session = active_session(db, vehicle)
    if session is not None:
        raise ToolError(f"{label(vehicle)} is charging ({session.id}); end the session with finish_charging first.")
    vehicle.plugged_in = False
    return {"vehicle_id": vehicle.id, "plugged_in": False, "battery_pct": vehicle.battery_pct}


@kit.tool(
    write=True,
    intent="Log a refuel of {liters} litres for vehicle {vehicle_id}[ at {price_per_liter} per litre]",
    samples={"liters": (8, 10, 12.5, 15, 20), "price_per_liter": (1.79, 1.85, 1.92)},
)
def log_refuel(db: Session, vehicle_id: str, liters: float, price_per_liter: float = 1.85) -> dict[str, Any]:
    """Record a refuel of a parked fuel vehicle: the tank gains the litres, the cost is logged.

    Fuel vehicles only (an electric one charges: start_charging). The litres must fit in the
    tank: at most its capacity minus what it holds (get_vehicle_status shows both).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        vehicle_id: Vehicle id, e.g. "VEH-1001".
        liters: Litres put in, above 0 with at most 1 decimal, e.g. 12.5.
        price_per_liter: Price paid per litre, e.g. 1.85 (the default).
    """
    vehicle = load_vehicle(db, vehicle_id)
    need_powertrain(vehicle, "fuel", "be refuelled")
    if not 0 < liters <= 200 or round(liters, 1) != liters:
        raise ToolError(f"liters must be above 0 with at most 1 decimal, got {liters}; e.g. 12.5")
    price = to_cents(price_per_liter, "price_per_liter", maximum=1000)
    if vehicle.state == "driving":
        raise ToolError(f"{label(vehicle)} is driving; a refuel is logged once it is parked.")
    assert vehicle.tank_liters is not None
    assert vehicle.fuel_liters is not None
    room = round(vehicle.tank_liters - vehicle.fuel_liters, 1)
    if liters > room:
        raise ToolError(
            f"{liters:g} L do not fit: the {vehicle.tank_liters} L tank of {label(vehicle)} holds "
            f"{vehicle.fuel_liters:g} L, so at most {room:g} L can be added."
        )
    vehicle.fuel_liters = round(vehicle.fuel_liters + liters, 1)
    log = FuelLog(
        id=next_id(db, FuelLog.id, "FUL"),
        vehicle_id=vehicle.id,
        filled_on=kit.today,
        liters=liters,
        price_per_liter_cents=price,
        cost_cents=round(liters * price),
        odometer_km=vehicle.odometer_km,
    )
    db.add(log)
    db.flush()
    return {
        "refuel_id": log.id,
        "vehicle_id": vehicle.id,
        "liters": liters,
        "cost": log.cost_cents / 100,
        "fuel_liters": vehicle.fuel_liters,
        "range_km": range_km(vehicle),
    }
