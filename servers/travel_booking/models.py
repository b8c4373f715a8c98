"""Data model of the travel booking server: travellers, flights, seats, hotels, cars, bookings.

Money is stored as integer cents. Ids are stable, human-readable strings (``TRV-1001``,
``FLT-1001``, ``HTL-1001``, ``CAR-1001``, ``BKG-1001``, ``ITN-1001``, ``LOY-1001``,
``PTS-10001``); airports are keyed by their IATA code (``JFK``) and fare rules by their fare
class (``standard``). New ids take the next number after the largest in the table, so
replaying the same calls yields the same ids.

One ``bookings`` table holds the three kinds of booking (``flight``, ``hotel``, ``car``); the
columns of the other kinds stay empty. A flight booking holds one seat of the flight's seat map;
a hotel booking one room of a room type for the nights from check-in to check-out; a car booking
one car from pickup to drop-off. A booking is ``booked``, ``changed`` (a flight moved to another
departure) or ``cancelled``; cancelled bookings hold nothing.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Boolean, Date, DateTime, ForeignKey, Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from gym_mcp.servers.kit import string_id, volatile_timestamp

__all__ = [
    "BOOKING_KINDS",
    "BOOKING_STATUSES",
    "CABINS",
    "CAR_CLASSES",
    "ROOM_TYPES",
    "TODAY",
    "Airport",
    "Base",
    "Booking",
    "Car",
    "FareRule",
    "Flight",
    "Hotel",
    "Itinerary",
    "Membership",
    "PointTransaction",
    "RoomType",
    "Seat",
    "Traveller",
]

TODAY = date(2026, 1, 15)
"""The server's fixed reference date (the kit's ``today``)."""

CABINS = ("economy", "business")
BOOKING_KINDS = ("flight", "hotel", "car")
BOOKING_STATUSES = ("booked", "changed", "cancelled")
ROOM_TYPES = ("standard", "deluxe", "suite")
CAR_CLASSES = ("economy", "compact", "midsize", "suv", "luxury")


class Base(DeclarativeBase):
    """Declarative base of the travel booking tables."""


class Airport(Base):
    """An airport, keyed by its IATA code."""

    __tablename__ = "airports"

    id: Mapped[str] = string_id(3)
    name: Mapped[str] = mapped_column(String(80))
    city: Mapped[str] = mapped_column(String(60))
    country: Mapped[str] = mapped_column(String(2))


class Traveller(Base):
    """A traveller with an optional passport (number, issuing country, expiry date)."""

    __tablename__ = "travellers"

    id: Mapped[str] = string_id()
    first_name: Mapped[str] = mapped_column(String(60))
    last_name: Mapped[str] = mapped_column(String(60))
    email: Mapped[str] = mapped_column(String(120), unique=True)
    phone: Mapped[str] = mapped_column(String(24))
    home_airport: Mapped[str] = mapped_column(ForeignKey("airports.id"))
    date_of_birth: Mapped[date] = mapped_column(Date)
    passport_number: Mapped[str | None] = mapped_column(String(12), nullable=True, default=None)
    passport_country: Mapped[str | None] = mapped_column(String(2), nullable=True, default=None)
    passport_expiry: Mapped[date | None] = mapped_column(Date, nullable=True, default=None)

    @property
    def name(self) -> str:
        """Full name, e.g. ``"Ada Lovelace"``."""
        return f"{self.first_name} {self.last_name}"


class Membership(Base):
    """A traveller's membership of a loyalty programme (airline, hotel chain or car rental)."""

    __tablename__ = "memberships"

    id: Mapped[str] = string_id()
    traveller_id: Mapped[str] = mapped_column(ForeignKey("travellers.id"), index=True)
    program: Mapped[str] = mapped_column(String(40))
    kind: Mapped[str] = mapped_column(String(8))
    member_number: Mapped[str] = mapped_column(String(16))
    tier: Mapped[str] = mapped_column(String(12))
    points_balance: Mapped[int] = mapped_column(Integer, default=0)
    joined_on: Mapped[date] = mapped_column(Date)


class PointTransaction(Base):
    """One entry of a membership's points ledger: earned (positive) or redeemed (negative)."""

    __tablename__ = "point_transactions"

    id: Mapped[str] = string_id()
    membership_id: Mapped[str] = mapped_column(ForeignKey("memberships.id"), index=True)
    booking_id: Mapped[str | None] = mapped_column(ForeignKey("bookings.id"), nullable=True, default=None)
    points: Mapped[int] = mapped_column(Integer)
    description: Mapped[str] = mapped_column(String(120))
    posted_on: Mapped[date] = mapped_column(Date)


class FareRule(Base):
    """What a fare class costs and allows: price multiplier, change fee, cancellation fee.

    ``change_fee_cents`` is None when the fare cannot be changed; ``cancel_fee_cents`` is None
    when the fare is non-refundable (cancelling refunds nothing).
    """

    __tablename__ = "fare_rules"

    fare_class: Mapped[str] = string_id()
    label: Mapped[str] = mapped_column(String(40))
    price_pct: Mapped[int] = mapped_column(Integer)
    change_fee_cents: Mapped[int | None] = mapped_column(Integer, nullable=True)
    cancel_fee_cents: Mapped[int | None] = mapped_column(Integer, nullable=True)
    economy_only: Mapped[bool] = mapped_column(Boolean, default=False)


class Flight(Base):
    """One departure of a scheduled flight, with its base fare per cabin."""

    __tablename__ = "flights"

    id: Mapped[str] = string_id()
    number: Mapped[str] = mapped_column(String(8))
    airline: Mapped[str] = mapped_column(String(40))
    origin: Mapped[str] = mapped_column(ForeignKey("airports.id"), index=True)
    destination: Mapped[str] = mapped_column(ForeignKey("airports.id"), index=True)
    departs_at: Mapped[datetime] = mapped_column(DateTime)
    arrives_at: Mapped[datetime] = mapped_column(DateTime)
    aircraft: Mapped[str] = mapped_column(String(20))
    economy_fare_cents: Mapped[int] = mapped_column(Integer)
    business_fare_cents: Mapped[int] = mapped_column(Integer)


class Seat(Base):
    """One seat of a flight's seat map; ``booking_id`` is set when one of our bookings holds it."""

    __tablename__ = "seats"

    flight_id: Mapped[str] = mapped_column(ForeignKey("flights.id"), primary_key=True)
    seat: Mapped[str] = mapped_column(String(4), primary_key=True)
    cabin: Mapped[str] = mapped_column(String(10))
    taken: Mapped[bool] = mapped_column(Boolean, default=False)
    booking_id: Mapped[str | None] = mapped_column(String(16), nullable=True, default=None)


class Hotel(Base):
    """A hotel in a city."""

    __tablename__ = "hotels"

    id: Mapped[str] = string_id()
    name: Mapped[str] = mapped_column(String(80))
    city: Mapped[str] = mapped_column(String(60), index=True)
    country: Mapped[str] = mapped_column(String(2))
    stars: Mapped[int] = mapped_column(Integer)
    address: Mapped[str] = mapped_column(String(120))


class RoomType(Base):
    """A hotel's rooms of one type: how many there are and the nightly rate."""

    __tablename__ = "room_types"

    hotel_id: Mapped[str] = mapped_column(ForeignKey("hotels.id"), primary_key=True)
    room_type: Mapped[str] = mapped_column(String(10), primary_key=True)
    total_rooms: Mapped[int] = mapped_column(Integer)
    nightly_rate_cents: Mapped[int] = mapped_column(Integer)
    max_guests: Mapped[int] = mapped_column(Integer)


class Car(Base):
    """A rental car stationed at an airport."""

    __tablename__ = "cars"

    id: Mapped[str] = string_id()
    location: Mapped[str] = mapped_column(ForeignKey("airports.id"), index=True)
    company: Mapped[str] = mapped_column(String(40))
    car_class: Mapped[str] = mapped_column(String(10))
    model: Mapped[str] = mapped_column(String(40))
    daily_rate_cents: Mapped[int] = mapped_column(Integer)
    in_service: Mapped[bool] = mapped_column(Boolean, default=True)


class Itinerary(Base):
    """A named trip of one traveller that groups some of their bookings."""

    __tablename__ = "itineraries"

    id: Mapped[str] = string_id()
    traveller_id: Mapped[str] = mapped_column(ForeignKey("travellers.id"), index=True)
    name: Mapped[str] = mapped_column(String(80))
    created_on: Mapped[date] = mapped_column(Date)
    created_at: Mapped[datetime] = volatile_timestamp()


class Booking(Base):
    """A flight, hotel or car booking of a traveller (see the module docstring).

    ``price_cents`` is the fare or rate, ``fees_cents`` the change fees paid since, and
    ``points_redeemed`` the loyalty points (1 point = 1 cent) put towards it; what was paid in
    money is ``price + fees - points``.
    """

    __tablename__ = "bookings"

    id: Mapped[str] = string_id()
    traveller_id: Mapped[str] = mapped_column(ForeignKey("travellers.id"), index=True)
    kind: Mapped[str] = mapped_column(String(8))
    status: Mapped[str] = mapped_column(String(10), default="booked")
    itinerary_id: Mapped[str | None] = mapped_column(ForeignKey("itineraries.id"), nullable=True, default=None)
    flight_id: Mapped[str | None] = mapped_column(ForeignKey("flights.id"), nullable=True, default=None)
    cabin: Mapped[str | None] = mapped_column(String(10), nullable=True, default=None)
    fare_class: Mapped[str | None] = mapped_column(String(10), nullable=True, default=None)
    seat: Mapped[str | None] = mapped_column(String(4), nullable=True, default=None)
    hotel_id: Mapped[str | None] = mapped_column(ForeignKey("hotels.id"), nullable=True, default=None)
    room_type: Mapped[str | None] = mapped_column(String(10), nullable=True, default=None)
    check_in: Mapped[date | None] = mapped_column(Date, nullable=True, default=None)
    check_out: Mapped[date | None] = mapped_column(Date, nullable=True, default=None)
    car_id: Mapped[str | None] = mapped_column(ForeignKey("cars.id"), nullable=True, default=None)
    pickup_date: Mapped[date | None] = mapped_column(Date, nullable=True, default=None)
    dropoff_date: Mapped[date | None] = mapped_column(Date, nullable=True, default=None)
    price_cents: Mapped[int] = mapped_column(Integer)
    fees_cents: Mapped[int] = mapped_column(Integer, default=0)
    points_redeemed: Mapped[int] = mapped_column(Integer, default=0)
    refund_cents: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
    booked_on: Mapped[date] = mapped_column(Date)
    cancelled_on: Mapped[date | None] = mapped_column(Date, nullable=True, default=None)
    created_at: Mapped[datetime] = volatile_timestamp()
