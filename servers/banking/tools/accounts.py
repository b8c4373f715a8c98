"""Banking tools that read customers, accounts, balances and transactions."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.banking.models import TRANSACTION_KINDS, Account, Card, Customer, Payee, Transaction
from gym_mcp.servers.banking.tools.common import (
    account_brief,
    available_cents,
    customer_rows,
    kit,
    load_account,
    load_customer,
    txn_view,
    withdrawn_today,
)
from gym_mcp.servers.kit import ToolError, check_limit, dollars, parse_date

_DATE_ERROR = "{field} must be a date like 2026-01-15, got {value!r}"


@kit.tool(
    write=False,
    intent="Find the customer matching '{query}'[, showing at most {limit} results]",
    samples={
        "query": ("Garcia", "Larsen", "Rossi", "Thomas", "Okafor", "Sophia", "Jackson", "wei.taylor"),
    },
)
def find_customer(db: Session, query: str, limit: int = 10) -> list[dict[str, Any]]:
    """Search customers by name or email (case-insensitive, partial match).

    Use this first to get a customer id when you only know a name or an email.
    Returns a list of {customer_id, name, email, city}; an empty list means no match.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        query: Part of a first name, last name, full name or email, e.g. "garcia" or "olivia.lee@".
        limit: Maximum number of customers to return, 1 to 100.
    """
    check_limit(limit, end="")
    text = query.strip().lower()
    if len(text) < 2:
        raise ToolError("query must have at least 2 characters, e.g. a last name like 'Garcia'")
    full_name = func.lower(Customer.first_name + " " + Customer.last_name)
    rows = db.scalars(
        select(Customer)
        .where(or_(full_name.contains(text, autoescape=True), Customer.email.contains(text, autoescape=True)))
        .order_by(Customer.id)
        .limit(limit)
    )
    return [{"customer_id": c.id, "name": c.name, "email": c.email, "city": c.city} for c in rows]


@kit.tool(write=False, intent="Show the profile of customer {customer_id}")
def get_customer(db: Session, customer_id: str) -> dict[str, Any]:
    """Get a customer's profile with a summary of their accounts.

    Returns contact details, the date they became a customer, their accounts (id, type, status,
    balance) and how many payees and cards they have.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        customer_id: Customer id, e.g. "CUS-1001".
    """
    customer = load_customer(db, customer_id)
    accounts = db.scalars(select(Account).where(Account.customer_id == customer.id).order_by(Account.id))
    payees = db.scalar(select(func.count()).select_from(Payee).where(Payee.customer_id == customer.id))
    cards = db.scalar(
        select(func.count()).select_from(Card).where(Card.customer_id == customer.id, Card.status != "cancelled")
    )
    return {
        "customer_id": customer.id,
        "name": customer.name,
        "email": customer.email,
        "phone": customer.phone,
        "city": customer.city,
        "customer_since": customer.customer_since.isoformat(),
        "accounts": [
            {"account_id": a.id, "type": a.type, "status": a.status, "balance": dollars(a.balance_cents)}
            for a in accounts
        ],
        "payee_count": payees,
        "card_count": cards,
    }


@kit.tool(write=False, intent="List the accounts of customer {customer_id}")
def list_accounts(db: Session, customer_id: str, include_closed: bool = False) -> list[dict[str, Any]]:
    """List a customer's accounts with type, status and balance.

    Credit accounts also show credit_limit and available_credit (their balance is negative while
    money is owed). Closed accounts are left out unless include_closed is true.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        customer_id: Customer id, e.g. "CUS-1001".
        include_closed: Also list closed accounts.
    """
    accounts = customer_rows(db, Account, customer_id, leave_out=None if include_closed else "closed")
    return [account_brief(a) for a in accounts]


@kit.tool(write=False, intent="Show the full details of account {account_id}")
def get_account(db: Session, account_id: str) -> dict[str, Any]:
    """Get full details of one account: owner, status, balance, limits and today's withdrawals.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account id, e.g. "ACC-1001".
    """
    account = load_account(db, account_id)
    out = account_brief(account)
    out["customer_id"] = account.customer_id
    out["opened_on"] = account.opened_on.isoformat()
    if account.type != "credit":
        withdrawn = withdrawn_today(db, account)
        out["daily_withdrawal_limit"] = dollars(account.daily_withdrawal_limit_cents)
        out["withdrawn_today"] = dollars(withdrawn)
        out["withdrawal_remaining_today"] = dollars(max(account.daily_withdrawal_limit_cents - withdrawn, 0))
    if account.status == "frozen":
        out["freeze_reason"] = account.freeze_reason
    if account.closed_on:
        out["closed_on"] = account.closed_on.isoformat()
    return out


@kit.tool(write=False, intent="Show the balance of account {account_id}")
def get_balance(db: Session, account_id: str) -> dict[str, Any]:
    """Get the current balance of one account and how much can be spent from it.

    Returns {account_id, status, balance, available}; for a credit account also amount_owed
    (available is then the unused credit).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account id, e.g. "ACC-1001".
    """
    account = load_account(db, account_id)
    out: dict[str, Any] = {
        "account_id": account.id,
        "status": account.status,
        "balance": dollars(account.balance_cents),
        "available": dollars(available_cents(account) if account.status == "active" else 0),
    }
    if account.type == "credit":
        out["amount_owed"] = dollars(max(-account.balance_cents, 0))
    return out


@kit.tool(
    write=False,
    intent=(
        "Show the[ {limit} most recent][ {kind}] transactions of account {account_id}"
        "[ from {start_date}][ up to {end_date}]"
    ),
    samples={
        "kind": ("deposit", "withdrawal", "purchase", "payment", "fee", "interest"),
        "start_date": ("2025-10-01", "2025-11-01", "2025-12-01", "2025-12-15"),
        "end_date": ("2025-12-31", "2026-01-10", "2026-01-14", "2026-01-15"),
    },
)
def list_transactions(
    db: Session,
    account_id: str,
    kind: str | None = None,
    start_date: str | None = None,
    end_date: str | None = None,
    limit: int = 20,
) -> dict[str, Any]:
    """List an account's transactions, newest first, with optional filters.

    Amounts are negative for money leaving the account. Returns {account_id, transactions, more};
    more is true when further matching transactions exist beyond the limit.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account id, e.g. "ACC-1001".
        kind: Only this kind: deposit, withdrawal, transfer_in, transfer_out, payment, purchase,
            interest or fee.
        start_date: Earliest posting date, inclusive, e.g. "2025-12-01".
        end_date: Latest posting date, inclusive, e.g. "2026-01-15".
        limit: Maximum number of transactions to return, 1 to 100.
    """
    check_limit(limit, end="")
    account = load_account(db, account_id)
    stmt = select(Transaction).where(Transaction.account_id == account.id)
    if kind is not None:
        if kind.strip().lower() not in TRANSACTION_KINDS:
            raise ToolError(f"kind must be one of {', '.join(TRANSACTION_KINDS)}; got {kind!r}")
        stmt = stmt.where(Transaction.kind == kind.strip().lower())
    start = parse_date(start_date, "start_date", _DATE_ERROR) if start_date else None
    end = parse_date(end_date, "end_date", _DATE_ERROR) if end_date else None
    if start and end and start > end:
        raise ToolError(f"start_date {start} is after end_date {end}; swap them")
    if start:
        stmt = stmt.where(Transaction.posted_on >= start)
    if end:
        stmt = stmt.where(Transaction.posted_on <= end)
    rows = list(db.scalars(stmt.order_by(Transaction.posted_on.desc(), Transaction.id.desc()).limit(limit + 1)))
    return {
        "account_id": account.id,
        "transactions": [txn_view(t) for t in rows[:limit]],
        "more": len(rows) > limit,
    }
