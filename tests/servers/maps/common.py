"""What the maps server's tests share: seed-data queries and small helpers."""

from __future__ import annotations

from typing import Any

from tests.helpers import LiveServer
from tests.servers.helpers import one, scalar

TABLES = (
    "users",
    "nodes",
    "roads",
    "places",
    "reviews",
    "saved_lists",
    "saved_places",
    "incidents",
    "closures",
    "saved_routes",
)
CLOSED_TODAY = "starts_on <= '2026-01-15' AND ends_on >= '2026-01-15' AND lifted_on IS NULL"
"""SQL condition of a closure that closes its road on the kit's today (2026-01-15)."""


def cut_off_place(server: LiveServer) -> tuple[str, str, str, str]:
    """(place, closure, road, ends_on) of a place on a dead end that a closure shuts today."""
    return one(
        server,
        f"""SELECT p.id, c.id, r.id, c.ends_on FROM places p JOIN roads r ON r.to_node_id = p.node_id
            JOIN closures c ON c.road_id = r.id
            WHERE {CLOSED_TODAY} AND (SELECT count(*) FROM roads x WHERE x.to_node_id = p.node_id
                                      OR x.from_node_id = p.node_id) = 1 ORDER BY p.id""",
    )


def open_place(server: LiveServer, but: str = "") -> str:
    """A place at a grid node (four-way or three-way, never cut off), other than ``but``."""
    return scalar(
        server,
        """SELECT p.id FROM places p WHERE p.id != ? AND (SELECT count(*) FROM roads x
           WHERE x.to_node_id = p.node_id OR x.from_node_id = p.node_id) >= 3 ORDER BY p.id""",
        but,
    )


def route_pair(server: LiveServer) -> tuple[str, str]:
    """Two places on grid nodes far apart (the first and last such place by id)."""
    first = open_place(server)
    last = scalar(
        server,
        """SELECT p.id FROM places p WHERE (SELECT count(*) FROM roads x WHERE x.to_node_id = p.node_id
           OR x.from_node_id = p.node_id) >= 3 AND p.node_id != (SELECT node_id FROM places WHERE id = ?)
           ORDER BY abs(p.lat - (SELECT lat FROM places WHERE id = ?)) DESC, p.id""",
        first,
        first,
    )
    return first, last


def row(server: LiveServer, table: str, row_id: str) -> tuple[Any, ...]:
    """One row of a table by id (all columns)."""
    return one(server, f"SELECT * FROM {table} WHERE id = ?", row_id)
