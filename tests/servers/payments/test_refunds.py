"""The payments server, driven through a real MCP client on an in-memory database: refunds and disputes."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump, one
from tests.servers.payments.common import payment_row, payment_with


def test_refund_in_parts_up_to_the_captured_amount(pay: LiveServer) -> None:
    payment = payment_with(pay, "captured", "GBP")
    _, _, captured, _, _ = payment_row(pay, payment)
    out = pay.ok("refund_payment", payment_id=payment, amount=5, reason="Item returned")
    assert out["payment_status"] == "partially_refunded"
    assert out["refundable_amount"] == (captured - 500) / 100
    assert pay.query(
        "SELECT payment_id, amount_minor, reason, refunded_on FROM refunds WHERE id = ?", out["refund_id"]
    ) == [(payment, 500, "Item returned", "2026-01-15")]
    err = pay.error("refund_payment", payment_id=payment, amount=captured / 100, reason="Again")
    assert f"at most GBP {(captured - 500) / 100:,.2f} is refundable" in err
    assert "already refunded GBP 5.00" in err
    rest = pay.ok("refund_payment", payment_id=payment, reason="Order cancelled")  # no amount: all that is left
    assert rest["amount"] == (captured - 500) / 100
    assert rest["payment_status"] == "refunded"
    assert payment_row(pay, payment)[:4] == ("refunded", payment_row(pay, payment)[1], captured, captured)
    assert "fully refunded" in pay.error("refund_payment", payment_id=payment, amount=1, reason="More")


def test_refund_errors_change_nothing(pay: LiveServer) -> None:
    state = dump(pay)
    disputed = payment_with(pay, "disputed", "USD")
    err = pay.error("refund_payment", payment_id=disputed, amount=1, reason="Item returned")
    assert "disputed payment cannot be refunded" in err
    assert "DSP-" in err
    err = pay.error("refund_payment", payment_id=payment_with(pay, "authorized", "USD"), reason="Item returned")
    assert "not captured" in err
    assert "capture_payment" in err
    assert "fully refunded" in pay.error("refund_payment", payment_id=payment_with(pay, "refunded"), reason="Again")
    captured = payment_with(pay, "captured", "USD")
    assert "3 to 200" in pay.error("refund_payment", payment_id=captured, reason="x")
    assert "more than 2 decimals" in pay.error("refund_payment", payment_id=captured, amount=1.005, reason="Item")
    assert "list_payments" in pay.error("refund_payment", payment_id="PAY-0", reason="Item returned")
    assert dump(pay) == state


def test_open_dispute_within_the_window(pay: LiveServer) -> None:
    payment, currency = one(
        pay,
        "SELECT id, currency FROM payments WHERE status = 'partially_refunded' AND captured_on >= '2025-11-16' "
        "AND currency != 'JPY' ORDER BY id",
    )
    _, _, captured, refunded, _ = payment_row(pay, payment)
    assert currency
    out = pay.ok("open_dispute", payment_id=payment, reason="Product_Not_Received", details="Never arrived")
    assert out["status"] == "open"
    assert out["reason"] == "product_not_received"
    assert out["amount"] == (captured - refunded) / 100
    assert out["payment_status"] == "disputed"
    assert pay.query(
        "SELECT payment_id, status, amount_minor, opened_on FROM disputes WHERE id = ?", out["dispute_id"]
    ) == [(payment, "open", captured - refunded, "2026-01-15")]
    assert payment_row(pay, payment)[0] == "disputed"
    assert out["dispute_id"] in pay.error("open_dispute", payment_id=payment, reason="fraudulent")
    assert "disputed payment cannot be refunded" in pay.error("refund_payment", payment_id=payment, reason="Later")


def test_open_dispute_errors_change_nothing(pay: LiveServer) -> None:
    state = dump(pay)
    old = payment_with(pay, "captured", "USD", "AND captured_on < '2025-11-16'")
    captured_on = payment_row(pay, old)[4]
    err = pay.error("open_dispute", payment_id=old, reason="fraudulent")
    assert "dispute window" in err
    assert captured_on in err
    assert "60 days" in err
    recent = payment_with(pay, "captured", "USD", "AND captured_on >= '2025-11-16'")
    assert "reason must be one of" in pay.error("open_dispute", payment_id=recent, reason="angry")
    assert "only authorized" in pay.error(
        "open_dispute", payment_id=payment_with(pay, "authorized", "USD"), reason="fraudulent"
    )
    assert "fully refunded" in pay.error("open_dispute", payment_id=payment_with(pay, "refunded"), reason="duplicate")
    assert "only once" in pay.error("open_dispute", payment_id=payment_with(pay, "disputed", "USD"), reason="general")
    assert dump(pay) == state
