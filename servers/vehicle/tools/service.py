"""Vehicle tools for servicing: workshops, service history, booking, cancelling and completing a visit."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_status, next_id, parse_date, pick, to_cents
from gym_mcp.servers.vehicle.models import POWERTRAINS, SERVICE_TYPES, ServiceCenter, ServiceRecord, Vehicle
from gym_mcp.servers.vehicle.tools.common import (
    kit,
    label,
    load_center,
    load_service,
    load_vehicle,
    service_due,
)

RECORD_STATUSES = ("booked", "completed", "cancelled")
BOOKING_WINDOW_DAYS = 90
DATE_SAMPLES = ("2026-01-20", "2026-01-22", "2026-01-27", "2026-02-03", "2026-02-10", "2026-02-19")


def _record_view(db: Session, record: ServiceRecord) -> dict[str, Any]:
    """The fields of a service record a model needs."""
    center = db.get(ServiceCenter, record.center_id)
    assert center is not None
    return {
        "service_record_id": record.id,
        **pick(record, "vehicle_id", "center_id"),
        "center_name": center.name,
        **pick(record, "service_type", "status"),
        "scheduled_on": record.scheduled_on.isoformat(),
        "odometer_km": record.odometer_km,
        "cost": None if record.cost_cents is None else record.cost_cents / 100,
    }


def _serves(center: ServiceCenter, powertrain: str) -> bool:
    """Whether a workshop services vehicles of a powertrain."""
    return center.services_ev if powertrain == "ev" else center.services_fuel


@kit.tool(
    write=False,
    intent="List the service centers[ in {city}][ that service {powertrain} vehicles]",
    samples={"city": ("Oslo", "Bergen", "Trondheim"), "powertrain": POWERTRAINS},
)
def list_service_centers(db: Session, city: str | None = None, powertrain: str | None = None) -> list[dict[str, Any]]:
    """List the workshops that take bookings, with the powertrains each services (ev, fuel or both).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        city: Only workshops in this city, e.g. "Oslo".
        powertrain: Only workshops that service "ev" or "fuel" vehicles, e.g. "ev".
    """
    if powertrain is not None and powertrain.strip().lower() not in POWERTRAINS:
        raise ToolError(f"powertrain must be one of {', '.join(POWERTRAINS)}; got {powertrain!r}")
    rows = []
    for center in db.scalars(select(ServiceCenter).order_by(ServiceCenter.id)):
        if city is not None and center.city.lower() != city.strip().lower():
            continue
        if powertrain is not None and not _serves(center, powertrain.strip().lower()):
            continue
        kinds = [p for p in POWERTRAINS if _serves(center, p)]
        rows.append({"center_id": center.id, **pick(center, "name", "city"), "services": kinds})
    return rows


@kit.tool(
    write=False,
    intent="Show the service history of vehicle {vehicle_id}[ with status {status}]",
    samples={"status": RECORD_STATUSES},
)
def list_service_records(db: Session, vehicle_id: str, status: str | None = None) -> dict[str, Any]:
    """List a vehicle's workshop visits (booked, completed, cancelled), newest first, and when service is due.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        vehicle_id: Vehicle id, e.g. "VEH-1001".
        status: Only "booked", "completed" or "cancelled" records, e.g. "booked".
    """
    vehicle = load_vehicle(db, vehicle_id)
    stmt = select(ServiceRecord).where(ServiceRecord.vehicle_id == vehicle.id)
    if status is not None:
        wanted = status.strip().lower()
        if wanted not in RECORD_STATUSES:
            raise ToolError(f"status must be one of {', '.join(RECORD_STATUSES)}; got {status!r}")
        stmt = stmt.where(ServiceRecord.status == wanted)
    rows = db.scalars(stmt.order_by(ServiceRecord.scheduled_on.desc(), ServiceRecord.id.desc()))
    return {
        "vehicle_id": vehicle.id,
        "service_due": service_due(vehicle),
        "records": [_record_view(db, r) for r in rows],
    }


@kit.tool(
    write=True,
    intent="Book a {service_type} for vehicle {vehicle_id} at service center {center_id} on {date}",
    samples={"service_type": tuple(SERVICE_TYPES), "date": DATE_SAMPLES},
)
def book_service(db: Session, vehicle_id: str, center_id: str, service_type: str, date: str) -> dict[str, Any]:
    """Book a workshop visit for a vehicle on a date.

    The date must be after today and within 90 days, not a Sunday (workshops are closed). The
    workshop must service the vehicle's powertrain (list_service_centers), the service type must
    fit it (oil_change is for fuel vehicles, battery_check for electric ones), and a vehicle holds
    one booking at a time (cancel_service frees it).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        vehicle_id: Vehicle id, e.g. "VEH-1001".
        center_id: Service center id, e.g. "CTR-1001".
        service_type: One of inspection, oil_change, battery_check, tire_rotation, brake_service, e.g. "inspection".
        date: Day of the visit, ISO format, e.g. "2026-02-03".
    """
    vehicle = load_vehicle(db, vehicle_id)
    center = load_center(db, center_id)
    kind = service_type.strip().lower()
    if kind not in SERVICE_TYPES:
        raise ToolError(f"service_type must be one of {', '.join(SERVICE_TYPES)}; got {service_type!r}")
    day = parse_date(date, "date")
    if day <= kit.today or day > kit.today + timedelta(days=BOOKING_WINDOW_DAYS):
        raise ToolError(
            f"date {day} is out of range: a visit can be booked from {kit.today + timedelta(days=1)} to "
            f"{kit.today + timedelta(days=BOOKING_WINDOW_DAYS)} (after today, within {BOOKING_WINDOW_DAYS} days)."
        )
    if day.weekday() == 6:
        raise ToolError(
            f"{day} is a Sunday and workshops are closed; pick another day, e.g. {day + timedelta(days=1)}."
        )
    if vehicle.powertrain not in SERVICE_TYPES[kind]:
        fits = [k for k, p in SERVICE_TYPES.items() if vehicle.powertrain in p]
        raise ToolError(
            f"A {kind} does not apply to {label(vehicle)}, a {vehicle.powertrain} vehicle; its service types are "
            f"{', '.join(fits)}."
        )
    if not _serves(center, vehicle.powertrain):
        others = [
            c.id for c in db.scalars(select(ServiceCenter).order_by(ServiceCenter.id)) if _serves(c, vehicle.powertrain)
        ]
        raise ToolError(
            f"{center.id} ({center.name}) does not service {vehicle.powertrain} vehicles; workshops that do: "
            f"{', '.join(others)}."
        )
    booked = db.scalar(
        select(ServiceRecord).where(ServiceRecord.vehicle_id == vehicle.id, ServiceRecord.status == "booked")
    )
    if booked is not None:
        raise ToolError(
            f"{label(vehicle)} already has booking {booked.id} ({booked.service_type} on {booked.scheduled_on}); a "
            "vehicle holds one booking at a time. cancel_service it first to book another."
        )
    record = ServiceRecord(
        id=next_id(db, ServiceRecord.id, "SRV"),
        vehicle_id=vehicle.id,
        center_id=center.id,
        service_type=kind,
        status="booked",
        scheduled_on=day,
    )
    db.add(record)
    db.flush()
    return {**_record_view(db, record), "service_due": service_due(vehicle)}


@kit.tool(write=True, intent="Cancel service booking {service_record_id}", confirm="always")
def cancel_service(db: Session, service_record_id: str) -> dict[str, Any]:
    """Cancel a booked workshop visit. Only a booking can be cancelled, not a completed visit.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        service_record_id: Service record id of the booking, e.g. "SRV-1001".
    """
    record = load_service(db, service_record_id)
    check_status(
        record,
        {
            "completed": f"{record.id} was completed on {record.scheduled_on}; only a booked visit can be cancelled.",
            "cancelled": f"{record.id} is already cancelled; nothing changed.",
        },
    )
    record.status = "cancelled"
    return _record_view(db, record)


@kit.tool(
    write=True,
    intent="Mark service visit {service_record_id} as done[ at a cost of {cost}]",
    samples={"cost": (89, 149.5, 240, 395)},
)
def complete_service(db: Session, service_record_id: str, cost: float | None = None) -> dict[str, Any]:
    """Record a booked visit as done, on or after its scheduled day, at the vehicle's current odometer.

    A completed inspection resets the service interval (the next one is due a full interval from
    today); other service types do not. A visit scheduled after today cannot be completed yet.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        service_record_id: Service record id of the booking, e.g. "SRV-1001".
        cost: What the visit cost, e.g. 149.50.
    """
    record = load_service(db, service_record_id)
    check_status(
        record,
        {
            "completed": f"{record.id} is already completed; nothing changed.",
            "cancelled": f"{record.id} was cancelled; book_service books a new visit.",
        },
    )
    cents = None if cost is None else to_cents(cost, "cost", maximum=2_000_000)
    if record.scheduled_on > kit.today:
        raise ToolError(
            f"{record.id} is scheduled for {record.scheduled_on}, after today ({kit.today}); it can be completed on "
            "or after that day."
        )
    vehicle = db.get(Vehicle, record.vehicle_id)
    assert vehicle is not None
    record.status = "completed"
    record.odometer_km = vehicle.odometer_km
    record.cost_cents = cents
    if record.service_type == "inspection":
        vehicle.last_service_km = vehicle.odometer_km
        vehicle.last_service_on = kit.today
    return {**_record_view(db, record), "service_due": service_due(vehicle)}
