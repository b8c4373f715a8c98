"""Deterministic seed data of the travel booking server.

`seed` fills an empty database from a `random.Random` alone: the same seed always gives the
same travellers, flights, seat maps, hotels, cars, bookings, itineraries and loyalty
memberships, and a different seed gives different ones. Every seed has travellers without a
passport or with one about to expire, full cabins and nearly full hotels, cars in the workshop,
cancelled bookings and basic fares, so the error paths of the tools are reachable.
"""

from __future__ import annotations

import random
from datetime import date, datetime, time, timedelta
from typing import Any

from sqlalchemy import insert
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import NamePool, unique_email
from gym_mcp.servers.travel_booking.models import (
    TODAY,
    Airport,
    Base,
    Booking,
    Car,
    FareRule,
    Flight,
    Hotel,
    Itinerary,
    Membership,
    PointTransaction,
    RoomType,
    Traveller,
)

__all__ = [
    "AIRPORTS",
    "BUSINESS_ROWS",
    "ECONOMY_ROWS",
    "FARE_RULES",
    "PROGRAMS",
    "seat_labels",
    "seed",
]

AIRPORTS = (
    ("JFK", "John F. Kennedy International", "New York", "US"),
    ("LAX", "Los Angeles International", "Los Angeles", "US"),
    ("ORD", "O'Hare International", "Chicago", "US"),
    ("SFO", "San Francisco International", "San Francisco", "US"),
    ("SEA", "Seattle-Tacoma International", "Seattle", "US"),
    ("BOS", "Logan International", "Boston", "US"),
    ("MIA", "Miami International", "Miami", "US"),
    ("YYZ", "Toronto Pearson", "Toronto", "CA"),
    ("YVR", "Vancouver International", "Vancouver", "CA"),
    ("MEX", "Benito Juarez International", "Mexico City", "MX"),
    ("LHR", "Heathrow", "London", "GB"),
    ("CDG", "Charles de Gaulle", "Paris", "FR"),
    ("FRA", "Frankfurt am Main", "Frankfurt", "DE"),
    ("AMS", "Schiphol", "Amsterdam", "NL"),
    ("LIS", "Humberto Delgado", "Lisbon", "PT"),
    ("NRT", "Narita International", "Tokyo", "JP"),
)
"""(IATA code, name, city, ISO country) of every airport."""

# (origin, destination, airline, flight number, minutes in the air, economy fare in dollars)
ROUTES = (
    ("JFK", "LAX", "Aurora Air", "AU 101", 375, 289),
    ("LAX", "JFK", "Aurora Air", "AU 102", 330, 299),
    ("ORD", "SFO", "Northstar Airways", "NS 220", 285, 219),
    ("SEA", "BOS", "Northstar Airways", "NS 318", 330, 249),
    ("BOS", "MIA", "Aurora Air", "AU 455", 210, 179),
    ("JFK", "LHR", "Aurora Air", "AU 900", 420, 689),
    ("LHR", "JFK", "Aurora Air", "AU 901", 480, 659),
    ("SFO", "NRT", "Meridian Airlines", "MD 12", 660, 1049),
    ("BOS", "CDG", "Meridian Airlines", "MD 84", 435, 619),
    ("ORD", "FRA", "Northstar Airways", "NS 740", 525, 729),
    ("MIA", "MEX", "Aurora Air", "AU 610", 215, 329),
    ("SEA", "YVR", "Northstar Airways", "NS 512", 60, 159),
    ("JFK", "YYZ", "Aurora Air", "AU 330", 95, 199),
    ("AMS", "LIS", "Meridian Airlines", "MD 270", 175, 189),
)

BUSINESS_ROWS = (1, 2)
ECONOMY_ROWS = tuple(range(10, 17))
BUSINESS_LETTERS = "ACDF"
ECONOMY_LETTERS = "ABCDEF"

FARE_RULES = (
    # fare class, label, % of the cabin fare, change fee, cancellation fee, economy only
    ("basic", "Basic Economy", 80, None, None, True),
    ("saver", "Saver", 90, 12_000, None, False),
    ("standard", "Standard", 100, 7_500, 15_000, False),
    ("flex", "Flex", 135, 0, 0, False),
)
"""Fare classes: change fee None = cannot be changed; cancellation fee None = non-refundable."""

PROGRAMS = (
    ("Aurora Miles", "flight", "AM"),
    ("Staywell Rewards", "hotel", "SW"),
    ("DriveClub", "car", "DC"),
)
"""Loyalty programmes: (name, the booking kind they pay for, member number prefix)."""

TIERS = ("blue", "silver", "gold", "platinum")

FIRST_NAMES = (
    "Olivia", "Liam", "Emma", "Noah", "Ava", "Elijah", "Sophia", "James", "Isabella", "Lucas", "Mia", "Mateo",
    "Amelia", "Ethan", "Harper", "Benjamin", "Evelyn", "Daniel", "Abigail", "Henry", "Emily", "Jackson", "Ella",
    "Samuel", "Priya", "Arjun", "Mei", "Wei", "Fatima", "Omar", "Sofia", "Diego", "Aisha", "Kwame", "Hana",
    "Kenji", "Ingrid", "Lars", "Camila", "Rafael", "Zoe", "Gabriel", "Nora", "Leo",
)  # fmt: skip
LAST_NAMES = (
    "Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez",
    "Lopez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Martin", "Lee", "Thompson", "White", "Harris",
    "Clark", "Lewis", "Walker", "Young", "King", "Wright", "Nguyen", "Patel", "Kim", "Chen", "Okafor", "Mensah",
    "Nakamura", "Larsen", "Novak", "Rossi", "Schmidt", "Dubois",
)  # fmt: skip
PEOPLE = NamePool(FIRST_NAMES, LAST_NAMES)
"""The names people of the seed data are drawn from."""
EMAIL_DOMAINS = ("gmail.com", "outlook.com", "yahoo.com", "icloud.com", "proton.me")
HOTEL_BRANDS = (
    "Grand", "Harbor View", "Parkside", "City Lights", "Riverside", "Metropole", "Garden Inn", "Skyline",
)  # fmt: skip
STREETS = ("Main St", "Harbor Rd", "Park Ave", "King St", "Station Sq", "Market St", "River Walk", "Elm St")
CARS = {
    "economy": (("Toyota Yaris", 39), ("Kia Rio", 37), ("Nissan Versa", 41)),
    "compact": (("VW Golf", 49), ("Honda Civic", 52), ("Ford Focus", 47)),
    "midsize": (("Toyota Camry", 62), ("Hyundai Sonata", 59), ("Mazda 6", 61)),
    "suv": (("Toyota RAV4", 79), ("Ford Explorer", 89), ("Honda CR-V", 82)),
    "luxury": (("BMW 5 Series", 139), ("Mercedes E-Class", 149), ("Audi A6", 135)),
}
CAR_COMPANIES = ("Hertz", "Avis", "Sixt", "Enterprise")
TRIP_NAMES = (
    "Spring trip", "Client visit", "Family holiday", "Conference week", "Weekend away", "Team offsite",
    "Ski trip", "Sales roadshow",
)  # fmt: skip
ROOMS = (("standard", (6, 14), (110, 220), 2), ("deluxe", (3, 6), (190, 340), 3), ("suite", (1, 2), (380, 720), 4))


def seat_labels(cabin: str) -> list[str]:
    """Every seat of a cabin in seat-map order, e.g. ``["1A", "1C", ...]``."""
    rows, letters = (BUSINESS_ROWS, BUSINESS_LETTERS) if cabin == "business" else (ECONOMY_ROWS, ECONOMY_LETTERS)
    return [f"{row}{letter}" for row in rows for letter in letters]


def _travellers(rng: random.Random) -> list[Traveller]:
    """Sixty travellers; most hold a valid passport, some none, some one that expires soon."""
    out: list[Traveller] = []
    emails: set[str] = set()
    homes = [a[0] for a in AIRPORTS if a[3] == "US"] * 3 + [a[0] for a in AIRPORTS]
    countries = {a[0]: a[3] for a in AIRPORTS}
    for i in range(60):
        first, last = PEOPLE.draw(rng)
        domain = rng.choice(EMAIL_DOMAINS)
        email = unique_email(first, last, domain, emails)
        home = rng.choice(homes)
        t = Traveller(
            id=f"TRV-{1001 + i}",
            first_name=first,
            last_name=last,
            email=email,
            phone=f"+1-{rng.randint(201, 989)}-555-{rng.randint(0, 9999):04d}",
            home_airport=home,
            date_of_birth=date(rng.randint(1955, 2004), rng.randint(1, 12), rng.randint(1, 28)),
        )
        roll = rng.random()
        if roll >= 0.08:
            t.passport_number = f"{rng.choice('ACEKMPRX')}{rng.randint(10_000_000, 99_999_999)}"
            t.passport_country = countries[home]
            if roll < 0.2:  # expires soon, or has expired already
                t.passport_expiry = TODAY + timedelta(days=rng.randint(-60, 200))
            else:
                t.passport_expiry = TODAY + timedelta(days=rng.randint(400, 3600))
        out.append(t)
    return out


def _flights(rng: random.Random) -> list[Flight]:
    """Four departures of each route between late January and April, in departure order."""
    flights: list[tuple[datetime, Flight]] = []
    for origin, dest, airline, number, minutes, fare in ROUTES:
        days = sorted(rng.sample(range(6, 105), 4))
        hour, minute = rng.randint(6, 21), rng.choice((0, 15, 30, 45))
        for day in days:
            departs = datetime.combine(TODAY + timedelta(days=day), time(hour, minute))
            economy = (fare + rng.randint(-30, 60)) * 100
            flights.append(
                (
                    departs,
                    Flight(
                        number=number,
                        airline=airline,
                        origin=origin,
                        destination=dest,
                        departs_at=departs,
                        arrives_at=departs + timedelta(minutes=minutes),
                        aircraft=rng.choice(("Airbus A321", "Boeing 737-800", "Airbus A330", "Boeing 787-9")),
                        economy_fare_cents=economy,
                        business_fare_cents=economy * rng.choice((3, 4)) + rng.randint(0, 99) * 100,
                    ),
                )
            )
    flights.sort(key=lambda p: (p[0], p[1].number))
    for i, (_, f) in enumerate(flights):
        f.id = f"FLT-{1001 + i}"
    return [f for _, f in flights]


SeatRow = dict[str, Any]
"""A seat as a row dict (seats are many: they are inserted in bulk, not as ORM objects)."""


def _seats(rng: random.Random, flights: list[Flight]) -> dict[str, list[SeatRow]]:
    """The seat map of every flight, part taken by other passengers; a few cabins full."""
    full = {f.id: rng.choice(("economy", "business")) for f in rng.sample(flights, 4)}
    out: dict[str, list[SeatRow]] = {}
    for flight in flights:
        share = rng.uniform(0.3, 0.7)
        seats = []
        for cabin in ("business", "economy"):
            for label in seat_labels(cabin):
                taken = full.get(flight.id) == cabin or rng.random() < share
                seats.append(
                    {"flight_id": flight.id, "seat": label, "cabin": cabin, "taken": taken, "booking_id": None}
                )
        out[flight.id] = seats
    return out


def _hotels(rng: random.Random) -> tuple[list[Hotel], list[RoomType]]:
    """Two hotels in most airport cities, each with standard, deluxe and (mostly) suite rooms."""
    hotels: list[Hotel] = []
    rooms: list[RoomType] = []
    for _, _, city, country in AIRPORTS:
        for brand in rng.sample(HOTEL_BRANDS, rng.choice((1, 2, 2))):
            hotel = Hotel(
                id=f"HTL-{1001 + len(hotels)}",
                name=f"{brand} {city}",
                city=city,
                country=country,
                stars=rng.choice((3, 3, 4, 4, 5)),
                address=f"{rng.randint(1, 480)} {rng.choice(STREETS)}, {city}",
            )
            hotels.append(hotel)
            for room_type, count, rate, guests in ROOMS:
                if room_type == "suite" and rng.random() < 0.25:
                    continue
                rooms.append(
                    RoomType(
                        hotel_id=hotel.id,
                        room_type=room_type,
                        total_rooms=rng.randint(*count),
                        nightly_rate_cents=(rng.randint(*rate) + 20 * (hotel.stars - 3)) * 100,
                        max_guests=guests,
                    )
                )
    return hotels, rooms


def _cars(rng: random.Random) -> list[Car]:
    """Three cars at most airports; a few are in the workshop (out of service)."""
    cars: list[Car] = []
    for code, *_ in AIRPORTS:
        for car_class in sorted(rng.sample(sorted(CARS), 3)):
            model, rate = rng.choice(CARS[car_class])
            cars.append(
                Car(
                    id=f"CAR-{1001 + len(cars)}",
                    location=code,
                    company=rng.choice(CAR_COMPANIES),
                    car_class=car_class,
                    model=model,
                    daily_rate_cents=(rate + rng.randint(-4, 6)) * 100,
                    in_service=True,
                )
            )
    for car in rng.sample(cars, 4):
        car.in_service = False
    return cars


def _passport_ok(traveller: Traveller, flight: Flight, countries: dict[str, str]) -> bool:
    """Whether the traveller may fly on the flight (the rule the booking tools apply)."""
    if countries[flight.origin] == countries[flight.destination]:
        return True
    expiry = traveller.passport_expiry
    return expiry is not None and expiry >= flight.departs_at.date() + timedelta(days=183)


def _bookings(
    rng: random.Random,
    travellers: list[Traveller],
    flights: list[Flight],
    seats: dict[str, list[SeatRow]],
    rooms: list[RoomType],
    cars: list[Car],
) -> list[Booking]:
    """Flight, hotel and car bookings that respect every rule; some cancelled, some changed."""
    countries = {a[0]: a[3] for a in AIRPORTS}
    fare_pct = {r[0]: r[2] for r in FARE_RULES}
    cancel_fee: dict[str, int | None] = {r[0]: r[4] for r in FARE_RULES}
    bookings: list[Booking] = []

    def add(traveller: Traveller, kind: str, price: int, **fields: object) -> Booking:
        booking = Booking(
            id=f"BKG-{1001 + len(bookings)}",
            traveller_id=traveller.id,
            kind=kind,
            status="booked",
            price_cents=price,
            fees_cents=0,
            points_redeemed=0,
            booked_on=TODAY - timedelta(days=rng.randint(1, 60)),
            **fields,
        )
        bookings.append(booking)
        return booking

    flown: set[tuple[str, str]] = set()
    while sum(b.kind == "flight" for b in bookings) < 55:
        traveller, flight = rng.choice(travellers), rng.choice(flights)
        if (traveller.id, flight.id) in flown or not _passport_ok(traveller, flight, countries):
            continue
        cabin = "business" if rng.random() < 0.2 else "economy"
        free = [s for s in seats[flight.id] if s["cabin"] == cabin and not s["taken"]]
        if not free:
            continue
        fare_class = rng.choice(
            ("saver", "standard", "standard", "flex") + (("basic",) * 2 if cabin == "economy" else ())
        )
        base = flight.economy_fare_cents if cabin == "economy" else flight.business_fare_cents
        seat = rng.choice(free)
        booking = add(
            traveller,
            "flight",
            base * fare_pct[fare_class] // 100,
            flight_id=flight.id,
            cabin=cabin,
            fare_class=fare_class,
            seat=seat["seat"],
        )
        seat["taken"], seat["booking_id"] = True, booking.id
        flown.add((traveller.id, flight.id))
        if fare_class in ("standard", "flex") and rng.random() < 0.15:
            booking.status = "changed"
            booking.fees_cents = 7_500 if fare_class == "standard" else 0

    nights_booked: dict[tuple[str, str, date], int] = {}
    hotel_count = 0
    while hotel_count < 40:
        traveller, room = rng.choice(travellers), rng.choice(rooms)
        check_in = TODAY + timedelta(days=rng.randint(1, 100))
        nights = rng.randint(1, 6)
        days = [check_in + timedelta(days=d) for d in range(nights)]
        if any(nights_booked.get((room.hotel_id, room.room_type, d), 0) >= room.total_rooms for d in days):
            continue
        for d in days:
            key = (room.hotel_id, room.room_type, d)
            nights_booked[key] = nights_booked.get(key, 0) + 1
        add(
            traveller,
            "hotel",
            room.nightly_rate_cents * nights,
            hotel_id=room.hotel_id,
            room_type=room.room_type,
            check_in=check_in,
            check_out=check_in + timedelta(days=nights),
        )
        hotel_count += 1

    rented: dict[str, list[tuple[date, date]]] = {}
    car_count = 0
    in_service = [c for c in cars if c.in_service]
    while car_count < 30:
        traveller, car = rng.choice(travellers), rng.choice(in_service)
        pickup = TODAY + timedelta(days=rng.randint(1, 100))
        dropoff = pickup + timedelta(days=rng.randint(1, 7))
        if any(pickup < end and start < dropoff for start, end in rented.get(car.id, [])):
            continue
        rented.setdefault(car.id, []).append((pickup, dropoff))
        add(
            traveller,
            "car",
            car.daily_rate_cents * (dropoff - pickup).days,
            car_id=car.id,
            pickup_date=pickup,
            dropoff_date=dropoff,
        )
        car_count += 1

    # Some bookings were cancelled earlier: they hold no seat, room or car any more.
    by_seat = {s["booking_id"]: s for flight_seats in seats.values() for s in flight_seats if s["booking_id"]}
    for booking in rng.sample(bookings, 14):
        booking.status = "cancelled"
        booking.cancelled_on = TODAY - timedelta(days=rng.randint(0, 10))
        booking.booked_on = min(booking.booked_on, booking.cancelled_on - timedelta(days=1))
        fee = cancel_fee.get(booking.fare_class or "", 0)
        booking.refund_cents = 0 if fee is None else max(booking.price_cents + booking.fees_cents - fee, 0)
        held = by_seat.get(booking.id)
        if held is not None:
            held["taken"], held["booking_id"] = False, None
            booking.seat = None
    bookings.sort(key=lambda b: (b.booked_on, b.id))
    renames = {b.id: f"BKG-{1001 + i}" for i, b in enumerate(bookings)}
    for b in bookings:
        b.id = renames[b.id]
    for seat in by_seat.values():
        if seat["booking_id"] is not None:
            seat["booking_id"] = renames[seat["booking_id"]]
    return bookings


def _itineraries(rng: random.Random, travellers: list[Traveller], bookings: list[Booking]) -> list[Itinerary]:
    """Named trips for some travellers, holding some of their active bookings."""
    itineraries: list[Itinerary] = []
    owners = sorted({b.traveller_id for b in bookings})
    for traveller_id in rng.sample(owners, 24):
        own = [b for b in bookings if b.traveller_id == traveller_id and b.status != "cancelled"]
        name = rng.choice(TRIP_NAMES)
        itinerary = Itinerary(
            id=f"ITN-{1001 + len(itineraries)}",
            traveller_id=traveller_id,
            name=name,
            created_on=TODAY - timedelta(days=rng.randint(1, 40)),
        )
        itineraries.append(itinerary)
        for booking in own:
            if rng.random() < 0.5:
                booking.itinerary_id = itinerary.id
    return itineraries


def _loyalty(
    rng: random.Random, travellers: list[Traveller], bookings: list[Booking]
) -> tuple[list[Membership], list[PointTransaction]]:
    """Memberships of the three programmes, and a points ledger that adds up to each balance."""
    members: list[Membership] = []
    entries: list[tuple[date, Membership, PointTransaction]] = []
    by_owner: dict[tuple[str, str], list[Booking]] = {}
    for booking in bookings:
        by_owner.setdefault((booking.traveller_id, booking.kind), []).append(booking)
    for traveller in travellers:
        for program, kind, prefix in PROGRAMS:
            if rng.random() > (0.75 if kind == "flight" else 0.45):
                continue
            m = Membership(
                id=f"LOY-{1001 + len(members)}",
                traveller_id=traveller.id,
                program=program,
                kind=kind,
                member_number=f"{prefix}{rng.randint(1_000_000, 9_999_999)}",
                tier=rng.choices(TIERS, weights=(5, 3, 2, 1))[0],
                points_balance=0,
                joined_on=TODAY - timedelta(days=rng.randint(90, 2500)),
            )
            members.append(m)
            earned = by_owner.get((traveller.id, kind), [])
            for b in earned:
                points = b.price_cents // 100 * (2 if m.tier in ("gold", "platinum") else 1) * 5
                entries.append(
                    (b.booked_on, m, PointTransaction(booking_id=b.id, points=points, description=f"Earned on {b.id}"))
                )
            if rng.random() < 0.3:
                entries.append(
                    (
                        m.joined_on,
                        m,
                        PointTransaction(
                            booking_id=None, points=rng.choice((500, 1000, 2500)), description="Welcome bonus"
                        ),
                    )
                )
            for _ in range(rng.randint(1, 3)):
                day = TODAY - timedelta(days=rng.randint(30, 700))
                points = rng.randint(10, 300) * 100
                entries.append(
                    (day, m, PointTransaction(booking_id=None, points=points, description="Earned on past travel"))
                )
    entries.sort(key=lambda e: (e[0], e[1].id, e[2].description))
    ledger = []
    for i, (day, m, entry) in enumerate(entries):
        entry.id = f"PTS-{10001 + i}"
        entry.membership_id = m.id
        entry.posted_on = day
        m.points_balance += entry.points
        ledger.append(entry)
    return members, ledger


def seed(db: Session, rng: random.Random) -> None:
    """Fill an empty travel booking database deterministically.

    Args:
        db: Session on the freshly created schema.
        rng: The only source of randomness.
    """
    airports = [Airport(id=code, name=name, city=city, country=country) for code, name, city, country in AIRPORTS]
    rules = [
        FareRule(
            fare_class=fc,
            label=label,
            price_pct=pct,
            change_fee_cents=change,
            cancel_fee_cents=cancel,
            economy_only=eco,
        )
        for fc, label, pct, change, cancel, eco in FARE_RULES
    ]
    travellers = _travellers(rng)
    flights = _flights(rng)
    seats = _seats(rng, flights)
    hotels, rooms = _hotels(rng)
    cars = _cars(rng)
    bookings = _bookings(rng, travellers, flights, seats, rooms, cars)
    itineraries = _itineraries(rng, travellers, bookings)
    members, ledger = _loyalty(rng, travellers, bookings)
    db.add_all(airports)
    db.add_all(rules)
    db.flush()
    db.add_all(travellers)
    db.add_all(flights)
    db.add_all(hotels)
    db.flush()
    db.connection().execute(insert(Base.metadata.tables["seats"]), [s for flight in flights for s in seats[flight.id]])
    db.add_all(rooms)
    db.add_all(cars)
    db.add_all(itineraries)
    db.flush()
    db.add_all(bookings)
    db.flush()
    db.add_all(members)
    db.flush()
    db.add_all(ledger)
    db.flush()
