"""The shopping server, driven through a real MCP client on a fresh seeded database per test: customers."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import scalar


def test_find_and_get_customer(srv: LiveServer) -> None:
    cid, email = srv.query("SELECT id, email FROM customers ORDER BY id")[0]
    found = srv.ok("find_customer", query=email.upper())
    assert [c["customer_id"] for c in found] == [cid]
    last_name = scalar(srv, "SELECT name FROM customers WHERE id = ?", cid).split()[-1]
    assert cid in {c["customer_id"] for c in srv.ok("find_customer", query=last_name)}
    assert len(srv.ok("find_customer", query="an", limit=3)) == 3
    assert "at least 2" in srv.error("find_customer", query=" x ")

    profile = srv.ok("get_customer", customer_id=cid)
    assert profile["email"] == email
    assert profile["order_count"] == scalar(srv, "SELECT COUNT(*) FROM orders WHERE customer_id = ?", cid)
    msg = srv.error("get_customer", customer_id="CUS-0001")
    assert "CUS-0001" in msg
    assert "find_customer" in msg
