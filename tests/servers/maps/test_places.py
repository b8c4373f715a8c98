"""The maps server, driven through a real MCP client on an in-memory database: places."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import one, scalar
from tests.servers.maps.common import cut_off_place


def test_search_places(maps: LiveServer) -> None:
    cafes = maps.ok("search_places", query="CAFE", limit=100)
    expected = maps.query(
        "SELECT id FROM places WHERE lower(name) LIKE '%cafe%' OR lower(address) LIKE '%cafe%' OR category = 'cafe' "
        "ORDER BY id"
    )
    assert [p["place_id"] for p in cafes] == [r[0] for r in expected]
    street = maps.ok("search_places", query="market street", limit=100)
    assert street
    assert all("Market Street" in p["address"] or "market street" in p["name"].lower() for p in street)
    parks = maps.ok("search_places", query="Street", category="park", limit=100)
    assert parks
    assert {p["category"] for p in parks} == {"park"}
    assert len(maps.ok("search_places", query="Street", limit=3)) == 3
    reviewed = next(p for p in cafes if p["review_count"])
    avg = scalar(maps, "SELECT round(avg(rating), 1) FROM reviews WHERE place_id = ?", reviewed["place_id"])
    assert reviewed["rating"] == avg
    assert maps.ok("search_places", query="zzzz-nowhere") == []
    assert "at least 2 characters" in maps.error("search_places", query=" x ")
    assert "category must be one of" in maps.error("search_places", query="cafe", category="casino")
    assert "limit must be between 1 and 100" in maps.error("search_places", query="cafe", limit=0)


def test_get_place(maps: LiveServer) -> None:
    place, _, road, _ = cut_off_place(maps)
    out = maps.ok("get_place", place_id=place.lower())
    node, name = one(
        maps, "SELECT p.node_id, n.name FROM places p JOIN nodes n ON n.id = p.node_id WHERE p.id = ?", place
    )
    assert out["place_id"] == place
    assert (out["node_id"], out["node"]) == (node, name)
    assert out["roads"] == [
        {
            "road_id": road,
            "name": out["roads"][0]["name"],
            "status": "closed",
            "closure_id": out["roads"][0]["closure_id"],
        }
    ]
    assert out["roads"][0]["closure_id"].startswith("CLS-")
    count = scalar(maps, "SELECT count(*) FROM reviews WHERE place_id = ?", place)
    assert out["review_count"] == count
    err = maps.error("get_place", place_id="PLC-0001")
    assert "PLC-0001" in err
    assert "search_places" in err


def test_find_nearby(maps: LiveServer) -> None:
    place = scalar(maps, "SELECT id FROM places ORDER BY id")
    out = maps.ok("find_nearby", place_id=place, radius_km=3, limit=100)
    distances = [p["distance_km"] for p in out["places"]]
    assert out["places"]
    assert distances == sorted(distances)
    assert max(distances) <= 3
    assert place not in [p["place_id"] for p in out["places"]]
    wider = maps.ok("find_nearby", place_id=place, radius_km=20, limit=100)["places"]
    assert len(wider) == scalar(maps, "SELECT count(*) - 1 FROM places")
    category = out["places"][0]["category"]
    same = maps.ok("find_nearby", place_id=place, category=category, radius_km=3)["places"]
    assert same[0]["place_id"] == out["places"][0]["place_id"]
    assert {p["category"] for p in same} == {category}
    assert len(maps.ok("find_nearby", place_id=place, radius_km=20, limit=2)["places"]) == 2
    assert "radius_km must be more than 0" in maps.error("find_nearby", place_id=place, radius_km=0)
    assert "at most 20" in maps.error("find_nearby", place_id=place, radius_km=25)
    assert "category must be one of" in maps.error("find_nearby", place_id=place, category="zoo")
    assert "search_places" in maps.error("find_nearby", place_id="PLC-9999")
