"""The payments server, driven through a real MCP client on an in-memory database: payments and captures."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump, one, scalar
from tests.servers.payments.common import EXPIRED_METHOD, payment_row, payment_with


def test_list_payments(pay: LiveServer) -> None:
    customer = scalar(pay, "SELECT customer_id FROM payments GROUP BY customer_id HAVING count(*) >= 4 ORDER BY 1")
    out = pay.ok("list_payments", customer_id=customer, limit=2)
    assert out["customer_id"] == customer
    assert len(out["payments"]) == 2
    assert out["more"] is True
    everything = pay.ok("list_payments", customer_id=customer, limit=100)["payments"]
    assert len(everything) == pay.query("SELECT count(*) FROM payments WHERE customer_id = ?", customer)[0][0]
    dates = [p["authorized_on"] for p in everything]
    assert dates == sorted(dates, reverse=True)
    status = everything[0]["status"]
    assert {p["status"] for p in pay.ok("list_payments", customer_id=customer, status=status)["payments"]} == {status}
    assert "status must be one of" in pay.error("list_payments", customer_id=customer, status="settled")
    assert "limit must be" in pay.error("list_payments", customer_id=customer, limit=500)
    assert "find_customer" in pay.error("list_payments", customer_id="CUS-0000")


def test_get_payment(pay: LiveServer) -> None:
    partial = payment_with(pay, "partially_refunded")
    out = pay.ok("get_payment", payment_id=partial.lower())
    _, _, captured, refunded, captured_on = payment_row(pay, partial)
    assert out["refundable_amount"] == (captured - refunded) / 100
    assert sum(r["amount"] for r in out["refunds"]) == refunded / 100
    assert out["captured_on"] == captured_on
    assert out["dispute"] is None
    assert out["dispute_window_ends"] > captured_on
    disputed = pay.ok("get_payment", payment_id=payment_with(pay, "disputed", "USD"))
    assert disputed["dispute"]["status"] in ("open", "under_review")
    assert disputed["refundable_amount"] == 0
    authorized = pay.ok("get_payment", payment_id=payment_with(pay, "authorized", "USD"))
    assert authorized["dispute_window_ends"] is None
    assert authorized["captured_amount"] == 0
    err = pay.error("get_payment", payment_id="PAY-0001")
    assert "PAY-0001" in err
    assert "list_payments" in err


def test_create_payment(pay: LiveServer) -> None:
    method, customer = one(
        pay, "SELECT id, customer_id FROM payment_methods WHERE exp_year >= 2027 AND type = 'card' ORDER BY id"
    )
    out = pay.ok("create_payment", payment_method_id=method, amount=49.99, currency="eur", merchant="Harbor Hotels")
    assert out["status"] == "authorized"
    assert out["customer_id"] == customer
    assert out["authorized_amount"] == 49.99
    assert out["description"] == "Payment to Harbor Hotels"
    row = pay.query(
        "SELECT customer_id, payment_method_id, currency, status, authorized_minor, captured_minor, authorized_on "
        "FROM payments WHERE id = ?",
        out["payment_id"],
    )
    assert row == [(customer, method, "EUR", "authorized", 4999, 0, "2026-01-15")]
    yen = pay.ok("create_payment", payment_method_id=method, amount=1500, currency="JPY", merchant="Bookbarn")
    assert yen["authorized_amount"] == 1500
    assert yen["payment_id"] == f"PAY-{int(out['payment_id'][4:]) + 1}"
    bank = scalar(pay, "SELECT id FROM payment_methods WHERE type = 'bank_account' ORDER BY id")
    pay.ok("create_payment", payment_method_id=bank, amount=10, currency="USD", merchant="MegaMart", description="Food")


def test_create_payment_errors_change_nothing(pay: LiveServer) -> None:
    expired, customer, month, year = one(
        pay,
        f"""SELECT m.id, m.customer_id, m.exp_month, m.exp_year FROM payment_methods m WHERE {EXPIRED_METHOD}
            AND EXISTS (SELECT 1 FROM payment_methods o WHERE o.customer_id = m.customer_id
                        AND (o.exp_year IS NULL OR o.exp_year * 100 + o.exp_month >= 202601)) ORDER BY m.id""",
    )
    good = scalar(
        pay,
        "SELECT id FROM payment_methods WHERE customer_id = ? AND (exp_year IS NULL OR exp_year * 100 + exp_month "
        ">= 202601) ORDER BY id",
        customer,
    )
    state = dump(pay)
    err = pay.error("create_payment", payment_method_id=expired, amount=20, currency="USD", merchant="MegaMart")
    assert f"expired {month:02d}/{year}" in err
    assert "cannot be charged" in err
    assert good in err  # names a method that works
    assert "not supported" in pay.error(
        "create_payment", payment_method_id=good, amount=20, currency="BTC", merchant="MegaMart"
    )
    assert "whole number" in pay.error(
        "create_payment", payment_method_id=good, amount=99.5, currency="JPY", merchant="MegaMart"
    )
    assert "merchant must be 2 to 80" in pay.error(
        "create_payment", payment_method_id=good, amount=20, currency="USD", merchant=" "
    )
    assert "list_payment_methods" in pay.error(
        "create_payment", payment_method_id="PM-9999", amount=20, currency="USD", merchant="MegaMart"
    )
    assert dump(pay) == state


def test_capture_payment(pay: LiveServer) -> None:
    full = payment_with(pay, "authorized", "USD")
    authorized = payment_row(pay, full)[1]
    out = pay.ok("capture_payment", payment_id=full)
    assert out["status"] == "captured"
    assert out["captured_amount"] == authorized / 100
    assert out["dispute_window_ends"] == "2026-03-16"
    assert payment_row(pay, full) == ("captured", authorized, authorized, 0, "2026-01-15")
    err = pay.error("capture_payment", payment_id=full)
    assert "already captured" in err
    assert "only an authorized payment" in err
    partial = payment_with(pay, "authorized", "EUR")
    cents = payment_row(pay, partial)[1]
    err = pay.error("capture_payment", payment_id=partial, amount=(cents + 1) / 100)
    assert f"EUR {cents / 100:,.2f} was authorized" in err
    assert payment_row(pay, partial)[0] == "authorized"
    assert pay.ok("capture_payment", payment_id=partial, amount=1)["captured_amount"] == 1
    assert payment_row(pay, partial)[2] == 100
    for status in ("refunded", "disputed", "partially_refunded"):
        assert status.replace("_", "") in pay.error(
            "capture_payment", payment_id=payment_with(pay, status, "USD")
        ).replace(" ", "").replace("_", "")
