"""Marketplace tools for listings: search and read them, list a new item, change its price, withdraw it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_length, check_limit, check_status, format_dollars, next_id, to_cents
from gym_mcp.servers.marketplace.models import CATEGORIES, CONDITIONS, LISTING_STATUSES, Listing, Offer
from gym_mcp.servers.marketplace.tools.common import (
    choice,
    kit,
    listing_view,
    load_listing,
    load_seller,
    offer_view,
    seller_view,
)

MAX_PRICE_CENTS = 1_000_000
"""Highest asking price of a listing ($10,000.00)."""
TITLES = ("Vintage desk lamp", "Road bike helmet", "Espresso machine", "Board game bundle", "Leather jacket")


@kit.tool(
    write=False,
    intent="Search the[ {status}] listings[ matching '{query}'][ in {category}][ priced up to ${max_price}]",
    samples={
        "status": LISTING_STATUSES,
        "query": ("guitar", "jacket", "table", "camera", "lamp", "set", "machine"),
        "category": CATEGORIES,
        "max_price": (50, 100, 200, 400),
    },
)
def search_listings(
    db: Session,
    query: str | None = None,
    category: str | None = None,
    status: str = "active",
    max_price: float | None = None,
    seller_id: str | None = None,
    limit: int = 20,
) -> list[dict[str, Any]]:
    """Search listings, cheapest first: by words of the title, category, status, price and seller.

    Returns a list of {listing_id, seller_id, title, category, condition, price, floor_price,
    status, listed_on}. Offers must be at least floor_price; buy_now pays price.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        query: Part of the title, e.g. "guitar".
        category: One of electronics, furniture, books, clothing, sports, toys, home or music, e.g. "music".
        status: active (on sale, the default), sold or withdrawn, e.g. "active".
        max_price: Only listings whose asking price is at most this many dollars, e.g. 150.
        seller_id: Only this seller's listings, e.g. "SEL-1001".
        limit: Maximum number of listings to return, 1 to 100, e.g. 20.
    """
    check_limit(limit)
    stmt = select(Listing).where(Listing.status == choice(status, LISTING_STATUSES, "status"))
    if query is not None:
        stmt = stmt.where(func.lower(Listing.title).contains(query.strip().lower(), autoescape=True))
    if category is not None:
        stmt = stmt.where(Listing.category == choice(category, CATEGORIES, "category"))
    if max_price is not None:
        stmt = stmt.where(Listing.price_cents <= to_cents(max_price, "max_price"))
    if seller_id is not None:
        stmt = stmt.where(Listing.seller_id == load_seller(db, seller_id).id)
    return [listing_view(x) for x in db.scalars(stmt.order_by(Listing.price_cents, Listing.id).limit(limit))]


@kit.tool(write=False, intent="Show listing {listing_id} with its offers")
def get_listing(db: Session, listing_id: str) -> dict[str, Any]:
    """Get one listing with its seller and every offer made on it (newest first).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        listing_id: Listing id, e.g. "LST-1001".
    """
    listing = load_listing(db, listing_id)
    offers = db.scalars(select(Offer).where(Offer.listing_id == listing.id).order_by(Offer.id.desc()))
    seller = load_seller(db, listing.seller_id)
    return {**listing_view(listing), "seller": seller_view(db, seller), "offers": [offer_view(o) for o in offers]}


def _floor(price_cents: int, floor_price: float | None) -> int:
    """The floor in cents (the asking price when none is given); refuses a floor above the price."""
    if floor_price is None:
        return price_cents
    floor = to_cents(floor_price, "floor_price")
    if floor > price_cents:
        raise ToolError(
            f"floor_price {format_dollars(floor)} is above the asking price {format_dollars(price_cents)}; "
            "the floor is the lowest offer the seller takes, so pass a floor at or below the price."
        )
    return floor


@kit.tool(
    write=True,
    intent=(
        "List '{title}' in {category} at ${price} for seller {seller_id}"
        "[ with a floor price of ${floor_price}][ in {condition} condition]"
    ),
    samples={
        "title": TITLES,
        "category": CATEGORIES,
        "price": (40, 75, 120, 180),
        "floor_price": (25, 30, 35),
        "condition": CONDITIONS,
    },
)
def create_listing(
    db: Session,
    seller_id: str,
    title: str,
    category: str,
    price: float,
    floor_price: float | None = None,
    condition: str = "good",
) -> dict[str, Any]:
    """Put a new item on sale for a seller. A suspended seller cannot list.

    The floor price is the lowest offer make_offer accepts for it; without one it is the asking
    price (no offers below the price). Returns the new listing.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        seller_id: Seller id, e.g. "SEL-1001".
        title: What is sold, 3 to 80 characters, e.g. "Vintage desk lamp".
        category: One of electronics, furniture, books, clothing, sports, toys, home or music, e.g. "home".
        price: Asking price in dollars, up to 10000, e.g. 75.
        floor_price: Lowest offer the seller takes, in dollars, at most the price, e.g. 60.
        condition: new, like_new, good (the default) or fair, e.g. "like_new".
    """
    seller = load_seller(db, seller_id)
    name = check_length(title.strip(), "title", 3, 80, ", e.g. 'Vintage desk lamp'")
    cat = choice(category, CATEGORIES, "category")
    state = choice(condition, CONDITIONS, "condition")
    price_cents = to_cents(price, "price", maximum=MAX_PRICE_CENTS)
    floor = _floor(price_cents, floor_price)
    if seller.status == "suspended":
        raise ToolError(
            f"Seller {seller.id} ({seller.shop_name}) is suspended and cannot list new items; nothing was listed."
        )
    listing = Listing(
        id=next_id(db, Listing.id, "LST"),
        seller_id=seller.id,
        title=name,
        category=cat,
        condition=state,
        price_cents=price_cents,
        floor_cents=floor,
        status="active",
        listed_on=kit.today,
    )
    db.add(listing)
    db.flush()
    return listing_view(listing)


def _check_active(listing: Listing, action: str) -> None:
    """Refuse to change a listing that is no longer on sale."""
    check_status(
        listing,
        {
            "sold": f"Listing {listing.id} is already sold; a sold listing cannot be {action}.",
            "withdrawn": f"Listing {listing.id} was withdrawn; only an active listing can be {action}.",
        },
    )


@kit.tool(
    write=True,
    intent="Change the price of listing {listing_id} to ${price}[ with a floor price of ${floor_price}]",
    samples={"price": (60, 90, 150, 250), "floor_price": (30, 45, 55)},
)
def update_listing_price(
    db: Session, listing_id: str, price: float, floor_price: float | None = None
) -> dict[str, Any]:
    """Change the asking price (and optionally the floor price) of an active listing.

    Without floor_price the floor stays as it is, so a new price below the current floor is
    refused: pass a floor_price at or below the new price too. Pending offers are kept.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        listing_id: Listing id, e.g. "LST-1001".
        price: New asking price in dollars, up to 10000, e.g. 90.
        floor_price: New floor price in dollars, at most the new price, e.g. 70.
    """
    listing = load_listing(db, listing_id)
    _check_active(listing, "repriced")
    price_cents = to_cents(price, "price", maximum=MAX_PRICE_CENTS)
    if floor_price is None and listing.floor_cents > price_cents:
        raise ToolError(
            f"The new price {format_dollars(price_cents)} is below the floor price "
            f"{format_dollars(listing.floor_cents)} of {listing.id}; pass floor_price at or below the new price too."
        )
    floor = listing.floor_cents if floor_price is None else _floor(price_cents, floor_price)
    was = listing_view(listing)
    listing.price_cents, listing.floor_cents = price_cents, floor
    return {**listing_view(listing), "previous_price": was["price"], "previous_floor_price": was["floor_price"]}


@kit.tool(write=True, intent="Withdraw listing {listing_id} from sale", confirm="always")
def withdraw_listing(db: Session, listing_id: str) -> dict[str, Any]:
    """Take an active listing off sale for good; its pending offers are declined. Irreversible.

    A sold listing cannot be withdrawn (cancel its order instead, while it is not shipped).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        listing_id: Listing id, e.g. "LST-1001".
    """
    listing = load_listing(db, listing_id)
    _check_active(listing, "withdrawn")
    declined = list(db.scalars(select(Offer).where(Offer.listing_id == listing.id, Offer.status == "pending")))
    for offer in declined:
        offer.status, offer.decided_on = "declined", kit.today
    listing.status = "withdrawn"
    return {**listing_view(listing), "declined_offer_ids": sorted(o.id for o in declined)}
