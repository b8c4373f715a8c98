"""Data model of the budget server: accounts, categories, monthly budgets, transactions, goals, bills.

Money is stored in integer cents. A transaction's amount is positive; its category's kind says
whether it is money out (``expense``) or in (``income``). A credit account's balance is negative
when money is owed on it. Ids are stable, human-readable strings (``ACC-1001``, ``CAT-1001``,
``BUD-1001``, ``TXN-1001``, ``GOL-1001``, ``CON-1001``, ``BIL-1001``, ``TRF-1001``); new ones take
the next number after the largest in the table, so replaying the same calls yields the same ids.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Boolean, Date, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from gym_mcp.servers.kit import string_id, volatile_timestamp

__all__ = [
    "ACCOUNT_TYPES",
    "FREQUENCIES",
    "POLICIES",
    "TODAY",
    "Account",
    "Base",
    "Bill",
    "Budget",
    "Category",
    "Contribution",
    "Goal",
    "Transaction",
    "Transfer",
]

TODAY = date(2026, 1, 15)
"""The server's fixed reference date (the kit's ``today``)."""

ACCOUNT_TYPES = ("checking", "savings", "credit")
POLICIES = ("flag", "block")
"""What a budget does with a transaction that would take its category over the limit."""
FREQUENCIES = {"monthly": 1, "quarterly": 3, "yearly": 12}
"""How often a bill recurs, in months."""


class Base(DeclarativeBase):
    """Declarative base of the budget tables."""


class Account(Base):
    """A bank account or credit card of the household."""

    __tablename__ = "accounts"

    id: Mapped[str] = string_id()
    name: Mapped[str] = mapped_column(String(60))
    type: Mapped[str] = mapped_column(String(10))
    institution: Mapped[str] = mapped_column(String(60))
    balance_cents: Mapped[int] = mapped_column(Integer)
    credit_limit_cents: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)


class Category(Base):
    """A spending (``expense``) or earning (``income``) category."""

    __tablename__ = "categories"

    id: Mapped[str] = string_id()
    name: Mapped[str] = mapped_column(String(40), unique=True)
    kind: Mapped[str] = mapped_column(String(8))


class Budget(Base):
    """The spending limit of one expense category in one month, and what happens over it."""

    __tablename__ = "budgets"
    __table_args__ = (UniqueConstraint("category_id", "month"),)

    id: Mapped[str] = string_id()
    category_id: Mapped[str] = mapped_column(ForeignKey("categories.id"), index=True)
    month: Mapped[str] = mapped_column(String(7))
    """``YYYY-MM``."""
    limit_cents: Mapped[int] = mapped_column(Integer)
    policy: Mapped[str] = mapped_column(String(8))


class Transaction(Base):
    """Money in or out of an account in a category; flagged when it went over a flag-policy budget."""

    __tablename__ = "transactions"

    id: Mapped[str] = string_id()
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"), index=True)
    category_id: Mapped[str] = mapped_column(ForeignKey("categories.id"), index=True)
    posted_on: Mapped[date] = mapped_column(Date)
    amount_cents: Mapped[int] = mapped_column(Integer)
    payee: Mapped[str] = mapped_column(String(80))
    flagged: Mapped[bool] = mapped_column(Boolean, default=False)
    bill_id: Mapped[str | None] = mapped_column(ForeignKey("bills.id"), nullable=True, default=None)
    created_at: Mapped[datetime] = volatile_timestamp()


class Goal(Base):
    """Money set aside towards a target; completed once the target is reached."""

    __tablename__ = "goals"

    id: Mapped[str] = string_id()
    name: Mapped[str] = mapped_column(String(60))
    target_cents: Mapped[int] = mapped_column(Integer)
    saved_cents: Mapped[int] = mapped_column(Integer, default=0)
    target_date: Mapped[date] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(10))


class Contribution(Base):
    """Money moved from an account into a goal."""

    __tablename__ = "contributions"

    id: Mapped[str] = string_id()
    goal_id: Mapped[str] = mapped_column(ForeignKey("goals.id"), index=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"), index=True)
    amount_cents: Mapped[int] = mapped_column(Integer)
    made_on: Mapped[date] = mapped_column(Date)


class Bill(Base):
    """A recurring bill paid from an account in a category; next_due moves one period on when paid."""

    __tablename__ = "bills"

    id: Mapped[str] = string_id()
    name: Mapped[str] = mapped_column(String(60))
    payee: Mapped[str] = mapped_column(String(80))
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"), index=True)
    category_id: Mapped[str] = mapped_column(ForeignKey("categories.id"), index=True)
    amount_cents: Mapped[int] = mapped_column(Integer)
    frequency: Mapped[str] = mapped_column(String(10))
    day_of_month: Mapped[int] = mapped_column(Integer)
    next_due: Mapped[date] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(10))


class Transfer(Base):
    """Money moved between two of the household's accounts."""

    __tablename__ = "transfers"

    id: Mapped[str] = string_id()
    from_account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"), index=True)
    to_account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"), index=True)
    amount_cents: Mapped[int] = mapped_column(Integer)
    made_on: Mapped[date] = mapped_column(Date)
