"""Retail chain tools for transfers: send stock from one store to another, receive it, or cancel it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_between, check_limit, check_status, next_id
from gym_mcp.servers.retail_chain.models import TRANSFER_STATUSES, StockLevel, Transfer
from gym_mcp.servers.retail_chain.tools.common import (
    check_open,
    choice,
    kit,
    load_product,
    load_store,
    load_transfer,
    stock_of,
    transfer_view,
)


@kit.tool(
    write=False,
    intent="List the[ {status}] transfers[ of store {store_id}]",
    samples={"status": TRANSFER_STATUSES},
)
def list_transfers(
    db: Session, store_id: str | None = None, status: str | None = None, limit: int = 20
) -> list[dict[str, Any]]:
    """List stock transfers, newest first: those sent from or to a store, optionally in one status.

    Statuses: in_transit (left the source, not yet received), received, cancelled (back at the source).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        store_id: Only transfers from or to this store, e.g. "STO-1001".
        status: Only this status: in_transit, received or cancelled, e.g. "in_transit".
        limit: Maximum number of transfers to return, 1 to 100, e.g. 20.
    """
    check_limit(limit)
    stmt = select(Transfer)
    if store_id is not None:
        store = load_store(db, store_id)
        stmt = stmt.where(or_(Transfer.from_store_id == store.id, Transfer.to_store_id == store.id))
    if status is not None:
        stmt = stmt.where(Transfer.status == choice(status, TRANSFER_STATUSES, "status"))
    rows = db.scalars(stmt.order_by(Transfer.sent_on.desc(), Transfer.id.desc()).limit(limit))
    return [transfer_view(t) for t in rows]


@kit.tool(
    write=True,
    intent="Transfer {quantity} units of product {product_id} from store {from_store_id} to store {to_store_id}",
    confirm="quantity >= 50",
)
def transfer_stock(db: Session, product_id: str, from_store_id: str, to_store_id: str, quantity: int) -> dict[str, Any]:
    """Send units of a product from one store to another; they are in transit until received.

    The units leave the source at once, so it must hold them all (get_store_stock shows its
    stock). A closed store can send its stock away but cannot receive any. Returns the transfer
    and what the source has left.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        product_id: Product id, e.g. "PRD-1001".
        from_store_id: Store the units leave, e.g. "STO-1001".
        to_store_id: Store the units go to, an open one, e.g. "STO-1002".
        quantity: Units to send, 1 to 1000, at most what the source holds, e.g. 10.
    """
    product = load_product(db, product_id)
    source = load_store(db, from_store_id, "from_store_id")
    target = load_store(db, to_store_id, "to_store_id")
    check_between(quantity, 1, 1000, "quantity")
    if source.id == target.id:
        raise ToolError(f"from_store_id and to_store_id are both {source.id}; a transfer needs two different stores.")
    check_open(target, "receive transfers")
    level = stock_of(db, source.id, product.id)
    have = level.quantity if level else 0
    if level is None or have < quantity:
        raise ToolError(
            f"Store {source.id} has only {have} units of {product.id} ({product.name}), fewer than the {quantity} "
            f"to send; send at most {have}, or pick another source store (get_store_stock)."
        )
    level.quantity -= quantity
    transfer = Transfer(
        id=next_id(db, Transfer.id, "TRF"),
        product_id=product.id,
        from_store_id=source.id,
        to_store_id=target.id,
        quantity=quantity,
        status="in_transit",
        sent_on=kit.today,
    )
    db.add(transfer)
    db.flush()
    return {**transfer_view(transfer), "source_quantity_left": level.quantity}


def _check_in_transit(transfer: Transfer, action: str) -> None:
    """Refuse to settle a transfer that is already settled."""
    check_status(
        transfer,
        {
            "received": f"Transfer {transfer.id} was already received on {transfer.settled_on}; it cannot be {action}.",
            "cancelled": f"Transfer {transfer.id} was cancelled on {transfer.settled_on}; it cannot be {action}.",
        },
    )


@kit.tool(write=True, intent="Receive transfer {transfer_id}")
def receive_transfer(db: Session, transfer_id: str) -> dict[str, Any]:
    """Receive an in-transit transfer at its destination, adding its units to that store's stock.

    A closed store cannot receive transfers: cancel one still heading to a closed store
    (cancel_transfer), which returns its units to the source.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        transfer_id: Transfer id, e.g. "TRF-1001".
    """
    transfer = load_transfer(db, transfer_id)
    _check_in_transit(transfer, "received")
    target = load_store(db, transfer.to_store_id)
    if target.status == "closed":
        raise ToolError(
            f"Store {target.id} ({target.name}) closed on {target.closed_on} and cannot receive transfer "
            f"{transfer.id}; cancel it with cancel_transfer to return the units to {transfer.from_store_id}."
        )
    level = stock_of(db, target.id, transfer.product_id)
    if level is None:
        level = StockLevel(store_id=target.id, product_id=transfer.product_id, quantity=0)
        db.add(level)
    level.quantity += transfer.quantity
    transfer.status, transfer.settled_on = "received", kit.today
    return {**transfer_view(transfer), "destination_quantity": level.quantity}


@kit.tool(write=True, intent="Cancel transfer {transfer_id}")
def cancel_transfer(db: Session, transfer_id: str) -> dict[str, Any]:
    """Cancel an in-transit transfer: its units go back to the source store's stock.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        transfer_id: Transfer id, e.g. "TRF-1001".
    """
    transfer = load_transfer(db, transfer_id)
    _check_in_transit(transfer, "cancelled")
    level = stock_of(db, transfer.from_store_id, transfer.product_id)
    if level is None:
        level = StockLevel(store_id=transfer.from_store_id, product_id=transfer.product_id, quantity=0)
        db.add(level)
    level.quantity += transfer.quantity
    transfer.status, transfer.settled_on = "cancelled", kit.today
    return {**transfer_view(transfer), "source_quantity": level.quantity}
