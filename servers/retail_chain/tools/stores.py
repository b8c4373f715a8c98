"""Retail chain tools for stores and their stock: list stores, read a store's shelves, restock, close a store."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import check_between, check_limit, check_status, dollars
from gym_mcp.servers.retail_chain.models import CATEGORIES, STORE_STATUSES, Product, StockLevel, Store, Transfer
from gym_mcp.servers.retail_chain.tools.common import (
    check_open,
    choice,
    current_price,
    kit,
    load_product,
    load_store,
    stock_of,
    transfer_view,
)

MAX_RESTOCK = 500
"""Most units one restock delivery brings."""


@kit.tool(
    write=False,
    intent="List the[ {status}] stores[ in {city}]",
    samples={"status": STORE_STATUSES, "city": ("Springfield", "Riverton", "Lakeside", "Fairview", "Millbrook")},
)
def list_stores(db: Session, status: str | None = None, city: str | None = None) -> list[dict[str, Any]]:
    """List the chain's stores by id, with how many products and units each has on hand.

    Returns a list of {store_id, name, city, status, opened_on, closed_on, products_in_stock,
    units_on_hand}. A closed store cannot sell, be restocked or receive transfers.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        status: Only stores in this status: open or closed, e.g. "open".
        city: Only stores in this city, e.g. "Springfield".
    """
    stmt = select(Store)
    if status is not None:
        stmt = stmt.where(Store.status == choice(status, STORE_STATUSES, "status"))
    if city is not None:
        stmt = stmt.where(func.lower(Store.city) == city.strip().lower())
    out = []
    for store in db.scalars(stmt.order_by(Store.id)):
        products, units = db.execute(
            select(func.count(), func.coalesce(func.sum(StockLevel.quantity), 0)).where(
                StockLevel.store_id == store.id, StockLevel.quantity > 0
            )
        ).one()
        out.append(
            {
                "store_id": store.id,
                "name": store.name,
                "city": store.city,
                "status": store.status,
                "opened_on": store.opened_on.isoformat(),
                "closed_on": store.closed_on.isoformat() if store.closed_on else None,
                "products_in_stock": products,
                "units_on_hand": units,
            }
        )
    return out


@kit.tool(
    write=False,
    intent="Show the stock of store {store_id}[ in {category}][ at or below {max_quantity} units]",
    samples={"category": CATEGORIES, "max_quantity": (0, 10, 25)},
)
def get_store_stock(
    db: Session, store_id: str, category: str | None = None, max_quantity: int | None = None, limit: int = 100
) -> dict[str, Any]:
    """A store's stock by product: units on hand and today's price; max_quantity finds shelves running low.

    Products the store never carried are not listed (it has 0 of them).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        store_id: Store id, e.g. "STO-1001".
        category: Only products of this category: produce, dairy, bakery, pantry, beverages, snacks,
            frozen or household, e.g. "dairy".
        max_quantity: Only products with at most this many units on hand, e.g. 10 (0 lists empty shelves).
        limit: Maximum number of products to return, 1 to 100, e.g. 50.
    """
    check_limit(limit)
    store = load_store(db, store_id)
    stmt = select(StockLevel, Product).join(Product, Product.id == StockLevel.product_id)
    stmt = stmt.where(StockLevel.store_id == store.id)
    if category is not None:
        stmt = stmt.where(Product.category == choice(category, CATEGORIES, "category"))
    if max_quantity is not None:
        stmt = stmt.where(StockLevel.quantity <= check_between(max_quantity, 0, 100_000, "max_quantity"))
    rows = db.execute(stmt.order_by(Product.id).limit(limit)).all()
    return {
        "store_id": store.id,
        "status": store.status,
        "items": [
            {
                "product_id": product.id,
                "name": product.name,
                "category": product.category,
                "unit": product.unit,
                "quantity": level.quantity,
                "price": dollars(current_price(db, product)),
            }
            for level, product in rows
        ],
    }


@kit.tool(write=True, intent="Restock {quantity} units of product {product_id} at store {store_id}")
def restock(db: Session, store_id: str, product_id: str, quantity: int) -> dict[str, Any]:
    """Record a supplier delivery: add units of a product to an open store's stock.

    A closed store cannot be restocked. Returns {store_id, product_id, added, quantity}.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        store_id: Store id, e.g. "STO-1001".
        product_id: Product id, e.g. "PRD-1001".
        quantity: Units delivered, 1 to 500, e.g. 24.
    """
    store = load_store(db, store_id)
    product = load_product(db, product_id)
    check_between(quantity, 1, MAX_RESTOCK, "quantity")
    check_open(store, "be restocked")
    level = stock_of(db, store.id, product.id)
    if level is None:
        level = StockLevel(store_id=store.id, product_id=product.id, quantity=0)
        db.add(level)
    level.quantity += quantity
    return {"store_id": store.id, "product_id": product.id, "added": quantity, "quantity": level.quantity}


@kit.tool(write=True, intent="Close store {store_id}", confirm="always")
def close_store(db: Session, store_id: str) -> dict[str, Any]:
    """Close a store for good: it can no longer sell, be restocked or receive transfers. Irreversible.

    Its stock stays where it is and can still be transferred out to open stores. Transfers still
    on their way to it can no longer be received: the result lists them, to cancel with
    cancel_transfer (the stock goes back to their source).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        store_id: Store id, e.g. "STO-1001".
    """
    store = load_store(db, store_id)
    check_status(store, {"closed": f"Store {store.id} ({store.name}) is already closed since {store.closed_on}."})
    store.status, store.closed_on = "closed", kit.today
    inbound = db.scalars(
        select(Transfer).where(Transfer.to_store_id == store.id, Transfer.status == "in_transit").order_by(Transfer.id)
    )
    return {
        "store_id": store.id,
        "status": store.status,
        "closed_on": store.closed_on.isoformat(),
        "inbound_transfers_to_cancel": [transfer_view(t) for t in inbound],
    }
