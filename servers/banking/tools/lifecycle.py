"""Banking tools for an account's life: freeze, unfreeze, close, and open a new one."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.banking.models import ACCOUNT_TYPES, Account, Card
from gym_mcp.servers.banking.tools.common import account_brief, card_view, issue_card, kit, load_account, load_customer
from gym_mcp.servers.kit import ToolError, check_length, check_status, format_dollars, next_id

NEW_ACCOUNT_DEFAULTS = {
    "checking": {"daily_withdrawal_limit_cents": 100_000, "credit_limit_cents": 0},
    "savings": {"daily_withdrawal_limit_cents": 50_000, "credit_limit_cents": 0},
    "credit": {"daily_withdrawal_limit_cents": 0, "credit_limit_cents": 200_000},
}

MAX_OPEN_ACCOUNTS = 6
"""Most accounts (not closed) one customer may hold."""


@kit.tool(
    write=True,
    intent="Freeze account {account_id} with the reason '{reason}'",
    samples={
        "reason": ("Suspected fraud", "Customer request", "Card reported stolen", "Identity review", "Unusual activity")
    },
)
def freeze_account(db: Session, account_id: str, reason: str) -> dict[str, Any]:
    """Freeze an active account so no money can leave it (it can still receive money).

    Use for suspected fraud or on the customer's request; unfreeze_account undoes it.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account id, e.g. "ACC-1001".
        reason: Why, 3 to 200 characters, e.g. "Suspected fraud".
    """
    account = load_account(db, account_id)
    reason = check_length(reason.strip(), "reason", 3, 200, ", e.g. 'Suspected fraud'")
    check_status(
        account,
        {
            "closed": f"Account {account.id} is closed; a closed account cannot be frozen.",
            "frozen": f"Account {account.id} is already frozen ({account.freeze_reason}); nothing changed.",
        },
    )
    account.status = "frozen"
    account.freeze_reason = reason
    return {"account_id": account.id, "status": account.status, "freeze_reason": reason}


@kit.tool(write=True, intent="Unfreeze account {account_id}")
def unfreeze_account(db: Session, account_id: str) -> dict[str, Any]:
    """Unfreeze a frozen account so money can leave it again.

    Cards that were locked stay locked; use unlock_card for them.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account id, e.g. "ACC-1001".
    """
    account = load_account(db, account_id)
    if account.status != "frozen":
        raise ToolError(f"Account {account.id} is {account.status}, not frozen; only frozen accounts can be unfrozen.")
    account.status = "active"
    account.freeze_reason = None
    return {"account_id": account.id, "status": account.status}


@kit.tool(write=True, intent="Close account {account_id}", confirm="always")
def close_account(db: Session, account_id: str) -> dict[str, Any]:
    """Close an account for good and cancel its cards.

    The account must be active (unfreeze it first) with a balance of exactly 0.00: move money out
    with transfer_funds or withdraw, or pay off what a credit account owes.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account id, e.g. "ACC-1001".
    """
    account = load_account(db, account_id)
    check_status(
        account,
        {
            "closed": f"Account {account.id} is already closed.",
            "frozen": f"Account {account.id} is frozen; unfreeze it (unfreeze_account) before closing it.",
        },
    )
    if account.balance_cents > 0:
        raise ToolError(
            f"Account {account.id} has a balance of {format_dollars(account.balance_cents)}; it must be exactly "
            "$0.00 to close. Move the money out first (transfer_funds to another account, or withdraw), "
            "then close it."
        )
    if account.balance_cents < 0:
        raise ToolError(
            f"Credit account {account.id} still owes {format_dollars(-account.balance_cents)}; pay it off first "
            "(transfer_funds into it or deposit), then close it."
        )
    account.status = "closed"
    account.closed_on = kit.today
    cancelled = []
    for card in db.scalars(select(Card).where(Card.account_id == account.id, Card.status != "cancelled")):
        card.status = "cancelled"
        cancelled.append(card.id)
    return {
        "account_id": account.id,
        "status": "closed",
        "closed_on": kit.today.isoformat(),
        "cards_cancelled": cancelled,
    }


@kit.tool(
    write=True,
    intent="Open a new {account_type} account for customer {customer_id}[ nicknamed '{nickname}']",
    samples={
        "account_type": ("checking", "savings", "credit"),
        "nickname": ("Vacation Fund", "Emergency Fund", "Holiday Savings", "Joint Checking", "College Fund"),
    },
)
def open_account(db: Session, customer_id: str, account_type: str, nickname: str | None = None) -> dict[str, Any]:
    """Open a new account with a 0.00 balance for a customer.

    A checking account comes with a debit card and a credit account (limit $2,000.00) with a
    credit card. A customer may hold at most 6 accounts that are not closed, and only one open
    credit account. Fund a new account with transfer_funds or deposit.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        customer_id: Customer id, e.g. "CUS-1001".
        account_type: "checking", "savings" or "credit".
        nickname: Optional display name, up to 60 characters, e.g. "Vacation Fund".
    """
    customer = load_customer(db, customer_id)
    kind = account_type.strip().lower()
    if kind not in ACCOUNT_TYPES:
        raise ToolError(f"account_type must be one of {', '.join(ACCOUNT_TYPES)}; got {account_type!r}")
    label = (nickname or "").strip() or {
        "checking": "Checking",
        "savings": "Savings",
        "credit": "Credit Card",
    }[kind]
    if len(label) > 60:
        raise ToolError("nickname must be at most 60 characters")
    held = list(db.scalars(select(Account).where(Account.customer_id == customer.id, Account.status != "closed")))
    if len(held) >= MAX_OPEN_ACCOUNTS:
        raise ToolError(
            f"{customer.id} already holds {len(held)} open accounts, the maximum is {MAX_OPEN_ACCOUNTS}; "
            "close one (close_account) first."
        )
    credit = next((a for a in held if a.type == "credit"), None)
    if kind == "credit" and credit is not None:
        raise ToolError(
            f"{customer.id} already has an open credit account ({credit.id}); only one is allowed per customer."
        )
    account = Account(
        id=next_id(db, Account.id, "ACC"),
        customer_id=customer.id,
        type=kind,
        nickname=label,
        status="active",
        balance_cents=0,
        opened_on=kit.today,
        **NEW_ACCOUNT_DEFAULTS[kind],
    )
    db.add(account)
    db.flush()
    out = account_brief(account)
    out["customer_id"] = customer.id
    if kind != "savings":
        limit = 100_000 if kind == "checking" else account.credit_limit_cents
        out["card"] = card_view(issue_card(db, account, limit))
    return out
