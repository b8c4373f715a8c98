"""The shopping server, driven through a real MCP client on a fresh seeded database per test: returns."""

from __future__ import annotations

import pytest

from gym_mcp.servers.shopping import kit
from tests.helpers import LiveServer
from tests.servers.helpers import dump, intent_placeholders, scalar
from tests.servers.shopping.common import TODAY, WINDOW_START, empty_cart_customer, in_stock_product


def _returnable_item(s: LiveServer) -> tuple[str, str, int, int]:
    """(order id, product id, quantity, unit price cents) of a multi-unit line of a recent delivery."""
    return s.query(
        "SELECT o.id, i.product_id, i.quantity, i.unit_price_cents FROM orders o "
        "JOIN order_items i ON i.order_id = o.id "
        "WHERE o.status = 'delivered' AND o.delivered_on >= ? AND i.quantity >= 2 "
        "AND o.id NOT IN (SELECT order_id FROM returns) AND o.discount_cents = 0 ORDER BY o.id",
        WINDOW_START,
    )[0]


def test_request_return(srv: LiveServer) -> None:
    oid, pid, qty, unit = _returnable_item(srv)
    expected_id = f"RET-{scalar(srv, 'SELECT MAX(CAST(SUBSTR(id, 5) AS INTEGER)) FROM returns') + 1}"
    ret = srv.ok("request_return", order_id=oid, product_id=pid, quantity=1, reason="Arrived damaged")
    assert ret["return_id"] == expected_id
    assert ret["status"] == "requested"
    assert ret["requested_on"] == TODAY
    assert ret["refund"] == round(unit / 100, 2)
    assert srv.query("SELECT order_id, product_id, quantity, status FROM returns WHERE id = ?", expected_id) == [
        (oid, pid, 1, "requested")
    ]
    assert srv.ok("get_return", return_id=expected_id.lower()) == ret
    assert {"return_id": expected_id, "product_id": pid, "quantity": 1, "status": "requested"} in srv.ok(
        "get_order", order_id=oid
    )["returns"]

    before = dump(srv)
    msg = srv.error("request_return", order_id=oid, product_id=pid, quantity=qty, reason="Wrong size")
    assert f"at most {qty - 1}" in msg
    assert dump(srv) == before
    srv.ok("request_return", order_id=oid, product_id=pid, quantity=qty - 1, reason="Wrong size")
    assert "at most 0" in srv.error("request_return", order_id=oid, product_id=pid, quantity=1, reason="Wrong size")


def test_request_return_prorates_the_coupon_discount(srv: LiveServer) -> None:
    cid = empty_cart_customer(srv)
    pid = in_stock_product(srv, min_stock=5, min_price_cents=2000)
    srv.ok("add_to_cart", customer_id=cid, product_id=pid, quantity=2)
    srv.ok("apply_coupon", customer_id=cid, code="WELCOME10")
    order = srv.ok("checkout", customer_id=cid)
    msg = srv.error("request_return", order_id=order["order_id"], product_id=pid, quantity=1, reason="Too big")
    assert "only delivered orders" in msg
    assert "cancel_order" in msg
    # deliver it (there is no tool for the carrier), then return one of the two units
    srv.conn.execute(
        "UPDATE orders SET status = 'delivered', shipped_on = ?, delivered_on = ? WHERE id = ?",
        (TODAY, TODAY, order["order_id"]),
    )
    srv.conn.commit()
    ret = srv.ok("request_return", order_id=order["order_id"], product_id=pid, quantity=1, reason="Too big")
    assert ret["refund"] == pytest.approx(order["total"] / 2, abs=0.011)


def test_request_return_errors(srv: LiveServer) -> None:
    before = dump(srv)
    old = scalar(srv, "SELECT id FROM orders WHERE status = 'delivered' AND delivered_on < ? ORDER BY id", WINDOW_START)
    old_pid = scalar(srv, "SELECT product_id FROM order_items WHERE order_id = ?", old)
    msg = srv.error("request_return", order_id=old, product_id=old_pid, quantity=1, reason="Changed my mind")
    assert "within 30 days" in msg
    assert "window closed" in msg

    shipped = scalar(srv, "SELECT id FROM orders WHERE status = 'shipped' ORDER BY id")
    shipped_pid = scalar(srv, "SELECT product_id FROM order_items WHERE order_id = ?", shipped)
    msg = srv.error("request_return", order_id=shipped, product_id=shipped_pid, quantity=1, reason="Late")
    assert "only delivered orders" in msg

    oid, pid, qty, _ = _returnable_item(srv)
    stranger = scalar(
        srv,
        "SELECT id FROM products WHERE id NOT IN (SELECT product_id FROM order_items WHERE order_id = ?)",
        oid,
    )
    msg = srv.error("request_return", order_id=oid, product_id=stranger, quantity=1, reason="Wrong item")
    assert "not part of" in msg
    assert pid in msg
    assert f"at most {qty}" in srv.error(
        "request_return", order_id=oid, product_id=pid, quantity=qty + 1, reason="Wrong size"
    )
    assert "positive integer" in srv.error("request_return", order_id=oid, product_id=pid, quantity=0, reason="x y z")
    assert "reason" in srv.error("request_return", order_id=oid, product_id=pid, quantity=1, reason=" ")
    assert "ORD-5" in srv.error("request_return", order_id="ORD-5", product_id=pid, quantity=1, reason="Late")
    assert dump(srv) == before


def test_get_and_list_returns(srv: LiveServer) -> None:
    rid, oid, status = srv.query("SELECT id, order_id, status FROM returns ORDER BY id")[0]
    ret = srv.ok("get_return", return_id=rid)
    assert ret["order_id"] == oid
    assert ret["status"] == status
    msg = srv.error("get_return", return_id="RET-1")
    assert "RET-1" in msg
    assert "list_returns" in msg

    cid = scalar(srv, "SELECT customer_id FROM orders WHERE id = ?", oid)
    listed = srv.ok("list_returns", customer_id=cid)
    assert rid in {r["return_id"] for r in listed}
    assert len(listed) == scalar(
        srv, "SELECT COUNT(*) FROM returns r JOIN orders o ON o.id = r.order_id WHERE o.customer_id = ?", cid
    )
    no_returns = scalar(
        srv,
        "SELECT id FROM customers WHERE id NOT IN "
        "(SELECT o.customer_id FROM returns r JOIN orders o ON o.id = r.order_id)",
    )
    assert srv.ok("list_returns", customer_id=no_returns) == []
    assert "limit" in srv.error("list_returns", customer_id=cid, limit=0)


def test_every_tool_has_a_synthesis_intent() -> None:
    for name, info in kit.tools.items():
        intent_placeholders(name, info)
        for pname, values in info.samples.items():
            assert len(values) >= 3, f"{name}.{pname}"
