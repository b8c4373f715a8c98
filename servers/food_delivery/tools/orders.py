"""Food delivery tools for orders: check out a cart, look orders up, track, cancel and rate them."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.food_delivery.models import ORDER_STATUSES, Order, OrderItem, Promotion, Rating, Restaurant
from gym_mcp.servers.food_delivery.tools.common import (
    address_of,
    cart_of,
    cart_subtotal,
    check_delivers,
    check_open,
    discount_cents,
    format_moment,
    kit,
    line_options,
    line_unit_cents,
    load_customer,
    load_order,
    minutes_until,
    now,
    order_view,
    promo_problem,
    timeline,
)
from gym_mcp.servers.kit import (
    ToolError,
    check_between,
    check_length,
    check_limit,
    check_status,
    dollars,
    format_dollars,
    next_id,
)


@kit.tool(
    write=True,
    intent="Place the order in the cart of customer {customer_id}[ for delivery to address {address_id}]",
)
def checkout(db: Session, customer_id: str, address_id: str | None = None) -> dict[str, Any]:
    """Place an order from a customer's cart and empty the cart. Returns the new order with its estimated delivery.

    Refused, changing nothing, when the cart is empty, an item became unavailable, the
    restaurant is closed now (the error gives its next opening), the address is beyond the
    restaurant's delivery radius (the error gives the distance and the radius), the subtotal is
    below the restaurant's minimum order, or the applied promotion no longer qualifies.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        customer_id: Customer id, e.g. "CUS-1001".
        address_id: One of the customer's addresses, e.g. "ADR-1001"; omit for their default address.
    """
    customer = load_customer(db, customer_id)
    cart = cart_of(db, customer)
    if cart is None or not cart.items or cart.restaurant_id is None:
        raise ToolError(f"{customer.id}'s cart is empty; add items with add_to_cart before checking out.")
    restaurant = db.get(Restaurant, cart.restaurant_id)
    assert restaurant is not None
    address = address_of(db, customer, address_id)
    gone = [f"{line.id} {line.item.name}" for line in cart.items if not line.item.available]
    if gone:
        raise ToolError(f"Unavailable now: {', '.join(gone)}. Remove them (remove_from_cart), then check out again.")
    check_open(restaurant)
    distance = check_delivers(restaurant, address)
    subtotal = cart_subtotal(db, cart)
    if subtotal < restaurant.min_order_cents:
        short = format_dollars(restaurant.min_order_cents - subtotal)
        raise ToolError(
            f"The cart's subtotal {format_dollars(subtotal)} is below {restaurant.name}'s minimum order of "
            f"{format_dollars(restaurant.min_order_cents)}; add {short} more (add_to_cart), then check out again."
        )
    discount = 0
    if cart.promo_code:
        promo = db.get(Promotion, cart.promo_code)
        assert promo is not None
        problem = promo_problem(db, promo, customer.id, restaurant.id, subtotal)
        if problem:
            raise ToolError(f"{problem} Fix the cart or remove the code (remove_promotion), then check out again.")
        discount = discount_cents(promo, subtotal)
    placed = now()
    travel = 5 + round(distance * 3)
    order = Order(
        id=next_id(db, Order.id, "ORD"),
        customer_id=customer.id,
        restaurant_id=restaurant.id,
        address_id=address.id,
        status="placed",
        promo_code=cart.promo_code,
        subtotal_cents=subtotal,
        discount_cents=discount,
        delivery_fee_cents=restaurant.delivery_fee_cents,
        total_cents=subtotal - discount + restaurant.delivery_fee_cents,
        distance_km=distance,
        placed_at=placed,
        estimated_delivery_at=placed + timedelta(minutes=restaurant.prep_minutes + 5 + travel),
        restaurant=restaurant,
    )
    for line in cart.items:
        order.items.append(
            OrderItem(
                item_id=line.item_id,
                name=line.item.name,
                options=", ".join(o.name for o in line_options(db, line)),
                quantity=line.quantity,
                unit_price_cents=line_unit_cents(db, line),
            )
        )
    db.add(order)
    cart.items.clear()
    cart.restaurant_id = None
    cart.promo_code = None
    db.flush()
    out = order_view(order)
    out["distance_km"] = distance
    out["estimated_delivery_at"] = order.estimated_delivery_at.isoformat(timespec="minutes")
    return out


@kit.tool(write=False, intent="Show order {order_id}")
def get_order(db: Session, order_id: str) -> dict[str, Any]:
    """Show an order: restaurant, address, items with options and prices, promotion, fees, total and status.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        order_id: Order id, e.g. "ORD-1001".
    """
    order = load_order(db, order_id)
    out = order_view(order)
    rating = db.scalar(select(Rating).where(Rating.order_id == order.id))
    if rating is not None:
        out["rating"] = {"rating_id": rating.id, "stars": rating.stars, "comment": rating.comment}
    return out


@kit.tool(
    write=False,
    intent="List the orders of customer {customer_id}[ with status {status}]",
    samples={"status": ("delivered", "placed", "preparing", "cancelled")},
)
def list_orders(db: Session, customer_id: str, status: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
    """List a customer's orders, newest first, without their items (get_order shows those).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        customer_id: Customer id, e.g. "CUS-1001".
        status: Optional status to keep: placed, accepted, preparing, picked_up, delivered or cancelled.
        limit: Most orders, 1 to 100, e.g. 20.
    """
    customer = load_customer(db, customer_id)
    check_limit(limit)
    stmt = select(Order).where(Order.customer_id == customer.id)
    if status is not None:
        wanted = status.strip().lower()
        if wanted not in ORDER_STATUSES:
            raise ToolError(f"status must be one of {', '.join(ORDER_STATUSES)}; got {status!r}.")
        stmt = stmt.where(Order.status == wanted)
    rows = db.scalars(stmt.order_by(Order.placed_at.desc(), Order.id.desc()).limit(limit))
    return [order_view(o, lines=False) for o in rows]


@kit.tool(write=False, intent="Track order {order_id}")
def track_order(db: Session, order_id: str) -> dict[str, Any]:
    """Track an order: its status timeline, the courier once picked up, and the estimated delivery time.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        order_id: Order id, e.g. "ORD-1001".
    """
    order = load_order(db, order_id)
    out: dict[str, Any] = {
        "order_id": order.id,
        "status": order.status,
        "restaurant_name": order.restaurant.name,
        "timeline": timeline(order),
    }
    if order.courier is not None:
        out["courier"] = {
            "courier_id": order.courier.id,
            "name": order.courier.name,
            "phone": order.courier.phone,
            "vehicle": order.courier.vehicle,
        }
    if order.status in ("placed", "accepted", "preparing", "picked_up"):
        out["estimated_delivery_at"] = order.estimated_delivery_at.isoformat(timespec="minutes")
        out["minutes_away"] = minutes_until(order.estimated_delivery_at)
    return out


@kit.tool(
    write=True,
    intent="Cancel order {order_id}[ because '{reason}']",
    samples={"reason": ("Ordered by mistake", "Taking too long", "Changed plans", "Wrong address")},
    confirm="always",
)
def cancel_order(db: Session, order_id: str, reason: str | None = None) -> dict[str, Any]:
    """Cancel an order that has not been picked up yet (placed, accepted or preparing); the total is refunded.

    Once a courier has picked the order up it can no longer be cancelled.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        order_id: Order id, e.g. "ORD-1001".
        reason: Optional reason, 3 to 200 characters, e.g. "Ordered by mistake".
    """
    order = load_order(db, order_id)
    text = check_length(reason.strip(), "reason", 3, 200, ", e.g. 'Ordered by mistake'") if reason else None
    courier = order.courier.name if order.courier else "a courier"
    picked = format_moment(order.picked_up_at) if order.picked_up_at else "earlier"
    check_status(
        order,
        {
            "picked_up": (
                f"Order {order.id} was picked up by {courier} at {picked} and is on its way; an order cannot be "
                "cancelled once picked up. Use track_order to follow it."
            ),
            "delivered": f"Order {order.id} was already delivered; a delivered order cannot be cancelled.",
            "cancelled": f"Order {order.id} is already cancelled; nothing changed.",
        },
    )
    order.status = "cancelled"
    order.cancelled_at = now()
    order.cancel_reason = text
    return {
        "order_id": order.id,
        "status": order.status,
        "cancelled_at": order.cancelled_at.isoformat(timespec="minutes"),
        "refund": dollars(order.total_cents),
        "cancel_reason": text,
    }


@kit.tool(
    write=True,
    intent="Rate order {order_id} {stars} stars[ with the comment '{comment}']",
    samples={
        "stars": (5, 4, 3, 2, 1),
        "comment": ("Delicious and hot", "Arrived late", "Great portions", "Missing an item", "Friendly courier"),
    },
)
def rate_order(db: Session, order_id: str, stars: int, comment: str | None = None) -> dict[str, Any]:
    """Rate a delivered order from 1 to 5 stars, with an optional comment. Each order can be rated once.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        order_id: Order id, e.g. "ORD-1001".
        stars: 1 (worst) to 5 (best), e.g. 4.
        comment: Optional comment, up to 300 characters, e.g. "Arrived hot".
    """
    order = load_order(db, order_id)
    check_between(stars, 1, 5, "stars")
    if order.status != "delivered":
        later = " Rate it once it is delivered (track_order)." if order.status != "cancelled" else ""
        raise ToolError(f"Order {order.id} is {order.status}; only delivered orders can be rated.{later}")
    existing = db.scalar(select(Rating).where(Rating.order_id == order.id))
    if existing is not None:
        raise ToolError(
            f"Order {order.id} was already rated ({existing.id}, {existing.stars} stars on "
            f"{existing.rated_on.isoformat()}); an order can be rated only once."
        )
    text = (comment or "").strip()
    check_length(text, "comment", 0, 300)
    rating = Rating(
        id=next_id(db, Rating.id, "RAT"),
        order_id=order.id,
        customer_id=order.customer_id,
        restaurant_id=order.restaurant_id,
        stars=stars,
        comment=text,
        rated_on=kit.today,
    )
    db.add(rating)
    db.flush()
    return {
        "rating_id": rating.id,
        "order_id": order.id,
        "restaurant_id": order.restaurant_id,
        "stars": stars,
        "comment": text,
    }
