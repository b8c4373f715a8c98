"""What the travel booking server's tests share: seed-data queries and small helpers."""

from __future__ import annotations

from typing import Any

from tests.helpers import LiveServer
from tests.servers.helpers import one, scalar

TABLES = (
    "airports",
    "travellers",
    "memberships",
    "point_transactions",
    "fare_rules",
    "flights",
    "seats",
    "hotels",
    "room_types",
    "cars",
    "itineraries",
    "bookings",
)

INTERNATIONAL = """SELECT f.id FROM flights f JOIN airports o ON o.id = f.origin JOIN airports d ON d.id = f.destination
                   WHERE o.country != d.country"""


def good_traveller(server: LiveServer) -> str:
    """A traveller whose passport is valid for years."""
    return scalar(server, "SELECT id FROM travellers WHERE passport_expiry > '2028-01-01' ORDER BY id")


def free_flight(server: LiveServer, traveller: str, international: bool = True) -> str:
    """A flight the traveller holds no booking on, with free economy and business seats."""
    where = "IN" if international else "NOT IN"
    return scalar(
        server,
        f"""SELECT id FROM flights WHERE id {where} ({INTERNATIONAL})
            AND id NOT IN (SELECT flight_id FROM bookings WHERE traveller_id = ? AND flight_id IS NOT NULL)
            AND (SELECT count(*) FROM seats s WHERE s.flight_id = flights.id AND s.cabin = 'economy' AND NOT taken) > 2
            AND (SELECT count(*) FROM seats s WHERE s.flight_id = flights.id AND s.cabin = 'business' AND NOT taken) > 0
            ORDER BY id""",
        traveller,
    )


def free_seat(server: LiveServer, flight: str, cabin: str = "economy", skip: int = 0) -> str:
    return server.query(
        "SELECT seat FROM seats WHERE flight_id = ? AND cabin = ? AND NOT taken ORDER BY rowid LIMIT 1 OFFSET ?",
        flight,
        cabin,
        skip,
    )[0][0]


def taken_seat(server: LiveServer, flight: str, cabin: str = "economy") -> str:
    return scalar(
        server,
        "SELECT seat FROM seats WHERE flight_id = ? AND cabin = ? AND taken AND booking_id IS NULL ORDER BY rowid",
        flight,
        cabin,
    )


def active_flight_booking(server: LiveServer, fare_class: str) -> tuple[str, str, str, str]:
    """(booking, traveller, flight, seat) of an active flight booking on this fare class."""
    return one(
        server,
        "SELECT id, traveller_id, flight_id, seat FROM bookings WHERE kind = 'flight' AND status != 'cancelled' "
        "AND fare_class = ? ORDER BY id",
        fare_class,
    )


def booking_row(server: LiveServer, booking: str, *cols: str) -> tuple[Any, ...]:
    return one(server, f"SELECT {', '.join(cols)} FROM bookings WHERE id = ?", booking)
