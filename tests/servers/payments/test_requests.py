"""The payments server, driven through a real MCP client on an in-memory database: payment requests."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump, one, scalar
from tests.servers.payments.common import balance, pending_request


def _status(pay: LiveServer, request: str) -> tuple[str, str | None, str | None]:
    return one(pay, "SELECT status, resolved_on, paid_from_wallet_id FROM payment_requests WHERE id = ?", request)


def test_list_payment_requests(pay: LiveServer) -> None:
    customer = scalar(pay, "SELECT payer_id FROM payment_requests GROUP BY payer_id HAVING count(*) >= 2 ORDER BY 1")
    incoming = pay.ok("list_payment_requests", customer_id=customer, role="incoming")
    assert incoming
    assert {r["payer_id"] for r in incoming} == {customer}
    outgoing = pay.ok("list_payment_requests", customer_id=customer, role="OUTGOING")
    assert all(r["requester_id"] == customer for r in outgoing)
    everything = pay.ok("list_payment_requests", customer_id=customer)
    assert len(everything) == len(incoming) + len(outgoing)
    dates = [r["requested_on"] for r in everything]
    assert dates == sorted(dates, reverse=True)
    status = everything[0]["status"]
    assert {r["status"] for r in pay.ok("list_payment_requests", customer_id=customer, status=status)} == {status}
    assert "role must be one of" in pay.error("list_payment_requests", customer_id=customer, role="mine")
    assert "status must be one of" in pay.error("list_payment_requests", customer_id=customer, status="open")


def test_create_payment_request(pay: LiveServer) -> None:
    a, b = (r[0] for r in pay.query("SELECT id FROM customers ORDER BY id LIMIT 2"))
    out = pay.ok("create_payment_request", requester_id=a, payer_id=b, amount=12.5, currency="EUR", memo="Dinner split")
    assert out["status"] == "pending"
    assert out["expires_on"] == "2026-01-29"
    row = pay.query(
        "SELECT requester_id, payer_id, currency, amount_minor, memo, status, requested_on FROM payment_requests "
        "WHERE id = ?",
        out["payment_request_id"],
    )
    assert row == [(a, b, "EUR", 1250, "Dinner split", "pending", "2026-01-15")]
    state = dump(pay)
    assert "themselves" in pay.error("create_payment_request", requester_id=a, payer_id=a, amount=5, currency="USD")
    assert "whole number" in pay.error("create_payment_request", requester_id=a, payer_id=b, amount=5.5, currency="JPY")
    assert "not supported" in pay.error("create_payment_request", requester_id=a, payer_id=b, amount=5, currency="US")
    err = pay.error("create_payment_request", requester_id=a, payer_id="CUS-0", amount=5, currency="USD")
    assert "CUS-0" in err
    assert "find_customer" in err
    assert dump(pay) == state


def test_pay_payment_request_once(pay: LiveServer) -> None:
    request, requester, payer, currency, amount = pending_request(pay)
    wallet = scalar(pay, "SELECT id FROM wallets WHERE customer_id = ? AND currency = ?", payer, currency)
    credited = scalar(pay, "SELECT id FROM wallets WHERE customer_id = ? AND currency = ?", requester, currency)
    a, b = balance(pay, wallet), balance(pay, credited)
    out = pay.ok("pay_payment_request", payment_request_id=request, wallet_id=wallet)
    assert out["status"] == "paid"
    assert out["credited_wallet_id"] == credited
    assert balance(pay, wallet) == a - amount
    assert balance(pay, credited) == b + amount
    assert _status(pay, request) == ("paid", "2026-01-15", wallet)
    err = pay.error("pay_payment_request", payment_request_id=request, wallet_id=wallet)
    assert "already paid" in err
    assert "only once" in err
    assert balance(pay, wallet) == a - amount


def test_pay_from_another_currency_converts(pay: LiveServer) -> None:
    request, payer, amount, wallet, minor = one(
        pay,
        """SELECT r.id, r.payer_id, r.amount_minor, w.id, w.balance_minor FROM payment_requests r
           JOIN wallets w ON w.customer_id = r.payer_id
           WHERE r.status = 'pending' AND r.currency = 'USD' AND w.currency = 'EUR' AND w.balance_minor > 50000
           ORDER BY r.id""",
    )
    out = pay.ok("pay_payment_request", payment_request_id=request, wallet_id=wallet)
    expected = round(amount * 0.92)  # cents of USD -> cents of EUR at 0.92
    assert out["debited_currency"] == "EUR"
    assert round(out["debited"] * 100) == expected
    assert balance(pay, wallet) == minor - expected
    assert payer


def test_pay_payment_request_errors_change_nothing(pay: LiveServer) -> None:
    request, _, payer, _, _ = pending_request(pay)
    state = dump(pay)
    stranger = scalar(pay, "SELECT id FROM wallets WHERE customer_id != ? ORDER BY id", payer)
    own = scalar(pay, "SELECT id FROM wallets WHERE customer_id = ? ORDER BY id", payer)
    err = pay.error("pay_payment_request", payment_request_id=request, wallet_id=stranger)
    assert f"the payer of {request}" in err
    assert own in err
    for status, words in (("declined", "was declined"), ("expired", "expired on")):
        other, other_payer = one(pay, "SELECT id, payer_id FROM payment_requests WHERE status = ? ORDER BY id", status)
        w = scalar(pay, "SELECT id FROM wallets WHERE customer_id = ?", other_payer)
        assert words in pay.error("pay_payment_request", payment_request_id=other, wallet_id=w)
    assert "list_payment_requests" in pay.error("pay_payment_request", payment_request_id="PRQ-1", wallet_id=own)
    assert dump(pay) == state


def test_insufficient_funds_names_the_shortfall(pay: LiveServer) -> None:
    request, _, payer, currency, amount = pending_request(pay)
    wallet = scalar(pay, "SELECT id FROM wallets WHERE customer_id = ? AND currency = ?", payer, currency)
    pay.conn.execute("UPDATE wallets SET balance_minor = 1 WHERE id = ?", (wallet,))
    pay.conn.commit()
    err = pay.error("pay_payment_request", payment_request_id=request, wallet_id=wallet)
    assert "Insufficient funds" in err
    assert f"the request needs {currency} " in err
    assert wallet in err
    assert _status(pay, request)[0] == "pending"
    assert balance(pay, wallet) == 1
    assert amount > 1


def test_decline_payment_request(pay: LiveServer) -> None:
    request = scalar(pay, "SELECT id FROM payment_requests WHERE status = 'pending' ORDER BY id")
    out = pay.ok("decline_payment_request", payment_request_id=request, reason="Wrong amount")
    assert out["status"] == "declined"
    assert out["decline_reason"] == "Wrong amount"
    assert _status(pay, request)[:2] == ("declined", "2026-01-15")
    assert "was declined" in pay.error("decline_payment_request", payment_request_id=request)
    paid = scalar(pay, "SELECT id FROM payment_requests WHERE status = 'paid' ORDER BY id")
    assert "already paid" in pay.error("decline_payment_request", payment_request_id=paid)
    other = scalar(pay, "SELECT id FROM payment_requests WHERE status = 'pending' ORDER BY id DESC")
    assert "at most 200" in pay.error("decline_payment_request", payment_request_id=other, reason="x" * 201)
