"""Data model of the maps server: users, the road graph (nodes and roads), places, traffic and saved things.

The road graph is two-way: a road joins two nodes (intersections) and can be driven both ways.
A place sits at one node, where routes to and from it start and end. A closure takes a road out
of the graph on the days it covers; an active incident adds its delay to the road's travel time.
Ids are stable, human-readable strings (``USR-1001``, ``NOD-1001``, ``RD-1001``, ``PLC-1001``,
``REV-1001``, ``LST-1001``, ``SAV-1001``, ``INC-1001``, ``CLS-1001``, ``RTE-1001``); new ones take
the next number after the largest in the table, so replaying the same calls yields the same ids.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from datetime import date, datetime

from sqlalchemy import Date, Float, ForeignKey, Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from gym_mcp.servers.kit import string_id, volatile_timestamp

__all__ = [
    "CATEGORIES",
    "CLOSURE_STATUSES",
    "INCIDENT_DELAYS",
    "INCIDENT_KINDS",
    "INCIDENT_STATUSES",
    "MAX_CLOSURE_DAYS",
    "MAX_LISTS_PER_USER",
    "MAX_PLACES_PER_LIST",
    "MAX_ROUTES_PER_USER",
    "ROAD_SPEEDS",
    "TODAY",
    "Base",
    "Closure",
    "Incident",
    "Node",
    "Place",
    "Review",
    "Road",
    "SavedList",
    "SavedPlace",
    "SavedRoute",
    "User",
    "shortest_path",
]

TODAY = date(2026, 1, 15)
"""The server's fixed reference date (the kit's ``today``)."""

CATEGORIES = (
    "restaurant",
    "cafe",
    "bar",
    "park",
    "museum",
    "grocery",
    "pharmacy",
    "hospital",
    "hotel",
    "library",
    "gym",
    "gas_station",
)
ROAD_SPEEDS = {"residential": 30, "arterial": 50, "expressway": 80}
"""Speed limit in km/h of each road class; a road's travel time is its length at that speed."""

INCIDENT_DELAYS = {"accident": 15, "construction": 10, "congestion": 8, "hazard": 5}
"""The default delay in minutes an active incident of each kind adds to its road."""

INCIDENT_KINDS = tuple(INCIDENT_DELAYS)
INCIDENT_STATUSES = ("active", "cleared")
CLOSURE_STATUSES = ("active", "scheduled", "ended", "lifted")
MAX_LISTS_PER_USER = 5
MAX_PLACES_PER_LIST = 15
MAX_ROUTES_PER_USER = 8
MAX_CLOSURE_DAYS = 90
"""A closure ends at most this many days after today."""


class Base(DeclarativeBase):
    """Declarative base of the maps tables."""


class User(Base):
    """Someone using the maps app: they save places and routes, write reviews and report incidents."""

    __tablename__ = "users"

    id: Mapped[str] = string_id()
    name: Mapped[str] = mapped_column(String(80))
    email: Mapped[str] = mapped_column(String(120), unique=True)
    joined_on: Mapped[date] = mapped_column(Date)


class Node(Base):
    """An intersection (or the end of a dead-end road) of the road graph."""

    __tablename__ = "nodes"

    id: Mapped[str] = string_id()
    name: Mapped[str] = mapped_column(String(80))
    lat: Mapped[float] = mapped_column(Float)
    lon: Mapped[float] = mapped_column(Float)


class Road(Base):
    """A two-way road segment between two nodes, with its length and speed limit."""

    __tablename__ = "roads"

    id: Mapped[str] = string_id()
    name: Mapped[str] = mapped_column(String(80))
    road_class: Mapped[str] = mapped_column(String(16))
    from_node_id: Mapped[str] = mapped_column(ForeignKey("nodes.id"), index=True)
    to_node_id: Mapped[str] = mapped_column(ForeignKey("nodes.id"), index=True)
    length_m: Mapped[int] = mapped_column(Integer)
    speed_kmh: Mapped[int] = mapped_column(Integer)

    @property
    def travel_seconds(self) -> int:
        """Seconds to drive the whole road at its speed limit."""
        return round(self.length_m * 3.6 / self.speed_kmh)


class Place(Base):
    """A point of interest, reached through the node it sits at."""

    __tablename__ = "places"

    id: Mapped[str] = string_id()
    name: Mapped[str] = mapped_column(String(80))
    category: Mapped[str] = mapped_column(String(20))
    address: Mapped[str] = mapped_column(String(120))
    lat: Mapped[float] = mapped_column(Float)
    lon: Mapped[float] = mapped_column(Float)
    node_id: Mapped[str] = mapped_column(ForeignKey("nodes.id"), index=True)
    phone: Mapped[str] = mapped_column(String(20))
    price_level: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)


class Review(Base):
    """A user's rating (1 to 5) and text about a place; one per user and place."""

    __tablename__ = "reviews"

    id: Mapped[str] = string_id()
    place_id: Mapped[str] = mapped_column(ForeignKey("places.id"), index=True)
    author_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    rating: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(String(500))
    posted_on: Mapped[date] = mapped_column(Date)
    created_at: Mapped[datetime] = volatile_timestamp()


class SavedList(Base):
    """A named list of places one user keeps (at most five per user, fifteen places each)."""

    __tablename__ = "saved_lists"

    id: Mapped[str] = string_id()
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    name: Mapped[str] = mapped_column(String(40))
    created_on: Mapped[date] = mapped_column(Date)


class SavedPlace(Base):
    """A place on a saved list, with an optional note."""

    __tablename__ = "saved_places"

    id: Mapped[str] = string_id()
    list_id: Mapped[str] = mapped_column(ForeignKey("saved_lists.id"), index=True)
    place_id: Mapped[str] = mapped_column(ForeignKey("places.id"), index=True)
    note: Mapped[str] = mapped_column(String(120), default="")
    saved_on: Mapped[date] = mapped_column(Date)


class Incident(Base):
    """A traffic incident on a road: while active it adds its delay to the road's travel time."""

    __tablename__ = "incidents"

    id: Mapped[str] = string_id()
    road_id: Mapped[str] = mapped_column(ForeignKey("roads.id"), index=True)
    reporter_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    delay_minutes: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(10))
    reported_on: Mapped[date] = mapped_column(Date)
    cleared_on: Mapped[date | None] = mapped_column(Date, nullable=True, default=None)


class Closure(Base):
    """A road closed from one day to another (both included), unless lifted early."""

    __tablename__ = "closures"

    id: Mapped[str] = string_id()
    road_id: Mapped[str] = mapped_column(ForeignKey("roads.id"), index=True)
    reason: Mapped[str] = mapped_column(String(120))
    starts_on: Mapped[date] = mapped_column(Date)
    ends_on: Mapped[date] = mapped_column(Date)
    lifted_on: Mapped[date | None] = mapped_column(Date, nullable=True, default=None)

    def status(self, today: date) -> str:
        """``lifted``, ``scheduled`` (starts after today), ``ended`` (ended before today) or ``active``."""
        if self.lifted_on is not None:
            return "lifted"
        if self.starts_on > today:
            return "scheduled"
        if self.ends_on < today:
            return "ended"
        return "active"

    def closes(self, day: date) -> bool:
        """Whether the road is closed on ``day`` by this closure."""
        if self.lifted_on is not None and self.lifted_on <= day:
            return False
        return self.starts_on <= day <= self.ends_on


class SavedRoute(Base):
    """A route a user saved: the roads it takes and its distance and time when saved."""

    __tablename__ = "saved_routes"

    id: Mapped[str] = string_id()
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    name: Mapped[str] = mapped_column(String(60))
    from_place_id: Mapped[str] = mapped_column(ForeignKey("places.id"), index=True)
    to_place_id: Mapped[str] = mapped_column(ForeignKey("places.id"), index=True)
    optimize: Mapped[str] = mapped_column(String(10))
    distance_m: Mapped[int] = mapped_column(Integer)
    eta_minutes: Mapped[float] = mapped_column(Float)
    road_ids: Mapped[str] = mapped_column(String(1000))
    saved_on: Mapped[date] = mapped_column(Date)


def shortest_path(
    adjacency: Mapping[str, Sequence[tuple[str, str, int]]], start: str, goal: str
) -> tuple[int, list[str], set[str]]:
    """Dijkstra over a road graph: the cheapest way from one node to another.

    Ties are broken the same way every time (the heap orders by cost, then node id, and a road
    replaces the best way to a node only when it is strictly cheaper), so a route replays
    identically.

    Args:
        adjacency: For each node, its ``(road_id, neighbour_node_id, cost)`` in road id order.
        start: The node the route starts at.
        goal: The node the route ends at.

    Returns:
        ``(cost, road_ids, reached)``: the total cost and the roads in driving order, or
        ``(-1, [], reached)`` when the goal cannot be reached; ``reached`` holds the nodes the
        search got to (all of those reachable from ``start`` when the goal is not).
    """
    best = {start: 0}
    back: dict[str, tuple[str, str]] = {}
    heap = [(0, start)]
    done: set[str] = set()
    while heap:
        cost, node = heapq.heappop(heap)
        if node in done:
            continue
        done.add(node)
        if node == goal:
            break
        for road_id, nxt, weight in adjacency.get(node, ()):
            new = cost + weight
            if nxt not in done and new < best.get(nxt, new + 1):
                best[nxt] = new
                back[nxt] = (node, road_id)
                heapq.heappush(heap, (new, nxt))
    if goal not in done:
        return -1, [], done
    roads: list[str] = []
    node = goal
    while node != start:
        node, road_id = back[node]
        roads.append(road_id)
    return best[goal], roads[::-1], done
