"""The shopping server, driven through a real MCP client on a fresh seeded database per test: orders."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import assert_error, dump, scalar
from tests.servers.shopping.common import TODAY, stock


def test_list_orders(srv: LiveServer) -> None:
    cid = scalar(srv, "SELECT customer_id FROM orders GROUP BY customer_id HAVING COUNT(*) >= 3 ORDER BY 1")
    listed = srv.ok("list_orders", customer_id=cid)
    ids = [o["order_id"] for o in listed["orders"]]
    assert listed["total"] == len(ids) == scalar(srv, "SELECT COUNT(*) FROM orders WHERE customer_id = ?", cid)
    dates = [o["placed_on"] for o in listed["orders"]]
    assert dates == sorted(dates, reverse=True)
    assert len(srv.ok("list_orders", customer_id=cid, limit=1)["orders"]) == 1

    status = scalar(srv, "SELECT status FROM orders WHERE customer_id = ?", cid)
    filtered = srv.ok("list_orders", customer_id=cid, status=status.upper())
    assert filtered["orders"]
    assert all(o["status"] == status for o in filtered["orders"])
    assert "Unknown status" in srv.error("list_orders", customer_id=cid, status="lost")
    assert "CUS-0002" in srv.error("list_orders", customer_id="CUS-0002")


def test_get_order(srv: LiveServer) -> None:
    oid = scalar(srv, "SELECT id FROM orders WHERE status = 'delivered' ORDER BY id")
    order = srv.ok("get_order", order_id=oid)
    assert order["status"] == "delivered"
    assert {"delivered_on", "shipped_on", "return_by"} <= set(order)
    rows = srv.query("SELECT product_id, quantity FROM order_items WHERE order_id = ? ORDER BY id", oid)
    assert [(i["product_id"], i["quantity"]) for i in order["items"]] == rows
    assert order["total"] == round(scalar(srv, "SELECT total_cents FROM orders WHERE id = ?", oid) / 100, 2)
    msg = srv.error("get_order", order_id="ORD-1")
    assert "ORD-1" in msg
    assert "list_orders" in msg


def test_cancel_paid_order_refunds_and_restocks(srv: LiveServer) -> None:
    oid, total = srv.query("SELECT id, total_cents FROM orders WHERE status = 'paid' ORDER BY id")[0]
    items = srv.query("SELECT product_id, quantity FROM order_items WHERE order_id = ?", oid)
    before = {pid: stock(srv, pid) for pid, _ in items}
    result = srv.ok("cancel_order", order_id=oid)
    assert result == {"order_id": oid, "status": "cancelled", "refund": round(total / 100, 2)}
    assert srv.query("SELECT status, cancelled_on FROM orders WHERE id = ?", oid) == [("cancelled", TODAY)]
    for pid, qty in items:
        assert stock(srv, pid) == before[pid] + qty
    assert "already cancelled" in srv.error("cancel_order", order_id=oid)


def test_cancel_placed_order_has_no_refund(srv: LiveServer) -> None:
    oid = scalar(srv, "SELECT id FROM orders WHERE status = 'placed' ORDER BY id")
    assert srv.ok("cancel_order", order_id=oid)["refund"] == 0


def test_cancel_shipped_or_delivered_order_fails(srv: LiveServer) -> None:
    before = dump(srv)
    shipped = scalar(srv, "SELECT id FROM orders WHERE status = 'shipped' ORDER BY id")
    assert_error(srv, "cancel_order", "cannot be cancelled", "shipped", order_id=shipped)
    delivered = scalar(srv, "SELECT id FROM orders WHERE status = 'delivered' ORDER BY id")
    assert_error(srv, "cancel_order", "delivered", "request_return", order_id=delivered)
    assert "ORD-0" in srv.error("cancel_order", order_id="ORD-0")
    assert dump(srv) == before


def test_update_shipping_address(srv: LiveServer) -> None:
    oid = scalar(srv, "SELECT id FROM orders WHERE status = 'paid' ORDER BY id")
    result = srv.ok("update_shipping_address", order_id=oid, address="500 Harbor Way, Savannah, GA 31401")
    assert result["shipping_address"] == "500 Harbor Way, Savannah, GA 31401"
    assert scalar(srv, "SELECT shipping_address FROM orders WHERE id = ?", oid) == result["shipping_address"]
    assert "10 to 200" in srv.error("update_shipping_address", order_id=oid, address="x")

    for status in ("shipped", "delivered"):
        other = scalar(srv, "SELECT id FROM orders WHERE status = ? ORDER BY id", status)
        old = scalar(srv, "SELECT shipping_address FROM orders WHERE id = ?", other)
        msg = srv.error("update_shipping_address", order_id=other, address="500 Harbor Way, Savannah, GA 31401")
        assert "cannot be changed" in msg
        assert status in msg
        assert scalar(srv, "SELECT shipping_address FROM orders WHERE id = ?", other) == old
    cancelled = scalar(srv, "SELECT id FROM orders WHERE status = 'cancelled' ORDER BY id")
    assert "cancelled" in srv.error("update_shipping_address", order_id=cancelled, address="1 Elm St, Omaha, NE")
