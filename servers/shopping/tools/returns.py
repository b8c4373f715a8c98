"""Shopping tools for returns: request one for a delivered order, show and list them."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_length, check_limit, dollars, next_id
from gym_mcp.servers.shopping.data import RETURN_WINDOW_DAYS
from gym_mcp.servers.shopping.models import Order, Return, refund_cents
from gym_mcp.servers.shopping.tools.common import (
    MAX_LIMIT,
    check_quantity,
    kit,
    load_customer,
    load_order,
    load_product,
    load_return,
)

# Literal sample values for task synthesis.
_RETURN_REASONS = (
    "Item arrived damaged",
    "Wrong size",
    "Not as described",
    "Changed my mind",
    "Defective on arrival",
    "Arrived too late",
)


def _returned_quantity(order: Order, product_id: str) -> int:
    """Units of a product already returned (or being returned) from an order."""
    gone = ("rejected", "cancelled")
    return sum(r.quantity for r in order.returns if r.product_id == product_id and r.status not in gone)


def _return_view(ret: Return) -> dict[str, Any]:
    """The fields of a return a model needs."""
    return {
        "return_id": ret.id,
        "order_id": ret.order_id,
        "product_id": ret.product_id,
        "name": ret.product.name,
        "quantity": ret.quantity,
        "reason": ret.reason,
        "status": ret.status,
        "refund": dollars(ret.refund_cents),
        "requested_on": ret.requested_on.isoformat(),
    }


@kit.tool(
    write=True,
    intent="Request a return of {quantity} of product {product_id} from order {order_id} with the reason '{reason}'",
    confirm="always",
    samples={"quantity": (1, 1, 1, 2), "reason": _RETURN_REASONS},
)
def request_return(db: Session, order_id: str, product_id: str, quantity: int, reason: str) -> dict[str, Any]:
    """Open a return for units of one product of a delivered order.

    Allowed only for delivered orders, within 30 days of delivery, and for no more units than
    were ordered less those already returned. The refund is the price paid (less the item's share
    of any coupon discount). Returns the new return with status "requested".

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        order_id: Order id, e.g. "ORD-1001".
        product_id: Product id of an item of that order, e.g. "PRD-1001".
        quantity: Units to return, a positive integer, e.g. 1.
        reason: Why the customer returns it, e.g. "Arrived damaged".
    """
    order = load_order(db, order_id)
    product = load_product(db, product_id)
    check_quantity(quantity)
    text = check_length(" ".join(reason.split()), "reason", 3, 200, ', e.g. "Arrived damaged".')
    if order.status != "delivered":
        raise ToolError(
            f"{order.id} is {order.status}; only delivered orders can be returned."
            + (" Cancel it with cancel_order instead." if order.status in ("placed", "paid") else "")
        )
    assert order.delivered_on is not None
    age = (kit.today - order.delivered_on).days
    if age > RETURN_WINDOW_DAYS:
        deadline = order.delivered_on + timedelta(days=RETURN_WINDOW_DAYS)
        raise ToolError(
            f"{order.id} was delivered on {order.delivered_on} ({age} days ago); returns are accepted "
            f"only within {RETURN_WINDOW_DAYS} days of delivery (the window closed on {deadline})."
        )
    item = next((i for i in order.items if i.product_id == product.id), None)
    if item is None:
        ids = ", ".join(i.product_id for i in order.items)
        raise ToolError(f"{product.id} is not part of {order.id}; its products are: {ids}.")
    returnable = item.quantity - _returned_quantity(order, product.id)
    if quantity > returnable:
        raise ToolError(
            f"Cannot return {quantity} of {product.id}: {order.id} has {item.quantity} and "
            f"{item.quantity - returnable} already returned or pending, so at most {returnable} "
            "can be returned."
        )
    ret = Return(
        id=next_id(db, Return.id, "RET"),
        order_id=order.id,
        product_id=product.id,
        quantity=quantity,
        reason=text,
        status="requested",
        requested_on=kit.today,
        refund_cents=refund_cents(item.unit_price_cents, quantity, order),
        product=product,
    )
    order.returns.append(ret)
    db.flush()
    return _return_view(ret)


@kit.tool(write=False, intent="Show return {return_id}")
def get_return(db: Session, return_id: str) -> dict[str, Any]:
    """Get one return: order, product, quantity, reason, status and refund amount.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        return_id: Return id, e.g. "RET-1001".
    """
    return _return_view(load_return(db, return_id))


@kit.tool(
    write=False,
    intent="List the returns of customer {customer_id}[, showing up to {limit}]",
)
def list_returns(db: Session, customer_id: str, limit: int = 20) -> list[dict[str, Any]]:
    """List a customer's returns, newest first.

    Returns a list of {"return_id", "order_id", "product_id", "name", "quantity", "reason",
    "status", "refund", "requested_on"}.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        customer_id: Customer id, e.g. "CUS-1001".
        limit: Maximum number of returns to return, 1 to 50.
    """
    customer = load_customer(db, customer_id)
    check_limit(limit, MAX_LIMIT)
    rows = db.scalars(
        select(Return)
        .join(Return.order)
        .where(Order.customer_id == customer.id)
        .order_by(Return.requested_on.desc(), Return.id.desc())
        .limit(limit)
    )
    return [_return_view(r) for r in rows]


@kit.tool(write=True, intent="Cancel return {return_id}")
def cancel_return(db: Session, return_id: str) -> dict[str, Any]:
    """Withdraw a return request that has not been processed yet (status "requested").

    Approved, refunded or rejected returns cannot be withdrawn. Returns the return with status
    "cancelled"; its units can then be returned again within the return window.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        return_id: Return id, e.g. "RET-1001".
    """
    ret = load_return(db, return_id)
    if ret.status != "requested":
        raise ToolError(f"{ret.id} is {ret.status}; only a return that is still requested can be cancelled.")
    ret.status = "cancelled"
    db.flush()
    return _return_view(ret)
