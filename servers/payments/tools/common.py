"""What the payments tools share: the kit, id lookups, currencies and money, the payment rules, result shapes.

Amounts travel as numbers in the currency's major unit (12.5 EUR, 1200 JPY) and are stored in its
minor unit (cents; JPY has none). Conversions use the fixed rates of the ``currencies`` table,
rounded half up to the target currency's minor unit.
"""

from __future__ import annotations

import math
from datetime import date, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import Finder, ServerKit, ToolError, pick
from gym_mcp.servers.payments.data import seed
from gym_mcp.servers.payments.models import (
    CURRENCIES,
    DISPUTE_WINDOW_DAYS,
    TODAY,
    Base,
    Currency,
    Customer,
    Dispute,
    Payment,
    PaymentMethod,
    PaymentRequest,
    Refund,
    Wallet,
    convert_minor,
)

__all__ = [
    "AMOUNT_SAMPLES",
    "CURRENCY_SAMPLES",
    "MAX_USD_MINOR",
    "dispute_window_end",
    "expiry_text",
    "fmt",
    "is_expired",
    "kit",
    "load_currency",
    "load_customer",
    "load_method",
    "load_payment",
    "load_request",
    "load_wallet",
    "major",
    "method_label",
    "method_view",
    "payment_view",
    "refundable_minor",
    "request_view",
    "to_minor",
    "wallet_view",
    "wallets_hint",
]

CODES = ", ".join(c.code for c in CURRENCIES)

INSTRUCTIONS = f"""\
Back office of Meridian Pay, a multi-currency payment service. Customers ("CUS-1001") hold
wallets ("WAL-1001", one balance per currency) and payment methods ("PM-1001": cards, which can
expire, and bank accounts). A payment ("PAY-1001") is authorized on a payment method, then
captured; a captured payment can be refunded ("RFD-1001") up to what is left of it, or disputed
("DSP-1001") within {DISPUTE_WINDOW_DAYS} days of capture. Customers ask each other for money
with payment requests ("PRQ-1001"), paid once from a wallet of the payer. Find a customer with
find_customer, then list_wallets / list_payment_methods / list_payments / list_payment_requests
for the other ids. Currencies: {CODES}, at fixed rates (convert_currency quotes them). Amounts
are numbers in the currency's unit, e.g. 12.50 EUR or 1500 JPY (yen has no decimals). Today is
{TODAY.isoformat()}."""

AMOUNT_SAMPLES = (5, 10, 12.5, 20, 25, 40, 60, 75)
"""Amounts for task synthesis (the ``amount`` samples of the tools that move money)."""

CURRENCY_SAMPLES = ("USD", "EUR", "GBP", "JPY", "CAD", "AUD", "CHF")
"""Currency codes for task synthesis."""

MAX_USD_MINOR = 5_000_000
"""Largest amount of one operation, in US cents (USD 50,000.00 or its equivalent)."""

kit = ServerKit(
    "payments",
    base=Base,
    seed=seed,
    instructions=INSTRUCTIONS,
    today=TODAY,
    samples={"amount": AMOUNT_SAMPLES, "limit": (3, 5, 10, 20), "currency": CURRENCY_SAMPLES},
    inline=True,
)

# -- lookups ------------------------------------------------------------------------------------

_MISSING = "No {noun} with id {id!r}. {Noun} ids look like '{example}'; {hint}."
load_customer = Finder(
    Customer, "customer", "CUS-1001", "use find_customer with a name or email to look one up", message=_MISSING
)
load_wallet = Finder(
    Wallet, "wallet", "WAL-1001", "use list_wallets with the customer's id to see valid ones", message=_MISSING
)
load_method = Finder(
    PaymentMethod,
    "payment method",
    "PM-1001",
    "use list_payment_methods with the customer's id to see valid ones",
    message=_MISSING,
)
load_payment = Finder(
    Payment, "payment", "PAY-1001", "use list_payments with the customer's id to see valid ones", message=_MISSING
)
load_request = Finder(
    PaymentRequest,
    "payment request",
    "PRQ-1001",
    "use list_payment_requests with the customer's id to see valid ones",
    message=_MISSING,
)


def load_currency(db: Session, code: str, field: str = "currency") -> Currency:
    """A supported currency by its code, or a `ToolError` that lists the supported ones."""
    found = db.get(Currency, code.strip().upper()) if isinstance(code, str) else None
    if found is None:
        raise ToolError(f"{field} {code!r} is not supported; use a 3-letter code, one of {CODES}.")
    return found


# -- money --------------------------------------------------------------------------------------


def major(minor: int, currency: Currency) -> float | int:
    """A stored amount in the currency's major unit, for results (``1250`` EUR -> ``12.5``; JPY stays whole)."""
    if currency.minor_units == 0:
        return minor
    return round(minor / 10**currency.minor_units, currency.minor_units)


def fmt(minor: int, currency: Currency) -> str:
    """A stored amount as display text for messages, e.g. ``"EUR 1,234.50"`` or ``"JPY 1,200"``."""
    digits = currency.minor_units
    sign = "-" if minor < 0 else ""
    value = abs(minor) / 10**digits
    return f"{sign}{currency.code} {value:,.{digits}f}"


def to_minor(amount: float, currency: Currency, usd: Currency, field: str = "amount") -> int:
    """Validate a positive amount in a currency's major unit and convert it to its minor unit.

    Args:
        amount: The argument, e.g. ``12.5``.
        currency: The currency the amount is in.
        usd: The US dollar row (the per-operation maximum is set in dollars).
        field: The argument's name, for the message.

    Returns:
        The amount in the currency's minor unit, e.g. ``1250``.

    Raises:
        ToolError: Not a finite number above 0, more decimals than the currency has, or over
            the per-operation maximum.
    """
    if isinstance(amount, bool) or not math.isfinite(amount):
        raise ToolError(f"{field} must be a finite number, e.g. 25.50")
    try:
        exact = Decimal(str(amount))
    except InvalidOperation:
        raise ToolError(f"{field} must be a number, e.g. 25.50") from None
    if exact <= 0:
        raise ToolError(f"{field} must be greater than 0, got {amount}; pass a positive amount, e.g. 25.50")
    digits = currency.minor_units
    if exact >= Decimal(10) ** 15:  # over every currency's maximum; quantizing it fails past 28 digits
        limit = convert_minor(MAX_USD_MINOR, usd, currency)
        raise ToolError(
            f"{field} {amount:g} is over the maximum of {fmt(limit, currency)} ({fmt(MAX_USD_MINOR, usd)}) "
            "per operation"
        )
    if exact != exact.quantize(Decimal(1).scaleb(-digits)):
        if digits == 0:
            raise ToolError(
                f"{field} {amount} is not a whole number; {currency.code} has no minor unit, so amounts in it "
                f"are whole, e.g. 1500"
            )
        raise ToolError(
            f"{field} {amount} has more than {digits} decimals; round it to {currency.code} {exact:.{digits}f}"
        )
    minor = int(exact.scaleb(digits))
    limit = convert_minor(MAX_USD_MINOR, usd, currency)
    if minor > limit:
        raise ToolError(
            f"{field} {fmt(minor, currency)} is over the maximum of {fmt(limit, currency)} "
            f"({fmt(MAX_USD_MINOR, usd)}) per operation"
        )
    return minor


# -- rules --------------------------------------------------------------------------------------


def is_expired(method: PaymentMethod) -> bool:
    """Whether a card's expiry month ended before the kit's today (bank accounts never expire)."""
    end = method.last_valid_day
    return end is not None and end < kit.today


def expiry_text(method: PaymentMethod) -> str | None:
    """A card's expiry as ``"MM/YYYY"``; None for a bank account."""
    if method.exp_month is None or method.exp_year is None:
        return None
    return f"{method.exp_month:02d}/{method.exp_year}"


def method_label(method: PaymentMethod) -> str:
    """How a payment method reads in a message, e.g. ``"Visa card ending 4242"``."""
    kind = "card" if method.type == "card" else "bank account"
    return f"{method.brand} {kind} ending {method.last4}"


def refundable_minor(payment: Payment) -> int:
    """What can still be refunded on a payment: captured minus already refunded."""
    return payment.captured_minor - payment.refunded_minor


def dispute_window_end(payment: Payment) -> date | None:
    """The last day a dispute can be opened on a captured payment; None before capture."""
    if payment.captured_on is None:
        return None
    return payment.captured_on + timedelta(days=DISPUTE_WINDOW_DAYS)


def wallets_hint(db: Session, customer_id: str) -> str:
    """A customer's wallets for an error message, e.g. ``"WAL-1003 (USD 120.00), WAL-1004 (EUR 5.00)"``."""
    rows = db.scalars(select(Wallet).where(Wallet.customer_id == customer_id).order_by(Wallet.id))
    parts = []
    for wallet in rows:
        currency = db.get(Currency, wallet.currency)
        assert currency is not None
        parts.append(f"{wallet.id} ({fmt(wallet.balance_minor, currency)})")
    return ", ".join(parts) or "none"


# -- result shapes ------------------------------------------------------------------------------


def wallet_view(db: Session, wallet: Wallet) -> dict[str, Any]:
    """The fields of a wallet a model needs."""
    currency = db.get(Currency, wallet.currency)
    assert currency is not None
    return {
        "wallet_id": wallet.id,
        "customer_id": wallet.customer_id,
        "currency": wallet.currency,
        "balance": major(wallet.balance_minor, currency),
    }


def method_view(method: PaymentMethod) -> dict[str, Any]:
    """The fields of a payment method a model needs (``status`` is active or expired)."""
    out: dict[str, Any] = {"payment_method_id": method.id, **pick(method, "type", "brand", "last4")}
    expiry = expiry_text(method)
    if expiry is not None:
        out["expires"] = expiry
    out["status"] = "expired" if is_expired(method) else "active"
    return out


def payment_view(db: Session, payment: Payment, *, full: bool = False) -> dict[str, Any]:
    """The fields of a payment a model needs; ``full`` adds its refunds, dispute and windows."""
    currency = db.get(Currency, payment.currency)
    assert currency is not None
    out: dict[str, Any] = {
        "payment_id": payment.id,
        "customer_id": payment.customer_id,
        "payment_method_id": payment.payment_method_id,
        **pick(payment, "merchant", "description", "currency", "status"),
        "authorized_amount": major(payment.authorized_minor, currency),
        "captured_amount": major(payment.captured_minor, currency),
        "refunded_amount": major(payment.refunded_minor, currency),
        "authorized_on": payment.authorized_on.isoformat(),
        "captured_on": payment.captured_on.isoformat() if payment.captured_on else None,
    }
    if not full:
        return out
    refundable = refundable_minor(payment) if payment.status in ("captured", "partially_refunded") else 0
    out["refundable_amount"] = major(refundable, currency)
    end = dispute_window_end(payment)
    out["dispute_window_ends"] = end.isoformat() if end else None
    refunds = db.scalars(select(Refund).where(Refund.payment_id == payment.id).order_by(Refund.id))
    out["refunds"] = [
        {
            "refund_id": r.id,
            "amount": major(r.amount_minor, currency),
            "reason": r.reason,
            "refunded_on": r.refunded_on.isoformat(),
        }
        for r in refunds
    ]
    dispute = db.scalar(select(Dispute).where(Dispute.payment_id == payment.id).order_by(Dispute.id.desc()))
    out["dispute"] = dispute_view(dispute, currency) if dispute else None
    return out


def dispute_view(dispute: Dispute, currency: Currency) -> dict[str, Any]:
    """The fields of a dispute a model needs."""
    return {
        "dispute_id": dispute.id,
        "payment_id": dispute.payment_id,
        **pick(dispute, "reason", "status"),
        "amount": major(dispute.amount_minor, currency),
        "currency": currency.code,
        "opened_on": dispute.opened_on.isoformat(),
        "details": dispute.details,
    }


def request_view(db: Session, request: PaymentRequest) -> dict[str, Any]:
    """The fields of a payment request a model needs."""
    currency = db.get(Currency, request.currency)
    assert currency is not None
    out: dict[str, Any] = {
        "payment_request_id": request.id,
        **pick(request, "requester_id", "payer_id", "currency"),
        "amount": major(request.amount_minor, currency),
        **pick(request, "memo", "status"),
        "requested_on": request.requested_on.isoformat(),
        "expires_on": request.expires_on.isoformat(),
    }
    if request.resolved_on:
        out["resolved_on"] = request.resolved_on.isoformat()
    if request.paid_from_wallet_id:
        out["paid_from_wallet_id"] = request.paid_from_wallet_id
    if request.decline_reason:
        out["decline_reason"] = request.decline_reason
    return out
