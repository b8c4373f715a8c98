"""Food delivery tools for promotion codes: list them, apply one to a cart, remove it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.food_delivery.models import Promotion
from gym_mcp.servers.food_delivery.tools.common import (
    cart_of,
    cart_subtotal,
    cart_view,
    kit,
    load_customer,
    load_restaurant,
    promo_problem,
    promotion_view,
)
from gym_mcp.servers.kit import ToolError


@kit.tool(write=False, intent="List the promotions on offer[ at restaurant {restaurant_id}]")
def list_promotions(
    db: Session, restaurant_id: str | None = None, include_expired: bool = False
) -> list[dict[str, Any]]:
    """List promotion codes and their conditions (minimum subtotal, first order only, restaurant, expiry).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        restaurant_id: Optional restaurant id, e.g. "RST-1001": keep the codes usable there
            (its own codes and those valid everywhere).
        include_expired: True to also list codes that have expired.
    """
    stmt = select(Promotion).order_by(Promotion.code)
    if restaurant_id is not None:
        restaurant = load_restaurant(db, restaurant_id)
        stmt = stmt.where(or_(Promotion.restaurant_id.is_(None), Promotion.restaurant_id == restaurant.id))
    if not include_expired:
        stmt = stmt.where(Promotion.expires_on >= kit.today)
    return [promotion_view(p) for p in db.scalars(stmt)]


@kit.tool(
    write=True,
    intent="Apply the promotion code {code} to the cart of customer {customer_id}",
    samples={"code": ("WELCOME15", "SAVE5", "BIGEATS", "LUNCH3", "WINTER10", "PIZZA25", "SUSHI20", "TACO4", "CURRY15")},
)
def apply_promotion(db: Session, customer_id: str, code: str) -> dict[str, Any]:
    """Apply a promotion code to a customer's cart (replacing one already applied). Returns the cart with the discount.

    The code must not be expired, and its conditions must hold: minimum subtotal, first order
    only, valid only at one restaurant. The error names the unmet condition. The discount is
    taken at checkout, where the conditions are checked again.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        customer_id: Customer id, e.g. "CUS-1001".
        code: Promotion code, e.g. "SAVE5" (case-insensitive).
    """
    customer = load_customer(db, customer_id)
    promo = db.get(Promotion, code.strip().upper())
    if promo is None:
        raise ToolError(f"Promotion code {code!r} does not exist; use list_promotions to see the codes on offer.")
    cart = cart_of(db, customer)
    if cart is None or not cart.items:
        raise ToolError(f"{customer.id}'s cart is empty; add items (add_to_cart) before applying a promotion.")
    if cart.promo_code == promo.code:
        raise ToolError(f"Promotion {promo.code} is already applied to {customer.id}'s cart; nothing changed.")
    problem = promo_problem(db, promo, customer.id, cart.restaurant_id, cart_subtotal(db, cart))
    if problem:
        raise ToolError(problem)
    cart.promo_code = promo.code
    db.flush()
    return cart_view(db, customer, cart)


@kit.tool(write=True, intent="Remove the promotion code from the cart of customer {customer_id}")
def remove_promotion(db: Session, customer_id: str) -> dict[str, Any]:
    """Remove the promotion code applied to a customer's cart. Returns the updated cart.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        customer_id: Customer id, e.g. "CUS-1001".
    """
    customer = load_customer(db, customer_id)
    cart = cart_of(db, customer)
    if cart is None or cart.promo_code is None:
        raise ToolError(f"{customer.id}'s cart has no promotion code applied; nothing to remove.")
    cart.promo_code = None
    db.flush()
    return cart_view(db, customer, cart)
