"""What the marketplace tools share: the kit, id lookups, the buying rules, escrow and result shapes.

Amounts travel as dollar numbers (49.5) and are stored in cents. Every date rule uses the kit's
fixed ``today``, so episodes replay identically.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import Finder, ServerKit, ToolError, dollars, format_dollars, next_id, pick
from gym_mcp.servers.marketplace.data import seed
from gym_mcp.servers.marketplace.models import TODAY, Base, Buyer, Escrow, Listing, Offer, Order, Rating, Seller

__all__ = [
    "check_buyable",
    "choice",
    "escrow_of",
    "kit",
    "listing_view",
    "load_buyer",
    "load_listing",
    "load_offer",
    "load_order",
    "load_seller",
    "offer_view",
    "order_view",
    "pay_into_escrow",
    "seller_rating",
    "seller_view",
]

INSTRUCTIONS = f"""\
Back office of Swapsy, a second-hand marketplace. Sellers ("SEL-1001") list items ("LST-1001")
at an asking price with a floor price: buyers ("BUY-1001") make offers ("OFR-1001") at or above
the floor, or buy at the asking price with buy_now. A seller cannot buy their own listing, and a
sold or withdrawn listing gets no new offers. Buying pays the buyer's balance into escrow: the
order ("ORD-1001") is paid, the seller ships it, and the escrow is released to the seller only
when the buyer confirms delivery; an order cancelled before shipping refunds the buyer. A buyer
rates the seller once per completed order. Use list_sellers, list_buyers, search_listings and
list_orders to find ids. Amounts are in US dollars. Today is {TODAY.isoformat()}."""

kit = ServerKit(
    "marketplace",
    base=Base,
    seed=seed,
    instructions=INSTRUCTIONS,
    today=TODAY,
    samples={"limit": (5, 10, 20)},
    inline=True,
)

# -- lookups ------------------------------------------------------------------------------------

_MISSING = "No {noun} with id {id!r}. {Noun} ids look like '{example}'; {hint}."
load_seller = Finder(Seller, "seller", "SEL-1001", "use list_sellers to see valid ones", message=_MISSING)
load_buyer = Finder(Buyer, "buyer", "BUY-1001", "use list_buyers to see valid ones", message=_MISSING)
load_listing = Finder(Listing, "listing", "LST-1001", "use search_listings to see valid ones", message=_MISSING)
load_offer = Finder(
    Offer, "offer", "OFR-1001", "use get_listing with the listing's id to see its offers", message=_MISSING
)
load_order = Finder(Order, "order", "ORD-1001", "use list_orders to see valid ones", message=_MISSING)


def choice(value: str, options: Sequence[str], field: str) -> str:
    """A value of a closed set as the server spells it (trimmed, lower case), or a `ToolError` listing the set."""
    wanted = value.strip().lower().replace(" ", "_")
    if wanted not in options:
        raise ToolError(f"{field} must be one of {', '.join(options)}; got {value!r}")
    return wanted


# -- rules --------------------------------------------------------------------------------------


def check_buyable(db: Session, listing: Listing, buyer: Buyer, action: str) -> None:
    """Refuse an offer or a purchase on a listing that is not on sale, or by the listing's own seller."""
    if listing.status == "sold":
        sale = db.scalar(
            select(Order).where(Order.listing_id == listing.id, Order.status != "cancelled").order_by(Order.id.desc())
        )
        when = f" (order {sale.id} on {sale.ordered_on})" if sale else ""
        raise ToolError(
            f"Listing {listing.id} ({listing.title}) is already sold{when}, so it cannot {action}. "
            f"Use search_listings with status 'active' to find a similar item."
        )
    if listing.status == "withdrawn":
        raise ToolError(
            f"Listing {listing.id} ({listing.title}) was withdrawn by its seller, so it cannot {action}. "
            f"Use search_listings with status 'active' to find a similar item."
        )
    if buyer.seller_id == listing.seller_id:
        raise ToolError(
            f"Buyer {buyer.id} ({buyer.name}) is the owner of seller {listing.seller_id}, which listed "
            f"{listing.id}; a seller cannot buy or make offers on their own listing."
        )


def pay_into_escrow(db: Session, listing: Listing, buyer: Buyer, cents: int, offer: Offer | None) -> Order:
    """Sell a listing: debit the buyer into a held escrow, mark the listing sold, settle its pending offers.

    Raises:
        ToolError: The buyer's balance does not cover the price.
    """
    if buyer.balance_cents < cents:
        raise ToolError(
            f"Buyer {buyer.id} has {format_dollars(buyer.balance_cents)} but the order needs "
            f"{format_dollars(cents)}; top up their balance with add_funds (at least "
            f"{format_dollars(cents - buyer.balance_cents)} more) and try again. Nothing was charged."
        )
    order = Order(
        id=next_id(db, Order.id, "ORD"),
        listing_id=listing.id,
        buyer_id=buyer.id,
        seller_id=listing.seller_id,
        offer_id=offer.id if offer else None,
        amount_cents=cents,
        status="paid",
        ordered_on=kit.today,
    )
    db.add(order)
    db.flush()
    db.add(
        Escrow(
            id=next_id(db, Escrow.id, "ESC"),
            order_id=order.id,
            amount_cents=cents,
            status="held",
            held_on=kit.today,
        )
    )
    buyer.balance_cents -= cents
    listing.status = "sold"
    pending = db.scalars(select(Offer).where(Offer.listing_id == listing.id, Offer.status == "pending"))
    for other in pending:
        other.status = "accepted" if offer is not None and other.id == offer.id else "declined"
        other.decided_on = kit.today
    db.flush()
    return order


def escrow_of(db: Session, order: Order) -> Escrow:
    """The escrow of an order (every order has one)."""
    escrow = db.scalar(select(Escrow).where(Escrow.order_id == order.id))
    assert escrow is not None, order.id
    return escrow


def seller_rating(db: Session, seller_id: str) -> tuple[float | None, int]:
    """A seller's average stars (2 decimals; None before any rating) and how many ratings it has."""
    avg, count = db.execute(
        select(func.avg(Rating.stars), func.count(Rating.id)).where(Rating.seller_id == seller_id)
    ).one()
    return (round(float(avg), 2) if avg is not None else None), int(count)


# -- result shapes ------------------------------------------------------------------------------


def seller_view(db: Session, seller: Seller) -> dict[str, Any]:
    """The fields of a seller a model needs, with its rating and number of active listings."""
    rating, count = seller_rating(db, seller.id)
    active = db.scalar(
        select(func.count()).select_from(Listing).where(Listing.seller_id == seller.id, Listing.status == "active")
    )
    return {
        "seller_id": seller.id,
        **pick(seller, "shop_name", "contact_name", "city", "status"),
        "rating": rating,
        "ratings_count": count,
        "active_listings": active,
    }


def listing_view(listing: Listing) -> dict[str, Any]:
    """The fields of a listing a model needs."""
    return {
        "listing_id": listing.id,
        **pick(listing, "seller_id", "title", "category", "condition"),
        "price": dollars(listing.price_cents),
        "floor_price": dollars(listing.floor_cents),
        "status": listing.status,
        "listed_on": listing.listed_on.isoformat(),
    }


def offer_view(offer: Offer) -> dict[str, Any]:
    """The fields of an offer a model needs."""
    return {
        "offer_id": offer.id,
        **pick(offer, "listing_id", "buyer_id"),
        "amount": dollars(offer.amount_cents),
        **pick(offer, "message", "status"),
        "made_on": offer.made_on.isoformat(),
        "decided_on": offer.decided_on.isoformat() if offer.decided_on else None,
    }


def order_view(db: Session, order: Order) -> dict[str, Any]:
    """The fields of an order a model needs, with its escrow and its rating."""
    escrow = escrow_of(db, order)
    rating = db.scalar(select(Rating).where(Rating.order_id == order.id))
    out: dict[str, Any] = {
        "order_id": order.id,
        **pick(order, "listing_id", "buyer_id", "seller_id", "offer_id"),
        "amount": dollars(order.amount_cents),
        "status": order.status,
        "ordered_on": order.ordered_on.isoformat(),
        "escrow": {
            "escrow_id": escrow.id,
            "status": escrow.status,
            "amount": dollars(escrow.amount_cents),
            "settled_on": escrow.settled_on.isoformat() if escrow.settled_on else None,
        },
        "rating": {"rating_id": rating.id, "stars": rating.stars, "comment": rating.comment} if rating else None,
    }
    for name in ("shipped_on", "completed_on", "cancelled_on"):
        value = getattr(order, name)
        if value is not None:
            out[name] = value.isoformat()
    if order.tracking_number:
        out["tracking_number"] = order.tracking_number
    if order.cancel_reason:
        out["cancel_reason"] = order.cancel_reason
    return out
