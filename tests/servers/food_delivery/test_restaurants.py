"""The food delivery server, driven through a real MCP client on an in-memory database: restaurants and menus."""

from __future__ import annotations

from tests.servers.food_delivery.common import FoodServer, home
from tests.servers.helpers import assert_error, scalar


def test_search_restaurants(food: FoodServer) -> None:
    everything = food.ok("search_restaurants", limit=50)
    assert len(everything) == scalar(food, "SELECT count(*) FROM restaurants")
    thai = food.ok("search_restaurants", cuisine="thai")
    assert thai and {r["cuisine"] for r in thai} == {"Thai"}
    pizza = food.ok("search_restaurants", query="Pizza")
    expected = food.query(
        "SELECT DISTINCT restaurant_id FROM items WHERE name LIKE '%pizza%' ORDER BY restaurant_id LIMIT 10"
    )
    assert [r["restaurant_id"] for r in pizza] == [r[0] for r in expected]
    assert len(food.ok("search_restaurants", limit=3)) == 3
    open_now = food.ok("search_restaurants", open_now_only=True, limit=50)
    assert open_now and all(r["open_now"] for r in open_now)
    assert len(open_now) < len(everything)
    closed = next(r for r in everything if not r["open_now"])
    assert closed["next_opening"].startswith(("Thursday 2026-01-15", "Friday 2026-01-16"))
    address = home(food, "CUS-1001")
    near = food.ok("search_restaurants", address_id=address, limit=50)
    assert near and all(r["delivers_to_address"] for r in near)
    assert [r["distance_km"] for r in near] == sorted(r["distance_km"] for r in near)
    assert all(r["distance_km"] <= r["delivery_radius_km"] for r in near)
    assert_error(food, "search_restaurants", "Unknown cuisine", "Italian", cuisine="Martian")
    assert_error(food, "search_restaurants", "limit must be between 1 and 50", limit=0)
    assert_error(food, "search_restaurants", "list_addresses", address_id="ADR-1")


def test_get_restaurant(food: FoodServer) -> None:
    everything = food.ok("search_restaurants", limit=50)
    closed = next(r for r in everything if not r["open_now"])
    out = food.ok("get_restaurant", restaurant_id=closed["restaurant_id"].lower())
    assert out["restaurant_id"] == closed["restaurant_id"]
    assert out["open_now"] is False
    assert set(out["opening_hours"]) == {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
    rows = food.query(
        "SELECT opens, closes FROM opening_hours WHERE restaurant_id = ? AND weekday = 3 ORDER BY opens",
        closed["restaurant_id"],
    )
    assert out["opening_hours"]["Thursday"] == ([f"{a}-{b}" for a, b in rows] or "closed")
    assert out["next_opening"] == closed["next_opening"]
    address = home(food, "CUS-1001")
    with_address = food.ok("get_restaurant", restaurant_id=closed["restaurant_id"], address_id=address)
    assert isinstance(with_address["distance_km"], float)
    assert with_address["delivers_to_address"] == (with_address["distance_km"] <= with_address["delivery_radius_km"])
    assert_error(food, "get_restaurant", "RST-1001", "search_restaurants", restaurant_id="RST-77")


def test_get_menu(food: FoodServer) -> None:
    menu = food.ok("get_menu", restaurant_id="RST-1001")
    ids = [r[0] for r in food.query("SELECT id FROM items WHERE restaurant_id = 'RST-1001' ORDER BY id")]
    assert [i["item_id"] for i in menu["items"]] == ids
    required = food.query(
        "SELECT i.id, g.name FROM items i JOIN option_groups g ON g.item_id = i.id "
        "WHERE i.restaurant_id = 'RST-1001' AND g.required = 1"
    )
    by_id = {i["item_id"]: i for i in menu["items"]}
    for item, group in required:
        assert group in by_id[item]["required_choices"]
    category = menu["items"][0]["category"]
    only = food.ok("get_menu", restaurant_id="RST-1001", category=category.upper())
    assert {i["category"] for i in only["items"]} == {category}
    assert_error(food, "get_menu", "has no category", category, restaurant_id="RST-1001", category="Spaceships")
    assert_error(food, "get_menu", "search_restaurants", restaurant_id="RST-0")


def test_get_item(food: FoodServer) -> None:
    item = scalar(food, "SELECT item_id FROM option_groups WHERE required = 1 ORDER BY id")
    out = food.ok("get_item", item_id=item)
    groups = food.query("SELECT id, name, required, max_choices FROM option_groups WHERE item_id = ? ORDER BY id", item)
    assert [(g["group_id"], g["name"], g["required"], g["max_choices"]) for g in out["option_groups"]] == [
        (a, b, bool(c), d) for a, b, c, d in groups
    ]
    options = food.query("SELECT id, price_delta_cents FROM options WHERE group_id = ? ORDER BY id", groups[0][0])
    assert [(o["option_id"], o["price_delta"]) for o in out["option_groups"][0]["options"]] == [
        (a, b / 100) for a, b in options
    ]
    assert_error(food, "get_item", "ITM-1001", "get_menu", item_id="ITM-5")
