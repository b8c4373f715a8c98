"""Data model of the payments server: customers, wallets, payment methods, payments, refunds, disputes.

Money is stored as integers in the currency's minor unit (cents for USD, EUR, GBP...; JPY has
none, so a JPY amount is stored as whole yen). Currencies and their exchange rates are seeded
once and never change, so every conversion replays identically. Ids are stable, human-readable
strings (``CUS-1001``, ``WAL-1001``, ``PM-1001``, ``PAY-1001``, ``RFD-1001``, ``DSP-1001``,
``PRQ-1001``, ``TRF-1001``); new ones take the next number after the largest in the table, so
replaying the same calls yields the same ids.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal

from sqlalchemy import Date, ForeignKey, Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from gym_mcp.servers.kit import string_id, volatile_timestamp

__all__ = [
    "CURRENCIES",
    "DISPUTE_REASONS",
    "DISPUTE_WINDOW_DAYS",
    "PAYMENT_STATUSES",
    "REQUEST_STATUSES",
    "REQUEST_TTL_DAYS",
    "TODAY",
    "Base",
    "Currency",
    "CurrencyInfo",
    "Customer",
    "Dispute",
    "Payment",
    "PaymentMethod",
    "PaymentRequest",
    "Refund",
    "Transfer",
    "Wallet",
    "convert_minor",
    "quoted_rate",
]

TODAY = date(2026, 1, 15)
"""The server's fixed reference date (the kit's ``today``)."""

DISPUTE_WINDOW_DAYS = 60
"""A dispute can be opened up to this many days after the payment was captured."""

REQUEST_TTL_DAYS = 14
"""A payment request expires this many days after it was created."""

PAYMENT_STATUSES = ("authorized", "captured", "partially_refunded", "refunded", "disputed")
REQUEST_STATUSES = ("pending", "paid", "declined", "expired")
DISPUTE_REASONS = (
    "fraudulent",
    "duplicate",
    "product_not_received",
    "product_unacceptable",
    "subscription_canceled",
    "general",
)


@dataclass(frozen=True)
class CurrencyInfo:
    """A supported currency as seeded: code, name, symbol, minor unit digits and rate per US dollar."""

    code: str
    name: str
    symbol: str
    minor_units: int
    per_usd_micros: int


CURRENCIES = (
    CurrencyInfo("USD", "US Dollar", "$", 2, 1_000_000),
    CurrencyInfo("EUR", "Euro", "\u20ac", 2, 920_000),
    CurrencyInfo("GBP", "British Pound", "\u00a3", 2, 790_000),
    CurrencyInfo("JPY", "Japanese Yen", "\u00a5", 0, 148_500_000),
    CurrencyInfo("CAD", "Canadian Dollar", "C$", 2, 1_350_000),
    CurrencyInfo("AUD", "Australian Dollar", "A$", 2, 1_520_000),
    CurrencyInfo("CHF", "Swiss Franc", "CHF", 2, 880_000),
)
"""The fixed exchange rates every conversion uses (units of the currency one US dollar buys)."""


def quoted_rate(source: CurrencyInfo | Currency, target: CurrencyInfo | Currency) -> Decimal:
    """The rate from one currency to another, rounded to 6 decimals (what conversions multiply by).

    Args:
        source: The currency converted from.
        target: The currency converted to.

    Returns:
        Units of ``target`` per unit of ``source``, e.g. ``Decimal("0.858696")`` for EUR to GBP.
    """
    exact = Decimal(target.per_usd_micros) / Decimal(source.per_usd_micros)
    return exact.quantize(Decimal("0.000001"), rounding=ROUND_HALF_UP)


def convert_minor(amount_minor: int, source: CurrencyInfo | Currency, target: CurrencyInfo | Currency) -> int:
    """Convert an amount at the quoted rate, rounded half up to the target's minor unit.

    Args:
        amount_minor: The amount in the source currency's minor unit, e.g. ``1000`` (EUR 10.00).
        source: The currency converted from.
        target: The currency converted to.

    Returns:
        The amount in the target's minor unit, e.g. ``859`` (GBP 8.59); JPY has no minor unit.
    """
    if source.code == target.code:
        return amount_minor
    major = Decimal(amount_minor).scaleb(-source.minor_units)
    converted = (major * quoted_rate(source, target)).scaleb(target.minor_units)
    return int(converted.quantize(Decimal(1), rounding=ROUND_HALF_UP))


class Base(DeclarativeBase):
    """Declarative base of the payments tables."""


class _Record:
    """What most payments rows have: a string id (first) and a volatile creation time (last)."""

    id: Mapped[str] = string_id(sort_order=-1)
    created_at: Mapped[datetime] = volatile_timestamp()


class Currency(Base):
    """A supported currency and its fixed exchange rate against the US dollar."""

    __tablename__ = "currencies"

    code: Mapped[str] = mapped_column(String(3), primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    symbol: Mapped[str] = mapped_column(String(4))
    minor_units: Mapped[int] = mapped_column(Integer)
    per_usd_micros: Mapped[int] = mapped_column(Integer)
    """Units of this currency one US dollar buys, times one million (EUR 0.92 -> 920000)."""


class Customer(Base):
    """A customer of the payment service."""

    __tablename__ = "customers"

    id: Mapped[str] = string_id()
    first_name: Mapped[str] = mapped_column(String(60))
    last_name: Mapped[str] = mapped_column(String(60))
    email: Mapped[str] = mapped_column(String(120), unique=True)
    country: Mapped[str] = mapped_column(String(2))
    home_currency: Mapped[str] = mapped_column(ForeignKey("currencies.code"))
    joined_on: Mapped[date] = mapped_column(Date)

    @property
    def name(self) -> str:
        """Full name, e.g. ``"Ada Lovelace"``."""
        return f"{self.first_name} {self.last_name}"


class Wallet(_Record, Base):
    """A stored-value balance of one customer in one currency (at most one per currency)."""

    __tablename__ = "wallets"

    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    currency: Mapped[str] = mapped_column(ForeignKey("currencies.code"))
    balance_minor: Mapped[int] = mapped_column(Integer, default=0)
    opened_on: Mapped[date] = mapped_column(Date)


class PaymentMethod(_Record, Base):
    """A card or a bank account a customer can be charged on; cards expire."""

    __tablename__ = "payment_methods"

    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    type: Mapped[str] = mapped_column(String(16))
    brand: Mapped[str] = mapped_column(String(40))
    last4: Mapped[str] = mapped_column(String(4))
    exp_month: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
    exp_year: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
    added_on: Mapped[date] = mapped_column(Date)

    @property
    def last_valid_day(self) -> date | None:
        """The last day a card can be charged (the end of its expiry month); None for a bank account."""
        if self.exp_month is None or self.exp_year is None:
            return None
        return date(self.exp_year + self.exp_month // 12, self.exp_month % 12 + 1, 1) - timedelta(days=1)


class Payment(_Record, Base):
    """A charge on a payment method: authorized first, then captured, maybe refunded or disputed."""

    __tablename__ = "payments"

    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    payment_method_id: Mapped[str] = mapped_column(ForeignKey("payment_methods.id"), index=True)
    merchant: Mapped[str] = mapped_column(String(80))
    description: Mapped[str] = mapped_column(String(200))
    currency: Mapped[str] = mapped_column(ForeignKey("currencies.code"))
    status: Mapped[str] = mapped_column(String(20))
    authorized_minor: Mapped[int] = mapped_column(Integer)
    captured_minor: Mapped[int] = mapped_column(Integer, default=0)
    refunded_minor: Mapped[int] = mapped_column(Integer, default=0)
    authorized_on: Mapped[date] = mapped_column(Date)
    captured_on: Mapped[date | None] = mapped_column(Date, nullable=True, default=None)


class Refund(_Record, Base):
    """Money given back on a captured payment (never more than was captured)."""

    __tablename__ = "refunds"

    payment_id: Mapped[str] = mapped_column(ForeignKey("payments.id"), index=True)
    amount_minor: Mapped[int] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(String(200))
    refunded_on: Mapped[date] = mapped_column(Date)


class Dispute(_Record, Base):
    """A chargeback the customer opened on a captured payment."""

    __tablename__ = "disputes"

    payment_id: Mapped[str] = mapped_column(ForeignKey("payments.id"), index=True)
    reason: Mapped[str] = mapped_column(String(40))
    amount_minor: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(20))
    opened_on: Mapped[date] = mapped_column(Date)
    details: Mapped[str] = mapped_column(String(300), default="")


class PaymentRequest(_Record, Base):
    """One customer asking another for money; paid at most once, from a wallet of the payer."""

    __tablename__ = "payment_requests"

    requester_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    payer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    currency: Mapped[str] = mapped_column(ForeignKey("currencies.code"))
    amount_minor: Mapped[int] = mapped_column(Integer)
    memo: Mapped[str] = mapped_column(String(120), default="")
    status: Mapped[str] = mapped_column(String(16))
    requested_on: Mapped[date] = mapped_column(Date)
    expires_on: Mapped[date] = mapped_column(Date)
    resolved_on: Mapped[date | None] = mapped_column(Date, nullable=True, default=None)
    paid_from_wallet_id: Mapped[str | None] = mapped_column(ForeignKey("wallets.id"), nullable=True, default=None)
    decline_reason: Mapped[str | None] = mapped_column(String(200), nullable=True, default=None)


class Transfer(_Record, Base):
    """Money moved between two wallets of one customer, converted at the fixed rates."""

    __tablename__ = "transfers"

    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    from_wallet_id: Mapped[str] = mapped_column(ForeignKey("wallets.id"), index=True)
    to_wallet_id: Mapped[str] = mapped_column(ForeignKey("wallets.id"), index=True)
    debited_minor: Mapped[int] = mapped_column(Integer)
    credited_minor: Mapped[int] = mapped_column(Integer)
    rate: Mapped[str] = mapped_column(String(24))
    transferred_on: Mapped[date] = mapped_column(Date)
