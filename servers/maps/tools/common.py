"""What the maps tools share: the kit, id lookups, choices and dates, the routing rules, result shapes.

Routing runs Dijkstra over the two-way road graph as it is on the travel date: a road with a
closure covering that date is left out, and every active incident adds its delay to its road.
"fastest" minimises driving time plus incident delays, "shortest" the distance; either way the
ETA is the driving time at the speed limits plus the delays of the incidents on the route.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import Finder, ServerKit, ToolError, parse_date, pick
from gym_mcp.servers.maps.data import distance_m, seed
from gym_mcp.servers.maps.models import (
    CATEGORIES,
    MAX_CLOSURE_DAYS,
    MAX_LISTS_PER_USER,
    MAX_PLACES_PER_LIST,
    TODAY,
    Base,
    Closure,
    Incident,
    Node,
    Place,
    Review,
    Road,
    SavedList,
    SavedRoute,
    User,
    shortest_path,
)

__all__ = [
    "OPTIMIZE",
    "Network",
    "check_choice",
    "closure_view",
    "incident_view",
    "kit",
    "km",
    "load_closure",
    "load_incident",
    "load_list",
    "load_place",
    "load_review",
    "load_road",
    "load_user",
    "network",
    "place_view",
    "plan_route",
    "ratings",
    "review_view",
    "road_view",
    "route_view",
    "travel_day",
]

OPTIMIZE = ("fastest", "shortest")

INSTRUCTIONS = f"""\
Maps of Harborview. Places ("PLC-1001") sit at nodes ("NOD-1001") of a two-way road graph whose
roads ("RD-1001") have a length and a speed limit. get_directions computes a route with Dijkstra:
"fastest" (driving time plus incident delays) or "shortest" (distance). A road closed on the
travel date ("CLS-1001", see list_closures) is never used; an active traffic incident
("INC-1001", see list_incidents) adds its delay to its road and to the ETA. Users ("USR-1001",
find_user) keep up to {MAX_LISTS_PER_USER} saved lists ("LST-1001") of up to {MAX_PLACES_PER_LIST}
places each, save routes ("RTE-1001"), review places ("REV-1001", rating 1 to 5) and report
incidents. Categories: {", ".join(CATEGORIES)}. Today is {TODAY.isoformat()}."""

kit = ServerKit(
    "maps",
    base=Base,
    seed=seed,
    instructions=INSTRUCTIONS,
    today=TODAY,
    samples={
        "limit": (3, 5, 10, 20),
        "optimize": OPTIMIZE,
        "category": ("cafe", "restaurant", "park", "museum", "pharmacy", "hotel", "grocery", "gym"),
    },
    inline=True,
)

# -- lookups ------------------------------------------------------------------------------------

_MISSING = "No {noun} with id {id!r} (given as {field}). {Noun} ids look like '{example}'; {hint}."
load_user = Finder(User, "user", "USR-1001", "use find_user with a name or email to look one up", message=_MISSING)
load_place = Finder(Place, "place", "PLC-1001", "use search_places or find_nearby to see valid ones", message=_MISSING)
load_road = Finder(
    Road, "road", "RD-1001", "use list_roads (by street name) or get_directions to see valid ones", message=_MISSING
)
load_list = Finder(
    SavedList, "saved list", "LST-1001", "use list_saved_lists with the user's id to see valid ones", message=_MISSING
)
load_review = Finder(
    Review, "review", "REV-1001", "use list_reviews with the place's id to see valid ones", message=_MISSING
)
load_incident = Finder(Incident, "incident", "INC-1001", "use list_incidents to see valid ones", message=_MISSING)
load_closure = Finder(Closure, "closure", "CLS-1001", "use list_closures to see valid ones", message=_MISSING)


def check_choice(value: str, allowed: Sequence[str], field: str) -> str:
    """``value`` trimmed and lower-cased when it is one of ``allowed``, else a `ToolError` listing them."""
    wanted = value.strip().lower().replace(" ", "_") if isinstance(value, str) else ""
    if wanted not in allowed:
        raise ToolError(f"{field} must be one of {', '.join(allowed)}; got {value!r}")
    return wanted


def travel_day(value: str | None, field: str = "travel_date") -> date:
    """A date argument that may not be in the past (default: today)."""
    if value is None:
        return kit.today
    day = parse_date(value, field)
    if day < kit.today:
        raise ToolError(f"{field} {day} is in the past; use today ({kit.today}) or a later date.")
    if (day - kit.today).days > MAX_CLOSURE_DAYS:
        raise ToolError(f"{field} {day} is more than {MAX_CLOSURE_DAYS} days ahead; plan at most until then.")
    return day


def km(meters: float) -> float:
    """Meters as kilometers rounded to 2 decimals."""
    return round(meters / 1000, 2)


# -- the road network ---------------------------------------------------------------------------


@dataclass
class Network:
    """The road graph on one day: roads, the closures that shut them and the active incidents on them."""

    day: date
    roads: dict[str, Road]
    closed: dict[str, Closure]
    incidents: dict[str, list[Incident]]

    def delay(self, road_id: str) -> int:
        """Minutes the active incidents add to a road."""
        return sum(i.delay_minutes for i in self.incidents.get(road_id, ()))

    def adjacency(self, optimize: str) -> dict[str, list[tuple[str, str, int]]]:
        """Each node's open roads with their cost: seconds plus delays (fastest) or meters (shortest)."""
        out: dict[str, list[tuple[str, str, int]]] = {}
        for road_id in sorted(self.roads):
            if road_id in self.closed:
                continue
            road = self.roads[road_id]
            cost = road.travel_seconds + 60 * self.delay(road_id) if optimize == "fastest" else road.length_m
            out.setdefault(road.from_node_id, []).append((road_id, road.to_node_id, cost))
            out.setdefault(road.to_node_id, []).append((road_id, road.from_node_id, cost))
        return out


def network(db: Session, day: date) -> Network:
    """The road network as it is on ``day`` (closures covering it; incidents active now)."""
    roads = {r.id: r for r in db.scalars(select(Road))}
    closed: dict[str, Closure] = {}
    for closure in db.scalars(select(Closure).order_by(Closure.id)):
        if closure.closes(day):
            closed.setdefault(closure.road_id, closure)
    incidents: dict[str, list[Incident]] = {}
    for incident in db.scalars(select(Incident).where(Incident.status == "active").order_by(Incident.id)):
        incidents.setdefault(incident.road_id, []).append(incident)
    return Network(day, roads, closed, incidents)


def plan_route(db: Session, origin: Place, dest: Place, optimize: str, day: date) -> dict[str, Any]:
    """The route between two places on a day, or a `ToolError` saying which closures cut it off."""
    if origin.id == dest.id:
        raise ToolError(
            f"from_place_id and to_place_id are both {origin.id} ({origin.name}); pick two different places."
        )
    net = network(db, day)
    adjacency = net.adjacency(optimize)
    cost, path, reached = shortest_path(adjacency, origin.node_id, dest.node_id)
    if cost < 0:
        far = shortest_path(adjacency, dest.node_id, origin.node_id)[2]
        cut = [
            c
            for rid, c in sorted(net.closed.items())
            if {net.roads[rid].from_node_id, net.roads[rid].to_node_id} & reached
            and {net.roads[rid].from_node_id, net.roads[rid].to_node_id} & far
        ]
        why = "; ".join(f"{c.id} closes {c.road_id} ({net.roads[c.road_id].name}) through {c.ends_on}" for c in cut)
        after = max(c.ends_on for c in cut) if cut else None
        hint = f" Try a travel_date after {after}, or another place (find_nearby)." if after else ""
        raise ToolError(
            f"No open road route from {origin.id} ({origin.name}) to {dest.id} ({dest.name}) on {day}: "
            f"closures cut it off ({why or 'see list_closures'}). Routing never uses a closed road.{hint}"
        )
    steps = []
    at = origin.node_id
    for road_id in path:
        road = net.roads[road_id]
        nxt = road.to_node_id if road.from_node_id == at else road.from_node_id
        steps.append(
            {
                "road_id": road_id,
                "road": road.name,
                "from_node_id": at,
                "to_node_id": nxt,
                "distance_km": km(road.length_m),
                "drive_minutes": round(road.travel_seconds / 60, 1),
                "incident_ids": [i.id for i in net.incidents.get(road_id, ())],
            }
        )
        at = nxt
    drive = round(sum(net.roads[r].travel_seconds for r in path) / 60, 1)
    delay = sum(net.delay(r) for r in path)
    return {
        "from_place_id": origin.id,
        "from_place": origin.name,
        "to_place_id": dest.id,
        "to_place": dest.name,
        "optimize": optimize,
        "travel_date": day.isoformat(),
        "distance_km": km(sum(net.roads[r].length_m for r in path)),
        "drive_minutes": drive,
        "incident_delay_minutes": delay,
        "eta_minutes": round(drive + delay, 1),
        "road_ids": path,
        "steps": steps,
    }


# -- result shapes ------------------------------------------------------------------------------


def ratings(db: Session, place_ids: Sequence[str]) -> dict[str, tuple[float | None, int]]:
    """Average rating (1 decimal) and review count of each place."""
    rows = db.execute(
        select(Review.place_id, func.avg(Review.rating), func.count())
        .where(Review.place_id.in_(place_ids))
        .group_by(Review.place_id)
    )
    found = {pid: (round(float(avg), 1), int(n)) for pid, avg, n in rows}
    return {pid: found.get(pid, (None, 0)) for pid in place_ids}


def place_view(place: Place, rating: tuple[float | None, int], origin: Place | None = None) -> dict[str, Any]:
    """The fields of a place a model needs; with ``origin``, its straight-line distance from there."""
    out: dict[str, Any] = {
        "place_id": place.id,
        **pick(place, "name", "category", "address", "lat", "lon", "node_id", "phone", "price_level"),
        "rating": rating[0],
        "review_count": rating[1],
    }
    if origin is not None:
        out["distance_km"] = km(distance_m(origin.lat, origin.lon, place.lat, place.lon))
    return out


def road_view(db: Session, road: Road, net: Network) -> dict[str, Any]:
    """The fields of a road a model needs, with its status on the network's day."""
    ends = {n.id: n.name for n in db.scalars(select(Node).where(Node.id.in_((road.from_node_id, road.to_node_id))))}
    closure = net.closed.get(road.id)
    return {
        "road_id": road.id,
        **pick(road, "name", "road_class", "from_node_id"),
        "from_node": ends.get(road.from_node_id),
        "to_node_id": road.to_node_id,
        "to_node": ends.get(road.to_node_id),
        "length_km": km(road.length_m),
        "speed_kmh": road.speed_kmh,
        "drive_minutes": round(road.travel_seconds / 60, 1),
        "status": "closed" if closure else "open",
        "closure_id": closure.id if closure else None,
        "active_incident_ids": [i.id for i in net.incidents.get(road.id, ())],
        "incident_delay_minutes": net.delay(road.id),
    }


def incident_view(incident: Incident) -> dict[str, Any]:
    """The fields of an incident a model needs."""
    return {
        "incident_id": incident.id,
        **pick(incident, "road_id", "reporter_id", "kind", "delay_minutes", "status", "reported_on", "cleared_on"),
    }


def closure_view(closure: Closure) -> dict[str, Any]:
    """The fields of a closure a model needs; ``status`` is as of today."""
    return {
        "closure_id": closure.id,
        **pick(closure, "road_id", "reason", "starts_on", "ends_on", "lifted_on"),
        "status": closure.status(kit.today),
    }


def review_view(review: Review) -> dict[str, Any]:
    """The fields of a review a model needs."""
    return {"review_id": review.id, **pick(review, "place_id", "author_id", "rating", "text", "posted_on")}


def route_view(route: SavedRoute, closed_today: Sequence[str] = ()) -> dict[str, Any]:
    """The fields of a saved route; ``closed_road_ids`` are roads on it that are closed today."""
    roads = route.road_ids.split(",") if route.road_ids else []
    return {
        "route_id": route.id,
        **pick(route, "user_id", "name", "from_place_id", "to_place_id", "optimize"),
        "distance_km": km(route.distance_m),
        "eta_minutes": route.eta_minutes,
        "road_ids": roads,
        "closed_road_ids": [r for r in roads if r in closed_today],
        "saved_on": route.saved_on,
    }
