"""Payments tools that reverse money on a captured payment: refunds and disputes (both irreversible)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_length, next_id
from gym_mcp.servers.payments.models import DISPUTE_REASONS, DISPUTE_WINDOW_DAYS, Dispute, Payment, Refund
from gym_mcp.servers.payments.tools.common import (
    dispute_view,
    dispute_window_end,
    fmt,
    kit,
    load_currency,
    load_payment,
    major,
    refundable_minor,
    to_minor,
)


def _open_dispute(db: Session, payment: Payment) -> Dispute | None:
    """The latest dispute of a payment, if any."""
    return db.scalar(select(Dispute).where(Dispute.payment_id == payment.id).order_by(Dispute.id.desc()))


@kit.tool(
    write=True,
    intent="Refund[ {amount} of] payment {payment_id} with the reason '{reason}'",
    confirm="always",
    samples={"reason": ("Item returned", "Duplicate charge", "Order cancelled", "Damaged on arrival", "Goodwill")},
)
def refund_payment(db: Session, payment_id: str, reason: str, amount: float | None = None) -> dict[str, Any]:
    """Refund money on a captured payment, all that is left or part of it. Irreversible.

    At most the captured amount minus what was already refunded can be refunded (get_payment
    shows refundable_amount); leaving amount out refunds all of it. An authorized payment is not
    captured yet, and a disputed payment cannot be refunded.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        payment_id: Payment id, e.g. "PAY-1001".
        reason: Why, 3 to 200 characters, e.g. "Item returned".
        amount: Amount to refund in the payment's currency, e.g. 15.00; leave out to refund all that is left.
    """
    payment = load_payment(db, payment_id)
    cur = load_currency(db, payment.currency)
    text = check_length(reason.strip(), "reason", 3, 200, ", e.g. 'Item returned'")
    if payment.status == "disputed":
        dispute = _open_dispute(db, payment)
        which = f" ({dispute.id}, {dispute.status})" if dispute else ""
        raise ToolError(
            f"Payment {payment.id} is disputed{which}; a disputed payment cannot be refunded, the dispute decides "
            "what is returned. Nothing was refunded."
        )
    if payment.status == "authorized":
        raise ToolError(
            f"Payment {payment.id} is only authorized, not captured, so there is nothing to refund yet; "
            "capture it first (capture_payment)."
        )
    left = refundable_minor(payment)
    if payment.status == "refunded" or left <= 0:
        raise ToolError(
            f"Payment {payment.id} is already fully refunded ({fmt(payment.refunded_minor, cur)}); nothing is left "
            "to refund."
        )
    minor = left if amount is None else to_minor(amount, cur, load_currency(db, "USD"))
    if minor > left:
        raise ToolError(
            f"Cannot refund {fmt(minor, cur)} on payment {payment.id}: captured {fmt(payment.captured_minor, cur)}, "
            f"already refunded {fmt(payment.refunded_minor, cur)}, so at most {fmt(left, cur)} is refundable."
        )
    refund = Refund(
        id=next_id(db, Refund.id, "RFD"),
        payment_id=payment.id,
        amount_minor=minor,
        reason=text,
        refunded_on=kit.today,
    )
    db.add(refund)
    payment.refunded_minor += minor
    payment.status = "refunded" if payment.refunded_minor == payment.captured_minor else "partially_refunded"
    db.flush()
    return {
        "refund_id": refund.id,
        "payment_id": payment.id,
        "amount": major(minor, cur),
        "currency": cur.code,
        "payment_status": payment.status,
        "refunded_total": major(payment.refunded_minor, cur),
        "refundable_amount": major(refundable_minor(payment), cur),
    }


@kit.tool(
    write=True,
    intent="Open a dispute on payment {payment_id} for the reason {reason}[ with the details '{details}']",
    confirm="always",
    samples={
        "reason": DISPUTE_REASONS,
        "details": (
            "I never received the order",
            "Charged twice this month",
            "I do not recognise this charge",
            "The item arrived broken",
        ),
    },
)
def open_dispute(db: Session, payment_id: str, reason: str, details: str | None = None) -> dict[str, Any]:
    """Open a dispute (chargeback) on a captured payment. Irreversible: it cannot be withdrawn.

    Only a captured or partially refunded payment can be disputed, within the dispute window
    (60 days from capture; get_payment shows dispute_window_ends), and only once. The disputed
    amount is what was captured and not refunded; the payment becomes "disputed" and can no
    longer be refunded.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        payment_id: Payment id, e.g. "PAY-1001".
        reason: One of fraudulent, duplicate, product_not_received, product_unacceptable,
            subscription_canceled or general, e.g. "product_not_received".
        details: What happened, up to 300 characters, e.g. "I never received the order".
    """
    payment = load_payment(db, payment_id)
    cur = load_currency(db, payment.currency)
    code = reason.strip().lower()
    if code not in DISPUTE_REASONS:
        raise ToolError(f"reason must be one of {', '.join(DISPUTE_REASONS)}; got {reason!r}")
    note = (details or "").strip()
    if len(note) > 300:
        raise ToolError("details must be at most 300 characters")
    if payment.status == "disputed":
        dispute = _open_dispute(db, payment)
        which = f" ({dispute.id}, {dispute.status})" if dispute else ""
        raise ToolError(f"Payment {payment.id} already has a dispute{which}; a payment can be disputed only once.")
    if payment.status == "authorized":
        raise ToolError(
            f"Payment {payment.id} is only authorized, not captured; no money was taken, so there is nothing to "
            "dispute."
        )
    if payment.status == "refunded":
        raise ToolError(
            f"Payment {payment.id} is fully refunded ({fmt(payment.refunded_minor, cur)}); there is nothing left to "
            "dispute."
        )
    end = dispute_window_end(payment)
    if end is None or kit.today > end:
        raise ToolError(
            f"The dispute window of payment {payment.id} closed on {end} ({DISPUTE_WINDOW_DAYS} days after its "
            f"capture on {payment.captured_on}); today is {kit.today}, so a dispute can no longer be opened."
        )
    dispute = Dispute(
        id=next_id(db, Dispute.id, "DSP"),
        payment_id=payment.id,
        reason=code,
        amount_minor=refundable_minor(payment),
        status="open",
        opened_on=kit.today,
        details=note,
    )
    db.add(dispute)
    payment.status = "disputed"
    db.flush()
    return {**dispute_view(dispute, cur), "payment_status": payment.status}
