"""The shopping server, driven through a real MCP client on a fresh seeded database per test: checkout."""

from __future__ import annotations

import pytest

from tests.helpers import LiveServer
from tests.servers.helpers import assert_error, dump, scalar
from tests.servers.shopping.common import TODAY, cart_rows, empty_cart_customer, in_stock_product, stock


def test_checkout_places_the_order(srv: LiveServer) -> None:
    cid = empty_cart_customer(srv)
    a, b = (r[0] for r in srv.query("SELECT id FROM products WHERE stock >= 10 ORDER BY id LIMIT 2"))
    stock_a, stock_b = stock(srv, a), stock(srv, b)
    srv.ok("add_to_cart", customer_id=cid, product_id=a, quantity=3)
    srv.ok("add_to_cart", customer_id=cid, product_id=b, quantity=1)
    srv.ok("apply_coupon", customer_id=cid, code="WELCOME10")
    expected_max = scalar(srv, "SELECT MAX(CAST(SUBSTR(id, 5) AS INTEGER)) FROM orders") + 1

    order = srv.ok("checkout", customer_id=cid)
    assert order["order_id"] == f"ORD-{expected_max}"
    assert order["status"] == "placed"
    assert order["placed_on"] == TODAY
    assert [(i["product_id"], i["quantity"]) for i in order["items"]] == [(a, 3), (b, 1)]
    assert order["coupon"] == "WELCOME10"
    assert order["total"] == pytest.approx(order["subtotal"] - order["discount"])
    assert order["discount"] == pytest.approx(round(order["subtotal"] * 0.1, 2), abs=0.011)
    assert order["shipping_address"] == scalar(srv, "SELECT address FROM customers WHERE id = ?", cid)

    assert stock(srv, a) == stock_a - 3
    assert stock(srv, b) == stock_b - 1
    assert cart_rows(srv, cid) == []
    assert scalar(srv, "SELECT coupon_code FROM carts WHERE customer_id = ?", cid) is None
    assert srv.query("SELECT status, customer_id, total_cents FROM orders WHERE id = ?", order["order_id"]) == [
        ("placed", cid, round(order["total"] * 100))
    ]
    assert srv.ok("get_order", order_id=order["order_id"]) == order
    assert srv.ok("list_orders", customer_id=cid)["orders"][0]["order_id"] == order["order_id"]


def test_checkout_with_address_and_consecutive_ids(srv: LiveServer) -> None:
    c1 = empty_cart_customer(srv)
    c2 = scalar(srv, "SELECT id FROM customers WHERE id > ? AND id NOT IN (SELECT customer_id FROM cart_items)", c1)
    pid = in_stock_product(srv)
    srv.ok("add_to_cart", customer_id=c1, product_id=pid)
    srv.ok("add_to_cart", customer_id=c2, product_id=pid)
    assert "10 to 200" in srv.error("checkout", customer_id=c1, shipping_address="here")
    first = srv.ok("checkout", customer_id=c1, shipping_address="  77 Birch Ln,   Boise, ID 83702 ")
    second = srv.ok("checkout", customer_id=c2)
    assert first["shipping_address"] == "77 Birch Ln, Boise, ID 83702"
    assert int(second["order_id"][4:]) == int(first["order_id"][4:]) + 1


def test_checkout_empty_cart(srv: LiveServer) -> None:
    cid = empty_cart_customer(srv)
    before = scalar(srv, "SELECT COUNT(*) FROM orders")
    assert_error(srv, "checkout", "empty", "add_to_cart", customer_id=cid)
    assert scalar(srv, "SELECT COUNT(*) FROM orders") == before
    assert "CUS-7777" in srv.error("checkout", customer_id="CUS-7777")


def test_failed_checkout_for_stock_changes_nothing(srv: LiveServer) -> None:
    c1 = empty_cart_customer(srv)
    c2 = scalar(srv, "SELECT id FROM customers WHERE id > ? AND id NOT IN (SELECT customer_id FROM cart_items)", c1)
    pid, available = srv.query("SELECT id, stock FROM products WHERE stock BETWEEN 1 AND 4 ORDER BY id")[0]
    filler = in_stock_product(srv)
    srv.ok("add_to_cart", customer_id=c1, product_id=pid, quantity=available)
    srv.ok("add_to_cart", customer_id=c2, product_id=filler, quantity=1)
    srv.ok("add_to_cart", customer_id=c2, product_id=pid, quantity=1)
    srv.ok("checkout", customer_id=c1)
    assert stock(srv, pid) == 0

    before = dump(srv)
    msg = srv.error("checkout", customer_id=c2)
    assert "Not enough stock" in msg
    assert pid in msg
    assert "available 0" in msg
    assert dump(srv) == before
    assert cart_rows(srv, c2) == [(filler, 1), (pid, 1)]


def test_checkout_rechecks_the_coupon(srv: LiveServer) -> None:
    cid = empty_cart_customer(srv)
    pid, price = srv.query(
        "SELECT id, price_cents FROM products WHERE stock >= 5 AND price_cents BETWEEN 6000 AND 9999 ORDER BY id"
    )[0]
    srv.ok("add_to_cart", customer_id=cid, product_id=pid, quantity=2)
    srv.ok("apply_coupon", customer_id=cid, code="SAVE20")
    cart = srv.ok("update_cart_item", customer_id=cid, product_id=pid, quantity=1)
    assert "coupon_warning" in cart
    assert cart["discount"] == 0
    before = dump(srv)
    msg = srv.error("checkout", customer_id=cid)
    assert "SAVE20" in msg
    assert "remove_coupon" in msg
    assert dump(srv) == before
    srv.ok("remove_coupon", customer_id=cid)
    assert srv.ok("checkout", customer_id=cid)["total"] == round(price / 100, 2)
