"""The shopping server, driven through a real MCP client on a fresh seeded database per test: cart."""

from __future__ import annotations

import pytest

from tests.helpers import LiveServer
from tests.servers.helpers import dump, scalar
from tests.servers.shopping.common import cart_rows, empty_cart_customer, in_stock_product, stock


def test_view_cart_matches_the_database(srv: LiveServer) -> None:
    cid = scalar(srv, "SELECT customer_id FROM carts WHERE coupon_code IS NOT NULL")
    cart = srv.ok("view_cart", customer_id=cid)
    assert [(i["product_id"], i["quantity"]) for i in cart["items"]] == cart_rows(srv, cid)
    subtotal = sum(i["line_total"] for i in cart["items"])
    assert cart["subtotal"] == pytest.approx(subtotal)
    assert cart["coupon"] == "WELCOME10"
    assert cart["discount"] == pytest.approx(round(subtotal * 0.10, 2), abs=0.011)
    assert cart["total"] == pytest.approx(cart["subtotal"] - cart["discount"])
    assert srv.ok("view_cart", customer_id=empty_cart_customer(srv))["items"] == []
    assert "CUS-42" in srv.error("view_cart", customer_id="CUS-42")


def test_add_to_cart_adds_and_accumulates(srv: LiveServer) -> None:
    cid = empty_cart_customer(srv)
    pid = in_stock_product(srv)
    cart = srv.ok("add_to_cart", customer_id=cid, product_id=pid, quantity=2)
    assert [(i["product_id"], i["quantity"]) for i in cart["items"]] == [(pid, 2)]
    srv.ok("add_to_cart", customer_id=cid, product_id=pid)
    assert cart_rows(srv, cid) == [(pid, 3)]
    assert stock(srv, pid) >= 10  # adding to a cart reserves nothing


def test_add_to_cart_errors_change_nothing(srv: LiveServer) -> None:
    cid = empty_cart_customer(srv)
    before = dump(srv)
    out_of_stock = scalar(srv, "SELECT id FROM products WHERE stock = 0 ORDER BY id")
    msg = srv.error("add_to_cart", customer_id=cid, product_id=out_of_stock)
    assert "out of stock" in msg
    assert out_of_stock in msg

    low, available = srv.query("SELECT id, stock FROM products WHERE stock BETWEEN 1 AND 4 ORDER BY id")[0]
    msg = srv.error("add_to_cart", customer_id=cid, product_id=low, quantity=available + 1)
    assert "Not enough stock" in msg
    assert f"only {available} are available" in msg

    pid = in_stock_product(srv)
    assert "positive integer" in srv.error("add_to_cart", customer_id=cid, product_id=pid, quantity=0)
    assert "positive integer" in srv.error("add_to_cart", customer_id=cid, product_id=pid, quantity=-2)
    assert "PRD-0000" in srv.error("add_to_cart", customer_id=cid, product_id="PRD-0000")
    assert "CUS-0000" in srv.error("add_to_cart", customer_id="CUS-0000", product_id=pid)
    assert dump(srv) == before


def test_add_to_cart_counts_what_is_already_in_the_cart(srv: LiveServer) -> None:
    cid = empty_cart_customer(srv)
    pid, available = srv.query("SELECT id, stock FROM products WHERE stock BETWEEN 2 AND 4 ORDER BY id")[0]
    srv.ok("add_to_cart", customer_id=cid, product_id=pid, quantity=available)
    msg = srv.error("add_to_cart", customer_id=cid, product_id=pid, quantity=1)
    assert f"the cart would hold {available + 1}" in msg
    assert cart_rows(srv, cid) == [(pid, available)]


def test_update_cart_item(srv: LiveServer) -> None:
    cid = empty_cart_customer(srv)
    pid = in_stock_product(srv)
    srv.ok("add_to_cart", customer_id=cid, product_id=pid, quantity=1)
    cart = srv.ok("update_cart_item", customer_id=cid, product_id=pid, quantity=4)
    assert cart["items"][0]["quantity"] == 4
    assert cart_rows(srv, cid) == [(pid, 4)]

    too_many = stock(srv, pid) + 1
    assert "Not enough stock" in srv.error("update_cart_item", customer_id=cid, product_id=pid, quantity=too_many)
    assert "positive integer" in srv.error("update_cart_item", customer_id=cid, product_id=pid, quantity=0)
    other = scalar(srv, "SELECT id FROM products WHERE id != ? AND stock > 0 ORDER BY id", pid)
    msg = srv.error("update_cart_item", customer_id=cid, product_id=other, quantity=1)
    assert "not in" in msg
    assert "add_to_cart" in msg
    assert cart_rows(srv, cid) == [(pid, 4)]


def test_remove_from_cart(srv: LiveServer) -> None:
    cid = scalar(srv, "SELECT customer_id FROM cart_items GROUP BY customer_id HAVING COUNT(*) >= 2")
    first, second = cart_rows(srv, cid)[:2]
    cart = srv.ok("remove_from_cart", customer_id=cid, product_id=first[0])
    assert first[0] not in {i["product_id"] for i in cart["items"]}
    assert first not in cart_rows(srv, cid)
    assert second in cart_rows(srv, cid)
    assert "not in" in srv.error("remove_from_cart", customer_id=cid, product_id=first[0])


def test_apply_and_remove_coupon(srv: LiveServer) -> None:
    cid = empty_cart_customer(srv)
    assert "empty" in srv.error("apply_coupon", customer_id=cid, code="WELCOME10")
    pid = in_stock_product(srv, min_stock=5, min_price_cents=3000)
    price = scalar(srv, "SELECT price_cents FROM products WHERE id = ?", pid)
    srv.ok("add_to_cart", customer_id=cid, product_id=pid, quantity=1)

    cart = srv.ok("apply_coupon", customer_id=cid, code="fiveoff")
    assert cart["coupon"] == "FIVEOFF"
    assert cart["discount"] == 5.0
    assert cart["total"] == round((price - 500) / 100, 2)
    assert scalar(srv, "SELECT coupon_code FROM carts WHERE customer_id = ?", cid) == "FIVEOFF"

    assert "does not exist" in srv.error("apply_coupon", customer_id=cid, code="FREESTUFF")
    assert "expired on 2025-12-31" in srv.error("apply_coupon", customer_id=cid, code="HOLIDAY25")
    assert "no longer active" in srv.error("apply_coupon", customer_id=cid, code="VIP30")
    if price < 10000:
        msg = srv.error("apply_coupon", customer_id=cid, code="SAVE20")
        assert "at least $100.00" in msg
    assert scalar(srv, "SELECT coupon_code FROM carts WHERE customer_id = ?", cid) == "FIVEOFF"

    cart = srv.ok("remove_coupon", customer_id=cid)
    assert cart["coupon"] is None
    assert cart["discount"] == 0
    assert scalar(srv, "SELECT coupon_code FROM carts WHERE customer_id = ?", cid) is None
    assert "no coupon" in srv.error("remove_coupon", customer_id=cid)
