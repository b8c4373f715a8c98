"""Maps tools for places: search them, read one, find what is near."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_limit
from gym_mcp.servers.maps.data import distance_m
from gym_mcp.servers.maps.models import CATEGORIES, Node, Place, Road
from gym_mcp.servers.maps.tools.common import (
    check_choice,
    kit,
    load_place,
    network,
    place_view,
    ratings,
    road_view,
)


@kit.tool(
    write=False,
    intent="Search for places matching '{query}'[ in the category {category}][, showing at most {limit}]",
    samples={"query": ("cafe", "park", "museum", "hotel", "Market Street", "Main Street", "Harbor", "library")},
)
def search_places(db: Session, query: str, category: str | None = None, limit: int = 10) -> list[dict[str, Any]]:
    """Search places by part of their name, category or address (case-insensitive), in id order.

    Returns a list of places with place_id, name, category, address, coordinates, the node it
    sits at, its average rating and review count; an empty list means no match.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        query: Part of a name, a category or a street, at least 2 characters, e.g. "coffee" or "Pine Street".
        category: Only places of this category, e.g. "cafe" (see the server instructions for the list).
        limit: Maximum number of places to return, 1 to 100, e.g. 10.
    """
    check_limit(limit)
    text = query.strip().lower()
    if len(text) < 2:
        raise ToolError("query must have at least 2 characters, e.g. 'cafe' or 'Market Street'")
    stmt = select(Place).where(
        or_(
            func.lower(Place.name).contains(text, autoescape=True),
            func.lower(Place.address).contains(text, autoescape=True),
            func.replace(Place.category, "_", " ").contains(text, autoescape=True),
        )
    )
    if category is not None:
        stmt = stmt.where(Place.category == check_choice(category, CATEGORIES, "category"))
    rows = list(db.scalars(stmt.order_by(Place.id).limit(limit)))
    stats = ratings(db, [p.id for p in rows])
    return [place_view(p, stats[p.id]) for p in rows]


@kit.tool(write=False, intent="Show the details of place {place_id}")
def get_place(db: Session, place_id: str) -> dict[str, Any]:
    """Get one place: its address, rating, the node it sits at and the roads that meet there today.

    Routes to and from a place start at its node; a road listed with status "closed" cannot be
    driven today (see list_closures).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        place_id: Place id, e.g. "PLC-1001".
    """
    place = load_place(db, place_id)
    out = place_view(place, ratings(db, [place.id])[place.id])
    node = db.get(Node, place.node_id)
    out["node"] = node.name if node else None
    net = network(db, kit.today)
    roads = db.scalars(
        select(Road).where(or_(Road.from_node_id == place.node_id, Road.to_node_id == place.node_id)).order_by(Road.id)
    )
    out["roads"] = [
        {k: v for k, v in road_view(db, r, net).items() if k in ("road_id", "name", "status", "closure_id")}
        for r in roads
    ]
    return out


@kit.tool(
    write=False,
    intent="Find places near {place_id}[ in the category {category}][ within {radius_km} km][, at most {limit}]",
    samples={"radius_km": (0.5, 1, 2, 3, 5)},
)
def find_nearby(
    db: Session, place_id: str, category: str | None = None, radius_km: float = 2.0, limit: int = 10
) -> dict[str, Any]:
    """Find other places within a straight-line radius of a place, nearest first.

    Returns {place_id, radius_km, places}; each place carries distance_km, the straight-line
    distance (get_directions gives the road distance and ETA).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        place_id: The place to search around, e.g. "PLC-1001".
        category: Only places of this category, e.g. "pharmacy".
        radius_km: Search radius in kilometers, more than 0 and at most 20, e.g. 2.
        limit: Maximum number of places to return, 1 to 100, e.g. 10.
    """
    check_limit(limit)
    origin = load_place(db, place_id)
    if not 0 < radius_km <= 20:
        raise ToolError(f"radius_km must be more than 0 and at most 20, got {radius_km}; e.g. 2")
    stmt = select(Place).where(Place.id != origin.id)
    if category is not None:
        stmt = stmt.where(Place.category == check_choice(category, CATEGORIES, "category"))
    near = []
    for place in db.scalars(stmt):
        meters = distance_m(origin.lat, origin.lon, place.lat, place.lon)
        if meters <= radius_km * 1000:
            near.append((meters, place.id, place))
    near.sort(key=lambda t: (t[0], t[1]))
    picked = [p for _, _, p in near[:limit]]
    stats = ratings(db, [p.id for p in picked])
    return {
        "place_id": origin.id,
        "radius_km": radius_km,
        "places": [place_view(p, stats[p.id], origin) for p in picked],
    }
