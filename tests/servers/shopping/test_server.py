"""The shopping server, driven through a real MCP client on a fresh seeded database per test: the server as a whole."""

from __future__ import annotations

from typing import Any

from gym_mcp.servers.shopping import kit
from tests.helpers import LiveServer
from tests.servers.helpers import assert_listed_with_kinds, dump, scalar
from tests.servers.shopping.common import WINDOW_START, cart_rows, empty_cart_customer, in_stock_product


def test_tools_are_listed_with_kinds(srv: LiveServer) -> None:
    assert_listed_with_kinds(
        srv,
        kit,
        writes={"add_to_cart", "checkout", "cancel_order", "request_return", "apply_coupon"},
        reads={"search_products", "get_order", "view_cart", "get_return"},
    )


def test_seed_has_enough_entities(srv: LiveServer) -> None:
    tables = [
        "categories",
        "products",
        "customers",
        "coupons",
        "orders",
        "order_items",
        "returns",
        "cart_items",
    ]
    counts = {t: scalar(srv, f"SELECT COUNT(*) FROM {t}") for t in tables}
    assert sum(counts.values()) >= 200
    assert counts["products"] >= 100
    assert counts["customers"] >= 50
    assert counts["orders"] >= 100


def test_seed_reaches_every_rule(srv: LiveServer) -> None:
    statuses = {row[0] for row in srv.query("SELECT DISTINCT status FROM orders")}
    assert statuses == {"placed", "paid", "shipped", "delivered", "cancelled"}
    assert scalar(srv, "SELECT COUNT(*) FROM products WHERE stock = 0") >= 3
    assert scalar(srv, "SELECT COUNT(*) FROM orders WHERE status='delivered' AND delivered_on >= ?", WINDOW_START) >= 5
    assert scalar(srv, "SELECT COUNT(*) FROM orders WHERE status='delivered' AND delivered_on < ?", WINDOW_START) >= 5
    assert scalar(srv, "SELECT COUNT(*) FROM cart_items") > 0
    assert scalar(srv, "SELECT COUNT(*) FROM order_items GROUP BY order_id ORDER BY 1 DESC") >= 2


def test_same_seed_same_data_other_seed_other_data() -> None:
    a, b, c = LiveServer(kit, seed=0), LiveServer(kit, seed=0), LiveServer(kit, seed=1)
    assert dump(a) == dump(b)
    assert dump(a)["products"] != dump(c)["products"]
    assert dump(a)["customers"] != dump(c)["customers"]
    assert dump(a)["orders"] != dump(c)["orders"]


def test_replaying_the_same_calls_gives_identical_state() -> None:
    def episode(s: LiveServer) -> Any:
        customer = empty_cart_customer(s)
        product = in_stock_product(s)
        s.ok("add_to_cart", customer_id=customer, product_id=product, quantity=2)
        s.error("add_to_cart", customer_id=customer, product_id=product, quantity=0)
        order = s.ok("checkout", customer_id=customer)
        s.ok("cancel_order", order_id=order["order_id"])
        return order

    a, b = LiveServer(kit), LiveServer(kit)
    assert episode(a) == episode(b)
    assert dump(a) == dump(b)


def test_bad_argument_types_are_rejected(srv: LiveServer) -> None:
    customer = empty_cart_customer(srv)
    product = in_stock_product(srv)
    srv.error("add_to_cart", customer_id=customer, product_id=product, quantity="lots")
    srv.error("add_to_cart", customer_id=customer, product_id=product, quantity=1.5)
    srv.error("get_product")
    assert cart_rows(srv, customer) == []
