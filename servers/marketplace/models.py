"""Data model of the marketplace server: sellers, buyers, listings, offers, orders, escrow, ratings.

Money is stored in integer cents. Ids are stable, human-readable strings (``SEL-1001``,
``BUY-1001``, ``LST-1001``, ``OFR-1001``, ``ORD-1001``, ``ESC-1001``, ``RAT-1001``); new ones take
the next number after the largest in the table, so replaying the same calls yields the same ids.
A buyer pays into escrow when an order is made; the escrow is released to the seller's balance
when the buyer confirms delivery, or refunded to the buyer when the order is cancelled.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Date, ForeignKey, Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from gym_mcp.servers.kit import string_id, volatile_timestamp

__all__ = [
    "CATEGORIES",
    "CONDITIONS",
    "ESCROW_STATUSES",
    "LISTING_STATUSES",
    "OFFER_STATUSES",
    "ORDER_STATUSES",
    "SELLER_STATUSES",
    "TODAY",
    "Base",
    "Buyer",
    "Escrow",
    "Listing",
    "Offer",
    "Order",
    "Rating",
    "Seller",
]

TODAY = date(2026, 1, 15)
"""The server's fixed reference date (the kit's ``today``)."""

CATEGORIES = ("electronics", "furniture", "books", "clothing", "sports", "toys", "home", "music")
CONDITIONS = ("new", "like_new", "good", "fair")
SELLER_STATUSES = ("active", "suspended")
LISTING_STATUSES = ("active", "sold", "withdrawn")
OFFER_STATUSES = ("pending", "accepted", "declined")
ORDER_STATUSES = ("paid", "shipped", "completed", "cancelled")
ESCROW_STATUSES = ("held", "released", "refunded")


class Base(DeclarativeBase):
    """Declarative base of the marketplace tables."""


class _Record:
    """What most marketplace rows have: a string id (first) and a volatile creation time (last)."""

    id: Mapped[str] = string_id(sort_order=-1)
    created_at: Mapped[datetime] = volatile_timestamp()


class Seller(_Record, Base):
    """A shop that lists items; released escrow lands in its balance. A suspended shop cannot list."""

    __tablename__ = "sellers"

    shop_name: Mapped[str] = mapped_column(String(80))
    contact_name: Mapped[str] = mapped_column(String(80))
    email: Mapped[str] = mapped_column(String(120), unique=True)
    city: Mapped[str] = mapped_column(String(60))
    status: Mapped[str] = mapped_column(String(16))
    joined_on: Mapped[date] = mapped_column(Date)
    balance_cents: Mapped[int] = mapped_column(Integer, default=0)


class Buyer(_Record, Base):
    """A buyer with a prepaid balance that pays for orders; ``seller_id`` is their own shop, if any."""

    __tablename__ = "buyers"

    name: Mapped[str] = mapped_column(String(80))
    email: Mapped[str] = mapped_column(String(120), unique=True)
    city: Mapped[str] = mapped_column(String(60))
    joined_on: Mapped[date] = mapped_column(Date)
    balance_cents: Mapped[int] = mapped_column(Integer, default=0)
    seller_id: Mapped[str | None] = mapped_column(ForeignKey("sellers.id"), nullable=True, default=None)


class Listing(_Record, Base):
    """An item for sale at an asking price; offers below its floor price are refused."""

    __tablename__ = "listings"

    seller_id: Mapped[str] = mapped_column(ForeignKey("sellers.id"), index=True)
    title: Mapped[str] = mapped_column(String(80))
    category: Mapped[str] = mapped_column(String(20))
    condition: Mapped[str] = mapped_column(String(12))
    price_cents: Mapped[int] = mapped_column(Integer)
    floor_cents: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(12))
    listed_on: Mapped[date] = mapped_column(Date)


class Offer(_Record, Base):
    """A buyer's offer on a listing: pending until the seller accepts or declines it."""

    __tablename__ = "offers"

    listing_id: Mapped[str] = mapped_column(ForeignKey("listings.id"), index=True)
    buyer_id: Mapped[str] = mapped_column(ForeignKey("buyers.id"), index=True)
    amount_cents: Mapped[int] = mapped_column(Integer)
    message: Mapped[str] = mapped_column(String(200), default="")
    status: Mapped[str] = mapped_column(String(12))
    made_on: Mapped[date] = mapped_column(Date)
    decided_on: Mapped[date | None] = mapped_column(Date, nullable=True, default=None)


class Order(_Record, Base):
    """A sale of one listing to one buyer, paid into escrow: paid, shipped, completed or cancelled."""

    __tablename__ = "orders"

    listing_id: Mapped[str] = mapped_column(ForeignKey("listings.id"), index=True)
    buyer_id: Mapped[str] = mapped_column(ForeignKey("buyers.id"), index=True)
    seller_id: Mapped[str] = mapped_column(ForeignKey("sellers.id"), index=True)
    offer_id: Mapped[str | None] = mapped_column(ForeignKey("offers.id"), nullable=True, default=None)
    amount_cents: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(12))
    ordered_on: Mapped[date] = mapped_column(Date)
    shipped_on: Mapped[date | None] = mapped_column(Date, nullable=True, default=None)
    tracking_number: Mapped[str | None] = mapped_column(String(40), nullable=True, default=None)
    completed_on: Mapped[date | None] = mapped_column(Date, nullable=True, default=None)
    cancelled_on: Mapped[date | None] = mapped_column(Date, nullable=True, default=None)
    cancel_reason: Mapped[str | None] = mapped_column(String(200), nullable=True, default=None)


class Escrow(_Record, Base):
    """The payment of one order, held until delivery is confirmed (released) or the order is cancelled (refunded)."""

    __tablename__ = "escrows"

    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), unique=True)
    amount_cents: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(12))
    held_on: Mapped[date] = mapped_column(Date)
    settled_on: Mapped[date | None] = mapped_column(Date, nullable=True, default=None)


class Rating(_Record, Base):
    """A buyer's rating of a seller for one completed order (at most one per order)."""

    __tablename__ = "ratings"

    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), unique=True)
    seller_id: Mapped[str] = mapped_column(ForeignKey("sellers.id"), index=True)
    buyer_id: Mapped[str] = mapped_column(ForeignKey("buyers.id"), index=True)
    stars: Mapped[int] = mapped_column(Integer)
    comment: Mapped[str] = mapped_column(String(300), default="")
    rated_on: Mapped[date] = mapped_column(Date)
