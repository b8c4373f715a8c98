"""Marketplace tools for orders: buy at the asking price, ship, confirm delivery (releasing escrow), cancel, rate."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_between, check_length, check_limit, check_status, dollars, next_id
from gym_mcp.servers.marketplace.models import ORDER_STATUSES, Order, Rating
from gym_mcp.servers.marketplace.tools.common import (
    check_buyable,
    choice,
    escrow_of,
    kit,
    load_buyer,
    load_listing,
    load_order,
    load_seller,
    order_view,
    pay_into_escrow,
    seller_rating,
)


@kit.tool(write=True, intent="Have buyer {buyer_id} buy listing {listing_id} at the asking price", confirm="always")
def buy_now(db: Session, listing_id: str, buyer_id: str) -> dict[str, Any]:
    """Buy an active listing at its asking price: the buyer's balance pays into escrow. Irreversible.

    The buyer's balance must cover the price (add_funds tops it up); a seller cannot buy their
    own listing. The listing becomes sold and its pending offers are declined. Returns the order.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        listing_id: Listing id, e.g. "LST-1001".
        buyer_id: Buyer id, e.g. "BUY-1001".
    """
    listing = load_listing(db, listing_id)
    buyer = load_buyer(db, buyer_id)
    check_buyable(db, listing, buyer, "be bought")
    order = pay_into_escrow(db, listing, buyer, listing.price_cents, None)
    return {**order_view(db, order), "buyer_balance": dollars(buyer.balance_cents)}


@kit.tool(
    write=False,
    intent="List the[ {status}] orders[ of buyer {buyer_id}][ of seller {seller_id}]",
    samples={"status": ORDER_STATUSES},
)
def list_orders(
    db: Session,
    buyer_id: str | None = None,
    seller_id: str | None = None,
    status: str | None = None,
    limit: int = 20,
) -> list[dict[str, Any]]:
    """List orders, newest first, of a buyer, of a seller, or of everyone, optionally in one status.

    Statuses: paid (escrow held, to ship), shipped (escrow held), completed (escrow released to
    the seller) and cancelled (escrow refunded to the buyer).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        buyer_id: Only this buyer's orders, e.g. "BUY-1001".
        seller_id: Only this seller's orders, e.g. "SEL-1001".
        status: Only this status: paid, shipped, completed or cancelled, e.g. "shipped".
        limit: Maximum number of orders to return, 1 to 100, e.g. 20.
    """
    check_limit(limit)
    stmt = select(Order)
    if buyer_id is not None:
        stmt = stmt.where(Order.buyer_id == load_buyer(db, buyer_id).id)
    if seller_id is not None:
        stmt = stmt.where(Order.seller_id == load_seller(db, seller_id).id)
    if status is not None:
        stmt = stmt.where(Order.status == choice(status, ORDER_STATUSES, "status"))
    rows = db.scalars(stmt.order_by(Order.ordered_on.desc(), Order.id.desc()).limit(limit))
    return [order_view(db, o) for o in rows]


@kit.tool(write=False, intent="Show the details of order {order_id}")
def get_order(db: Session, order_id: str) -> dict[str, Any]:
    """Get one order with its escrow (held, released or refunded), its tracking number and its rating.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        order_id: Order id, e.g. "ORD-1001".
    """
    order = load_order(db, order_id)
    listing = load_listing(db, order.listing_id)
    return {**order_view(db, order), "title": listing.title}


@kit.tool(
    write=True,
    intent="Mark order {order_id} as shipped with tracking number {tracking_number}",
    samples={"tracking_number": ("1Z999AA10123456784", "9400111899223344556677", "TBA123456789000")},
)
def mark_shipped(db: Session, order_id: str, tracking_number: str) -> dict[str, Any]:
    """Record for the seller that a paid order was shipped; the escrow stays held until delivery is confirmed.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        order_id: Order id, e.g. "ORD-1001".
        tracking_number: The carrier's tracking number, 6 to 40 characters, e.g. "1Z999AA10123456784".
    """
    order = load_order(db, order_id)
    tracking = check_length(tracking_number.strip(), "tracking_number", 6, 40, ", e.g. '1Z999AA10123456784'")
    check_status(
        order,
        {
            "shipped": f"Order {order.id} was already shipped on {order.shipped_on} ({order.tracking_number}).",
            "completed": f"Order {order.id} is completed (delivered on {order.completed_on}); nothing to ship.",
            "cancelled": f"Order {order.id} was cancelled on {order.cancelled_on}; a cancelled order is not shipped.",
        },
    )
    order.status, order.shipped_on, order.tracking_number = "shipped", kit.today, tracking
    return order_view(db, order)


@kit.tool(write=True, intent="Confirm that order {order_id} was delivered", confirm="always")
def confirm_delivery(db: Session, order_id: str) -> dict[str, Any]:
    """Confirm for the buyer that a shipped order arrived: the escrow is released to the seller. Irreversible.

    Only a shipped order can be confirmed (a paid one is not shipped yet: mark_shipped first).
    The order becomes completed and the buyer can then rate it (rate_order).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        order_id: Order id, e.g. "ORD-1001".
    """
    order = load_order(db, order_id)
    check_status(
        order,
        {
            "paid": f"Order {order.id} is paid but not shipped yet; the seller must ship it first (mark_shipped), "
            "and the escrow stays held until then.",
            "completed": f"Order {order.id} was already confirmed delivered on {order.completed_on}; its escrow "
            "was released.",
            "cancelled": f"Order {order.id} was cancelled on {order.cancelled_on} and its escrow refunded; there "
            "is nothing to deliver.",
        },
    )
    escrow = escrow_of(db, order)
    seller = load_seller(db, order.seller_id)
    seller.balance_cents += escrow.amount_cents
    escrow.status, escrow.settled_on = "released", kit.today
    order.status, order.completed_on = "completed", kit.today
    return {**order_view(db, order), "seller_balance": dollars(seller.balance_cents)}


@kit.tool(
    write=True,
    intent="Cancel order {order_id} because '{reason}'",
    confirm="always",
    samples={"reason": ("Buyer changed their mind", "Item no longer available", "Duplicate order")},
)
def cancel_order(db: Session, order_id: str, reason: str) -> dict[str, Any]:
    """Cancel a paid order before it ships: the escrow is refunded to the buyer and the listing goes back on sale.

    A shipped order can no longer be cancelled. Irreversible.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        order_id: Order id, e.g. "ORD-1001".
        reason: Why, 3 to 200 characters, e.g. "Buyer changed their mind".
    """
    order = load_order(db, order_id)
    text = check_length(reason.strip(), "reason", 3, 200, ", e.g. 'Buyer changed their mind'")
    check_status(
        order,
        {
            "shipped": f"Order {order.id} was shipped on {order.shipped_on} ({order.tracking_number}); a shipped "
            "order can no longer be cancelled.",
            "completed": f"Order {order.id} is completed and its escrow was released to the seller; it can no "
            "longer be cancelled.",
            "cancelled": f"Order {order.id} was already cancelled on {order.cancelled_on}.",
        },
    )
    escrow = escrow_of(db, order)
    buyer = load_buyer(db, order.buyer_id)
    buyer.balance_cents += escrow.amount_cents
    escrow.status, escrow.settled_on = "refunded", kit.today
    order.status, order.cancelled_on, order.cancel_reason = "cancelled", kit.today, text
    load_listing(db, order.listing_id).status = "active"
    return {**order_view(db, order), "buyer_balance": dollars(buyer.balance_cents)}


@kit.tool(
    write=True,
    intent="Rate order {order_id} {stars} stars[ with the comment '{comment}']",
    samples={"stars": (5, 4, 3, 2), "comment": ("Exactly as described.", "Well packed, fast shipping.", "Okay.")},
)
def rate_order(db: Session, order_id: str, stars: int, comment: str | None = None) -> dict[str, Any]:
    """Rate the seller of a completed order for the buyer, once per order.

    Only an order whose delivery was confirmed (status completed) can be rated, and only once.
    Returns the rating and the seller's new average.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        order_id: Order id, e.g. "ORD-1001".
        stars: 1 (worst) to 5 (best), e.g. 5.
        comment: What the buyer says, up to 300 characters, e.g. "Exactly as described."
    """
    order = load_order(db, order_id)
    check_between(stars, 1, 5, "stars")
    note = (comment or "").strip()
    if len(note) > 300:
        raise ToolError("comment must be at most 300 characters")
    if order.status != "completed":
        raise ToolError(
            f"Order {order.id} is {order.status}; only a completed order (delivery confirmed with "
            "confirm_delivery) can be rated."
        )
    existing = db.scalar(select(Rating).where(Rating.order_id == order.id))
    if existing is not None:
        raise ToolError(
            f"Order {order.id} was already rated ({existing.id}, {existing.stars} stars on {existing.rated_on}); "
            "an order can be rated only once."
        )
    rating = Rating(
        id=next_id(db, Rating.id, "RAT"),
        order_id=order.id,
        seller_id=order.seller_id,
        buyer_id=order.buyer_id,
        stars=stars,
        comment=note,
        rated_on=kit.today,
    )
    db.add(rating)
    db.flush()
    average, count = seller_rating(db, order.seller_id)
    return {
        "rating_id": rating.id,
        "order_id": order.id,
        "seller_id": order.seller_id,
        "stars": stars,
        "comment": note,
        "seller_rating": average,
        "seller_ratings_count": count,
    }
