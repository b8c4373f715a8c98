"""What the travel booking server's tests share: seed-data queries and small helpers."""

from __future__ import annotations

from typing import Any

from gym_mcp.servers.travel_booking import kit
from tests.helpers import LiveServer

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


def dump(server: LiveServer) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows, without the volatile (wall-clock) columns."""
    out = {}
    volatile = kit.volatile_columns
    for table in TABLES:
        cols = [r[1] for r in server.query(f"PRAGMA table_info({table})") if r[1] not in volatile.get(table, ())]
        out[table] = server.query(f"SELECT {', '.join(cols)} FROM {table} ORDER BY 1, 2")
    return out


def one(server: LiveServer, sql: str, *params: Any) -> tuple[Any, ...]:
    rows = server.query(sql, *params)
    assert rows, f"seed has no row for: {sql}"
    return rows[0]


def scalar(server: LiveServer, sql: str, *params: Any) -> Any:
    """The first column of the first row of a query the seed must answer."""
    return one(server, sql, *params)[0]


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
