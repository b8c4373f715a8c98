"""Vehicle tools for drivers and their profiles: register a driver on a vehicle, presets, activate, remove."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_between, next_id, pick
from gym_mcp.servers.vehicle.models import MAX_PROFILES, Driver, Profile, Vehicle
from gym_mcp.servers.vehicle.tools.common import (
    kit,
    label,
    load_driver,
    load_profile,
    load_vehicle,
    refuse_while_moving,
)

SEAT_SAMPLES = {"seat_position": (4, 7, 10, 12, 15), "seat_recline": (100, 105, 110), "mirror_tilt": (-3, 0, 2, 4)}


def _profile_view(db: Session, profile: Profile) -> dict[str, Any]:
    """The fields of a profile a model needs, with the driver's name and whether it is active."""
    driver = db.get(Driver, profile.driver_id)
    vehicle = db.get(Vehicle, profile.vehicle_id)
    assert driver is not None
    assert vehicle is not None
    return {
        "profile_id": profile.id,
        **pick(profile, "vehicle_id", "driver_id"),
        "driver_name": driver.name,
        **pick(profile, "seat_position", "seat_recline", "mirror_tilt"),
        "active": vehicle.active_profile_id == profile.id,
    }


def _check_presets(seat_position: int | None, seat_recline: int | None, mirror_tilt: int | None) -> None:
    """Refuse presets out of the seat's and mirrors' travel."""
    if seat_position is not None:
        check_between(seat_position, 1, 20, "seat_position", end=" (steps from the front), e.g. 10.")
    if seat_recline is not None:
        check_between(seat_recline, 90, 130, "seat_recline", end=" degrees, e.g. 105.")
    if mirror_tilt is not None:
        check_between(mirror_tilt, -10, 10, "mirror_tilt", end=", e.g. 0.")


def _check_licence(driver: Driver) -> None:
    """Refuse a driver whose licence expired before today."""
    if driver.license_expires < kit.today:
        raise ToolError(
            f"The driving licence of {driver.id} ({driver.name}) expired on {driver.license_expires}; an expired "
            "driver cannot be registered or activated on a vehicle until it is renewed."
        )


@kit.tool(
    write=False,
    intent="List the fleet's drivers[ matching '{query}']",
    samples={"query": ("Berg", "Novak", "Silva", "Maya", "Jensen", "Costa")},
)
def list_drivers(db: Session, query: str | None = None) -> list[dict[str, Any]]:
    """List drivers (all, or those whose name or email contains the query), with licence status and vehicles.

    license_valid is false once the licence expired; such a driver cannot drive or be activated.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        query: Part of a name or email, case-insensitive, e.g. "berg".
    """
    stmt = select(Driver).order_by(Driver.id)
    if query is not None and query.strip():
        text = query.strip().lower()
        full = func.lower(Driver.first_name + " " + Driver.last_name)
        stmt = stmt.where(or_(full.contains(text, autoescape=True), Driver.email.contains(text, autoescape=True)))
    out = []
    for d in db.scalars(stmt):
        vehicles = db.scalars(select(Profile.vehicle_id).where(Profile.driver_id == d.id).order_by(Profile.vehicle_id))
        out.append(
            {
                "driver_id": d.id,
                "name": d.name,
                "email": d.email,
                "license_expires": d.license_expires.isoformat(),
                "license_valid": d.license_expires >= kit.today,
                "vehicle_ids": list(vehicles),
            }
        )
    return out


@kit.tool(write=False, intent="List the driver profiles of vehicle {vehicle_id}")
def list_profiles(db: Session, vehicle_id: str) -> list[dict[str, Any]]:
    """List the drivers registered on a vehicle with their seat and mirror presets; "active" marks the one in use.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        vehicle_id: Vehicle id, e.g. "VEH-1001".
    """
    vehicle = load_vehicle(db, vehicle_id)
    rows = db.scalars(select(Profile).where(Profile.vehicle_id == vehicle.id).order_by(Profile.id))
    return [_profile_view(db, p) for p in rows]


@kit.tool(
    write=True,
    intent=(
        "Register driver {driver_id} on vehicle {vehicle_id} with the seat at position {seat_position}"
        "[, reclined to {seat_recline} degrees][ and the mirrors tilted {mirror_tilt}]"
    ),
    samples=SEAT_SAMPLES,
)
def create_profile(
    db: Session,
    vehicle_id: str,
    driver_id: str,
    seat_position: int,
    seat_recline: int = 105,
    mirror_tilt: int = 0,
) -> dict[str, Any]:
    """Register a driver on a vehicle with a profile of seat and mirror presets.

    A driver has at most one profile per vehicle (update_profile changes it), a vehicle stores at
    most 4 profiles (delete_profile frees one), and a driver whose licence expired cannot be
    registered.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        vehicle_id: Vehicle id, e.g. "VEH-1001".
        driver_id: Driver id, e.g. "DRV-1001".
        seat_position: Seat position in steps from the front, 1 to 20, e.g. 10.
        seat_recline: Backrest angle in degrees, 90 to 130, e.g. 105 (the default).
        mirror_tilt: Mirror tilt, -10 (down) to 10 (up), e.g. 0 (the default).
    """
    vehicle = load_vehicle(db, vehicle_id)
    driver = load_driver(db, driver_id)
    _check_presets(seat_position, seat_recline, mirror_tilt)
    existing = list(db.scalars(select(Profile).where(Profile.vehicle_id == vehicle.id).order_by(Profile.id)))
    mine = next((p for p in existing if p.driver_id == driver.id), None)
    if mine is not None:
        raise ToolError(
            f"Driver {driver.id} already has profile {mine.id} on {label(vehicle)}; change it with update_profile."
        )
    if len(existing) >= MAX_PROFILES:
        raise ToolError(
            f"{label(vehicle)} already stores {MAX_PROFILES} profiles ({', '.join(p.id for p in existing)}), the "
            "most it can; delete_profile one of them first."
        )
    _check_licence(driver)
    profile = Profile(
        id=next_id(db, Profile.id, "PRF"),
        driver_id=driver.id,
        vehicle_id=vehicle.id,
        seat_position=seat_position,
        seat_recline=seat_recline,
        mirror_tilt=mirror_tilt,
    )
    db.add(profile)
    db.flush()
    return _profile_view(db, profile)


@kit.tool(
    write=True,
    intent=(
        "Adjust driver profile {profile_id}[ (seat position {seat_position})][ (recline {seat_recline} degrees)]"
        "[ (mirror tilt {mirror_tilt})]"
    ),
    samples=SEAT_SAMPLES,
)
def update_profile(
    db: Session,
    profile_id: str,
    seat_position: int | None = None,
    seat_recline: int | None = None,
    mirror_tilt: int | None = None,
) -> dict[str, Any]:
    """Change a profile's seat or mirror presets; give at least one.

    While the profile is active on a vehicle that moves, the seat cannot be adjusted (the
    presets would move it): wait until the vehicle has stopped.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        profile_id: Profile id, e.g. "PRF-1001".
        seat_position: New seat position in steps from the front, 1 to 20, e.g. 12.
        seat_recline: New backrest angle in degrees, 90 to 130, e.g. 110.
        mirror_tilt: New mirror tilt, -10 to 10, e.g. 2.
    """
    profile = load_profile(db, profile_id)
    changes = {
        k: v
        for k, v in {"seat_position": seat_position, "seat_recline": seat_recline, "mirror_tilt": mirror_tilt}.items()
        if v is not None
    }
    if not changes:
        raise ToolError("Nothing to change: give seat_position, seat_recline or mirror_tilt.")
    _check_presets(seat_position, seat_recline, mirror_tilt)
    vehicle = db.get(Vehicle, profile.vehicle_id)
    assert vehicle is not None
    if vehicle.active_profile_id == profile.id:
        refuse_while_moving(vehicle, "adjust the seat of the active profile")
    if all(getattr(profile, k) == v for k, v in changes.items()):
        raise ToolError(f"Profile {profile.id} already has these presets; nothing changed.")
    for key, value in changes.items():
        setattr(profile, key, value)
    return _profile_view(db, profile)


@kit.tool(write=True, intent="Activate driver profile {profile_id} on vehicle {vehicle_id}")
def activate_profile(db: Session, vehicle_id: str, profile_id: str) -> dict[str, Any]:
    """Make a profile the active one of a vehicle: the seat and mirrors move to its presets.

    Only a profile registered on that vehicle can be activated, its driver's licence must be
    valid, and the vehicle must not be moving.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        vehicle_id: Vehicle id, e.g. "VEH-1001".
        profile_id: Profile id registered on that vehicle, e.g. "PRF-1001".
    """
    vehicle = load_vehicle(db, vehicle_id)
    profile = load_profile(db, profile_id)
    if profile.vehicle_id != vehicle.id:
        here = db.scalars(select(Profile.id).where(Profile.vehicle_id == vehicle.id).order_by(Profile.id))
        raise ToolError(
            f"Profile {profile.id} is registered on {profile.vehicle_id}, not on {vehicle.id}; only a profile "
            f"registered on a vehicle can be activated on it. {vehicle.id}'s profiles: {', '.join(here) or 'none'} "
            "(create_profile registers a driver)."
        )
    if vehicle.active_profile_id == profile.id:
        raise ToolError(f"Profile {profile.id} is already active on {label(vehicle)}; nothing changed.")
    refuse_while_moving(vehicle, "switch driver profiles (the seat would move)")
    driver = db.get(Driver, profile.driver_id)
    assert driver is not None
    _check_licence(driver)
    vehicle.active_profile_id = profile.id
    return {"vehicle_id": vehicle.id, "active_profile": _profile_view(db, profile)}


@kit.tool(write=True, intent="Delete driver profile {profile_id}", confirm="always")
def delete_profile(db: Session, profile_id: str) -> dict[str, Any]:
    """Delete a driver's profile from a vehicle: the driver is no longer registered on it. Irreversible.

    The active profile of a vehicle on a trip cannot be deleted (end_trip first); deleting the
    active profile of a parked vehicle leaves it with none active.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        profile_id: Profile id, e.g. "PRF-1001".
    """
    profile = load_profile(db, profile_id)
    vehicle = db.get(Vehicle, profile.vehicle_id)
    assert vehicle is not None
    active = vehicle.active_profile_id == profile.id
    if active and vehicle.state == "driving":
        raise ToolError(
            f"Profile {profile.id} is in use on {label(vehicle)}, which is on a trip; end_trip first, then delete it."
        )
    if active:
        vehicle.active_profile_id = None
    db.delete(profile)
    return {"deleted_profile_id": profile.id, "vehicle_id": vehicle.id, "driver_id": profile.driver_id}
