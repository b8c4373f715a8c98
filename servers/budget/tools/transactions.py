"""Budget tools for transactions: list them, add one (under the overspend rule), move or delete one."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.budget.models import Account, Category, Transaction
from gym_mcp.servers.budget.tools.common import (
    budget_check,
    budget_view,
    kit,
    load_account,
    load_category,
    load_transaction,
    month_of,
    month_range,
    parse_month,
    post_spending,
    transaction_view,
)
from gym_mcp.servers.kit import (
    ToolError,
    check_length,
    check_limit,
    dollars,
    format_dollars,
    next_id,
    parse_date,
    to_cents,
)

BACKDATE_DAYS = 60
"""A transaction can be dated at most this many days back."""
PAYEES = ("FreshMart", "Cafe Aroma", "Metro Transit", "Amazon", "Cineplex", "CVS Pharmacy")


@kit.tool(
    write=False,
    intent="List transactions[ of account {account_id}][ in category {category_id}][ from {month}][, at most {limit}]",
    samples={"month": ("2025-11", "2025-12", "2026-01")},
)
def list_transactions(
    db: Session,
    account_id: str | None = None,
    category_id: str | None = None,
    month: str | None = None,
    flagged_only: bool = False,
    limit: int = 20,
) -> dict[str, Any]:
    """List transactions, newest first, filtered by account, category, month or flag.

    flagged marks a transaction that went over a flag-policy budget. Returns {transactions,
    more}; more is true when further matches exist beyond the limit.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Only this account's transactions, e.g. "ACC-1001".
        category_id: Only this category's transactions, e.g. "CAT-1001".
        month: Only this month, as "YYYY-MM", e.g. "2026-01".
        flagged_only: Only flagged transactions (false by default).
        limit: Maximum number of transactions to return, 1 to 100, e.g. 20.
    """
    check_limit(limit)
    stmt = select(Transaction)
    if account_id is not None:
        stmt = stmt.where(Transaction.account_id == load_account(db, account_id).id)
    if category_id is not None:
        stmt = stmt.where(Transaction.category_id == load_category(db, category_id).id)
    if month is not None:
        first, after = month_range(parse_month(month))
        stmt = stmt.where(Transaction.posted_on >= first, Transaction.posted_on < after)
    if flagged_only:
        stmt = stmt.where(Transaction.flagged.is_(True))
    rows = list(db.scalars(stmt.order_by(Transaction.posted_on.desc(), Transaction.id.desc()).limit(limit + 1)))
    return {"transactions": [transaction_view(db, t) for t in rows[:limit]], "more": len(rows) > limit}


@kit.tool(
    write=True,
    intent=(
        "Record a ${amount} transaction at {payee} from account {account_id} in category {category_id}[ on {posted_on}]"
    ),
    samples={"payee": PAYEES, "posted_on": ("2026-01-10", "2026-01-14", "2026-01-15")},
)
def add_transaction(
    db: Session, account_id: str, category_id: str, amount: float, payee: str, posted_on: str | None = None
) -> dict[str, Any]:
    """Record money out (expense category) or in (income category) of an account.

    An expense must fit the account (its balance, or a card's credit left) and its category's
    budget for the month: over a "block" budget it is refused, over a "flag" budget it is recorded
    with flagged true and a warning. The date is today by default, never in the future and at
    most 60 days back.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account id, e.g. "ACC-1001".
        category_id: Category id, e.g. "CAT-1001".
        amount: Dollars, greater than 0 with at most 2 decimals, e.g. 42.50.
        payee: Who was paid or paid you, 2 to 80 characters, e.g. "FreshMart".
        posted_on: The date, ISO format, e.g. "2026-01-14"; defaults to today.
    """
    account = load_account(db, account_id)
    category = load_category(db, category_id)
    cents = to_cents(amount)
    who = check_length(payee.strip(), "payee", 2, 80, ", e.g. 'FreshMart'")
    day = kit.today if posted_on is None else parse_date(posted_on, "posted_on")
    earliest = kit.today - timedelta(days=BACKDATE_DAYS)
    if not earliest <= day <= kit.today:
        raise ToolError(f"posted_on {day} is out of range: use a date from {earliest} to today ({kit.today}).")
    flagged, budget = post_spending(db, account, category, cents, month_of(day))
    txn = Transaction(
        id=next_id(db, Transaction.id, "TXN"),
        account_id=account.id,
        category_id=category.id,
        posted_on=day,
        amount_cents=cents,
        payee=who,
        flagged=flagged,
    )
    db.add(txn)
    db.flush()
    out = {**transaction_view(db, txn), "account_balance": dollars(account.balance_cents)}
    if budget is not None:
        out["budget"] = budget_view(db, budget)
    if flagged:
        out["warning"] = f"Over the {month_of(day)} budget of {category.name}; the transaction is flagged."
    return out


@kit.tool(write=True, intent="Move transaction {transaction_id} to category {category_id}")
def recategorize_transaction(db: Session, transaction_id: str, category_id: str) -> dict[str, Any]:
    """Move a transaction to another category of the same kind (expense to expense, income to income).

    The new category's budget for the transaction's month applies as for a new transaction: a
    "block" budget refuses the move if it would go over, a "flag" budget flags it.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        transaction_id: Transaction id, e.g. "TXN-1001".
        category_id: The new category id, e.g. "CAT-1002".
    """
    txn = load_transaction(db, transaction_id)
    target = load_category(db, category_id)
    current = db.get(Category, txn.category_id)
    assert current is not None
    if target.id == current.id:
        raise ToolError(f"{txn.id} is already in {target.id} ({target.name}); nothing changed.")
    if target.kind != current.kind:
        raise ToolError(
            f"{txn.id} is {current.kind} ({current.name}) and {target.id} ({target.name}) is an {target.kind} "
            "category; a transaction can only move to a category of the same kind."
        )
    flagged, _ = budget_check(db, target, month_of(txn.posted_on), txn.amount_cents)
    txn.category_id = target.id
    txn.flagged = flagged
    db.flush()
    return {**transaction_view(db, txn), "moved_from_category_id": current.id}


@kit.tool(write=True, intent="Delete transaction {transaction_id}", confirm="always")
def delete_transaction(db: Session, transaction_id: str) -> dict[str, Any]:
    """Delete a transaction and undo it on its account. Irreversible.

    Only transactions of the current or the previous month can be deleted; older months are
    closed. Money in cannot be taken back when the account no longer holds it.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        transaction_id: Transaction id, e.g. "TXN-1001".
    """
    txn = load_transaction(db, transaction_id)
    first_open = (kit.today.replace(day=1) - timedelta(days=1)).replace(day=1)
    if txn.posted_on < first_open:
        raise ToolError(
            f"{txn.id} was posted on {txn.posted_on}, in a closed month; only transactions from {first_open} on "
            "can be deleted."
        )
    account = db.get(Account, txn.account_id)
    category = db.get(Category, txn.category_id)
    assert account is not None
    assert category is not None
    if category.kind == "expense":
        account.balance_cents += txn.amount_cents
    else:
        if account.type != "credit" and txn.amount_cents > account.balance_cents:
            raise ToolError(
                f"{txn.id} brought in {format_dollars(txn.amount_cents)} but {account.id} now holds only "
                f"{format_dollars(account.balance_cents)}; it cannot be undone."
            )
        account.balance_cents -= txn.amount_cents
    view = transaction_view(db, txn)
    db.delete(txn)
    return {"deleted": view, "account_balance": dollars(account.balance_cents)}
