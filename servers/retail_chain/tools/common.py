"""What the retail chain tools share: the kit, id lookups, dated prices, stock, the store rules, result shapes.

Amounts travel as dollar numbers (4.99) and are stored in cents. A product's price on a day is
its latest price change effective on or before that day; "today" is the kit's fixed date, so
episodes replay identically.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import Finder, ServerKit, ToolError, dollars, pick
from gym_mcp.servers.retail_chain.data import seed
from gym_mcp.servers.retail_chain.models import (
    POINT_VALUE_CENTS,
    TODAY,
    Base,
    Member,
    PriceChange,
    Product,
    StockLevel,
    Store,
    Transfer,
)

__all__ = [
    "check_open",
    "choice",
    "current_price",
    "kit",
    "load_change",
    "load_member",
    "load_product",
    "load_store",
    "load_transfer",
    "member_view",
    "price_on",
    "stock_of",
    "transfer_view",
]

INSTRUCTIONS = f"""\
Head office of Northfield, a chain of grocery stores. Stores ("STO-1001") are open or closed; a
closed store cannot sell, be restocked or receive transfers. Each store holds its own stock of the
chain's products ("PRD-1001"); transfers ("TRF-1001") move stock between stores, never more than
the source holds, and are in transit until the destination receives them. Prices are chain-wide
and effective dated: the price on a day is the latest price change ("PRC-1001") effective on or
before it, and changes can only be scheduled for today or later. Loyalty members ("MEM-1001") earn
a point per whole dollar paid and redeem points at the till ({100 // POINT_VALUE_CENTS} points =
$1.00), never more than their balance. Sales are "SAL-1001". Use list_stores, find_products,
find_members and list_transfers to find ids. Today is {TODAY.isoformat()}."""

kit = ServerKit(
    "retail_chain",
    base=Base,
    seed=seed,
    instructions=INSTRUCTIONS,
    today=TODAY,
    samples={"limit": (5, 10, 20), "quantity": (2, 3, 5, 10)},
    inline=True,
)

# -- lookups ------------------------------------------------------------------------------------

_MISSING = "No {noun} with id {id!r}. {Noun} ids look like '{example}'; {hint}."
load_store = Finder(Store, "store", "STO-1001", "use list_stores to see valid ones", message=_MISSING)
load_product = Finder(Product, "product", "PRD-1001", "use find_products to see valid ones", message=_MISSING)
load_change = Finder(
    PriceChange, "price change", "PRC-1001", "use get_price with the product's id to see them", message=_MISSING
)
load_transfer = Finder(Transfer, "transfer", "TRF-1001", "use list_transfers to see valid ones", message=_MISSING)
load_member = Finder(Member, "member", "MEM-1001", "use find_members to see valid ones", message=_MISSING)


def choice(value: str, options: Sequence[str], field: str) -> str:
    """A value of a closed set as the server spells it (trimmed, lower case), or a `ToolError` listing the set."""
    wanted = value.strip().lower().replace(" ", "_")
    if wanted not in options:
        raise ToolError(f"{field} must be one of {', '.join(options)}; got {value!r}")
    return wanted


# -- rules --------------------------------------------------------------------------------------


def price_on(db: Session, product_id: str, day: date) -> PriceChange | None:
    """The price change in effect for a product on a day: the latest not cancelled effective on or before it."""
    return db.scalar(
        select(PriceChange)
        .where(PriceChange.product_id == product_id, PriceChange.effective_on <= day, ~PriceChange.cancelled)
        .order_by(PriceChange.effective_on.desc(), PriceChange.id.desc())
        .limit(1)
    )


def current_price(db: Session, product: Product) -> int:
    """A product's price today, in cents (every product has a price from its first change on)."""
    change = price_on(db, product.id, kit.today)
    assert change is not None, product.id
    return change.price_cents


def stock_of(db: Session, store_id: str, product_id: str) -> StockLevel | None:
    """A store's stock row of a product; None when the store never carried it."""
    return db.get(StockLevel, (store_id, product_id))


def check_open(store: Store, action: str) -> None:
    """Refuse an action at a closed store."""
    if store.status == "closed":
        raise ToolError(
            f"Store {store.id} ({store.name}) closed on {store.closed_on} and cannot {action}; "
            "use list_stores with status 'open' to pick an open store."
        )


# -- result shapes ------------------------------------------------------------------------------


def transfer_view(transfer: Transfer) -> dict[str, Any]:
    """The fields of a transfer a model needs."""
    return {
        "transfer_id": transfer.id,
        **pick(transfer, "product_id", "from_store_id", "to_store_id", "quantity", "status"),
        "sent_on": transfer.sent_on.isoformat(),
        "settled_on": transfer.settled_on.isoformat() if transfer.settled_on else None,
    }


def member_view(member: Member) -> dict[str, Any]:
    """The fields of a loyalty member a model needs; points_value is what the points take off at the till."""
    return {
        "member_id": member.id,
        **pick(member, "name", "email", "home_store_id", "points"),
        "points_value": dollars(member.points * POINT_VALUE_CENTS),
        "joined_on": member.joined_on.isoformat(),
    }
