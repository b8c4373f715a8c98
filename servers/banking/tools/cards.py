"""Banking tools for debit and credit cards: list, lock, unlock, replace, change limits."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from gym_mcp.servers.banking.models import Account, Card
from gym_mcp.servers.banking.tools.common import card_view, customer_rows, issue_card, kit, load_card
from gym_mcp.servers.kit import ToolError, check_status, dollars, format_dollars, to_cents

DEBIT_CARD_LIMITS = (5_000, 500_000)
"""Bounds of a debit card's daily limit, in cents ($50.00 to $5,000.00)."""

MIN_CREDIT_CARD_LIMIT = 5_000
"""Lowest daily limit of a credit card, in cents; the highest is the account's credit limit."""


@kit.tool(write=False, intent="List the cards of customer {customer_id}")
def list_cards(db: Session, customer_id: str, include_cancelled: bool = False) -> list[dict[str, Any]]:
    """List a customer's debit and credit cards with status and daily limit.

    Cancelled cards are left out unless include_cancelled is true.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        customer_id: Customer id, e.g. "CUS-1001".
        include_cancelled: Also list cancelled cards (with the card that replaced them).
    """
    cards = customer_rows(db, Card, customer_id, leave_out=None if include_cancelled else "cancelled")
    return [card_view(c) for c in cards]


@kit.tool(write=True, intent="Temporarily lock card {card_id}")
def lock_card(db: Session, card_id: str) -> dict[str, Any]:
    """Temporarily lock an active card (e.g. misplaced); unlock_card undoes it.

    If the card is lost or stolen for good, use report_card_lost instead.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        card_id: Card id, e.g. "CRD-1001".
    """
    card = load_card(db, card_id)
    check_status(
        card,
        {
            "cancelled": f"Card {card.id} is cancelled and cannot be locked; it no longer works anyway.",
            "locked": f"Card {card.id} is already locked; nothing changed.",
        },
    )
    card.status = "locked"
    return card_view(card)


@kit.tool(write=True, intent="Unlock card {card_id}")
def unlock_card(db: Session, card_id: str) -> dict[str, Any]:
    """Unlock a locked card so it works again.

    Cancelled cards cannot be unlocked, and cards on a frozen account stay locked until the
    account is unfrozen.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        card_id: Card id, e.g. "CRD-1001".
    """
    card = load_card(db, card_id)
    replacement = f" Its replacement is {card.replaced_by}." if card.replaced_by else ""
    check_status(
        card,
        {
            "cancelled": f"Card {card.id} is cancelled and cannot be unlocked.{replacement} Use list_cards to find "
            "the customer's active cards.",
            "active": f"Card {card.id} is already active (not locked); nothing changed.",
        },
    )
    account = db.get(Account, card.account_id)
    if account is not None and account.status == "frozen":
        raise ToolError(
            f"Card {card.id} is on frozen account {account.id}; unfreeze the account (unfreeze_account) "
            "before unlocking its cards."
        )
    card.status = "active"
    return card_view(card)


@kit.tool(write=True, intent="Report card {card_id} as lost or stolen and issue a replacement", confirm="always")
def report_card_lost(db: Session, card_id: str) -> dict[str, Any]:
    """Report a card lost or stolen: cancel it for good and issue a replacement card.

    The replacement has a new id and number, the same account and daily limit. Returns both
    cards.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        card_id: Card id, e.g. "CRD-1001".
    """
    card = load_card(db, card_id)
    if card.status == "cancelled":
        hint = f" (replaced by {card.replaced_by})" if card.replaced_by else ""
        raise ToolError(f"Card {card.id} is already cancelled{hint}; there is nothing to report.")
    account = db.get(Account, card.account_id)
    if account is None or account.status == "closed":
        raise ToolError(f"Card {card.id}'s account is closed; no replacement can be issued.")
    card.status = "cancelled"
    new = issue_card(db, account, card.daily_limit_cents)
    if account.status == "frozen":
        new.status = "locked"
    card.replaced_by = new.id
    return {"cancelled": card_view(card), "replacement": card_view(new)}


@kit.tool(
    write=True,
    intent="Set the daily limit of card {card_id} to ${daily_limit}",
    samples={"daily_limit": (100, 250, 500, 750, 1000)},
)
def set_card_limit(db: Session, card_id: str, daily_limit: float) -> dict[str, Any]:
    """Change a card's daily spending limit.

    Debit cards allow $50.00 to $5,000.00; credit cards $50.00 up to the credit limit of their
    account. Cancelled cards cannot be changed.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        card_id: Card id, e.g. "CRD-1001".
        daily_limit: New daily limit in dollars, at most 2 decimals, e.g. 1500.00.
    """
    card = load_card(db, card_id)
    if card.status == "cancelled":
        raise ToolError(f"Card {card.id} is cancelled; its limit cannot be changed. Use list_cards for active cards.")
    cents = to_cents(daily_limit, "daily_limit")
    if card.type == "debit":
        low, high = DEBIT_CARD_LIMITS
        where = "for a debit card"
    else:
        account = db.get(Account, card.account_id)
        low, high = MIN_CREDIT_CARD_LIMIT, account.credit_limit_cents if account else MIN_CREDIT_CARD_LIMIT
        where = f"for this credit card (its account {card.account_id} has a {format_dollars(high)} credit limit)"
    if not low <= cents <= high:
        raise ToolError(
            f"daily_limit {format_dollars(cents)} is out of bounds: it must be {format_dollars(low)} to "
            f"{format_dollars(high)} {where}."
        )
    old = card.daily_limit_cents
    card.daily_limit_cents = cents
    return {**card_view(card), "previous_daily_limit": dollars(old)}
