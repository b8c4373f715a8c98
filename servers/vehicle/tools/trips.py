"""Vehicle tools for trips: list them, start one for a registered driver, end it with its distance."""

from __future__ import annotations

import math
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_between, check_limit, next_id, pick
from gym_mcp.servers.vehicle.models import Profile, Trip, Vehicle
from gym_mcp.servers.vehicle.tools.common import (
    energy_left,
    kit,
    label,
    load_driver,
    load_trip,
    load_vehicle,
    range_km,
    service_due,
)

TRIP_STATUSES = ("in_progress", "completed")
DESTINATIONS = ("Central depot", "Head office", "Airport cargo terminal", "Train station", "Harbor warehouse")


def _trip_view(trip: Trip) -> dict[str, Any]:
    """The fields of a trip a model needs."""
    return {
        "trip_id": trip.id,
        **pick(trip, "vehicle_id", "driver_id", "destination", "status"),
        "started_on": trip.started_on.isoformat(),
        "ended_on": trip.ended_on.isoformat() if trip.ended_on else None,
        "start_odometer_km": trip.start_odometer_km,
        "distance_km": trip.distance_km,
        "energy_used": trip.energy_used,
    }


@kit.tool(
    write=False,
    intent="List the[ {status}] trips of vehicle {vehicle_id}[, at most {limit}]",
    samples={"status": TRIP_STATUSES},
)
def list_trips(db: Session, vehicle_id: str, status: str | None = None, limit: int = 10) -> list[dict[str, Any]]:
    """List a vehicle's trips, newest first: who drove, where to, the distance and the energy used.

    energy_used is in kWh for an electric vehicle and in litres for a fuel one.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        vehicle_id: Vehicle id, e.g. "VEH-1001".
        status: Only "in_progress" or "completed" trips, e.g. "completed".
        limit: Maximum number of trips to return, 1 to 100, e.g. 10.
    """
    check_limit(limit)
    vehicle = load_vehicle(db, vehicle_id)
    stmt = select(Trip).where(Trip.vehicle_id == vehicle.id)
    if status is not None:
        wanted = status.strip().lower()
        if wanted not in TRIP_STATUSES:
            raise ToolError(f"status must be one of {', '.join(TRIP_STATUSES)}; got {status!r}")
        stmt = stmt.where(Trip.status == wanted)
    rows = db.scalars(stmt.order_by(Trip.started_on.desc(), Trip.id.desc()).limit(limit))
    return [_trip_view(t) for t in rows]


@kit.tool(
    write=True,
    intent="Start a trip in vehicle {vehicle_id} for driver {driver_id}[ to '{destination}']",
    samples={"destination": DESTINATIONS},
)
def start_trip(db: Session, vehicle_id: str, driver_id: str, destination: str = "Unspecified") -> dict[str, Any]:
    """Start a trip: the vehicle goes from parked to driving, with the driver's profile active.

    Only a driver registered on this vehicle (with a profile, see list_profiles) whose licence
    has not expired may drive it. The vehicle must be parked, unplugged (unplug_vehicle), with
    its trunk closed (close_trunk) and some range left. It starts at 0 km/h.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        vehicle_id: Vehicle id, e.g. "VEH-1001".
        driver_id: Driver id, e.g. "DRV-1001".
        destination: Where to, up to 80 characters, e.g. "Head office".
    """
    vehicle = load_vehicle(db, vehicle_id)
    driver = load_driver(db, driver_id)
    where = destination.strip() or "Unspecified"
    if len(where) > 80:
        raise ToolError("destination must be at most 80 characters")
    if vehicle.state == "driving":
        raise ToolError(f"{label(vehicle)} is already on a trip; end_trip ends it first.")
    if vehicle.state == "charging":
        raise ToolError(f"{label(vehicle)} is charging; finish_charging and unplug_vehicle first.")
    profile = db.scalar(select(Profile).where(Profile.vehicle_id == vehicle.id, Profile.driver_id == driver.id))
    if profile is None:
        raise ToolError(
            f"Driver {driver.id} ({driver.name}) is not registered on {label(vehicle)}; only drivers with a profile "
            f"on it may drive it. Pick one of its drivers (list_profiles) or register this one (create_profile)."
        )
    if driver.license_expires < kit.today:
        raise ToolError(
            f"The driving licence of {driver.id} ({driver.name}) expired on {driver.license_expires}; they may not "
            "drive until it is renewed."
        )
    if vehicle.plugged_in:
        raise ToolError(f"{label(vehicle)} is still plugged in; unplug_vehicle first, then start the trip.")
    if vehicle.trunk_open:
        raise ToolError(f"The trunk of {label(vehicle)} is open; close_trunk first, then start the trip.")
    if range_km(vehicle) < 5:
        raise ToolError(f"{label(vehicle)} has {range_km(vehicle)} km of range left; charge or refuel it first.")
    trip = Trip(
        id=next_id(db, Trip.id, "TRP"),
        vehicle_id=vehicle.id,
        driver_id=driver.id,
        destination=where,
        status="in_progress",
        started_on=kit.today,
        start_odometer_km=vehicle.odometer_km,
    )
    db.add(trip)
    vehicle.state = "driving"
    vehicle.speed_kmh = 0
    vehicle.active_profile_id = profile.id
    db.flush()
    return {**_trip_view(trip), "active_profile_id": profile.id, "range_km": range_km(vehicle)}


@kit.tool(write=True, intent="End trip {trip_id} after {distance_km} km", samples={"distance_km": (5, 12, 25, 40, 60)})
def end_trip(db: Session, trip_id: str, distance_km: int) -> dict[str, Any]:
    """End a trip in progress with the distance driven: the vehicle is parked, its odometer and energy updated.

    The distance must be within what the vehicle could drive on the battery or fuel it had
    (get_vehicle_status shows range_km). The result warns when the service is due or overdue.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        trip_id: Trip id, e.g. "TRP-1001".
        distance_km: Kilometres driven on the trip, 1 to 1500, e.g. 25.
    """
    trip = load_trip(db, trip_id)
    check_between(distance_km, 1, 1500, "distance_km", end=" km.")
    if trip.status != "in_progress":
        raise ToolError(f"Trip {trip.id} was already completed on {trip.ended_on} ({trip.distance_km} km).")
    vehicle = db.get(Vehicle, trip.vehicle_id)
    assert vehicle is not None
    used = round(distance_km * vehicle.consumption / 100, 1)
    if used > energy_left(vehicle):
        raise ToolError(
            f"{label(vehicle)} could drive at most {range_km(vehicle)} km on what it had, not {distance_km} km; "
            "check the distance."
        )
    if vehicle.powertrain == "ev":
        assert vehicle.battery_kwh is not None
        assert vehicle.battery_pct is not None
        vehicle.battery_pct = max(0, vehicle.battery_pct - math.ceil(used * 100 / vehicle.battery_kwh))
    else:
        assert vehicle.fuel_liters is not None
        vehicle.fuel_liters = round(vehicle.fuel_liters - used, 1)
    trip.status = "completed"
    trip.ended_on = kit.today
    trip.distance_km = distance_km
    trip.energy_used = used
    vehicle.odometer_km = trip.start_odometer_km + distance_km
    vehicle.state = "parked"
    vehicle.speed_kmh = 0
    service = service_due(vehicle)
    out = {**_trip_view(trip), "odometer_km": vehicle.odometer_km, "range_km": range_km(vehicle)}
    if service["status"] != "ok":
        out["service_warning"] = (
            f"Service {service['status'].replace('_', ' ')}: inspection due at {service['due_at_km']} km or on "
            f"{service['due_on']}; book_service books one."
        )
    return out
