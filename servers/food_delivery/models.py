"""Data model of the food delivery server: customers, restaurants, menus, carts, orders, couriers.

Money is stored as integer cents and distances as kilometres. Ids are stable, human-readable
strings (``CUS-1001`` customer, ``ADR-1001`` address, ``RST-1001`` restaurant, ``ITM-1001`` menu
item, ``OPG-1001`` option group, ``OPT-1001`` option, ``CRT-1001`` cart line, ``ORD-1001`` order,
``COU-1001`` courier, ``RAT-1001`` rating); promotions are keyed by their code (``WELCOME15``).
New ids take the next number after the largest in the table, so replaying the same calls yields
the same ids.

Business times (opening hours, order timestamps) are relative to the fixed clock `NOW`, a
Thursday lunchtime; the only wall-clock values are the volatile ``created_at`` columns.
"""

from __future__ import annotations

from datetime import date, datetime, time

from sqlalchemy import Boolean, Date, DateTime, Float, ForeignKey, Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from gym_mcp.servers.kit import string_id, volatile_timestamp

__all__ = [
    "ACTIVE_STATUSES",
    "CLOCK",
    "NOW",
    "ORDER_STATUSES",
    "TODAY",
    "WEEKDAYS",
    "Address",
    "Base",
    "Cart",
    "CartItem",
    "Courier",
    "Customer",
    "MenuItem",
    "OpeningHours",
    "Option",
    "OptionGroup",
    "Order",
    "OrderItem",
    "Promotion",
    "Rating",
    "Restaurant",
]

TODAY = date(2026, 1, 15)
"""The server's fixed reference date (the kit's ``today``), a Thursday."""

CLOCK = time(12, 30)
"""The fixed time of day of every "now" rule (opening hours, order timestamps)."""

NOW = datetime.combine(TODAY, CLOCK)
"""The fixed moment the server lives in: Thursday 2026-01-15 12:30."""

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
"""Weekday names by `date.weekday` number."""

ORDER_STATUSES = ("placed", "accepted", "preparing", "picked_up", "delivered", "cancelled")
"""Every status an order can have, in lifecycle order (``cancelled`` ends it early)."""

ACTIVE_STATUSES = ("placed", "accepted", "preparing", "picked_up")
"""Statuses of an order still on its way."""


class Base(DeclarativeBase):
    """Declarative base of the food delivery tables."""


class Customer(Base):
    """Someone who orders food."""

    __tablename__ = "customers"

    id: Mapped[str] = string_id()
    name: Mapped[str] = mapped_column(String(100))
    email: Mapped[str] = mapped_column(String(120), unique=True)
    phone: Mapped[str] = mapped_column(String(20))
    joined_on: Mapped[date] = mapped_column(Date)
    created_at: Mapped[datetime] = volatile_timestamp()


class Address(Base):
    """A delivery address of a customer, with its coordinates."""

    __tablename__ = "addresses"

    id: Mapped[str] = string_id()
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    label: Mapped[str] = mapped_column(String(40))
    street: Mapped[str] = mapped_column(String(120))
    latitude: Mapped[float] = mapped_column(Float)
    longitude: Mapped[float] = mapped_column(Float)
    is_default: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = volatile_timestamp()


class Restaurant(Base):
    """A restaurant that delivers within a radius of its location."""

    __tablename__ = "restaurants"

    id: Mapped[str] = string_id()
    name: Mapped[str] = mapped_column(String(80))
    cuisine: Mapped[str] = mapped_column(String(40))
    street: Mapped[str] = mapped_column(String(120))
    latitude: Mapped[float] = mapped_column(Float)
    longitude: Mapped[float] = mapped_column(Float)
    delivery_radius_km: Mapped[float] = mapped_column(Float)
    min_order_cents: Mapped[int] = mapped_column(Integer)
    delivery_fee_cents: Mapped[int] = mapped_column(Integer)
    prep_minutes: Mapped[int] = mapped_column(Integer)
    price_level: Mapped[int] = mapped_column(Integer)

    hours: Mapped[list[OpeningHours]] = relationship(order_by="(OpeningHours.weekday, OpeningHours.opens)")


class OpeningHours(Base):
    """One opening interval of a restaurant on a weekday (0 = Monday); ``closes`` past midnight wraps."""

    __tablename__ = "opening_hours"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    restaurant_id: Mapped[str] = mapped_column(ForeignKey("restaurants.id"), index=True)
    weekday: Mapped[int] = mapped_column(Integer)
    opens: Mapped[str] = mapped_column(String(5))
    closes: Mapped[str] = mapped_column(String(5))


class MenuItem(Base):
    """A dish or drink on a restaurant's menu."""

    __tablename__ = "items"

    id: Mapped[str] = string_id()
    restaurant_id: Mapped[str] = mapped_column(ForeignKey("restaurants.id"), index=True)
    name: Mapped[str] = mapped_column(String(80))
    category: Mapped[str] = mapped_column(String(40))
    description: Mapped[str] = mapped_column(String(200))
    price_cents: Mapped[int] = mapped_column(Integer)
    available: Mapped[bool] = mapped_column(Boolean, default=True)

    restaurant: Mapped[Restaurant] = relationship()
    groups: Mapped[list[OptionGroup]] = relationship(order_by="OptionGroup.id")


class OptionGroup(Base):
    """A choice on an item (size, toppings); a required group needs at least one option."""

    __tablename__ = "option_groups"

    id: Mapped[str] = string_id()
    item_id: Mapped[str] = mapped_column(ForeignKey("items.id"), index=True)
    name: Mapped[str] = mapped_column(String(40))
    required: Mapped[bool] = mapped_column(Boolean, default=False)
    max_choices: Mapped[int] = mapped_column(Integer, default=1)

    options: Mapped[list[Option]] = relationship(order_by="Option.id")


class Option(Base):
    """One option of a group, with the price it adds to the item (may be 0)."""

    __tablename__ = "options"

    id: Mapped[str] = string_id()
    group_id: Mapped[str] = mapped_column(ForeignKey("option_groups.id"), index=True)
    name: Mapped[str] = mapped_column(String(40))
    price_delta_cents: Mapped[int] = mapped_column(Integer, default=0)

    group: Mapped[OptionGroup] = relationship(back_populates="options")


class Cart(Base):
    """A customer's one cart: items of one restaurant at a time and an optional promotion code."""

    __tablename__ = "carts"

    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), primary_key=True)
    restaurant_id: Mapped[str | None] = mapped_column(ForeignKey("restaurants.id"), nullable=True, default=None)
    promo_code: Mapped[str | None] = mapped_column(ForeignKey("promotions.code"), nullable=True, default=None)

    items: Mapped[list[CartItem]] = relationship(order_by="CartItem.id", cascade="all, delete-orphan")


class CartItem(Base):
    """One line of a cart: an item, its chosen options (comma-separated ids) and a quantity."""

    __tablename__ = "cart_items"

    id: Mapped[str] = string_id()
    customer_id: Mapped[str] = mapped_column(ForeignKey("carts.customer_id"), index=True)
    item_id: Mapped[str] = mapped_column(ForeignKey("items.id"))
    option_ids: Mapped[str] = mapped_column(String(200), default="")
    quantity: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = volatile_timestamp()

    item: Mapped[MenuItem] = relationship()


class Courier(Base):
    """A courier, assigned to an order when it is picked up."""

    __tablename__ = "couriers"

    id: Mapped[str] = string_id()
    name: Mapped[str] = mapped_column(String(80))
    phone: Mapped[str] = mapped_column(String(20))
    vehicle: Mapped[str] = mapped_column(String(20))


class Promotion(Base):
    """A promotion code: a percentage (optionally capped) or a fixed amount off the subtotal."""

    __tablename__ = "promotions"

    code: Mapped[str] = mapped_column(String(30), primary_key=True)
    description: Mapped[str] = mapped_column(String(160))
    percent_off: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
    amount_off_cents: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
    max_discount_cents: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
    min_subtotal_cents: Mapped[int] = mapped_column(Integer, default=0)
    first_order_only: Mapped[bool] = mapped_column(Boolean, default=False)
    restaurant_id: Mapped[str | None] = mapped_column(ForeignKey("restaurants.id"), nullable=True, default=None)
    expires_on: Mapped[date] = mapped_column(Date)


class Order(Base):
    """A placed order, from a restaurant to one of the customer's addresses."""

    __tablename__ = "orders"

    id: Mapped[str] = string_id()
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    restaurant_id: Mapped[str] = mapped_column(ForeignKey("restaurants.id"), index=True)
    address_id: Mapped[str] = mapped_column(ForeignKey("addresses.id"))
    status: Mapped[str] = mapped_column(String(16))
    promo_code: Mapped[str | None] = mapped_column(String(30), nullable=True, default=None)
    subtotal_cents: Mapped[int] = mapped_column(Integer)
    discount_cents: Mapped[int] = mapped_column(Integer, default=0)
    delivery_fee_cents: Mapped[int] = mapped_column(Integer)
    total_cents: Mapped[int] = mapped_column(Integer)
    distance_km: Mapped[float] = mapped_column(Float)
    placed_at: Mapped[datetime] = mapped_column(DateTime)
    accepted_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True, default=None)
    preparing_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True, default=None)
    picked_up_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True, default=None)
    delivered_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True, default=None)
    cancelled_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True, default=None)
    cancel_reason: Mapped[str | None] = mapped_column(String(200), nullable=True, default=None)
    estimated_delivery_at: Mapped[datetime] = mapped_column(DateTime)
    courier_id: Mapped[str | None] = mapped_column(ForeignKey("couriers.id"), nullable=True, default=None)
    created_at: Mapped[datetime] = volatile_timestamp()

    restaurant: Mapped[Restaurant] = relationship()
    items: Mapped[list[OrderItem]] = relationship(order_by="OrderItem.id", cascade="all, delete-orphan")
    courier: Mapped[Courier | None] = relationship()


class OrderItem(Base):
    """One line of an order, priced at the time it was placed."""

    __tablename__ = "order_items"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), index=True)
    item_id: Mapped[str] = mapped_column(ForeignKey("items.id"))
    name: Mapped[str] = mapped_column(String(80))
    options: Mapped[str] = mapped_column(String(200), default="")
    quantity: Mapped[int] = mapped_column(Integer)
    unit_price_cents: Mapped[int] = mapped_column(Integer)


class Rating(Base):
    """A customer's rating of a delivered order (one per order)."""

    __tablename__ = "ratings"

    id: Mapped[str] = string_id()
    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), unique=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    restaurant_id: Mapped[str] = mapped_column(ForeignKey("restaurants.id"), index=True)
    stars: Mapped[int] = mapped_column(Integer)
    comment: Mapped[str] = mapped_column(String(300), default="")
    rated_on: Mapped[date] = mapped_column(Date)
    created_at: Mapped[datetime] = volatile_timestamp()
