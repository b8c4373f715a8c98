"""Trading tools for accounts and their cash: find accounts, see buying power, deposit and withdraw."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_limit, dollars, format_dollars, next_id, to_cents
from gym_mcp.servers.trading.models import Account, CashMovement, Order, Position, Watchlist
from gym_mcp.servers.trading.tools.common import account_summary, kit, load_account, now, reserved_cash


@kit.tool(
    write=False,
    intent="List the brokerage accounts[ whose owner matches '{query}'][, showing at most {limit}]",
    samples={"query": ("Garcia", "Chen", "Patel", "Nguyen", "Smith", "Kim", "Larsen", "gmail")},
)
def list_accounts(db: Session, query: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
    """List brokerage accounts, optionally only those whose owner name or email matches a text.

    Use this first to get an account id when you know the owner's name. Returns a list of
    {account_id, owner, email, type, cash}; an empty list means no match.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        query: Part of the owner's name or email, case-insensitive, e.g. "garcia"; omit to list all.
        limit: Maximum number of accounts to return, 1 to 100.
    """
    check_limit(limit)
    stmt = select(Account)
    if query is not None:
        text = query.strip().lower()
        if len(text) < 2:
            raise ToolError(
                "query must have at least 2 characters, e.g. a last name like 'Garcia'; omit it to list all"
            )
        stmt = stmt.where(
            or_(
                func.lower(Account.owner).contains(text, autoescape=True), Account.email.contains(text, autoescape=True)
            )
        )
    rows = db.scalars(stmt.order_by(Account.id).limit(limit))
    return [
        {"account_id": a.id, "owner": a.owner, "email": a.email, "type": a.type, "cash": dollars(a.cash_cents)}
        for a in rows
    ]


@kit.tool(write=False, intent="Show the cash, buying power and value of account {account_id}")
def get_account(db: Session, account_id: str) -> dict[str, Any]:
    """Get an account's cash, buying power and total value.

    buying_power is cash less reserved_for_open_orders (what open buy limit orders hold back); a buy
    costing more is refused. positions_value counts every position at its last price, and
    total_value is cash plus positions_value. Also shows how many positions, open orders and
    watchlists the account has.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account id, e.g. "ACC-1001".
    """
    account = load_account(db, account_id)
    positions = list(db.scalars(select(Position).where(Position.account_id == account.id)))
    open_orders = db.scalar(
        select(func.count()).select_from(Order).where(Order.account_id == account.id, Order.status == "open")
    )
    watchlists = db.scalar(select(func.count()).select_from(Watchlist).where(Watchlist.account_id == account.id))
    return {
        **account_summary(db, account, positions),
        "email": account.email,
        "opened_on": account.opened_on.isoformat(),
        "position_count": len(positions),
        "open_order_count": open_orders,
        "watchlist_count": watchlists,
    }


def _move(db: Session, account: Account, kind: str, cents: int) -> dict[str, Any]:
    account.cash_cents += cents
    move = CashMovement(
        id=next_id(db, CashMovement.id, "CSH"),
        account_id=account.id,
        kind=kind,
        amount_cents=cents,
        cash_after_cents=account.cash_cents,
        posted_at=now(),
    )
    db.add(move)
    db.flush()
    reserved = reserved_cash(db, account)
    return {
        "movement_id": move.id,
        "account_id": account.id,
        "kind": kind,
        "amount": dollars(abs(cents)),
        "cash": dollars(account.cash_cents),
        "buying_power": dollars(account.cash_cents - reserved),
    }


@kit.tool(
    write=True,
    intent="Deposit ${amount} into account {account_id}",
    samples={"amount": (100, 250, 500, 1000, 2500, 10000, 1234.56)},
)
def deposit_cash(db: Session, account_id: str, amount: float) -> dict[str, Any]:
    """Deposit cash into an account; it adds to cash and buying power at once.

    At most $1,000,000.00 per deposit. Returns the movement id and the new cash and buying power.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account to credit, e.g. "ACC-1001".
        amount: Dollars, greater than 0 with at most 2 decimals, e.g. 2500.00.
    """
    account = load_account(db, account_id)
    return _move(db, account, "deposit", to_cents(amount))


@kit.tool(
    write=True,
    intent="Withdraw ${amount} in cash from account {account_id}",
    samples={"amount": (50, 100, 250, 500, 1000, 2000)},
    confirm="amount >= 1000",
)
def withdraw_cash(db: Session, account_id: str, amount: float) -> dict[str, Any]:
    """Withdraw cash from an account to the owner's bank.

    Only the buying power can be withdrawn: cash reserved by open buy orders stays until those
    orders fill or are cancelled (cancel_order). Shares are not sold for you; sell first if needed.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account to debit, e.g. "ACC-1001".
        amount: Dollars, greater than 0 with at most 2 decimals, e.g. 500.00.
    """
    account = load_account(db, account_id)
    cents = to_cents(amount)
    reserved = reserved_cash(db, account)
    available = account.cash_cents - reserved
    if cents > available:
        held = f" ({format_dollars(reserved)} of its cash is reserved by open buy orders)" if reserved else ""
        raise ToolError(
            f"Insufficient buying power in {account.id}: at most {format_dollars(max(available, 0))} can be withdrawn"
            f"{held}, not {format_dollars(cents)}. Withdraw less, or cancel open buy orders (cancel_order) first."
        )
    return _move(db, account, "withdrawal", -cents)
