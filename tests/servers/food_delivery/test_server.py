"""The food delivery server, driven through a real MCP client on an in-memory database: the server as a whole."""

from __future__ import annotations

from gym_mcp.servers.food_delivery import kit
from gym_mcp.servers.food_delivery.hours import distance_km, is_open, next_opening
from tests.helpers import LiveServer
from tests.servers.food_delivery.common import TABLES, FoodServer, cartless, deliverable, fill_cart
from tests.servers.helpers import (
    assert_listed_with_kinds,
    dump,
)

WRITES = {
    "add_to_cart",
    "update_cart_item",
    "remove_from_cart",
    "clear_cart",
    "apply_promotion",
    "remove_promotion",
    "checkout",
    "cancel_order",
    "rate_order",
    "add_address",
}


def test_tools_are_listed_with_kinds(food: FoodServer) -> None:
    reads = set(kit.tools) - WRITES
    assert len(kit.tools) >= 17
    assert_listed_with_kinds(food, kit, writes=WRITES, reads=reads)
    assert kit.tools["cancel_order"].confirm == "always"


def test_seed_has_enough_entities(food: FoodServer) -> None:
    counts = {t: food.query(f"SELECT count(*) FROM {t}")[0][0] for t in TABLES}
    assert sum(counts.values()) >= 200
    assert counts["customers"] >= 50
    assert counts["restaurants"] >= 25
    assert counts["items"] >= 150
    assert counts["orders"] >= 100
    assert counts["promotions"] >= 8
    statuses = dict(food.query("SELECT status, count(*) FROM orders GROUP BY status"))
    assert set(statuses) == {"placed", "accepted", "preparing", "picked_up", "delivered", "cancelled"}
    # the error paths are reachable
    assert food.query("SELECT count(*) FROM items WHERE available = 0")[0][0] >= 3
    assert food.query("SELECT count(*) FROM option_groups WHERE required = 1")[0][0] >= 20
    assert food.query("SELECT count(*) FROM promotions WHERE expires_on < '2026-01-15'")[0][0] >= 1
    assert food.query("SELECT count(*) FROM promotions WHERE first_order_only = 1")[0][0] >= 1
    assert food.query("SELECT count(*) FROM promotions WHERE restaurant_id IS NOT NULL")[0][0] >= 1
    assert food.query("SELECT count(*) FROM cart_items")[0][0] >= 20
    cartless(food, ordered=False)
    rated = food.query("SELECT count(*) FROM ratings")[0][0]
    assert 0 < rated < statuses["delivered"]
    closed = [r["restaurant_id"] for r in food.ok("search_restaurants", limit=50) if not r["open_now"]]
    assert len(closed) >= 3


def test_seed_is_consistent(food: FoodServer) -> None:
    # every order's total is its lines, less the discount, plus the fee; couriers only once picked up
    bad = food.query(
        """SELECT o.id FROM orders o WHERE o.subtotal_cents !=
               (SELECT sum(quantity * unit_price_cents) FROM order_items WHERE order_id = o.id)
           OR o.total_cents != o.subtotal_cents - o.discount_cents + o.delivery_fee_cents
           OR (o.courier_id IS NULL) != (o.picked_up_at IS NULL)"""
    )
    assert bad == []
    # carts hold items of their own restaurant only; ratings only on delivered orders
    assert food.query(
        "SELECT count(*) FROM cart_items l JOIN carts c ON c.customer_id = l.customer_id "
        "JOIN items i ON i.id = l.item_id WHERE i.restaurant_id != c.restaurant_id"
    ) == [(0,)]
    assert food.query(
        "SELECT count(*) FROM ratings r JOIN orders o ON o.id = r.order_id WHERE o.status != 'delivered'"
    ) == [(0,)]


def test_hours_and_distance_rules() -> None:
    from datetime import datetime, time

    late = [(4, time(18, 0), time(2, 0))]  # Friday 18:00 to Saturday 02:00
    assert is_open(late, datetime(2026, 1, 17, 1, 30))  # Saturday 01:30
    assert not is_open(late, datetime(2026, 1, 17, 2, 0))
    assert next_opening(late, datetime(2026, 1, 15, 12, 30)) == datetime(2026, 1, 16, 18, 0)
    assert next_opening([], datetime(2026, 1, 15, 12, 30)) is None
    assert distance_km(45.52, -122.675, 45.52, -122.675) == 0.0
    assert 11.0 < distance_km(45.52, -122.675, 45.62, -122.675) < 11.2


def test_same_seed_same_data_other_seed_other_data(food: FoodServer) -> None:
    fresh = LiveServer(kit, seed=0)
    assert dump(food) == dump(fresh)
    other = dump(FoodServer(seed=1))
    assert other != dump(food)
    assert other["customers"] != dump(food)["customers"]


def test_replaying_calls_gives_identical_state() -> None:
    servers = [FoodServer(seed=0), FoodServer(seed=0)]
    results = []
    for server in servers:
        customer = cartless(server)
        restaurant = deliverable(server, customer)
        results.append(
            [
                fill_cart(server, customer, restaurant),
                server.ok("checkout", customer_id=customer),
                server.ok(
                    "add_address",
                    customer_id=customer,
                    label="Office",
                    street="815 Alder St, Portland, OR 97205",
                    latitude=45.5152,
                    longitude=-122.6784,
                ),
            ]
        )
    assert results[0] == results[1]
    assert dump(servers[0]) == dump(servers[1])
