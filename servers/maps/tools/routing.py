"""Maps tools for roads and routes: list roads, get directions, save a route and list saved ones."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_length, check_limit, next_id
from gym_mcp.servers.maps.models import MAX_ROUTES_PER_USER, Road, SavedRoute
from gym_mcp.servers.maps.tools.common import (
    OPTIMIZE,
    check_choice,
    kit,
    load_place,
    load_user,
    network,
    plan_route,
    road_view,
    route_view,
    travel_day,
)

ROAD_STATUSES = ("open", "closed")


@kit.tool(
    write=False,
    intent="List the[ {status}] roads[ named '{name}'][, at most {limit}]",
    samples={
        "status": ROAD_STATUSES,
        "name": ("Market Street", "Dogwood Avenue", "Main Street", "Ring Road", "Bayshore Expressway", "Elm Avenue"),
    },
)
def list_roads(db: Session, name: str | None = None, status: str | None = None, limit: int = 20) -> dict[str, Any]:
    """List road segments in id order, by street name and by status today.

    A street is split into segments between intersections (nodes); each segment is one road id.
    status "closed" means a closure covers today (closure_id says which); active incidents on
    a road add incident_delay_minutes to anyone driving it. Returns {roads, more}.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        name: Part of the street name, e.g. "Market Street" or "Quarry".
        status: Only "open" or only "closed" roads (today).
        limit: Maximum number of roads to return, 1 to 200, e.g. 20.
    """
    check_limit(limit, 200)
    wanted = check_choice(status, ROAD_STATUSES, "status") if status is not None else None
    stmt = select(Road)
    if name is not None:
        text = name.strip().lower()
        if len(text) < 2:
            raise ToolError("name must have at least 2 characters, e.g. 'Market Street'")
        stmt = stmt.where(func.lower(Road.name).contains(text, autoescape=True))
    net = network(db, kit.today)
    rows = [
        r for r in db.scalars(stmt.order_by(Road.id)) if wanted is None or (r.id in net.closed) == (wanted == "closed")
    ]
    return {"roads": [road_view(db, r, net) for r in rows[:limit]], "more": len(rows) > limit}


@kit.tool(
    write=False,
    intent="Get[ the {optimize}] directions from {from_place_id} to {to_place_id}[ for {travel_date}]",
    samples={"travel_date": ("2026-01-15", "2026-01-20", "2026-01-28", "2026-02-10", "2026-03-01")},
)
def get_directions(
    db: Session, from_place_id: str, to_place_id: str, optimize: str = "fastest", travel_date: str | None = None
) -> dict[str, Any]:
    """Compute a driving route between two places (Dijkstra over the road graph) with its ETA.

    "fastest" minimises driving time plus incident delays; "shortest" minimises distance. A road
    closed on the travel date is never used; when closures cut a place off, the call fails and
    says which closures and until when. eta_minutes = drive_minutes (at the speed limits) plus
    incident_delay_minutes (active incidents on the roads taken). Returns the totals, road_ids
    in driving order and one step per road.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        from_place_id: Where the route starts, e.g. "PLC-1001".
        to_place_id: Where the route ends, e.g. "PLC-1042".
        optimize: "fastest" (default) or "shortest".
        travel_date: Day of travel, ISO format, today or up to 90 days ahead, e.g. "2026-01-20"; default today.
    """
    origin = load_place(db, from_place_id, "from_place_id")
    dest = load_place(db, to_place_id, "to_place_id")
    mode = check_choice(optimize, OPTIMIZE, "optimize")
    return plan_route(db, origin, dest, mode, travel_day(travel_date))


@kit.tool(
    write=True,
    intent="Save the[ {optimize}] route from {from_place_id} to {to_place_id} as '{name}' for user {user_id}",
    samples={"name": ("Morning commute", "Trip to the park", "Saturday errands", "Dentist", "Swim practice")},
)
def save_route(
    db: Session, user_id: str, from_place_id: str, to_place_id: str, name: str, optimize: str = "fastest"
) -> dict[str, Any]:
    """Compute today's route between two places and save it for a user under a name.

    A user keeps at most 8 saved routes, each with a different name (case-insensitive). The
    route is computed as get_directions does for today, so it fails the same way when closures
    cut a place off. Returns the saved route with its route_id.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        user_id: The user saving the route, e.g. "USR-1001".
        from_place_id: Where the route starts, e.g. "PLC-1001".
        to_place_id: Where the route ends, e.g. "PLC-1042".
        name: Name of the route, 2 to 60 characters, e.g. "Morning commute".
        optimize: "fastest" (default) or "shortest".
    """
    user = load_user(db, user_id)
    origin = load_place(db, from_place_id, "from_place_id")
    dest = load_place(db, to_place_id, "to_place_id")
    mode = check_choice(optimize, OPTIMIZE, "optimize")
    title = check_length(name.strip(), "name", 2, 60, ", e.g. 'Morning commute'")
    routes = list(db.scalars(select(SavedRoute).where(SavedRoute.user_id == user.id).order_by(SavedRoute.id)))
    same = next((r for r in routes if r.name.lower() == title.lower()), None)
    if same is not None:
        raise ToolError(f"{user.id} already has a saved route named {same.name!r} ({same.id}); choose another name.")
    if len(routes) >= MAX_ROUTES_PER_USER:
        names = ", ".join(f"{r.id} ({r.name})" for r in routes)
        raise ToolError(
            f"{user.id} already has {len(routes)} saved routes, the most a user can keep ({names}); nothing was "
            "saved. Routes cannot be saved over the limit."
        )
    plan = plan_route(db, origin, dest, mode, kit.today)
    route = SavedRoute(
        id=next_id(db, SavedRoute.id, "RTE"),
        user_id=user.id,
        name=title,
        from_place_id=origin.id,
        to_place_id=dest.id,
        optimize=mode,
        distance_m=sum(r.length_m for r in db.scalars(select(Road).where(Road.id.in_(plan["road_ids"])))),
        eta_minutes=plan["eta_minutes"],
        road_ids=",".join(plan["road_ids"]),
        saved_on=kit.today,
    )
    db.add(route)
    db.flush()
    return route_view(route)


@kit.tool(write=False, intent="List the saved routes of user {user_id}")
def list_saved_routes(db: Session, user_id: str) -> list[dict[str, Any]]:
    """List a user's saved routes with their distance and ETA when saved, in id order.

    closed_road_ids lists roads of a route that are closed today: drive it again with
    get_directions to get a route around them.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        user_id: User id, e.g. "USR-1001".
    """
    user = load_user(db, user_id)
    closed = list(network(db, kit.today).closed)
    rows = db.scalars(select(SavedRoute).where(SavedRoute.user_id == user.id).order_by(SavedRoute.id))
    return [route_view(r, closed) for r in rows]
