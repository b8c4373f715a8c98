"""The payments server, driven through a real MCP client on an in-memory database: customers and payment methods."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import one
from tests.servers.payments.common import EXPIRED_METHOD


def test_find_customer(pay: LiveServer) -> None:
    cid, first, last, email = one(pay, "SELECT id, first_name, last_name, email FROM customers ORDER BY id")
    by_name = pay.ok("find_customer", query=f"{first} {last}".upper())
    assert cid in [c["customer_id"] for c in by_name]
    by_email = pay.ok("find_customer", query=email)
    assert [c["customer_id"] for c in by_email] == [cid]
    wallets = pay.query("SELECT count(*) FROM wallets WHERE customer_id = ?", cid)[0][0]
    assert by_email[0]["wallet_count"] == wallets
    assert {"name", "email", "country", "home_currency"} <= set(by_email[0])
    assert len(pay.ok("find_customer", query="an", limit=3)) == 3
    assert pay.ok("find_customer", query="zzzz-nobody") == []
    assert "at least 2 characters" in pay.error("find_customer", query=" x ")
    assert "limit must be between 1 and 100" in pay.error("find_customer", query="smith", limit=0)


def test_list_payment_methods(pay: LiveServer) -> None:
    method, customer = one(pay, f"SELECT id, customer_id FROM payment_methods WHERE {EXPIRED_METHOD} ORDER BY id")
    listed = pay.ok("list_payment_methods", customer_id=customer.lower())
    expected = pay.query("SELECT id FROM payment_methods WHERE customer_id = ? ORDER BY id", customer)
    assert [m["payment_method_id"] for m in listed] == [r[0] for r in expected]
    expired = next(m for m in listed if m["payment_method_id"] == method)
    assert expired["status"] == "expired"
    assert expired["type"] == "card"
    assert "/" in expired["expires"]
    usable = pay.ok("list_payment_methods", customer_id=customer, include_expired=False)
    assert method not in [m["payment_method_id"] for m in usable]
    assert all(m["status"] == "active" for m in usable)
    bank = one(pay, "SELECT customer_id, id FROM payment_methods WHERE type = 'bank_account' ORDER BY id")
    row = next(m for m in pay.ok("list_payment_methods", customer_id=bank[0]) if m["payment_method_id"] == bank[1])
    assert row["status"] == "active"
    assert "expires" not in row
    err = pay.error("list_payment_methods", customer_id="CUS-9999")
    assert "CUS-9999" in err
    assert "find_customer" in err
