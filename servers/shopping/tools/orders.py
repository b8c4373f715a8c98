"""Shopping tools for orders: list and show them, cancel them, change where they ship."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_limit, dollars
from gym_mcp.servers.shopping.data import RETURN_WINDOW_DAYS
from gym_mcp.servers.shopping.models import ORDER_STATUSES, Order
from gym_mcp.servers.shopping.tools.common import (
    ADDRESS_SAMPLES,
    MAX_LIMIT,
    check_address,
    kit,
    load_customer,
    load_order,
    order_view,
)


@kit.tool(
    write=False,
    intent="List the[ {status}] orders of customer {customer_id}[, showing up to {limit}]",
    samples={"status": ORDER_STATUSES},
)
def list_orders(db: Session, customer_id: str, status: str | None = None, limit: int = 20) -> dict[str, Any]:
    """List a customer's orders, newest first.

    Returns {"total": number of matching orders, "orders": [{"order_id", "status", "placed_on",
    "item_count", "total"}]}. Use get_order for the items and dates of one order.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        customer_id: Customer id, e.g. "CUS-1001".
        status: Only orders with this status: "placed", "paid", "shipped", "delivered" or
            "cancelled"; omit for all.
        limit: Maximum number of orders to return, 1 to 50.
    """
    customer = load_customer(db, customer_id)
    check_limit(limit, MAX_LIMIT)
    stmt = select(Order).where(Order.customer_id == customer.id)
    if status is not None and status.strip():
        wanted = status.strip().lower()
        if wanted not in ORDER_STATUSES:
            raise ToolError(f'Unknown status "{status}". Use one of: {", ".join(ORDER_STATUSES)}.')
        stmt = stmt.where(Order.status == wanted)
    total = db.scalar(select(func.count()).select_from(stmt.subquery())) or 0
    orders = db.scalars(stmt.order_by(Order.placed_on.desc(), Order.id.desc()).limit(limit))
    return {
        "total": total,
        "orders": [
            {
                "order_id": o.id,
                "status": o.status,
                "placed_on": o.placed_on.isoformat(),
                "item_count": sum(i.quantity for i in o.items),
                "total": dollars(o.total_cents),
            }
            for o in orders
        ],
    }


@kit.tool(write=False, intent="Show order {order_id}")
def get_order(db: Session, order_id: str) -> dict[str, Any]:
    """Get one order: status, dates, shipping address, items, amounts and any returns.

    Delivered orders also show "return_by", the last day a return can be requested.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        order_id: Order id, e.g. "ORD-1001".
    """
    return order_view(load_order(db, order_id))


@kit.tool(write=True, intent="Cancel order {order_id}", confirm="always")
def cancel_order(db: Session, order_id: str) -> dict[str, Any]:
    """Cancel an order that has not shipped yet (status "placed" or "paid") and restock its items.

    Paid orders are refunded in full. Shipped or delivered orders cannot be cancelled; a
    delivered order can be returned with request_return instead.
    Returns {"order_id", "status", "refund"}.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        order_id: Order id, e.g. "ORD-1001".
    """
    order = load_order(db, order_id)
    if order.status == "cancelled":
        raise ToolError(f"{order.id} is already cancelled (on {order.cancelled_on}).")
    if order.status == "shipped":
        raise ToolError(
            f"{order.id} cannot be cancelled: it shipped on {order.shipped_on}. Once it is delivered, "
            f"the customer can return it with request_return within {RETURN_WINDOW_DAYS} days."
        )
    if order.status == "delivered":
        raise ToolError(
            f"{order.id} cannot be cancelled: it was delivered on {order.delivered_on}. "
            "Use request_return to return its items instead."
        )
    refund = order.total_cents if order.status == "paid" else 0
    for item in order.items:
        item.product.stock += item.quantity
    order.status = "cancelled"
    order.cancelled_on = kit.today
    db.flush()
    return {"order_id": order.id, "status": order.status, "refund": dollars(refund)}


@kit.tool(
    write=True,
    intent="Change the shipping address of order {order_id} to {address}",
    samples={"address": ADDRESS_SAMPLES},
)
def update_shipping_address(db: Session, order_id: str, address: str) -> dict[str, Any]:
    """Change where an order ships, while it has not shipped yet (status "placed" or "paid").

    Returns {"order_id", "status", "shipping_address"}.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        order_id: Order id, e.g. "ORD-1001".
        address: Full new address, e.g. "12 Oak St, Austin, TX 73301".
    """
    order = load_order(db, order_id)
    if order.status in ("shipped", "delivered"):
        raise ToolError(
            f"The address of {order.id} cannot be changed: it is already {order.status} "
            f"(shipped on {order.shipped_on})."
        )
    if order.status == "cancelled":
        raise ToolError(f"{order.id} is cancelled; there is no shipment to redirect.")
    order.shipping_address = check_address(address)
    db.flush()
    return {"order_id": order.id, "status": order.status, "shipping_address": order.shipping_address}
