"""Budget tools for accounts: list them, move money between two of them."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.budget.models import Account, Transfer
from gym_mcp.servers.budget.tools.common import available_cents, kit, load_account
from gym_mcp.servers.kit import ToolError, dollars, format_dollars, next_id, pick, to_cents


def _account_view(account: Account) -> dict[str, Any]:
    """The fields of an account a model needs; ``available`` is what can be spent from it."""
    out = {"account_id": account.id, **pick(account, "name", "type", "institution")}
    out["balance"] = dollars(account.balance_cents)
    if account.credit_limit_cents is not None:
        out["credit_limit"] = dollars(account.credit_limit_cents)
    out["available"] = dollars(available_cents(account))
    return out


@kit.tool(write=False, intent="Show my accounts and their balances")
def list_accounts(db: Session) -> list[dict[str, Any]]:
    """List the household's accounts with balance and what is available to spend.

    A credit card's balance is negative when money is owed; its available amount is the credit
    limit plus that balance.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
    """
    return [_account_view(a) for a in db.scalars(select(Account).order_by(Account.id))]


@kit.tool(
    write=True,
    intent="Move ${amount} from account {from_account_id} to account {to_account_id}",
    confirm="amount >= 1000",
)
def transfer_between_accounts(db: Session, from_account_id: str, to_account_id: str, amount: float) -> dict[str, Any]:
    """Move money from a checking or savings account to another account (paying a credit card pays it down).

    A credit card cannot send money (no cash advances). The source must hold the amount, and a
    card cannot be paid more than is owed on it.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        from_account_id: Account to take the money from, e.g. "ACC-1001".
        to_account_id: Account to put it in, e.g. "ACC-1002".
        amount: Dollars, greater than 0 with at most 2 decimals, e.g. 250.
    """
    source = load_account(db, from_account_id, "from_account_id")
    target = load_account(db, to_account_id, "to_account_id")
    cents = to_cents(amount)
    if source.id == target.id:
        raise ToolError(f"from_account_id and to_account_id are both {source.id}; pick two different accounts.")
    if source.type == "credit":
        raise ToolError(
            f"{source.id} ({source.name}) is a credit card and cannot send money; transfer from a checking or "
            "savings account."
        )
    if cents > source.balance_cents:
        raise ToolError(
            f"Not enough money in {source.id} ({source.name}): it holds {format_dollars(source.balance_cents)}, "
            f"the transfer is {format_dollars(cents)}."
        )
    if target.type == "credit" and cents > -target.balance_cents:
        raise ToolError(
            f"{target.id} ({target.name}) owes {format_dollars(max(0, -target.balance_cents))}; a card cannot be "
            "paid more than it owes."
        )
    source.balance_cents -= cents
    target.balance_cents += cents
    transfer = Transfer(
        id=next_id(db, Transfer.id, "TRF"),
        from_account_id=source.id,
        to_account_id=target.id,
        amount_cents=cents,
        made_on=kit.today,
    )
    db.add(transfer)
    db.flush()
    return {
        "transfer_id": transfer.id,
        "amount": dollars(cents),
        "from": _account_view(source),
        "to": _account_view(target),
    }
