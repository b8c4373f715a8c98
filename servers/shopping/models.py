"""SQLAlchemy models of the shopping server: catalog, customers, carts, coupons, orders, returns.

Money is stored as integer cents. Business dates (order placed/shipped/delivered, return
requests, coupon expiry) are plain dates relative to the kit's fixed ``today``; the only
wall-clock values are the ``created_at`` columns, which are marked volatile.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Boolean, Date, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, declared_attr, mapped_column, relationship

from gym_mcp.servers.kit import string_id, volatile_timestamp

ORDER_STATUSES = ("placed", "paid", "shipped", "delivered", "cancelled")
"""Every status an order can have, in lifecycle order (``cancelled`` ends it early)."""

RETURN_STATUSES = ("requested", "approved", "refunded", "rejected", "cancelled")
"""Every status a return can have."""


class Base(DeclarativeBase):
    """Declarative base of the shopping tables."""


class Category(Base):
    """A product category, e.g. "Electronics"."""

    __tablename__ = "categories"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(60), unique=True)


class Product(Base):
    """A catalog product with its current price and stock on hand."""

    __tablename__ = "products"

    id: Mapped[str] = string_id(12)
    name: Mapped[str] = mapped_column(String(120))
    brand: Mapped[str] = mapped_column(String(60))
    category_id: Mapped[int] = mapped_column(ForeignKey("categories.id"))
    description: Mapped[str] = mapped_column(String(300))
    price_cents: Mapped[int] = mapped_column(Integer)
    stock: Mapped[int] = mapped_column(Integer)
    rating: Mapped[int] = mapped_column(Integer)  # average rating x10, e.g. 43 for 4.3

    category: Mapped[Category] = relationship()


class Customer(Base):
    """A shopper with a default shipping address."""

    __tablename__ = "customers"

    id: Mapped[str] = string_id(12)
    name: Mapped[str] = mapped_column(String(100))
    email: Mapped[str] = mapped_column(String(120), unique=True)
    phone: Mapped[str] = mapped_column(String(20))
    address: Mapped[str] = mapped_column(String(200))
    member_since: Mapped[date] = mapped_column(Date)
    created_at: Mapped[datetime] = volatile_timestamp()


class Coupon(Base):
    """A discount code: either a percentage or a fixed amount off the cart subtotal."""

    __tablename__ = "coupons"

    code: Mapped[str] = mapped_column(String(30), primary_key=True)
    description: Mapped[str] = mapped_column(String(120))
    percent_off: Mapped[int | None] = mapped_column(Integer, nullable=True)
    amount_off_cents: Mapped[int | None] = mapped_column(Integer, nullable=True)
    min_subtotal_cents: Mapped[int] = mapped_column(Integer, default=0)
    expires_on: Mapped[date] = mapped_column(Date)
    active: Mapped[bool] = mapped_column(Boolean, default=True)


class _ProductLine:
    """What a cart line and an order line share: an integer id, which product and how many.

    The id comes first and the line's own columns between it and ``product_id``.
    """

    id: Mapped[int] = mapped_column(Integer, primary_key=True, sort_order=-1)
    product_id: Mapped[str] = mapped_column(ForeignKey("products.id"))
    quantity: Mapped[int] = mapped_column(Integer)

    @declared_attr
    def product(cls) -> Mapped[Product]:
        """The product of the line."""
        return relationship()


class Cart(Base):
    """A customer's shopping cart (one per customer) and the coupon applied to it."""

    __tablename__ = "carts"

    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), primary_key=True)
    coupon_code: Mapped[str | None] = mapped_column(ForeignKey("coupons.code"), nullable=True)

    items: Mapped[list[CartItem]] = relationship(order_by="CartItem.id", cascade="all, delete-orphan")


class CartItem(_ProductLine, Base):
    """One product line in a cart."""

    __tablename__ = "cart_items"
    __table_args__ = (UniqueConstraint("customer_id", "product_id"),)

    customer_id: Mapped[str] = mapped_column(ForeignKey("carts.customer_id"))


class Order(Base):
    """A placed order; amounts are frozen at checkout."""

    __tablename__ = "orders"

    id: Mapped[str] = string_id(12)
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"))
    status: Mapped[str] = mapped_column(String(12))
    shipping_address: Mapped[str] = mapped_column(String(200))
    coupon_code: Mapped[str | None] = mapped_column(String(30), nullable=True)
    subtotal_cents: Mapped[int] = mapped_column(Integer)
    discount_cents: Mapped[int] = mapped_column(Integer, default=0)
    total_cents: Mapped[int] = mapped_column(Integer)
    placed_on: Mapped[date] = mapped_column(Date)
    shipped_on: Mapped[date | None] = mapped_column(Date, nullable=True)
    delivered_on: Mapped[date | None] = mapped_column(Date, nullable=True)
    cancelled_on: Mapped[date | None] = mapped_column(Date, nullable=True)
    created_at: Mapped[datetime] = volatile_timestamp()

    items: Mapped[list[OrderItem]] = relationship(order_by="OrderItem.id", cascade="all, delete-orphan")
    returns: Mapped[list[Return]] = relationship(order_by="Return.id", back_populates="order")


class OrderItem(_ProductLine, Base):
    """One product line of an order, at the unit price paid."""

    __tablename__ = "order_items"

    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"))
    unit_price_cents: Mapped[int] = mapped_column(Integer, sort_order=1)  # after the line's columns


class Return(Base):
    """A return request for some units of one product of a delivered order."""

    __tablename__ = "returns"

    id: Mapped[str] = string_id(12)
    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"))
    product_id: Mapped[str] = mapped_column(ForeignKey("products.id"))
    quantity: Mapped[int] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(12))
    refund_cents: Mapped[int] = mapped_column(Integer)
    requested_on: Mapped[date] = mapped_column(Date)
    created_at: Mapped[datetime] = volatile_timestamp()

    order: Mapped[Order] = relationship(back_populates="returns")
    product: Mapped[Product] = relationship()


def coupon_discount_cents(coupon: Coupon, subtotal_cents: int) -> int:
    """Discount a coupon gives on a subtotal, in cents (never more than the subtotal).

    Args:
        coupon: The coupon applied.
        subtotal_cents: The cart or order subtotal in cents.

    Returns:
        The discount in cents, rounded half up for percentages.
    """
    if coupon.percent_off is not None:
        discount = (subtotal_cents * coupon.percent_off + 50) // 100
    else:
        discount = coupon.amount_off_cents or 0
    return max(0, min(discount, subtotal_cents))


def refund_cents(unit_price_cents: int, quantity: int, order: Order) -> int:
    """Refund for returned units: their price less their share of the order's discount.

    Args:
        unit_price_cents: Unit price paid, in cents.
        quantity: Units returned.
        order: The order they belong to (for its subtotal and discount).

    Returns:
        The refund in cents.
    """
    gross = unit_price_cents * quantity
    if not order.discount_cents or not order.subtotal_cents:
        return gross
    share = (gross * order.discount_cents + order.subtotal_cents // 2) // order.subtotal_cents
    return gross - share
