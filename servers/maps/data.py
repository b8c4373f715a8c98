"""Deterministic seed data of the maps server: the town of Harborview, its roads, places and users.

The roads form a jittered grid of avenues (north-south) and streets (east-west) with two
expressways, a few grid blocks missing, and six dead-end roads to outlying places (piers, a
quarry, a lighthouse). Some of those dead ends are closed today, so the places on them cannot be
reached; other closures are scheduled, ended or were lifted early. Everything follows from the
`random.Random` passed to `seed`.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable
from datetime import timedelta

from sqlalchemy.orm import Session

from gym_mcp.servers.kit import NamePool, unique_email
from gym_mcp.servers.maps.models import (
    CATEGORIES,
    INCIDENT_DELAYS,
    MAX_LISTS_PER_USER,
    MAX_PLACES_PER_LIST,
    MAX_ROUTES_PER_USER,
    ROAD_SPEEDS,
    TODAY,
    Closure,
    Incident,
    Node,
    Place,
    Review,
    Road,
    SavedList,
    SavedPlace,
    SavedRoute,
    User,
    shortest_path,
)

__all__ = ["AVENUES", "LIST_NAMES", "STREETS", "distance_m", "seed"]

AVENUES = (
    "Alder Avenue",
    "Birch Avenue",
    "Cedar Avenue",
    "Dogwood Avenue",
    "Elm Avenue",
    "Fir Avenue",
    "Grove Avenue",
)
"""North-south roads, west to east (Dogwood Avenue is an arterial)."""

STREETS = (
    "Pier Street",
    "Water Street",
    "Market Street",
    "Main Street",
    "Union Street",
    "Pine Street",
    "Summit Street",
    "Ridge Street",
)
"""East-west roads, south to north (Market Street and Union Street are arterials)."""

ARTERIALS = {"Dogwood Avenue", "Market Street", "Union Street"}
SPURS = (
    ("Pier 3", "Pier 3 Access Road"),
    ("Quarry Lane end", "Quarry Lane"),
    ("Lighthouse Point", "Lighthouse Road"),
    ("Orchard Lane end", "Orchard Lane"),
    ("Marina Way end", "Marina Way"),
    ("Hilltop Loop end", "Hilltop Loop"),
)
FIRST_NAMES = (
    "Ava", "Noah", "Mia", "Liam", "Zoe", "Ethan", "Chloe", "Lucas", "Priya", "Omar", "Hana", "Diego",
    "Sofia", "Kenji", "Amara", "Felix", "Ines", "Tariq", "Nora", "Mateo",
)  # fmt: skip
LAST_NAMES = (
    "Nguyen", "Patel", "Garcia", "Kim", "Okafor", "Larsen", "Rossi", "Haddad", "Tanaka", "Silva",
    "Fischer", "Moreau", "Cohen", "Walsh", "Reyes",
)  # fmt: skip
PEOPLE = NamePool(FIRST_NAMES, LAST_NAMES)
"""The names people of the seed data are drawn from."""
NAMES = {
    "restaurant": (
        ("Golden", "Blue Door", "Saffron", "Copper", "Juniper", "Olive Tree", "Harbor", "Little Lisbon"),
        ("Bistro", "Kitchen", "Trattoria", "Pizzeria", "Noodle House", "Taqueria", "Grill"),
    ),
    "cafe": (
        ("Bluebird", "Morning Tide", "Velvet", "Corner", "Driftwood", "Ember"),
        ("Coffee", "Cafe", "Coffee Roasters", "Espresso Bar", "Tea House"),
    ),
    "bar": (("Anchor", "Foghorn", "Lantern", "Black Cat", "Old Mill"), ("Tavern", "Taproom", "Wine Bar", "Pub")),
    "park": (("Cedar", "Lakeside", "Riverside", "Hilltop", "Maple", "Heron"), ("Park", "Gardens", "Commons")),
    "museum": (("City Art", "Maritime", "Science", "History", "Children's", "Railway"), ("Museum",)),
    "grocery": (("FreshWay", "Green Basket", "Daily Harvest", "Corner"), ("Market", "Grocery")),
    "pharmacy": (("CarePlus", "WellRx", "Harbor", "Bayside"), ("Pharmacy",)),
    "hospital": (("Harborview", "St. Anne", "Northside"), ("Medical Center", "Hospital", "Urgent Care")),
    "hotel": (("Bayview", "Grand Harbor", "Parkside", "Lantern"), ("Hotel", "Inn", "Lodge")),
    "library": (("Central", "Eastside", "Hillcrest", "Waterfront"), ("Library",)),
    "gym": (("IronWorks", "Peak", "CoreFit", "Tidal"), ("Gym", "Fitness", "Yoga Studio")),
    "gas_station": (("QuickFuel", "Harbor Gas", "FuelStop", "Bayshore"), ("Station",)),
}
CATEGORY_WEIGHTS = (14, 10, 6, 8, 4, 6, 4, 3, 6, 3, 5, 5)
REVIEW_TEXTS = {
    1: ("Very disappointing, would not go back.", "Rude staff and a long wait for nothing."),
    2: ("Not great; the place needs some care.", "Overpriced for what you get."),
    3: ("Fine, nothing special.", "Decent, but busy at weekends."),
    4: ("Really good, would come again.", "Friendly staff and easy parking nearby."),
    5: ("Wonderful, one of my favourite spots in town.", "Excellent in every way; highly recommended."),
}
LIST_NAMES = (
    "Favourites",
    "Coffee spots",
    "Weekend brunch",
    "Date night",
    "Visitors in town",
    "Rainy day ideas",
    "Kids' favourites",
    "Work lunch",
    "To try",
    "Errands",
)
NOTES = ("", "", "Great view", "Go early", "Ask for the terrace", "Closed Mondays", "Parking behind")
ROUTE_NAMES = ("Commute", "School run", "Gym trip", "Grocery run", "Visit Mum", "Airport shuttle", "Sunday drive")
CLOSURE_REASONS = ("Water main repair", "Street festival", "Bridge inspection", "Resurfacing", "Storm damage")
BASE_LAT, BASE_LON, LAT_STEP, LON_STEP = 47.600, -122.340, 0.0072, 0.0105


def distance_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance between two points in meters (haversine)."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6_371_000 * math.asin(math.sqrt(a))


def _short(name: str) -> str:
    return name.replace(" Avenue", " Ave").replace(" Street", " St")


def _connected(node_ids: Iterable[str], roads: list[Road]) -> bool:
    nodes = list(node_ids)
    links: dict[str, set[str]] = {n: set() for n in nodes}
    for road in roads:
        links[road.from_node_id].add(road.to_node_id)
        links[road.to_node_id].add(road.from_node_id)
    seen, todo = {nodes[0]}, [nodes[0]]
    while todo:
        for nxt in links[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return len(seen) == len(nodes)


def _graph(rng: random.Random) -> tuple[list[Node], list[Road], list[Node], dict[str, tuple[str, ...]]]:
    """The grid nodes, the roads (grid, expressways, dead ends), the dead-end nodes and each node's streets."""
    grid: dict[tuple[int, int], Node] = {}
    for row, street in enumerate(STREETS):
        for col, avenue in enumerate(AVENUES):
            grid[col, row] = Node(
                id=f"NOD-{1001 + len(grid)}",
                name=f"{_short(avenue)} & {_short(street)}",
                lat=round(BASE_LAT + row * LAT_STEP + rng.uniform(-0.0008, 0.0008), 6),
                lon=round(BASE_LON + col * LON_STEP + rng.uniform(-0.0008, 0.0008), 6),
            )
    streets: dict[str, tuple[str, ...]] = {n.id: (AVENUES[c], STREETS[r]) for (c, r), n in grid.items()}
    roads: list[Road] = []

    def road(name: str, road_class: str, a: Node, b: Node) -> Road:
        straight = distance_m(a.lat, a.lon, b.lat, b.lon)
        return Road(
            name=name,
            road_class=road_class,
            from_node_id=a.id,
            to_node_id=b.id,
            length_m=round(straight * rng.uniform(1.02, 1.12)),
            speed_kmh=ROAD_SPEEDS[road_class],
        )

    for (col, row), node in sorted(grid.items(), key=lambda kv: kv[1].id):
        if col + 1 < len(AVENUES):
            street = STREETS[row]
            roads.append(road(street, "arterial" if street in ARTERIALS else "residential", node, grid[col + 1, row]))
        if row + 1 < len(STREETS):
            avenue = AVENUES[col]
            roads.append(road(avenue, "arterial" if avenue in ARTERIALS else "residential", node, grid[col, row + 1]))
    for _ in range(9):  # a few blocks have no road, the grid staying connected
        victim = rng.choice([r for r in roads if r.road_class == "residential"])
        rest = [r for r in roads if r is not victim]
        if _connected((n.id for n in grid.values()), rest):
            roads = rest
    for col, rows, name in ((0, (0, 2, 4, 6), "Bayshore Expressway"), (6, (1, 3, 5, 7), "Ring Road")):
        for a, b in itertools.pairwise(rows):
            roads.append(road(name, "expressway", grid[col, a], grid[col, b]))
    spurs: list[Node] = []
    border = [n for (c, r), n in grid.items() if c in (0, 6) or r in (0, 7)]
    for (end_name, road_name), anchor in zip(SPURS, rng.sample(border, len(SPURS)), strict=True):
        end = Node(
            id=f"NOD-{1001 + len(grid) + len(spurs)}",
            name=end_name,
            lat=round(anchor.lat + rng.choice((-1, 1)) * rng.uniform(0.003, 0.006), 6),
            lon=round(anchor.lon + rng.choice((-1, 1)) * rng.uniform(0.003, 0.006), 6),
        )
        spurs.append(end)
        streets[end.id] = (road_name,)
        roads.append(road(road_name, "residential", anchor, end))
    for i, r in enumerate(roads):
        r.id = f"RD-{1001 + i}"
    return list(grid.values()), roads, spurs, streets


def _places(
    rng: random.Random, nodes: list[Node], spurs: list[Node], streets_of: dict[str, tuple[str, ...]]
) -> list[Place]:
    """Eighty places at the nodes, two at each dead end, every category present."""
    slots = [n for n in spurs for _ in range(2)] + [rng.choice(nodes) for _ in range(80 - 2 * len(spurs))]
    categories = list(CATEGORIES) * 3
    categories += rng.choices(CATEGORIES, weights=CATEGORY_WEIGHTS, k=len(slots) - len(categories))
    rng.shuffle(categories)
    rng.shuffle(slots)
    places: list[Place] = []
    names: set[str] = set()
    for node, category in zip(slots, categories, strict=True):
        street = rng.choice(streets_of[node.id])
        first, second = NAMES[category]
        name = f"{rng.choice(first)} {rng.choice(second)}"
        if name in names:
            name = f"{name} {street.split()[0]}"
        n = 2
        while name in names:
            name, n = f"{name} {n}", n + 1
        names.add(name)
        food = category in ("restaurant", "cafe", "bar")
        places.append(
            Place(
                id=f"PLC-{1001 + len(places)}",
                name=name,
                category=category,
                address=f"{rng.randint(1, 40) * 10 + rng.randint(0, 9)} {street}, Harborview",
                lat=round(node.lat + rng.uniform(-0.0004, 0.0004), 6),
                lon=round(node.lon + rng.uniform(-0.0004, 0.0004), 6),
                node_id=node.id,
                phone=f"+1 206 555 {rng.randint(0, 9999):04d}",
                price_level=rng.choices((1, 2, 3, 4), weights=(3, 5, 3, 1))[0] if food else None,
            )
        )
    return places


def _adjacency(roads: list[Road], closed: set[str]) -> dict[str, list[tuple[str, str, int]]]:
    out: dict[str, list[tuple[str, str, int]]] = {}
    for r in sorted(roads, key=lambda r: r.id):
        if r.id in closed:
            continue
        out.setdefault(r.from_node_id, []).append((r.id, r.to_node_id, r.travel_seconds))
        out.setdefault(r.to_node_id, []).append((r.id, r.from_node_id, r.travel_seconds))
    return out


def seed(db: Session, rng: random.Random) -> None:
    """Fill an empty maps database deterministically.

    Args:
        db: Session on the freshly created schema.
        rng: The only source of randomness.
    """
    nodes, roads, spurs, streets_of = _graph(rng)
    places = _places(rng, nodes, spurs, streets_of)
    users: list[User] = []
    emails: set[str] = set()
    for i in range(30):
        first, last = PEOPLE.draw(rng)
        email = unique_email(first, last, "mail.example", emails)
        joined = TODAY - timedelta(days=rng.randint(60, 1500))
        users.append(User(id=f"USR-{1001 + i}", name=f"{first} {last}", email=email, joined_on=joined))

    # saved lists: a few users at the five-list limit, a few lists at the fifteen-place limit
    lists: list[SavedList] = []
    saved: list[SavedPlace] = []
    for i, user in enumerate(users):
        count = MAX_LISTS_PER_USER if i % 6 == 0 else rng.choice((0, 1, 2, 2, 3))
        for name in rng.sample(LIST_NAMES, count):
            lst = SavedList(
                id=f"LST-{1001 + len(lists)}",
                user_id=user.id,
                name=name,
                created_on=user.joined_on + timedelta(days=rng.randint(0, 50)),
            )
            lists.append(lst)
            size = MAX_PLACES_PER_LIST if rng.random() < 0.12 else rng.randint(2, 8)
            for place in rng.sample(places, size):
                saved.append(
                    SavedPlace(
                        id=f"SAV-{1001 + len(saved)}",
                        list_id=lst.id,
                        place_id=place.id,
                        note=rng.choice(NOTES),
                        saved_on=lst.created_on + timedelta(days=rng.randint(0, 40)),
                    )
                )

    reviews: list[Review] = []
    for user in users:
        for place in rng.sample(places, rng.randint(3, 10)):
            rating = rng.choices((1, 2, 3, 4, 5), weights=(5, 10, 20, 35, 30))[0]
            reviews.append(
                Review(
                    id=f"REV-{1001 + len(reviews)}",
                    place_id=place.id,
                    author_id=user.id,
                    rating=rating,
                    text=rng.choice(REVIEW_TEXTS[rating]),
                    posted_on=TODAY - timedelta(days=rng.randint(1, 400)),
                )
            )
    reviews.sort(key=lambda r: (r.posted_on, r.id))
    for i, review in enumerate(reviews):
        review.id = f"REV-{1001 + i}"

    # closures: three dead ends closed today (their places unreachable), others elsewhere
    spur_roads = [r for r in roads if r.to_node_id in {s.id for s in spurs}]
    grid_roads = [r for r in roads if r not in spur_roads and r.road_class != "expressway"]
    picked_spurs = rng.sample(spur_roads, 4)
    picked_grid = rng.sample(grid_roads, 9)
    plan = [(r, "active") for r in picked_spurs[:3] + picked_grid[:3]]
    plan += [(picked_spurs[3], "scheduled")] + [(r, "scheduled") for r in picked_grid[3:5]]
    plan += [(r, "ended") for r in picked_grid[5:7]] + [(r, "lifted") for r in picked_grid[7:9]]
    closures: list[Closure] = []
    for road, status in plan:
        if status == "active":
            start, end = TODAY - timedelta(days=rng.randint(1, 10)), TODAY + timedelta(days=rng.randint(3, 30))
        elif status == "scheduled":
            start = TODAY + timedelta(days=rng.randint(2, 8))
            end = start + timedelta(days=rng.randint(2, 7))
        else:
            start = TODAY - timedelta(days=rng.randint(20, 60))
            end = start + timedelta(days=rng.randint(3, 12))
        closure = Closure(road_id=road.id, reason=rng.choice(CLOSURE_REASONS), starts_on=start, ends_on=end)
        if status == "lifted":
            closure.lifted_on = start + timedelta(days=1)
        closures.append(closure)
    closures.sort(key=lambda c: (c.starts_on, c.road_id))
    for i, closure in enumerate(closures):
        closure.id = f"CLS-{1001 + i}"
    closed_today = {c.road_id for c in closures if c.closes(TODAY)}

    incidents: list[Incident] = []
    for road in rng.sample([r for r in grid_roads if r.id not in closed_today], 24):
        kind = rng.choice(list(INCIDENT_DELAYS))
        active = len(incidents) < 15
        reported = TODAY - timedelta(days=rng.randint(0, 2) if active else rng.randint(5, 60))
        incidents.append(
            Incident(
                road_id=road.id,
                reporter_id=rng.choice(users).id,
                kind=kind,
                delay_minutes=INCIDENT_DELAYS[kind] + rng.choice((-3, 0, 0, 5, 10)),
                status="active" if active else "cleared",
                reported_on=reported,
                cleared_on=None if active else reported + timedelta(days=rng.randint(0, 3)),
            )
        )
    incidents.sort(key=lambda i: (i.reported_on, i.road_id))
    for i, incident in enumerate(incidents):
        incident.id = f"INC-{1001 + i}"

    # saved routes between places reachable by road, computed on the open graph
    adjacency = _adjacency(roads, closed_today)
    node_of = {p.id: p.node_id for p in places}
    routes: list[SavedRoute] = []
    owners = rng.sample(users, 12)
    for user in owners:
        count = MAX_ROUTES_PER_USER if user is owners[0] else rng.randint(1, 3)
        for k in range(count):
            while True:
                a, b = rng.sample(places, 2)
                cost, path, _ = shortest_path(adjacency, node_of[a.id], node_of[b.id])
                if cost > 0:
                    break
            by_id = {r.id: r for r in roads}
            routes.append(
                SavedRoute(
                    id=f"RTE-{1001 + len(routes)}",
                    user_id=user.id,
                    name=ROUTE_NAMES[k % len(ROUTE_NAMES)] + ("" if k < len(ROUTE_NAMES) else " 2"),
                    from_place_id=a.id,
                    to_place_id=b.id,
                    optimize="fastest",
                    distance_m=sum(by_id[r].length_m for r in path),
                    eta_minutes=round(cost / 60, 1),
                    road_ids=",".join(path),
                    saved_on=TODAY - timedelta(days=rng.randint(1, 90)),
                )
            )

    db.add_all(users)
    db.add_all(nodes + spurs)
    db.flush()
    db.add_all(roads)
    db.flush()
    db.add_all(places)
    db.flush()
    db.add_all(reviews)
    db.add_all(lists)
    db.flush()
    db.add_all(saved)
    db.add_all(closures)
    db.add_all(incidents)
    db.add_all(routes)
    db.flush()
