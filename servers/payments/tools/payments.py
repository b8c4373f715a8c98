"""Payments tools for card and bank payments: list and read them, authorize a new one, capture it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_length, check_limit, check_status, next_id
from gym_mcp.servers.payments.models import PAYMENT_STATUSES, Payment, PaymentMethod
from gym_mcp.servers.payments.tools.common import (
    expiry_text,
    fmt,
    is_expired,
    kit,
    load_currency,
    load_customer,
    load_method,
    load_payment,
    method_label,
    payment_view,
    to_minor,
)


@kit.tool(
    write=False,
    intent="Show the[ {limit} most recent][ {status}] payments of customer {customer_id}",
    samples={"status": PAYMENT_STATUSES},
)
def list_payments(db: Session, customer_id: str, status: str | None = None, limit: int = 20) -> dict[str, Any]:
    """List a customer's payments, newest first, optionally only those in one status.

    Returns {customer_id, payments, more}; more is true when further matching payments exist
    beyond the limit. Use get_payment for refunds, the dispute and what is still refundable.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        customer_id: Customer id, e.g. "CUS-1001".
        status: Only this status: authorized, captured, partially_refunded, refunded or disputed.
        limit: Maximum number of payments to return, 1 to 100, e.g. 20.
    """
    check_limit(limit)
    customer = load_customer(db, customer_id)
    stmt = select(Payment).where(Payment.customer_id == customer.id)
    if status is not None:
        wanted = status.strip().lower()
        if wanted not in PAYMENT_STATUSES:
            raise ToolError(f"status must be one of {', '.join(PAYMENT_STATUSES)}; got {status!r}")
        stmt = stmt.where(Payment.status == wanted)
    rows = list(db.scalars(stmt.order_by(Payment.authorized_on.desc(), Payment.id.desc()).limit(limit + 1)))
    return {
        "customer_id": customer.id,
        "payments": [payment_view(db, p) for p in rows[:limit]],
        "more": len(rows) > limit,
    }


@kit.tool(write=False, intent="Show the details of payment {payment_id}")
def get_payment(db: Session, payment_id: str) -> dict[str, Any]:
    """Get one payment with its refunds, its dispute, the amount still refundable and the dispute window.

    refundable_amount is captured minus already refunded (0 unless the status is captured or
    partially_refunded); dispute_window_ends is the last day a dispute can be opened.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        payment_id: Payment id, e.g. "PAY-1001".
    """
    return payment_view(db, load_payment(db, payment_id), full=True)


@kit.tool(
    write=True,
    intent=("Authorize a payment of {amount} {currency} to {merchant} using {payment_method_id}[ for '{description}']"),
    samples={
        "merchant": ("Skyline Airways", "Harbor Hotels", "Northwind Electronics", "MegaMart", "Bookbarn", "QuickRide"),
        "description": ("Weekend trip", "Office supplies", "Birthday present", "Monthly plan", "Conference ticket"),
    },
)
def create_payment(
    db: Session,
    payment_method_id: str,
    amount: float,
    currency: str,
    merchant: str,
    description: str | None = None,
) -> dict[str, Any]:
    """Authorize a payment to a merchant on a customer's card or bank account (money is held, not yet taken).

    The payment starts as "authorized"; capture_payment then takes the money. An expired card
    cannot be charged: use another of the customer's methods (list_payment_methods).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        payment_method_id: The card or bank account to charge, e.g. "PM-1001".
        amount: Amount in the payment currency, e.g. 49.99 (whole numbers for JPY).
        currency: Currency code of the payment, e.g. "EUR".
        merchant: Who is paid, 2 to 80 characters, e.g. "Skyline Airways".
        description: What it is for, up to 200 characters, e.g. "Weekend trip".
    """
    method = load_method(db, payment_method_id)
    cur = load_currency(db, currency)
    minor = to_minor(amount, cur, load_currency(db, "USD"))
    name = check_length(merchant.strip(), "merchant", 2, 80, ", e.g. 'Skyline Airways'")
    text = (description or "").strip() or f"Payment to {name}"
    if len(text) > 200:
        raise ToolError("description must be at most 200 characters")
    if is_expired(method):
        usable = [
            m
            for m in db.scalars(
                select(PaymentMethod).where(PaymentMethod.customer_id == method.customer_id).order_by(PaymentMethod.id)
            )
            if not is_expired(m)
        ]
        others = (
            f"{method.customer_id}'s methods that can be charged: "
            + ", ".join(f"{m.id} ({method_label(m)})" for m in usable)
            + "."
            if usable
            else f"{method.customer_id} has no other method that can be charged; ask them to add a new card."
        )
        raise ToolError(
            f"Payment method {method.id} ({method_label(method)}) expired {expiry_text(method)} and cannot be "
            f"charged; nothing was authorized. {others}"
        )
    payment = Payment(
        id=next_id(db, Payment.id, "PAY"),
        customer_id=method.customer_id,
        payment_method_id=method.id,
        merchant=name,
        description=text,
        currency=cur.code,
        status="authorized",
        authorized_minor=minor,
        captured_minor=0,
        refunded_minor=0,
        authorized_on=kit.today,
    )
    db.add(payment)
    db.flush()
    return payment_view(db, payment)


@kit.tool(write=True, intent="Capture payment {payment_id}[ for {amount}]")
def capture_payment(db: Session, payment_id: str, amount: float | None = None) -> dict[str, Any]:
    """Capture an authorized payment: take the held money, all of it or less.

    Only a payment in status "authorized" can be captured, and for at most its authorized amount;
    leaving amount out captures the full authorized amount. A capture starts the dispute window.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        payment_id: Payment id, e.g. "PAY-1001".
        amount: Amount to capture in the payment's currency, at most the authorized amount, e.g. 40.00.
    """
    payment = load_payment(db, payment_id)
    cur = load_currency(db, payment.currency)
    done = f"it was captured on {payment.captured_on} for {fmt(payment.captured_minor, cur)}"
    only = "only an authorized payment can be captured"
    check_status(
        payment,
        {
            "captured": f"Payment {payment.id} is already captured ({done}); {only}.",
            "partially_refunded": f"Payment {payment.id} is partially refunded ({done}); {only}.",
            "refunded": f"Payment {payment.id} is refunded ({done}); {only}.",
            "disputed": f"Payment {payment.id} is disputed ({done}); {only}.",
        },
    )
    minor = payment.authorized_minor if amount is None else to_minor(amount, cur, load_currency(db, "USD"))
    if minor > payment.authorized_minor:
        raise ToolError(
            f"Cannot capture {fmt(minor, cur)} on payment {payment.id}: only {fmt(payment.authorized_minor, cur)} was "
            f"authorized. Capture at most {fmt(payment.authorized_minor, cur)}, or leave amount out to capture it all."
        )
    payment.captured_minor = minor
    payment.captured_on = kit.today
    payment.status = "captured"
    return payment_view(db, payment, full=True)
