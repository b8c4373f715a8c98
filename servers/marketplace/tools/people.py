"""Marketplace tools for the people: sellers (shops, their ratings and payouts) and buyers (their balances)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_limit, dollars, pick, to_cents
from gym_mcp.servers.marketplace.models import Buyer, Listing, Rating, Seller
from gym_mcp.servers.marketplace.tools.common import kit, load_buyer, load_seller, seller_view

MAX_TOP_UP_CENTS = 500_000
"""Most one add_funds call may add ($5,000.00)."""


def _matches(text: str | None, *columns: Any) -> Any:
    """A case-insensitive partial match of ``text`` on any of the columns (None: no condition)."""
    if text is None:
        return None
    wanted = text.strip().lower()
    if len(wanted) < 2:
        raise ToolError("query must have at least 2 characters, e.g. a last name like 'Garcia'")
    return or_(*(func.lower(c).contains(wanted, autoescape=True) for c in columns))


@kit.tool(
    write=False,
    intent="List the sellers[ matching '{query}'][ in {city}]",
    samples={
        "query": ("Maple", "Harbor", "Vintage", "Garcia", "Finds", "Market"),
        "city": ("Portland", "Austin", "Denver", "Chicago", "Boston", "Seattle"),
    },
)
def list_sellers(
    db: Session, query: str | None = None, city: str | None = None, limit: int = 20
) -> list[dict[str, Any]]:
    """List sellers (shops) with their average rating and number of active listings, by id.

    Returns a list of {seller_id, shop_name, contact_name, city, status, rating, ratings_count,
    active_listings}; rating is null for a shop nobody rated yet. A suspended shop cannot list.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        query: Part of the shop name, contact name or email, e.g. "maple" or "garcia".
        city: Only shops in this city, e.g. "Portland".
        limit: Maximum number of sellers to return, 1 to 100, e.g. 20.
    """
    check_limit(limit)
    stmt = select(Seller)
    condition = _matches(query, Seller.shop_name, Seller.contact_name, Seller.email)
    if condition is not None:
        stmt = stmt.where(condition)
    if city is not None:
        stmt = stmt.where(func.lower(Seller.city) == city.strip().lower())
    return [seller_view(db, s) for s in db.scalars(stmt.order_by(Seller.id).limit(limit))]


@kit.tool(write=False, intent="Show the profile of seller {seller_id}")
def get_seller(db: Session, seller_id: str) -> dict[str, Any]:
    """Get one seller with its payout balance (released escrow), its rating and its five latest ratings.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        seller_id: Seller id, e.g. "SEL-1001".
    """
    seller = load_seller(db, seller_id)
    latest = db.scalars(
        select(Rating).where(Rating.seller_id == seller.id).order_by(Rating.rated_on.desc(), Rating.id.desc()).limit(5)
    )
    counts = dict(
        db.execute(
            select(Listing.status, func.count()).where(Listing.seller_id == seller.id).group_by(Listing.status)
        ).all()
    )
    return {
        **seller_view(db, seller),
        "email": seller.email,
        "joined_on": seller.joined_on.isoformat(),
        "balance": dollars(seller.balance_cents),
        "listings_by_status": {k: int(v) for k, v in sorted(counts.items())},
        "latest_ratings": [
            {"rating_id": r.id, **pick(r, "order_id", "buyer_id", "stars", "comment"), "rated_on": r.rated_on}
            for r in latest
        ],
    }


@kit.tool(
    write=False,
    intent="List the buyers[ matching '{query}']",
    samples={"query": ("Garcia", "Smith", "Patel", "Olivia", "Chen", "Nguyen")},
)
def list_buyers(db: Session, query: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
    """List buyers by id with their balance; own_seller_id is the buyer's own shop, if they also sell.

    Returns a list of {buyer_id, name, email, city, balance, own_seller_id}.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        query: Part of the name or email, e.g. "garcia".
        limit: Maximum number of buyers to return, 1 to 100, e.g. 20.
    """
    check_limit(limit)
    stmt = select(Buyer)
    condition = _matches(query, Buyer.name, Buyer.email)
    if condition is not None:
        stmt = stmt.where(condition)
    return [
        {
            "buyer_id": b.id,
            **pick(b, "name", "email", "city"),
            "balance": dollars(b.balance_cents),
            "own_seller_id": b.seller_id,
        }
        for b in db.scalars(stmt.order_by(Buyer.id).limit(limit))
    ]


@kit.tool(
    write=True,
    intent="Add ${amount} to the balance of buyer {buyer_id}",
    samples={"amount": (25, 50, 100, 250, 500)},
)
def add_funds(db: Session, buyer_id: str, amount: float) -> dict[str, Any]:
    """Top up a buyer's balance, which pays for offers they make and items they buy.

    At most $5,000.00 per call. Returns {buyer_id, added, balance}.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        buyer_id: Buyer id, e.g. "BUY-1001".
        amount: Dollars to add, more than 0 with at most 2 decimals, up to 5000, e.g. 100.
    """
    buyer = load_buyer(db, buyer_id)
    cents = to_cents(amount, maximum=MAX_TOP_UP_CENTS)
    buyer.balance_cents += cents
    return {"buyer_id": buyer.id, "added": dollars(cents), "balance": dollars(buyer.balance_cents)}
