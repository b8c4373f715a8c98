"""Data model of the banking server: customers, accounts, transactions, payees and cards.

Money is stored as integer cents. Ids are stable, human-readable strings (``CUS-1001``,
``ACC-1001``, ``PAY-1001``, ``CRD-1001``, ``TXN-10001``); new ones take the next number after
the largest in the table, so replaying the same calls yields the same ids.

A credit account's balance is negative while money is owed on it: a balance of -250.00 means
250.00 is owed, and the account can spend down to minus its credit limit.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Date, ForeignKey, Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from gym_mcp.servers.kit import string_id, volatile_timestamp

__all__ = [
    "ACCOUNT_STATUSES",
    "ACCOUNT_TYPES",
    "BANK_NAME",
    "CARD_STATUSES",
    "TODAY",
    "TRANSACTION_KINDS",
    "Account",
    "Base",
    "Card",
    "Customer",
    "Payee",
    "Transaction",
]

TODAY = date(2026, 1, 15)
"""The server's fixed reference date (the kit's ``today``)."""

BANK_NAME = "Harbor Trust Bank"
"""The bank this server runs; payees at this bank hold an ``ACC-`` account number."""

ACCOUNT_TYPES = ("checking", "savings", "credit")
ACCOUNT_STATUSES = ("active", "frozen", "closed")
CARD_STATUSES = ("active", "locked", "cancelled")
TRANSACTION_KINDS = (
    "deposit",
    "withdrawal",
    "transfer_in",
    "transfer_out",
    "payment",
    "purchase",
    "interest",
    "fee",
)


class Base(DeclarativeBase):
    """Declarative base of the banking tables."""


class _Record:
    """What every banking row but a customer has: a string id (first) and a volatile creation time (last)."""

    id: Mapped[str] = string_id(sort_order=-1)
    created_at: Mapped[datetime] = volatile_timestamp()


class Customer(Base):
    """A bank customer."""

    __tablename__ = "customers"

    id: Mapped[str] = string_id()
    first_name: Mapped[str] = mapped_column(String(60))
    last_name: Mapped[str] = mapped_column(String(60))
    email: Mapped[str] = mapped_column(String(120), unique=True)
    phone: Mapped[str] = mapped_column(String(20))
    city: Mapped[str] = mapped_column(String(60))
    customer_since: Mapped[date] = mapped_column(Date)

    @property
    def name(self) -> str:
        """Full name, e.g. ``"Ada Lovelace"``."""
        return f"{self.first_name} {self.last_name}"


class Account(_Record, Base):
    """A checking, savings or credit account."""

    __tablename__ = "accounts"

    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    type: Mapped[str] = mapped_column(String(16))
    nickname: Mapped[str] = mapped_column(String(60))
    status: Mapped[str] = mapped_column(String(16), default="active")
    balance_cents: Mapped[int] = mapped_column(Integer, default=0)
    credit_limit_cents: Mapped[int] = mapped_column(Integer, default=0)
    daily_withdrawal_limit_cents: Mapped[int] = mapped_column(Integer, default=0)
    opened_on: Mapped[date] = mapped_column(Date)
    closed_on: Mapped[date | None] = mapped_column(Date, nullable=True, default=None)
    freeze_reason: Mapped[str | None] = mapped_column(String(200), nullable=True, default=None)


class Transaction(_Record, Base):
    """One posted entry on an account; ``amount_cents`` is negative for money leaving it."""

    __tablename__ = "transactions"

    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    amount_cents: Mapped[int] = mapped_column(Integer)
    balance_after_cents: Mapped[int] = mapped_column(Integer)
    description: Mapped[str] = mapped_column(String(200))
    counterparty: Mapped[str | None] = mapped_column(String(32), nullable=True, default=None)
    posted_on: Mapped[date] = mapped_column(Date, index=True)


class Payee(_Record, Base):
    """Someone a customer can pay: an account at another bank, or at this bank (``ACC-`` number)."""

    __tablename__ = "payees"

    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    name: Mapped[str] = mapped_column(String(60))
    bank_name: Mapped[str] = mapped_column(String(60))
    account_number: Mapped[str] = mapped_column(String(32))


class Card(_Record, Base):
    """A debit card (on a checking account) or a credit card (on a credit account)."""

    __tablename__ = "cards"

    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"), index=True)
    type: Mapped[str] = mapped_column(String(16))
    last4: Mapped[str] = mapped_column(String(4))
    status: Mapped[str] = mapped_column(String(16), default="active")
    daily_limit_cents: Mapped[int] = mapped_column(Integer)
    issued_on: Mapped[date] = mapped_column(Date)
    expires: Mapped[str] = mapped_column(String(7))
    replaced_by: Mapped[str | None] = mapped_column(String(16), nullable=True, default=None)
