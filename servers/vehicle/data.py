"""Deterministic seed data of the vehicle server.

`seed` fills an empty database from a `random.Random` alone: the same seed always gives the same
fleet, and a different seed another one. Every seed has vehicles parked, driving (moving and
stopped) and charging; locked and unlocked ones, open trunks; electric vehicles plugged in or not,
below and at their charge limit, some nearly empty; full and empty tanks; services ok, due soon
and overdue, bookings in the past and the future; drivers whose licence expired, drivers on no
vehicle and vehicles with the most profiles, so that every rule of the tools can be met.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from sqlalchemy.orm import Session

from gym_mcp.servers.kit import NamePool, unique_email
from gym_mcp.servers.vehicle.models import (
    HOME_PRICE_CENTS,
    MAX_PROFILES,
    SERVICE_TYPES,
    TODAY,
    ChargingSession,
    Driver,
    FuelLog,
    Profile,
    ServiceCenter,
    ServiceRecord,
    Trip,
    Vehicle,
)

__all__ = ["seed"]

FIRST_NAMES = (
    "Maya", "Jonas", "Elif", "Tomas", "Sara", "Luca", "Nadia", "Oscar", "Ines", "Pavel", "Amara", "Felix",
    "Hanna", "Mateo", "Leila", "Viktor", "Aiko", "Ruben", "Zara", "Emil", "Noor", "Karl", "Lucia", "Idris",
)  # fmt: skip
LAST_NAMES = (
    "Lindqvist", "Berg", "Yilmaz", "Novak", "Haddad", "Romano", "Okoye", "Fischer", "Moreau", "Kowalski",
    "Silva", "Jensen", "Tanaka", "Ruiz", "Nieminen", "Dumont", "Kaur", "Weiss", "Costa", "Andersen",
)  # fmt: skip
PEOPLE = NamePool(FIRST_NAMES, LAST_NAMES)
"""The names people of the seed data are drawn from."""
EV_MODELS = (
    # make, model, battery kWh, kWh per 100 km
    ("Tesla", "Model 3", 75, 15.5),
    ("Volkswagen", "ID.4", 77, 18.0),
    ("Hyundai", "Ioniq 5", 72, 17.5),
    ("Kia", "EV6", 77, 17.0),
    ("Nissan", "Leaf", 40, 16.0),
    ("Polestar", "2", 78, 18.5),
    ("Renault", "Megane E-Tech", 60, 16.5),
)
FUEL_MODELS = (
    # make, model, tank litres, litres per 100 km
    ("Toyota", "Corolla", 50, 5.8),
    ("Ford", "Transit", 80, 9.5),
    ("Volkswagen", "Golf", 50, 6.2),
    ("Skoda", "Octavia", 50, 6.0),
    ("Renault", "Master", 80, 10.5),
    ("Mazda", "CX-5", 56, 7.4),
)
ROLES = ("Pool car", "Sales car", "Delivery van", "Service car", "Executive car", "Courier car")
DESTINATIONS = (
    "Central depot", "Airport cargo terminal", "Harbor warehouse", "Client visit, Northgate", "City hall",
    "Riverside office", "Trade fair grounds", "Supplier, East industrial park", "Hospital logistics dock",
    "University campus", "Train station", "Head office",
)  # fmt: skip
CENTERS = (
    # name, city, services electric, services fuel
    ("Voltline EV Service", "Oslo", True, False),
    ("Greenway Electric Garage", "Bergen", True, False),
    ("AmpWorks", "Oslo", True, False),
    ("Nordic Motor Repair", "Oslo", False, True),
    ("Fjord Auto Care", "Bergen", False, True),
    ("QuickLube Center", "Trondheim", False, True),
    ("Classic Diesel & Petrol", "Stavanger", False, True),
    ("CityCar Service Hub", "Oslo", True, True),
    ("Coastline Vehicle Care", "Bergen", True, True),
    ("Allround Fleet Workshop", "Trondheim", True, True),
)
PLATE_LETTERS = "ABCDEFGHJKLMNPRSTUVWXYZ"


def _workday(day: date) -> date:
    """The day itself, or the Monday after when it is a Sunday (the workshops close on Sundays)."""
    return day + timedelta(days=1) if day.weekday() == 6 else day


def _weekday(day: date) -> date:
    """The day itself, or the Saturday before when it is a Sunday (for visits in the past)."""
    return day - timedelta(days=1) if day.weekday() == 6 else day


def _drivers(rng: random.Random) -> list[Driver]:
    """Forty-five drivers with unique emails; a few with an expired licence."""
    drivers: list[Driver] = []
    emails: set[str] = set()
    for i in range(45):
        first, last = PEOPLE.draw(rng)
        email = unique_email(first, last, "fleetco.example", emails)
        expired = i % 8 == 3
        expires = (
            TODAY - timedelta(days=rng.randint(5, 300)) if expired else TODAY + timedelta(days=rng.randint(60, 2500))
        )
        drivers.append(
            Driver(id=f"DRV-{1001 + i}", first_name=first, last_name=last, email=email, license_expires=expires)
        )
    return drivers


def _plate(rng: random.Random, used: set[str]) -> str:
    """A unique plate like ``"EK 48213"`` (the space keeps it from looking like an id)."""
    while True:
        plate = f"{rng.choice(PLATE_LETTERS)}{rng.choice(PLATE_LETTERS)} {rng.randint(10000, 99999)}"
        if plate not in used:
            used.add(plate)
            return plate


def _vehicle(rng: random.Random, i: int, plates: set[str]) -> Vehicle:
    """One vehicle, electric or fuel, parked, with its energy and service counters."""
    electric = i % 5 < 3  # three in five are electric
    make, model, size, consumption = rng.choice(EV_MODELS if electric else FUEL_MODELS)
    odometer = rng.randint(4000, 140000)
    interval_km = 30000 if electric else rng.choice((15000, 20000))
    months = 24 if electric else 12
    # about a third overdue, some due soon, the rest fine
    roll = rng.random()
    if roll < 0.3:
        since_km = rng.randint(int(interval_km * 0.4), int(interval_km * 1.2))
        since_days = rng.randint(months * 31, months * 31 + 200) if rng.random() < 0.5 else rng.randint(60, 300)
        if since_days < months * 30:
            since_km = interval_km + rng.randint(100, 4000)
    elif roll < 0.45:
        since_km = interval_km - rng.randint(100, 900)
        since_days = rng.randint(60, months * 28)
    else:
        since_km = rng.randint(500, int(interval_km * 0.85))
        since_days = rng.randint(20, months * 26)
    since_km = min(since_km, odometer - 1000)
    vehicle = Vehicle(
        id=f"VEH-{1001 + i}",
        nickname=f"{ROLES[i % len(ROLES)]} {i // len(ROLES) + 1}",
        make=make,
        model=model,
        year=rng.randint(2017, 2025),
        plate=_plate(rng, plates),
        powertrain="ev" if electric else "fuel",
        state="parked",
        speed_kmh=0,
        odometer_km=odometer,
        locked=rng.random() < 0.55,
        trunk_open=False,
        consumption=consumption,
        plugged_in=False,
        climate_on=rng.random() < 0.2,
        cabin_target_c=rng.choice((19.0, 20.0, 20.5, 21.0, 21.5, 22.0, 23.0)),
        service_interval_km=interval_km,
        service_interval_months=months,
        last_service_km=odometer - since_km,
        last_service_on=_weekday(TODAY - timedelta(days=since_days)),
    )
    if electric:
        vehicle.battery_kwh = size
        vehicle.charge_limit_pct = rng.choice((80, 80, 90, 90, 100, 70))
        vehicle.battery_pct = rng.randint(8, vehicle.charge_limit_pct)
        if rng.random() < 0.2:
            vehicle.battery_pct = rng.randint(5, 18)  # nearly empty
    else:
        vehicle.tank_liters = size
        vehicle.fuel_liters = round(rng.uniform(4, size - 1), 1)
        if rng.random() < 0.15:
            vehicle.fuel_liters = round(size - rng.uniform(0, 2), 1)  # nearly full
    if not vehicle.locked and rng.random() < 0.35:
        vehicle.trunk_open = True
    return vehicle


def _profiles(rng: random.Random, vehicles: list[Vehicle], drivers: list[Driver]) -> list[Profile]:
    """One to four drivers registered on each vehicle; a few drivers on none."""
    profiles: list[Profile] = []
    pool = drivers[:40]  # the last five drivers are registered nowhere
    for n, vehicle in enumerate(vehicles):
        count = MAX_PROFILES if n % 9 == 4 else rng.choices((1, 2, 3), weights=(3, 4, 2))[0]
        for driver in rng.sample(pool, count):
            profiles.append(
                Profile(
                    id=f"PRF-{1001 + len(profiles)}",
                    driver_id=driver.id,
                    vehicle_id=vehicle.id,
                    seat_position=rng.randint(3, 18),
                    seat_recline=rng.randint(95, 120),
                    mirror_tilt=rng.randint(-6, 6),
                )
            )
    return profiles


def _trips(
    rng: random.Random, vehicles: list[Vehicle], profiles: list[Profile], drivers: dict[str, Driver]
) -> list[Trip]:
    """Past trips of every vehicle and the trip in progress of those now driving."""
    entries: list[tuple[date, int, Trip]] = []
    by_vehicle: dict[str, list[Profile]] = {}
    for profile in profiles:
        by_vehicle.setdefault(profile.vehicle_id, []).append(profile)
    for n, vehicle in enumerate(vehicles):
        registered = by_vehicle[vehicle.id]
        allowed = [p for p in registered if drivers[p.driver_id].license_expires >= TODAY] or registered
        cursor = vehicle.odometer_km
        if n % 4 == 1:  # a quarter of the fleet is on the road: moving, or stopped at a light
            profile = rng.choice(allowed)
            vehicle.state = "driving"
            vehicle.speed_kmh = rng.choice((0, 0, 0, 30, 50, 60, 80, 110))
            vehicle.locked = True
            vehicle.trunk_open = False
            vehicle.active_profile_id = profile.id
            trip = Trip(
                vehicle_id=vehicle.id,
                driver_id=profile.driver_id,
                destination=rng.choice(DESTINATIONS),
                status="in_progress",
                started_on=TODAY,
                start_odometer_km=cursor,
            )
            entries.append((TODAY, 1, trip))
        elif rng.random() < 0.5:
            vehicle.active_profile_id = rng.choice(registered).id
        day = TODAY - timedelta(days=rng.randint(1, 4))
        for _ in range(rng.randint(2, 4)):
            driver = rng.choice(allowed).driver_id
            distance = rng.randint(8, 260)
            entries.append(
                (
                    day,
                    0,
                    Trip(
                        vehicle_id=vehicle.id,
                        driver_id=driver,
                        destination=rng.choice(DESTINATIONS),
                        status="completed",
                        started_on=day,
                        ended_on=day,
                        start_odometer_km=cursor - distance,
                        distance_km=distance,
                        energy_used=round(distance * vehicle.consumption / 100, 1),
                    ),
                )
            )
            cursor -= distance
            day -= timedelta(days=rng.randint(1, 12))
    entries.sort(key=lambda e: (e[0], e[1], e[2].vehicle_id, e[2].start_odometer_km))
    trips = []
    for i, (_, _, trip) in enumerate(entries):
        trip.id = f"TRP-{1001 + i}"
        trips.append(trip)
    return trips


def _energy(rng: random.Random, vehicles: list[Vehicle]) -> tuple[list[ChargingSession], list[FuelLog]]:
    """Past charging sessions and refuels, and the active sessions of the vehicles now charging."""
    sessions: list[ChargingSession] = []
    fuel: list[FuelLog] = []
    for n, vehicle in enumerate(vehicles):
        if vehicle.powertrain == "ev":
            assert vehicle.battery_kwh is not None
            assert vehicle.charge_limit_pct is not None
            day = TODAY - timedelta(days=rng.randint(1, 6))
            for _ in range(rng.randint(1, 3)):
                start = rng.randint(10, 50)
                target = rng.choice((vehicle.charge_limit_pct, 80, 70))
                energy = round((target - start) * vehicle.battery_kwh / 100, 1)
                sessions.append(
                    ChargingSession(
                        vehicle_id=vehicle.id,
                        status="completed",
                        started_on=day,
                        start_pct=start,
                        target_pct=target,
                        energy_kwh=energy,
                        cost_cents=round(energy * HOME_PRICE_CENTS),
                    )
                )
                day -= timedelta(days=rng.randint(3, 15))
            if vehicle.state == "parked":
                roll = rng.random()
                if roll < 0.3 and vehicle.battery_pct is not None and vehicle.battery_pct < vehicle.charge_limit_pct:
                    vehicle.state = "charging"
                    vehicle.plugged_in = True
                    sessions.append(
                        ChargingSession(
                            vehicle_id=vehicle.id,
                            status="active",
                            started_on=TODAY,
                            start_pct=vehicle.battery_pct,
                            target_pct=vehicle.charge_limit_pct,
                        )
                    )
                elif roll < 0.65:
                    vehicle.plugged_in = True
                    if n % 3 == 0:
                        vehicle.battery_pct = vehicle.charge_limit_pct  # full to its limit
        else:
            assert vehicle.tank_liters is not None
            day = TODAY - timedelta(days=rng.randint(1, 9))
            odometer = vehicle.odometer_km - rng.randint(50, 400)
            for _ in range(rng.randint(2, 4)):
                liters = round(rng.uniform(vehicle.tank_liters * 0.4, vehicle.tank_liters * 0.9), 1)
                price = rng.randint(165, 199)
                fuel.append(
                    FuelLog(
                        vehicle_id=vehicle.id,
                        filled_on=day,
                        liters=liters,
                        price_per_liter_cents=price,
                        cost_cents=round(liters * price),
                        odometer_km=odometer,
                    )
                )
                day -= timedelta(days=rng.randint(7, 25))
                odometer -= rng.randint(300, 700)
    sessions.sort(key=lambda s: (s.started_on, s.vehicle_id, s.status))
    fuel.sort(key=lambda f: (f.filled_on, f.vehicle_id))
    for i, session in enumerate(sessions):
        session.id = f"CHG-{1001 + i}"
    for i, log in enumerate(fuel):
        log.id = f"FUL-{1001 + i}"
    return sessions, fuel


def _services(rng: random.Random, vehicles: list[Vehicle], centers: list[ServiceCenter]) -> list[ServiceRecord]:
    """Each vehicle's last inspection, other past work, cancelled visits and bookings to come."""
    entries: list[ServiceRecord] = []
    for n, vehicle in enumerate(vehicles):
        fits = [c for c in centers if (c.services_ev if vehicle.powertrain == "ev" else c.services_fuel)]
        home = rng.choice(fits)
        kinds = [k for k, powertrains in SERVICE_TYPES.items() if vehicle.powertrain in powertrains]
        entries.append(
            ServiceRecord(
                vehicle_id=vehicle.id,
                center_id=home.id,
                service_type="inspection",
                status="completed",
                scheduled_on=vehicle.last_service_on,
                odometer_km=vehicle.last_service_km,
                cost_cents=rng.randint(180, 420) * 100,
            )
        )
        if rng.random() < 0.5:
            day = _weekday(vehicle.last_service_on + timedelta(days=rng.randint(10, 120)))
            if day < TODAY:
                entries.append(
                    ServiceRecord(
                        vehicle_id=vehicle.id,
                        center_id=rng.choice(fits).id,
                        service_type=rng.choice([k for k in kinds if k != "inspection"]),
                        status="completed",
                        scheduled_on=day,
                        odometer_km=vehicle.last_service_km + rng.randint(200, 3000),
                        cost_cents=rng.randint(60, 250) * 100,
                    )
                )
        if n % 6 == 2:
            entries.append(
                ServiceRecord(
                    vehicle_id=vehicle.id,
                    center_id=rng.choice(fits).id,
                    service_type=rng.choice(kinds),
                    status="cancelled",
                    scheduled_on=_workday(TODAY - timedelta(days=rng.randint(3, 60))),
                )
            )
        if n % 4 == 3 or n % 7 == 0:  # bookings: some due today or a few days ago, the rest to come
            past = n % 4 == 3 and n % 3 != 0
            day = (
                TODAY - timedelta(days=rng.randint(0, 3))
                if past
                else _workday(TODAY + timedelta(days=rng.randint(1, 40)))
            )
            entries.append(
                ServiceRecord(
                    vehicle_id=vehicle.id,
                    center_id=home.id,
                    service_type="inspection" if past and n % 8 == 3 else rng.choice(kinds),
                    status="booked",
                    scheduled_on=day,
                )
            )
    entries.sort(key=lambda r: (r.scheduled_on, r.vehicle_id, r.service_type))
    for i, record in enumerate(entries):
        record.id = f"SRV-{1001 + i}"
    return entries


def seed(db: Session, rng: random.Random) -> None:
    """Fill an empty vehicle database deterministically.

    Args:
        db: Session on the freshly created schema.
        rng: The only source of randomness.
    """
    drivers = _drivers(rng)
    plates: set[str] = set()
    vehicles = [_vehicle(rng, i, plates) for i in range(60)]
    profiles = _profiles(rng, vehicles, drivers)
    trips = _trips(rng, vehicles, profiles, {d.id: d for d in drivers})
    sessions, fuel = _energy(rng, vehicles)
    centers = [
        ServiceCenter(id=f"CTR-{1001 + i}", name=name, city=city, services_ev=ev, services_fuel=gas)
        for i, (name, city, ev, gas) in enumerate(CENTERS)
    ]
    services = _services(rng, vehicles, centers)
    db.add_all(drivers)
    db.add_all(centers)
    db.add_all(vehicles)
    db.flush()
    db.add_all(profiles)
    db.flush()
    db.add_all([*trips, *sessions, *fuel, *services])
    db.flush()
