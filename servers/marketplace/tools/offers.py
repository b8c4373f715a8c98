"""Marketplace tools for offers: a buyer offers at least the floor price; the seller accepts or declines."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_status, dollars, format_dollars, next_id, to_cents
from gym_mcp.servers.marketplace.models import Offer, Order
from gym_mcp.servers.marketplace.tools.common import (
    check_buyable,
    kit,
    load_buyer,
    load_listing,
    load_offer,
    offer_view,
    order_view,
    pay_into_escrow,
)


@kit.tool(
    write=True,
    intent="Have buyer {buyer_id} offer ${amount} for listing {listing_id}[ with the message '{message}']",
    samples={
        "amount": (60, 90, 120, 150, 200, 300),
        "message": ("Would you take this?", "Can pick up this weekend.", "Is it still available?"),
    },
)
def make_offer(
    db: Session, listing_id: str, buyer_id: str, amount: float, message: str | None = None
) -> dict[str, Any]:
    """Make an offer on an active listing for a buyer; it stays pending until the seller decides.

    The amount must be at least the listing's floor price (get_listing shows floor_price). A
    sold or withdrawn listing gets no new offers, and a seller cannot make offers on their own
    listing. No money moves until the seller accepts (accept_offer).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        listing_id: Listing id, e.g. "LST-1001".
        buyer_id: Buyer id, e.g. "BUY-1001".
        amount: Offered dollars, at least the floor price, e.g. 85.
        message: A note to the seller, up to 200 characters, e.g. "Can pick up this weekend."
    """
    listing = load_listing(db, listing_id)
    buyer = load_buyer(db, buyer_id)
    cents = to_cents(amount)
    note = (message or "").strip()
    if len(note) > 200:
        raise ToolError("message must be at most 200 characters")
    check_buyable(db, listing, buyer, "get new offers")
    if cents < listing.floor_cents:
        raise ToolError(
            f"An offer of {format_dollars(cents)} is too low for listing {listing.id}: its floor price is "
            f"{format_dollars(listing.floor_cents)} (asking {format_dollars(listing.price_cents)}). Offer at least "
            f"{format_dollars(listing.floor_cents)}, or buy it at the asking price with buy_now."
        )
    offer = Offer(
        id=next_id(db, Offer.id, "OFR"),
        listing_id=listing.id,
        buyer_id=buyer.id,
        amount_cents=cents,
        message=note,
        status="pending",
        made_on=kit.today,
    )
    db.add(offer)
    db.flush()
    return offer_view(offer)


def _check_pending(db: Session, offer: Offer, action: str) -> None:
    """Refuse to decide an offer that was already decided (the message says how)."""
    order = db.scalar(select(Order).where(Order.offer_id == offer.id))
    check_status(
        offer,
        {
            "accepted": f"Offer {offer.id} was already accepted on {offer.decided_on}"
            + (f" (order {order.id})" if order else "")
            + f"; only a pending offer can be {action}.",
            "declined": f"Offer {offer.id} was declined on {offer.decided_on}; only a pending offer can be {action}. "
            "The buyer can make a new offer with make_offer.",
        },
    )


@kit.tool(write=True, intent="Accept offer {offer_id}", confirm="always")
def accept_offer(db: Session, offer_id: str) -> dict[str, Any]:
    """Accept a pending offer for the seller: the buyer pays the offered amount into escrow. Irreversible.

    Creates a paid order, debits the buyer's balance into escrow (it must cover the amount; see
    list_buyers), marks the listing sold and declines its other pending offers. Returns the order.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        offer_id: Offer id, e.g. "OFR-1001".
    """
    offer = load_offer(db, offer_id)
    _check_pending(db, offer, "accepted")
    listing = load_listing(db, offer.listing_id)
    buyer = load_buyer(db, offer.buyer_id)
    check_buyable(db, listing, buyer, "be sold")
    order = pay_into_escrow(db, listing, buyer, offer.amount_cents, offer)
    return {**order_view(db, order), "buyer_balance": dollars(buyer.balance_cents)}


@kit.tool(write=True, intent="Decline offer {offer_id}")
def decline_offer(db: Session, offer_id: str) -> dict[str, Any]:
    """Decline a pending offer for the seller; the listing stays on sale and the buyer may offer again.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        offer_id: Offer id, e.g. "OFR-1001".
    """
    offer = load_offer(db, offer_id)
    _check_pending(db, offer, "declined")
    offer.status, offer.decided_on = "declined", kit.today
    return offer_view(offer)
