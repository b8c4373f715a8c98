"""What the food delivery server's tests share: a fast live server, seed-data queries, cart builders."""

from __future__ import annotations

import functools
import sqlite3
from typing import Any

from gym_mcp.servers.food_delivery import kit
from tests.helpers import LiveServer
from tests.servers.helpers import scalar

TABLES = (
    "customers",
    "addresses",
    "restaurants",
    "opening_hours",
    "items",
    "option_groups",
    "options",
    "carts",
    "cart_items",
    "couriers",
    "promotions",
    "orders",
    "order_items",
    "ratings",
)


@functools.cache
def _template(seed: int) -> sqlite3.Connection:
    """A seeded database, built once per seed and copied for each test."""
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    kit.init_database(conn, seed=seed)
    return conn


class FoodServer(LiveServer):
    """`LiveServer` on a copy of a once-seeded database (seeding every test would be slow)."""

    def __init__(self, seed: int = 0) -> None:  # the parent's __init__ would seed again
        self.kit = kit
        self.conn = sqlite3.connect(":memory:", check_same_thread=False)
        _template(seed).backup(self.conn)
        self.server = kit.create_server(self.conn)


def home(server: LiveServer, customer: str) -> str:
    return scalar(server, "SELECT id FROM addresses WHERE customer_id = ? AND is_default = 1", customer)


def cartless(server: LiveServer, *, ordered: bool = True) -> str:
    """A customer with no cart, who has (or, with ordered=False, has never) placed an order."""
    op = "IN" if ordered else "NOT IN"
    return scalar(
        server,
        f"SELECT id FROM customers WHERE id NOT IN (SELECT customer_id FROM carts) "
        f"AND id {op} (SELECT customer_id FROM orders) ORDER BY id",
    )


def simple_items(server: LiveServer, restaurant: str) -> list[tuple[str, int]]:
    """(item id, price cents) of a restaurant's available items without a required option group, cheapest first."""
    return server.query(
        "SELECT id, price_cents FROM items WHERE restaurant_id = ? AND available = 1 AND id NOT IN "
        "(SELECT item_id FROM option_groups WHERE required = 1) ORDER BY price_cents, id",
        restaurant,
    )


def deliverable(server: LiveServer, customer: str) -> str:
    """A restaurant open now that delivers to the customer's home and has items without required choices."""
    found = server.ok("search_restaurants", address_id=home(server, customer), open_now_only=True, limit=50)
    for r in found:
        if simple_items(server, r["restaurant_id"]):
            return r["restaurant_id"]
    raise AssertionError(f"no open restaurant delivers to {customer}")


def fill_cart(server: LiveServer, customer: str, restaurant: str, cents: int | None = None) -> dict[str, Any]:
    """Add the restaurant's cheapest simple item until the subtotal reaches ``cents`` (default: its minimum order)."""
    if cents is None:
        cents = scalar(server, "SELECT min_order_cents FROM restaurants WHERE id = ?", restaurant)
    item, price = simple_items(server, restaurant)[0]
    quantity = max(1, -(-cents // price))
    return server.ok("add_to_cart", customer_id=customer, item_id=item, quantity=quantity)


def seeded_cart(server: LiveServer, warning: str | None) -> tuple[str, dict[str, Any]]:
    """A seeded cart with this warning (``"restaurant_closed_warning"``...), or with none when None."""
    for (customer,) in server.query("SELECT DISTINCT customer_id FROM cart_items ORDER BY customer_id"):
        cart = server.ok("get_cart", customer_id=customer)
        warnings = {k for k in cart if k.endswith("_warning")}
        if (warning is None and not warnings) or warning in warnings:
            return customer, cart
    raise AssertionError(f"no seeded cart with {warning}")


def newcomer(server: LiveServer) -> tuple[str, str]:
    """(customer who never ordered and has no cart, an open restaurant that delivers to their home)."""
    for (customer,) in server.query(
        "SELECT id FROM customers WHERE id NOT IN (SELECT customer_id FROM carts) "
        "AND id NOT IN (SELECT customer_id FROM orders) ORDER BY id"
    ):
        try:
            return customer, deliverable(server, customer)
        except AssertionError:
            continue
    raise AssertionError("no newcomer lives near an open restaurant")
