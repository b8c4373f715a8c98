"""Retail chain tools for products and their effective-dated prices: find, price on a day, schedule, cancel."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_limit, dollars, format_dollars, next_id, parse_date, to_cents
from gym_mcp.servers.retail_chain.models import CATEGORIES, PriceChange, Product, StockLevel
from gym_mcp.servers.retail_chain.tools.common import (
    choice,
    current_price,
    kit,
    load_change,
    load_product,
    price_on,
)

MAX_PRICE_CENTS = 100_000
"""Highest shelf price of a product ($1,000.00)."""
DATE_SAMPLES = ("2026-01-20", "2026-02-01", "2026-02-15", "2026-03-01", "2026-04-01")


def _change_view(change: PriceChange) -> dict[str, Any]:
    """The fields of a price change a model needs."""
    return {
        "price_change_id": change.id,
        "price": dollars(change.price_cents),
        "effective_on": change.effective_on.isoformat(),
        "reason": change.reason,
    }


@kit.tool(
    write=False,
    intent="Find the products[ matching '{query}'][ in {category}]",
    samples={"query": ("milk", "bread", "coffee", "apples", "chips", "soap", "rice"), "category": CATEGORIES},
)
def find_products(
    db: Session, query: str | None = None, category: str | None = None, limit: int = 20
) -> list[dict[str, Any]]:
    """Find products by name or category, with today's price and the units on hand across all stores.

    Returns a list of {product_id, name, category, unit, price, units_chainwide}.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        query: Part of the product name, e.g. "milk".
        category: One of produce, dairy, bakery, pantry, beverages, snacks, frozen or household, e.g. "dairy".
        limit: Maximum number of products to return, 1 to 100, e.g. 20.
    """
    check_limit(limit)
    stmt = select(Product)
    if query is not None:
        stmt = stmt.where(func.lower(Product.name).contains(query.strip().lower(), autoescape=True))
    if category is not None:
        stmt = stmt.where(Product.category == choice(category, CATEGORIES, "category"))
    out = []
    for product in db.scalars(stmt.order_by(Product.id).limit(limit)):
        units = db.scalar(
            select(func.coalesce(func.sum(StockLevel.quantity), 0)).where(StockLevel.product_id == product.id)
        )
        out.append(
            {
                "product_id": product.id,
                "name": product.name,
                "category": product.category,
                "unit": product.unit,
                "price": dollars(current_price(db, product)),
                "units_chainwide": units,
            }
        )
    return out


@kit.tool(
    write=False,
    intent="What is the price of product {product_id}[ on {on_date}]",
    samples={"on_date": ("2025-09-01", "2025-12-24", "2026-01-15", "2026-02-15", "2026-03-15")},
)
def get_price(db: Session, product_id: str, on_date: str | None = None) -> dict[str, Any]:
    """The price of a product on a day (today by default): its latest price change effective on or before it.

    Also lists every change scheduled after that day ("upcoming"), which cancel_price_change can
    still cancel while its day is in the future.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        product_id: Product id, e.g. "PRD-1001".
        on_date: The day, ISO 8601, e.g. "2026-02-01"; leave out for today.
    """
    product = load_product(db, product_id)
    day = kit.today if on_date is None else parse_date(on_date, "on_date")
    change = price_on(db, product.id, day)
    if change is None:
        first = db.scalar(
            select(func.min(PriceChange.effective_on)).where(
                PriceChange.product_id == product.id, ~PriceChange.cancelled
            )
        )
        raise ToolError(f"Product {product.id} had no price on {day}: its first price took effect on {first}.")
    upcoming = db.scalars(
        select(PriceChange)
        .where(PriceChange.product_id == product.id, PriceChange.effective_on > day, ~PriceChange.cancelled)
        .order_by(PriceChange.effective_on)
    )
    return {
        "product_id": product.id,
        "name": product.name,
        "on_date": day.isoformat(),
        "price": dollars(change.price_cents),
        "set_by": _change_view(change),
        "upcoming": [_change_view(c) for c in upcoming],
    }


@kit.tool(
    write=True,
    intent="Change the price of product {product_id} to ${price} from {effective_on}[ because '{reason}']",
    samples={
        "price": (1.99, 3.49, 4.99, 7.99, 12.99),
        "effective_on": DATE_SAMPLES,
        "reason": ("Supplier cost increase", "Promotion", "Competitor match", "Seasonal price"),
    },
)
def schedule_price_change(
    db: Session, product_id: str, price: float, effective_on: str, reason: str | None = None
) -> dict[str, Any]:
    """Set a product's chain-wide price from a day on: today (at once) or a later day, never a past one.

    The new price holds from effective_on until the next change. A product has at most one change
    per day: to replace one, cancel it first (cancel_price_change). Returns the change with the
    price in effect today.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        product_id: Product id, e.g. "PRD-1001".
        price: New shelf price in dollars, up to 1000, e.g. 4.99.
        effective_on: First day of the new price, ISO 8601, today or later, e.g. "2026-02-01".
        reason: Why, up to 120 characters, e.g. "Promotion".
    """
    product = load_product(db, product_id)
    cents = to_cents(price, "price", maximum=MAX_PRICE_CENTS)
    day = parse_date(effective_on, "effective_on")
    note = (reason or "").strip()
    if len(note) > 120:
        raise ToolError("reason must be at most 120 characters")
    if day < kit.today:
        raise ToolError(
            f"effective_on {day} is in the past (today is {kit.today}); prices cannot change retroactively. "
            f"Use today ({kit.today}) or a later day."
        )
    same_day = db.scalar(
        select(PriceChange).where(
            PriceChange.product_id == product.id, PriceChange.effective_on == day, ~PriceChange.cancelled
        )
    )
    if same_day is not None:
        raise ToolError(
            f"Product {product.id} already has price change {same_day.id} effective on {day} "
            f"({format_dollars(same_day.price_cents)}); cancel it first with cancel_price_change, or pick another day."
        )
    change = PriceChange(
        id=next_id(db, PriceChange.id, "PRC"), product_id=product.id, price_cents=cents, effective_on=day, reason=note
    )
    db.add(change)
    db.flush()
    return {"product_id": product.id, **_change_view(change), "price_today": dollars(current_price(db, product))}


@kit.tool(write=True, intent="Cancel price change {price_change_id}")
def cancel_price_change(db: Session, price_change_id: str) -> dict[str, Any]:
    """Cancel a scheduled price change before its day comes; one already in effect cannot be cancelled.

    To undo a price already in effect, schedule a new change from today instead.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        price_change_id: Price change id, e.g. "PRC-1001".
    """
    change = load_change(db, price_change_id)
    if change.cancelled:
        raise ToolError(f"Price change {change.id} was already cancelled; it never takes effect.")
    if change.effective_on <= kit.today:
        raise ToolError(
            f"Price change {change.id} took effect on {change.effective_on} (today is {kit.today}), so it is history "
            "and cannot be cancelled; schedule a new change from today with schedule_price_change instead."
        )
    change.cancelled = True
    after = price_on(db, change.product_id, change.effective_on)
    return {
        "product_id": change.product_id,
        **_change_view(change),
        "cancelled": True,
        "price_on_that_day": dollars(after.price_cents) if after else None,
    }
