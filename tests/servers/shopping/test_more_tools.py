"""The shopping server's newer tools (clear_cart, reorder, list_coupons, update_contact_details,
cancel_return), through a real MCP client on a fresh seeded database per test."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump
from tests.servers.shopping.common import TODAY, empty_cart_customer, in_stock_product


def test_clear_cart(srv: LiveServer) -> None:
    customer = empty_cart_customer(srv)
    assert "already empty" in srv.error("clear_cart", customer_id=customer)
    srv.ok("add_to_cart", customer_id=customer, product_id=in_stock_product(srv), quantity=1)
    cart = srv.ok("clear_cart", customer_id=customer)
    assert cart["items"] == [] and cart["coupon"] is None and cart["total"] == 0.0
    assert srv.query("SELECT count(*) FROM cart_items WHERE customer_id = ?", customer) == [(0,)]
    assert "find_customer" in srv.error("clear_cart", customer_id="CUS-9999")


def test_reorder_adds_a_past_orders_items_at_todays_prices(srv: LiveServer) -> None:
    order, customer = srv.query(
        "SELECT o.id, o.customer_id FROM orders o WHERE NOT EXISTS (SELECT 1 FROM order_items i "
        "JOIN products p ON p.id = i.product_id WHERE i.order_id = o.id AND p.stock < i.quantity + 5) "
        "AND NOT EXISTS (SELECT 1 FROM cart_items c WHERE c.customer_id = o.customer_id) ORDER BY o.id"
    )[0]
    lines = dict(srv.query("SELECT product_id, quantity FROM order_items WHERE order_id = ?", order))
    cart = srv.ok("reorder", order_id=order)
    assert cart["customer_id"] == customer
    assert {i["product_id"]: i["quantity"] for i in cart["items"]} == lines
    prices = {pid: srv.query("SELECT price_cents FROM products WHERE id = ?", pid)[0][0] for pid in lines}
    assert all(i["unit_price"] == round(prices[i["product_id"]] / 100, 2) for i in cart["items"])
    again = srv.ok("reorder", order_id=order)  # quantities add up
    assert {i["product_id"]: i["quantity"] for i in again["items"]} == {p: 2 * q for p, q in lines.items()}
    assert "list_orders" in srv.error("reorder", order_id="ORD-99999")


def test_reorder_adds_nothing_when_a_product_lacks_stock(srv: LiveServer) -> None:
    order, customer, product = srv.query(
        "SELECT o.id, o.customer_id, i.product_id FROM orders o JOIN order_items i ON i.order_id = o.id "
        "JOIN products p ON p.id = i.product_id WHERE p.stock < i.quantity ORDER BY o.id"
    )[0]
    before = dump(srv)
    err = srv.error("reorder", order_id=order)
    assert product in err and ("out of stock" in err or "Not enough stock" in err)
    assert dump(srv) == before  # the cart was not half-filled
    assert customer


def test_list_coupons_shows_only_usable_ones(srv: LiveServer) -> None:
    coupons = srv.ok("list_coupons", limit=50)
    usable = srv.query("SELECT code FROM coupons WHERE active = 1 AND expires_on >= ? ORDER BY code", TODAY)
    assert [c["code"] for c in coupons] == [row[0] for row in usable][:50]
    assert all(("percent_off" in c) != ("amount_off" in c) for c in coupons)
    assert srv.query("SELECT count(*) FROM coupons WHERE active = 0 OR expires_on < ?", TODAY)[0][0] > 0
    assert "limit" in srv.error("list_coupons", limit=0)


def test_update_contact_details(srv: LiveServer) -> None:
    customer, other_email = srv.query(
        "SELECT a.id, b.email FROM customers a, customers b WHERE a.id != b.id ORDER BY a.id"
    )[0]
    done = srv.ok(
        "update_contact_details", customer_id=customer, email="Jordan.New@Example.com", phone="+1 512-555-0199"
    )
    assert done == {"customer_id": customer, "email": "jordan.new@example.com", "phone": "+1 512-555-0199"}
    assert srv.query("SELECT email, phone FROM customers WHERE id = ?", customer) == [
        ("jordan.new@example.com", "+1 512-555-0199")
    ]
    before = dump(srv)
    assert "nothing to change" in srv.error("update_contact_details", customer_id=customer)
    assert "not an email address" in srv.error("update_contact_details", customer_id=customer, email="nope")
    assert "already belongs to another customer" in srv.error(
        "update_contact_details", customer_id=customer, email=other_email
    )
    assert "not a phone number" in srv.error("update_contact_details", customer_id=customer, phone="call me")
    assert dump(srv) == before


def test_cancel_return(srv: LiveServer) -> None:
    requested = srv.query(
        "SELECT id, order_id, product_id, quantity FROM returns WHERE status = 'requested' ORDER BY id"
    )[0]
    ret_id = requested[0]
    ret = srv.ok("cancel_return", return_id=ret_id)
    assert ret["status"] == "cancelled"
    assert srv.query("SELECT status FROM returns WHERE id = ?", ret_id) == [("cancelled",)]
    assert "only a return that is still requested" in srv.error("cancel_return", return_id=ret_id)
    refunded = srv.query("SELECT id FROM returns WHERE status = 'refunded' ORDER BY id")[0][0]
    assert "refunded" in srv.error("cancel_return", return_id=refunded)
    assert "list_returns" in srv.error("cancel_return", return_id="RET-99999")
