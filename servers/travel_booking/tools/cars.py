"""Travel booking tools for rental cars: search by airport and dates, book and cancel."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, dollars, format_dollars, next_id
from gym_mcp.servers.travel_booking.models import CAR_CLASSES, Booking, Car
from gym_mcp.servers.travel_booking.tools.common import (
    booking_view,
    car_clashes,
    check_dates,
    kit,
    load_airport,
    load_car,
    load_traveller,
    own_booking,
    paid_cents,
)

PICKUP_SAMPLES = ("2026-02-10", "2026-02-14", "2026-03-02", "2026-03-20")
DROPOFF_SAMPLES = ("2026-02-13", "2026-02-17", "2026-03-06", "2026-03-24")
LOCATION_SAMPLES = ("JFK", "LAX", "LHR", "SFO", "ORD", "CDG", "SEA", "MIA")


@kit.tool(
    write=False,
    intent="Find rental cars at {location} from {pickup_date} to {dropoff_date}[ in the {car_class} class]",
    samples={
        "location": LOCATION_SAMPLES,
        "pickup_date": PICKUP_SAMPLES,
        "dropoff_date": DROPOFF_SAMPLES,
        "car_class": CAR_CLASSES,
    },
)
def search_cars(
    db: Session, location: str, pickup_date: str, dropoff_date: str, car_class: str | None = None
) -> list[dict[str, Any]]:
    """Search the rental cars at an airport that are free for the whole rental, cheapest first.

    Each result has the car id to book, company, class, model, daily rate and the total for the
    rental. An empty list means no car is free (try other dates or another class).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        location: Airport IATA code where the car is picked up and returned, e.g. "LAX".
        pickup_date: Pickup date, ISO format, e.g. "2026-02-14".
        dropoff_date: Drop-off date, after pickup_date, e.g. "2026-02-17".
        car_class: Only this class: "economy", "compact", "midsize", "suv" or "luxury".
    """
    airport = load_airport(db, location, "location")
    first, last = check_dates(pickup_date, dropoff_date, "pickup_date", "dropoff_date", "rental")
    stmt = select(Car).where(Car.location == airport.id, Car.in_service.is_(True))
    if car_class is not None:
        wanted = car_class.strip().lower()
        if wanted not in CAR_CLASSES:
            raise ToolError(f"car_class must be one of {', '.join(CAR_CLASSES)}; got {car_class!r}.")
        stmt = stmt.where(Car.car_class == wanted)
    days = (last - first).days
    cars = [c for c in db.scalars(stmt.order_by(Car.daily_rate_cents, Car.id)) if not car_clashes(db, c, first, last)]
    return [
        {
            "car_id": c.id,
            "company": c.company,
            "car_class": c.car_class,
            "model": c.model,
            "daily_rate": dollars(c.daily_rate_cents),
            "total": dollars(c.daily_rate_cents * days),
        }
        for c in cars
    ]


@kit.tool(
    write=True,
    intent="Rent car {car_id} for traveller {traveller_id} from {pickup_date} to {dropoff_date}",
    samples={"pickup_date": PICKUP_SAMPLES, "dropoff_date": DROPOFF_SAMPLES},
)
def book_car(db: Session, traveller_id: str, car_id: str, pickup_date: str, dropoff_date: str) -> dict[str, Any]:
    """Book a rental car for a traveller, picked up and returned at the car's airport.

    pickup_date must be today or later and dropoff_date 1 to 30 days after it; the car must be
    in service and free for those days. The price is the daily rate times the days.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        traveller_id: Traveller id, e.g. "TRV-1001".
        car_id: Car id from search_cars, e.g. "CAR-1001".
        pickup_date: Pickup date, ISO format, e.g. "2026-02-14".
        dropoff_date: Drop-off date, e.g. "2026-02-17".
    """
    traveller = load_traveller(db, traveller_id)
    car = load_car(db, car_id)
    first, last = check_dates(pickup_date, dropoff_date, "pickup_date", "dropoff_date", "rental")
    if not car.in_service:
        raise ToolError(
            f"Car {car.id} is out of service (in the workshop); pick another car at {car.location} with search_cars."
        )
    clashes = car_clashes(db, car, first, last)
    if clashes:
        taken = "; ".join(f"{b.pickup_date} to {b.dropoff_date}" for b in clashes)
        free = [
            c.id
            for c in db.scalars(
                select(Car)
                .where(
                    Car.location == car.location,
                    Car.car_class == car.car_class,
                    Car.in_service.is_(True),
                    Car.id != car.id,
                )
                .order_by(Car.id)
            )
            if not car_clashes(db, c, first, last)
        ]
        hint = (
            f"other free {car.car_class} cars at {car.location}: {', '.join(free)}"
            if free
            else "search_cars lists free cars"
        )
        raise ToolError(f"Car {car.id} is already rented {taken}; {hint}.")
    days = (last - first).days
    booking = Booking(
        id=next_id(db, Booking.id, "BKG"),
        traveller_id=traveller.id,
        kind="car",
        status="booked",
        car_id=car.id,
        pickup_date=first,
        dropoff_date=last,
        price_cents=car.daily_rate_cents * days,
        fees_cents=0,
        points_redeemed=0,
        booked_on=kit.today,
    )
    db.add(booking)
    db.flush()
    out = booking_view(booking)
    out.update(days=days, location=car.location, model=car.model)
    return out


@kit.tool(write=True, intent="Cancel car booking {booking_id}", confirm="always")
def cancel_car_booking(db: Session, booking_id: str) -> dict[str, Any]:
    """Cancel a car booking for good; the car is freed.

    Free until the day before pickup; on the day before or the pickup day one day's rate is
    charged. Redeemed points are not returned. This cannot be undone: confirm with the traveller
    first.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        booking_id: A car booking id, e.g. "BKG-1001".
    """
    booking = own_booking(db, booking_id, "car")
    car = load_car(db, booking.car_id or "")
    paid = paid_cents(booking)
    days_before = ((booking.pickup_date or kit.today) - kit.today).days
    late = days_before < 2
    fee = min(car.daily_rate_cents if late else 0, paid)
    booking.status, booking.cancelled_on, booking.refund_cents = "cancelled", kit.today, paid - fee
    return {
        "booking_id": booking.id,
        "status": "cancelled",
        "car_id": car.id,
        "paid": dollars(paid),
        "cancellation_fee": dollars(fee),
        "refund": dollars(paid - fee),
        "rule": (
            f"one day ({format_dollars(car.daily_rate_cents)}) charged when cancelled less than 2 days before pickup"
            if late
            else "free cancellation up to 2 days before pickup"
        ),
    }
