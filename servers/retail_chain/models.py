"""Data model of the retail chain server: stores, products, stock, transfers, price changes, members, sales.

Money is stored in integer cents. Prices are chain-wide and effective dated: a product's price on
a day is its latest price change effective on or before that day. Ids are stable, human-readable
strings (``STO-1001``, ``PRD-1001``, ``PRC-1001``, ``TRF-1001``, ``MEM-1001``, ``SAL-1001``); new ones
take the next number after the largest in the table, so replaying the same calls yields the same ids.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Boolean, Date, ForeignKey, Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from gym_mcp.servers.kit import string_id, volatile_timestamp

__all__ = [
    "CATEGORIES",
    "POINT_VALUE_CENTS",
    "STORE_STATUSES",
    "TODAY",
    "TRANSFER_STATUSES",
    "Base",
    "Member",
    "PriceChange",
    "Product",
    "Sale",
    "SaleItem",
    "StockLevel",
    "Store",
    "Transfer",
]

TODAY = date(2026, 1, 15)
"""The server's fixed reference date (the kit's ``today``)."""

POINT_VALUE_CENTS = 1
"""What one loyalty point is worth at the till: 100 points take $1.00 off."""

CATEGORIES = ("produce", "dairy", "bakery", "pantry", "beverages", "snacks", "frozen", "household")
STORE_STATUSES = ("open", "closed")
TRANSFER_STATUSES = ("in_transit", "received", "cancelled")


class Base(DeclarativeBase):
    """Declarative base of the retail chain tables."""


class _Record:
    """What most retail rows have: a string id (first) and a volatile creation time (last)."""

    id: Mapped[str] = string_id(sort_order=-1)
    created_at: Mapped[datetime] = volatile_timestamp()


class Store(_Record, Base):
    """A store of the chain; a closed store cannot sell, be restocked or receive transfers."""

    __tablename__ = "stores"

    name: Mapped[str] = mapped_column(String(80))
    city: Mapped[str] = mapped_column(String(60))
    status: Mapped[str] = mapped_column(String(10))
    opened_on: Mapped[date] = mapped_column(Date)
    closed_on: Mapped[date | None] = mapped_column(Date, nullable=True, default=None)


class Product(_Record, Base):
    """A product the chain sells; its price lives in `PriceChange` rows."""

    __tablename__ = "products"

    name: Mapped[str] = mapped_column(String(80))
    category: Mapped[str] = mapped_column(String(20))
    unit: Mapped[str] = mapped_column(String(20))


class StockLevel(Base):
    """Units of one product on hand in one store."""

    __tablename__ = "stock_levels"

    store_id: Mapped[str] = mapped_column(ForeignKey("stores.id"), primary_key=True)
    product_id: Mapped[str] = mapped_column(ForeignKey("products.id"), primary_key=True)
    quantity: Mapped[int] = mapped_column(Integer, default=0)


class PriceChange(_Record, Base):
    """A product's chain-wide price from ``effective_on`` until its next change (unless cancelled)."""

    __tablename__ = "price_changes"

    product_id: Mapped[str] = mapped_column(ForeignKey("products.id"), index=True)
    price_cents: Mapped[int] = mapped_column(Integer)
    effective_on: Mapped[date] = mapped_column(Date)
    reason: Mapped[str] = mapped_column(String(120), default="")
    cancelled: Mapped[bool] = mapped_column(Boolean, default=False)
    """A scheduled change cancelled before its day; it never takes effect."""


class Transfer(_Record, Base):
    """Stock sent from one store to another: in transit until received (or cancelled, back to the source)."""

    __tablename__ = "transfers"

    product_id: Mapped[str] = mapped_column(ForeignKey("products.id"), index=True)
    from_store_id: Mapped[str] = mapped_column(ForeignKey("stores.id"), index=True)
    to_store_id: Mapped[str] = mapped_column(ForeignKey("stores.id"), index=True)
    quantity: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(12))
    sent_on: Mapped[date] = mapped_column(Date)
    settled_on: Mapped[date | None] = mapped_column(Date, nullable=True, default=None)


class Member(_Record, Base):
    """A loyalty member: earns a point per whole dollar paid and redeems points at the till."""

    __tablename__ = "members"

    name: Mapped[str] = mapped_column(String(80))
    email: Mapped[str] = mapped_column(String(120), unique=True)
    home_store_id: Mapped[str] = mapped_column(ForeignKey("stores.id"))
    points: Mapped[int] = mapped_column(Integer, default=0)
    joined_on: Mapped[date] = mapped_column(Date)


class Sale(_Record, Base):
    """A till receipt of one store, maybe of a loyalty member who earned or redeemed points."""

    __tablename__ = "sales"

    store_id: Mapped[str] = mapped_column(ForeignKey("stores.id"), index=True)
    member_id: Mapped[str | None] = mapped_column(ForeignKey("members.id"), nullable=True, default=None, index=True)
    sold_on: Mapped[date] = mapped_column(Date)
    subtotal_cents: Mapped[int] = mapped_column(Integer)
    points_redeemed: Mapped[int] = mapped_column(Integer, default=0)
    total_cents: Mapped[int] = mapped_column(Integer)
    points_earned: Mapped[int] = mapped_column(Integer, default=0)


class SaleItem(Base):
    """One line of a sale, at the price in effect on the sale's day."""

    __tablename__ = "sale_items"

    sale_id: Mapped[str] = mapped_column(ForeignKey("sales.id"), primary_key=True)
    product_id: Mapped[str] = mapped_column(ForeignKey("products.id"), primary_key=True)
    quantity: Mapped[int] = mapped_column(Integer)
    unit_price_cents: Mapped[int] = mapped_column(Integer)
