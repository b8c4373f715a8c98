"""Tools of the banking server: look up customers and accounts, move money, manage payees and cards.

Amounts are in dollars (numbers with at most 2 decimals) and always come back rounded to cents.
A credit account's balance is negative while money is owed on it. Every "today" rule (daily
withdrawal limits, posting dates, card issue dates) uses the kit's fixed date, so episodes
replay identically.
"""

from __future__ import annotations

import math
import re
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any

from sqlalchemy import Integer, cast, func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.banking.data import seed
from gym_mcp.servers.banking.models import (
    ACCOUNT_TYPES,
    BANK_NAME,
    TODAY,
    TRANSACTION_KINDS,
    Account,
    Base,
    Card,
    Customer,
    Payee,
    Transaction,
)
from gym_mcp.servers.kit import ServerKit, ToolError

__all__ = ["kit"]

INSTRUCTIONS = f"""\
Retail banking back office of {BANK_NAME}. Customers (ids like "CUS-1001") hold checking,
savings and credit accounts ("ACC-1001"), payees ("PAY-1001") and debit/credit cards
("CRD-1001"); every posted entry is a transaction ("TXN-10001"). Find a customer with
find_customer, then list_accounts / list_payees / list_cards to get the other ids.
Amounts are dollars with at most 2 decimals. A credit account's balance is negative while money
is owed; paying it down is a deposit or a transfer into it. Money cannot leave a frozen or closed
account; frozen accounts can still receive money. Today is {TODAY.isoformat()}."""

kit = ServerKit("banking", base=Base, seed=seed, instructions=INSTRUCTIONS, today=TODAY)

MAX_AMOUNT_CENTS = 100_000_000
"""Largest single amount a tool accepts ($1,000,000.00)."""
DEBIT_CARD_LIMITS = (5_000, 500_000)
"""Bounds of a debit card's daily limit, in cents ($50.00 to $5,000.00)."""
MIN_CREDIT_CARD_LIMIT = 5_000
"""Lowest daily limit of a credit card, in cents; the highest is the account's credit limit."""
NEW_ACCOUNT_DEFAULTS = {
    "checking": {"daily_withdrawal_limit_cents": 100_000, "credit_limit_cents": 0},
    "savings": {"daily_withdrawal_limit_cents": 50_000, "credit_limit_cents": 0},
    "credit": {"daily_withdrawal_limit_cents": 0, "credit_limit_cents": 200_000},
}
MAX_OPEN_ACCOUNTS = 6
"""Most accounts (not closed) one customer may hold."""
_EXTERNAL_NUMBER = re.compile(r"^\d{6,17}$")
_INTERNAL_NUMBER = re.compile(r"^ACC-\d+$")


# -- helpers -----------------------------------------------------------------------------------


def _money(cents: int) -> float:
    """Cents as a dollar number with 2 decimals."""
    return round(cents / 100, 2)


def _fmt(cents: int) -> str:
    """Cents as display text, e.g. ``$1,234.50`` or ``-$12.00``."""
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) / 100:,.2f}"


def _to_cents(amount: float, field: str = "amount") -> int:
    """Validate a dollar amount (> 0, at most 2 decimals, at most $1,000,000) and return cents."""
    if not math.isfinite(amount):
        raise ToolError(f"{field} must be a finite number of dollars, e.g. 25.50")
    try:
        exact = Decimal(str(amount))
    except InvalidOperation:
        raise ToolError(f"{field} must be a number of dollars, e.g. 25.50") from None
    if exact <= 0:
        raise ToolError(f"{field} must be greater than 0, got {amount}; pass a positive dollar amount, e.g. 25.50")
    if exact != exact.quantize(Decimal("0.01")):
        raise ToolError(f"{field} {amount} has more than 2 decimals; round it to cents, e.g. 25.50")
    cents = int(exact * 100)
    if cents > MAX_AMOUNT_CENTS:
        raise ToolError(f"{field} {_fmt(cents)} is over the {_fmt(MAX_AMOUNT_CENTS)} maximum per operation")
    return cents


def _check_limit(limit: int) -> None:
    """Reject a list limit outside 1..100."""
    if not 1 <= limit <= 100:
        raise ToolError(f"limit must be between 1 and 100, got {limit}")


def _norm(value: str) -> str:
    """Normalise an id as typed by a model: trimmed, upper case."""
    return value.strip().upper()


def _next_id(db: Session, model: type[Base], prefix: str, first: int) -> str:
    """Next id after the largest one in a table, e.g. ``ACC-1122`` (deterministic, replayable)."""
    column = model.__table__.c.id
    top = db.scalar(select(func.max(cast(func.substr(column, len(prefix) + 2), Integer))))
    return f"{prefix}-{(top or first - 1) + 1}"


def _customer(db: Session, customer_id: str) -> Customer:
    """Load a customer or explain how to find a valid id."""
    customer = db.get(Customer, _norm(customer_id))
    if customer is None:
        raise ToolError(
            f"No customer with id {customer_id!r}. Customer ids look like 'CUS-1001'; "
            "use find_customer with a name or email to look one up."
        )
    return customer


def _account(db: Session, account_id: str) -> Account:
    """Load an account or explain how to find a valid id."""
    account = db.get(Account, _norm(account_id))
    if account is None:
        raise ToolError(
            f"No account with id {account_id!r}. Account ids look like 'ACC-1001'; "
            "use list_accounts with the customer's id (find_customer gives it) to see valid ones."
        )
    return account


def _payee(db: Session, payee_id: str) -> Payee:
    """Load a payee or explain how to find a valid id."""
    payee = db.get(Payee, _norm(payee_id))
    if payee is None:
        raise ToolError(
            f"No payee with id {payee_id!r}. Payee ids look like 'PAY-1001'; "
            "use list_payees with the customer's id to see valid ones."
        )
    return payee


def _card(db: Session, card_id: str) -> Card:
    """Load a card or explain how to find a valid id."""
    card = db.get(Card, _norm(card_id))
    if card is None:
        raise ToolError(
            f"No card with id {card_id!r}. Card ids look like 'CRD-1001'; "
            "use list_cards with the customer's id to see valid ones."
        )
    return card


def _available(account: Account) -> int:
    """Money that can leave the account, in cents (credit accounts: unused credit)."""
    return account.balance_cents + account.credit_limit_cents


def _withdrawn_today(db: Session, account: Account) -> int:
    """Cash withdrawn from the account today, in cents (positive)."""
    total = db.scalar(
        select(func.coalesce(func.sum(Transaction.amount_cents), 0)).where(
            Transaction.account_id == account.id,
            Transaction.kind == "withdrawal",
            Transaction.posted_on == kit.today,
        )
    )
    return -int(total or 0)


def _check_can_send(account: Account, cents: int) -> None:
    """Money may leave only an active account that holds enough of it."""
    if account.status == "frozen":
        reason = f" ({account.freeze_reason})" if account.freeze_reason else ""
        raise ToolError(
            f"Account {account.id} is frozen{reason}; money cannot leave a frozen account. "
            "Use another active account of the customer (list_accounts), or unfreeze_account once the "
            "reason is resolved."
        )
    if account.status == "closed":
        raise ToolError(
            f"Account {account.id} is closed; money cannot leave it. "
            "Use one of the customer's active accounts (list_accounts)."
        )
    available = _available(account)
    if cents > available:
        what = "available credit" if account.type == "credit" else "balance"
        raise ToolError(
            f"Insufficient funds in {account.id}: {what} is {_fmt(available)} but the amount is "
            f"{_fmt(cents)}. "
            f"Use an amount of at most {_fmt(max(available, 0))}, or another account (list_accounts)."
        )


def _check_can_receive(account: Account, cents: int) -> None:
    """Money may go into any account that is not closed; a credit account only up to what it owes."""
    if account.status == "closed":
        raise ToolError(
            f"Account {account.id} is closed and cannot receive money. "
            "Use one of the customer's active accounts (list_accounts)."
        )
    if account.type == "credit" and cents > -account.balance_cents:
        owed = max(-account.balance_cents, 0)
        raise ToolError(
            f"{account.id} is a credit account that owes {_fmt(owed)}; a payment into it cannot exceed the "
            f"amount owed. Send at most {_fmt(owed)}."
        )


def _post(
    db: Session,
    account: Account,
    kind: str,
    cents: int,
    description: str,
    counterparty: str | None = None,
) -> Transaction:
    """Apply a signed amount to an account and record the transaction."""
    account.balance_cents += cents
    txn = Transaction(
        id=_next_id(db, Transaction, "TXN", 10001),
        account_id=account.id,
        kind=kind,
        amount_cents=cents,
        balance_after_cents=account.balance_cents,
        description=description[:200],
        counterparty=counterparty,
        posted_on=kit.today,
    )
    db.add(txn)
    db.flush()
    return txn


def _account_brief(account: Account) -> dict[str, Any]:
    """The fields of an account a model needs in a list."""
    out: dict[str, Any] = {
        "account_id": account.id,
        "type": account.type,
        "nickname": account.nickname,
        "status": account.status,
        "balance": _money(account.balance_cents),
    }
    if account.type == "credit":
        out["credit_limit"] = _money(account.credit_limit_cents)
        out["available_credit"] = _money(_available(account))
    return out


def _card_view(card: Card) -> dict[str, Any]:
    """The fields of a card a model needs."""
    out: dict[str, Any] = {
        "card_id": card.id,
        "type": card.type,
        "account_id": card.account_id,
        "last4": card.last4,
        "status": card.status,
        "daily_limit": _money(card.daily_limit_cents),
        "expires": card.expires,
    }
    if card.replaced_by:
        out["replaced_by"] = card.replaced_by
    return out


def _payee_view(payee: Payee) -> dict[str, Any]:
    """The fields of a payee a model needs."""
    return {
        "payee_id": payee.id,
        "name": payee.name,
        "bank_name": payee.bank_name,
        "account_number": payee.account_number,
    }


def _txn_view(txn: Transaction) -> dict[str, Any]:
    """The fields of a transaction a model needs."""
    out: dict[str, Any] = {
        "transaction_id": txn.id,
        "date": txn.posted_on.isoformat(),
        "kind": txn.kind,
        "amount": _money(txn.amount_cents),
        "balance_after": _money(txn.balance_after_cents),
        "description": txn.description,
    }
    if txn.counterparty:
        out["counterparty"] = txn.counterparty
    return out


def _parse_date(value: str, field: str) -> date:
    """Parse an ISO date argument."""
    try:
        return date.fromisoformat(value.strip())
    except ValueError:
        raise ToolError(f"{field} must be a date like 2026-01-15, got {value!r}") from None


def _issue_card(db: Session, account: Account, daily_limit_cents: int) -> Card:
    """Issue a new active card on an account (id and last 4 digits follow from the id number)."""
    card_id = _next_id(db, Card, "CRD", 1001)
    number = int(card_id.split("-")[1])
    card = Card(
        id=card_id,
        customer_id=account.customer_id,
        account_id=account.id,
        type="debit" if account.type == "checking" else "credit",
        last4=f"{(number * 7919 + 4321) % 10000:04d}",
        status="active",
        daily_limit_cents=daily_limit_cents,
        issued_on=kit.today,
        expires=f"{kit.today.month:02d}/{kit.today.year + 4}",
    )
    db.add(card)
    db.flush()
    return card


# -- customers and accounts (read) --------------------------------------------------------------


@kit.tool(
    write=False,
    intent="Find the customer matching '{query}'[, showing at most {limit} results]",
    samples={
        "query": ("Garcia", "Larsen", "Rossi", "Thomas", "Okafor", "Sophia", "Jackson", "wei.taylor"),
        "limit": (3, 5, 10, 20),
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
    _check_limit(limit)
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
    customer = _customer(db, customer_id)
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
            {"account_id": a.id, "type": a.type, "status": a.status, "balance": _money(a.balance_cents)}
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
    customer = _customer(db, customer_id)
    stmt = select(Account).where(Account.customer_id == customer.id)
    if not include_closed:
        stmt = stmt.where(Account.status != "closed")
    return [_account_brief(a) for a in db.scalars(stmt.order_by(Account.id))]


@kit.tool(write=False, intent="Show the full details of account {account_id}")
def get_account(db: Session, account_id: str) -> dict[str, Any]:
    """Get full details of one account: owner, status, balance, limits and today's withdrawals.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account id, e.g. "ACC-1001".
    """
    account = _account(db, account_id)
    out = _account_brief(account)
    out["customer_id"] = account.customer_id
    out["opened_on"] = account.opened_on.isoformat()
    if account.type != "credit":
        withdrawn = _withdrawn_today(db, account)
        out["daily_withdrawal_limit"] = _money(account.daily_withdrawal_limit_cents)
        out["withdrawn_today"] = _money(withdrawn)
        out["withdrawal_remaining_today"] = _money(max(account.daily_withdrawal_limit_cents - withdrawn, 0))
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
    account = _account(db, account_id)
    out: dict[str, Any] = {
        "account_id": account.id,
        "status": account.status,
        "balance": _money(account.balance_cents),
        "available": _money(_available(account) if account.status == "active" else 0),
    }
    if account.type == "credit":
        out["amount_owed"] = _money(max(-account.balance_cents, 0))
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
        "limit": (3, 5, 10, 20),
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
    _check_limit(limit)
    account = _account(db, account_id)
    stmt = select(Transaction).where(Transaction.account_id == account.id)
    if kind is not None:
        if kind.strip().lower() not in TRANSACTION_KINDS:
            raise ToolError(f"kind must be one of {', '.join(TRANSACTION_KINDS)}; got {kind!r}")
        stmt = stmt.where(Transaction.kind == kind.strip().lower())
    start = _parse_date(start_date, "start_date") if start_date else None
    end = _parse_date(end_date, "end_date") if end_date else None
    if start and end and start > end:
        raise ToolError(f"start_date {start} is after end_date {end}; swap them")
    if start:
        stmt = stmt.where(Transaction.posted_on >= start)
    if end:
        stmt = stmt.where(Transaction.posted_on <= end)
    rows = list(db.scalars(stmt.order_by(Transaction.posted_on.desc(), Transaction.id.desc()).limit(limit + 1)))
    return {
        "account_id": account.id,
        "transactions": [_txn_view(t) for t in rows[:limit]],
        "more": len(rows) > limit,
    }


# -- moving money (write) -----------------------------------------------------------------------


@kit.tool(
    write=True,
    intent="Deposit ${amount} into account {account_id}[ with the description '{description}']",
    samples={
        "amount": (5, 12.75, 20, 40, 75, 150),
        "description": ("Paycheck", "Cash deposit", "Check deposit", "Birthday gift", "Tax refund"),
    },
)
def deposit(db: Session, account_id: str, amount: float, description: str = "Deposit") -> dict[str, Any]:
    """Deposit money into an account (cash or check); into a credit account it is a payment.

    Works on active and frozen accounts, not closed ones; a payment into a credit account cannot
    exceed the amount owed. Returns the transaction id and the new balance.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account to credit, e.g. "ACC-1001".
        amount: Dollars, greater than 0 with at most 2 decimals, e.g. 250.00.
        description: Short note shown on the statement, e.g. "Paycheck".
    """
    account = _account(db, account_id)
    cents = _to_cents(amount)
    _check_can_receive(account, cents)
    txn = _post(db, account, "deposit", cents, description.strip() or "Deposit")
    return {
        "transaction_id": txn.id,
        "account_id": account.id,
        "amount": _money(cents),
        "new_balance": _money(account.balance_cents),
    }


@kit.tool(
    write=True,
    intent="Withdraw ${amount} in cash from account {account_id}",
    samples={"amount": (10, 20, 40, 60, 100, 200)},
)
def withdraw(db: Session, account_id: str, amount: float) -> dict[str, Any]:
    """Withdraw cash from a checking or savings account.

    The account must be active, hold enough money, and stay within its daily withdrawal limit
    (get_account shows what remains today). Credit accounts cannot withdraw cash.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account to debit, e.g. "ACC-1001".
        amount: Dollars, greater than 0 with at most 2 decimals, e.g. 100.00.
    """
    account = _account(db, account_id)
    cents = _to_cents(amount)
    if account.type == "credit":
        raise ToolError(
            f"{account.id} is a credit account; cash withdrawals are only possible from checking or savings "
            "accounts (list_accounts shows them)."
        )
    _check_can_send(account, cents)
    withdrawn = _withdrawn_today(db, account)
    limit = account.daily_withdrawal_limit_cents
    if withdrawn + cents > limit:
        raise ToolError(
            f"Daily withdrawal limit exceeded for {account.id}: the limit is {_fmt(limit)}, "
            f"{_fmt(withdrawn)} was already withdrawn today, so at most {_fmt(max(limit - withdrawn, 0))} "
            f"more can be withdrawn today (asked {_fmt(cents)})."
        )
    txn = _post(db, account, "withdrawal", -cents, "Cash withdrawal")
    return {
        "transaction_id": txn.id,
        "account_id": account.id,
        "amount": _money(cents),
        "new_balance": _money(account.balance_cents),
        "withdrawal_remaining_today": _money(limit - withdrawn - cents),
    }


@kit.tool(
    write=True,
    intent="Transfer ${amount} from account {from_account_id} to account {to_account_id}[ with the memo '{memo}']",
    samples={
        "amount": (5, 12.75, 20, 40, 75, 150),
        "memo": ("Rent share", "Groceries", "Savings top-up", "Trip refund", "Card payment"),
    },
)
def transfer_funds(
    db: Session, from_account_id: str, to_account_id: str, amount: float, memo: str = ""
) -> dict[str, Any]:
    """Move money from one account to another account at this bank.

    The destination must belong to the same customer, or be the ACC- account of one of the
    sender's payees (add_payee first). The source must be active with enough funds; a transfer
    into a credit account pays it down and cannot exceed the amount owed. Creates a transfer_out
    and a transfer_in transaction.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        from_account_id: Account to debit, e.g. "ACC-1001".
        to_account_id: Account to credit, e.g. "ACC-1002".
        amount: Dollars, greater than 0 with at most 2 decimals, e.g. 500.00.
        memo: Optional note for both statements, e.g. "Rent share".
    """
    source = _account(db, from_account_id)
    target = _account(db, to_account_id)
    if source.id == target.id:
        raise ToolError(
            f"from_account_id and to_account_id are both {source.id}; a transfer needs two different accounts."
        )
    cents = _to_cents(amount)
    if target.customer_id != source.customer_id:
        payee = db.scalar(
            select(Payee).where(Payee.customer_id == source.customer_id, Payee.account_number == target.id)
        )
        if payee is None:
            raise ToolError(
                f"{target.id} belongs to another customer and is not one of {source.customer_id}'s payees. "
                f"Add it with add_payee (account_number {target.id!r}), then transfer again or use pay_payee."
            )
    _check_can_send(source, cents)
    _check_can_receive(target, cents)
    note = f" - {memo.strip()}" if memo.strip() else ""
    out_txn = _post(db, source, "transfer_out", -cents, f"Transfer to {target.id}{note}", target.id)
    in_txn = _post(db, target, "transfer_in", cents, f"Transfer from {source.id}{note}", source.id)
    result: dict[str, Any] = {
        "amount": _money(cents),
        "from_account_id": source.id,
        "from_new_balance": _money(source.balance_cents),
        "to_account_id": target.id,
        "transaction_ids": [out_txn.id, in_txn.id],
    }
    if target.customer_id == source.customer_id:
        result["to_new_balance"] = _money(target.balance_cents)
    return result


# -- payees -------------------------------------------------------------------------------------


@kit.tool(write=False, intent="List the saved payees of customer {customer_id}")
def list_payees(db: Session, customer_id: str) -> list[dict[str, Any]]:
    """List a customer's saved payees (people and billers they can pay with pay_payee).

    Payees at this bank have an ACC- account number; others have a digits-only number.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        customer_id: Customer id, e.g. "CUS-1001".
    """
    customer = _customer(db, customer_id)
    rows = db.scalars(select(Payee).where(Payee.customer_id == customer.id).order_by(Payee.id))
    return [_payee_view(p) for p in rows]


@kit.tool(
    write=True,
    intent=(
        "Add {payee_name} as a payee of customer {customer_id} with account number {account_number}[ at {bank_name}]"
    ),
    samples={
        "payee_name": (
            "City Power & Light",
            "Metro Water Utility",
            "Northwind Telecom",
            "Riverside Gym",
            "Lakeside Dental",
            "Hana Chen",
            "Kwame Davis",
        ),
        # digits need a bank_name (an optional argument); ACC- ids (active in seed 0) are payees at this bank
        "account_number": ("123456789", "987654321", "7730019245", "ACC-1030", "ACC-1040", "ACC-1070", "ACC-1080"),
        "bank_name": (
            "First National Bank",
            "Pacific Credit Union",
            "Union Commerce Bank",
            "Granite State Bank",
            "Coastal Savings Bank",
        ),
    },
)
def add_payee(
    db: Session, customer_id: str, payee_name: str, account_number: str, bank_name: str | None = None
) -> dict[str, Any]:
    """Save a new payee for a customer so they can pay it with pay_payee.

    For someone banking here, give their account id as account_number (bank_name is then not
    needed); for another bank give the digits-only account number and the bank's name. The same
    account number cannot be saved twice for one customer, and a customer's own accounts are not
    payees (use transfer_funds between them).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        customer_id: Customer who adds the payee, e.g. "CUS-1001".
        payee_name: Name of the person or biller, 1 to 60 characters, e.g. "City Power & Light".
        account_number: "ACC-1042" for an account at this bank, or 6 to 17 digits, e.g. "123456789".
        bank_name: Bank of an external account, e.g. "First National Bank".
    """
    customer = _customer(db, customer_id)
    name = payee_name.strip()
    if not 1 <= len(name) <= 60:
        raise ToolError("payee_name must be 1 to 60 characters, e.g. 'City Power & Light'")
    number = account_number.strip().upper()
    if _INTERNAL_NUMBER.match(number):
        target = _account(db, number)
        if target.customer_id == customer.id:
            raise ToolError(
                f"{target.id} is {customer.id}'s own account; own accounts are not payees. "
                "Use transfer_funds to move money between them."
            )
        if target.status == "closed":
            raise ToolError(f"{target.id} is closed and cannot receive payments; ask for another account number.")
        bank = BANK_NAME
    else:
        number = re.sub(r"[\s-]", "", number)
        if not _EXTERNAL_NUMBER.match(number):
            raise ToolError(
                f"account_number {account_number!r} is not valid: use an account id like 'ACC-1042' for this "
                "bank, or 6 to 17 digits (spaces and dashes allowed) for another bank."
            )
        bank = (bank_name or "").strip()
        if not bank:
            raise ToolError("bank_name is required for an account at another bank, e.g. 'First National Bank'.")
        if bank.lower() == BANK_NAME.lower():
            raise ToolError(
                f"Accounts at {BANK_NAME} are identified by their account id (like 'ACC-1042'), not digits; "
                "pass that id as account_number."
            )
    existing = db.scalar(select(Payee).where(Payee.customer_id == customer.id, Payee.account_number == number))
    if existing is not None:
        raise ToolError(
            f"{customer.id} already has payee {existing.id} ({existing.name}) with account number {number}; "
            f"use {existing.id} instead of adding it again."
        )
    payee = Payee(
        id=_next_id(db, Payee, "PAY", 1001),
        customer_id=customer.id,
        name=name,
        bank_name=bank,
        account_number=number,
    )
    db.add(payee)
    db.flush()
    return {"customer_id": customer.id, **_payee_view(payee)}


@kit.tool(write=True, intent="Remove payee {payee_id}")
def remove_payee(db: Session, payee_id: str) -> dict[str, Any]:
    """Delete a saved payee. Past payments stay on the statements.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        payee_id: Payee id, e.g. "PAY-1001".
    """
    payee = _payee(db, payee_id)
    db.delete(payee)
    return {"removed": payee.id, "customer_id": payee.customer_id, "name": payee.name}


@kit.tool(
    write=True,
    intent="Pay ${amount} to payee {payee_id} from account {from_account_id}[ with the memo '{memo}']",
    samples={
        "amount": (5, 12.75, 20, 40, 75, 150),
        "memo": ("January bill", "Invoice 2291", "Dinner", "Thanks!", "Monthly payment"),
    },
)
def pay_payee(db: Session, from_account_id: str, payee_id: str, amount: float, memo: str = "") -> dict[str, Any]:
    """Pay one of the account owner's saved payees (a bill or a person).

    The account must be active with enough funds and the payee must belong to the same customer.
    A payee at this bank is credited immediately. Returns the payment transaction and new balance.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        from_account_id: Account to pay from, e.g. "ACC-1001".
        payee_id: Payee id from list_payees, e.g. "PAY-1001".
        amount: Dollars, greater than 0 with at most 2 decimals, e.g. 89.99.
        memo: Optional note, e.g. "January bill".
    """
    source = _account(db, from_account_id)
    payee = _payee(db, payee_id)
    if payee.customer_id != source.customer_id:
        raise ToolError(
            f"Payee {payee.id} belongs to {payee.customer_id}, not to {source.customer_id} who owns "
            f"{source.id}. "
            f"Use list_payees with customer_id {source.customer_id!r} to see their payees."
        )
    cents = _to_cents(amount)
    _check_can_send(source, cents)
    target = db.get(Account, payee.account_number) if payee.bank_name == BANK_NAME else None
    if target is not None:
        if target.status == "closed":
            raise ToolError(
                f"Payee {payee.id}'s account {target.id} is closed; nothing was paid. "
                "Remove the payee (remove_payee) and add their new account."
            )
        _check_can_receive(target, cents)
    note = f" - {memo.strip()}" if memo.strip() else ""
    txn = _post(db, source, "payment", -cents, f"Payment to {payee.name}{note}", payee.id)
    if target is not None:
        owner = db.get(Customer, source.customer_id)
        sender = owner.name if owner else source.customer_id
        _post(db, target, "transfer_in", cents, f"Payment from {sender}{note}", source.id)
    return {
        "transaction_id": txn.id,
        "from_account_id": source.id,
        "payee_id": payee.id,
        "payee_name": payee.name,
        "amount": _money(cents),
        "new_balance": _money(source.balance_cents),
    }


# -- cards --------------------------------------------------------------------------------------


@kit.tool(write=False, intent="List the cards of customer {customer_id}")
def list_cards(db: Session, customer_id: str, include_cancelled: bool = False) -> list[dict[str, Any]]:
    """List a customer's debit and credit cards with status and daily limit.

    Cancelled cards are left out unless include_cancelled is true.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        customer_id: Customer id, e.g. "CUS-1001".
        include_cancelled: Also list cancelled cards (with the card that replaced them).
    """
    customer = _customer(db, customer_id)
    stmt = select(Card).where(Card.customer_id == customer.id)
    if not include_cancelled:
        stmt = stmt.where(Card.status != "cancelled")
    return [_card_view(c) for c in db.scalars(stmt.order_by(Card.id))]


@kit.tool(write=True, intent="Temporarily lock card {card_id}")
def lock_card(db: Session, card_id: str) -> dict[str, Any]:
    """Temporarily lock an active card (e.g. misplaced); unlock_card undoes it.

    If the card is lost or stolen for good, use report_card_lost instead.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        card_id: Card id, e.g. "CRD-1001".
    """
    card = _card(db, card_id)
    if card.status == "cancelled":
        raise ToolError(f"Card {card.id} is cancelled and cannot be locked; it no longer works anyway.")
    if card.status == "locked":
        raise ToolError(f"Card {card.id} is already locked; nothing changed.")
    card.status = "locked"
    return _card_view(card)


@kit.tool(write=True, intent="Unlock card {card_id}")
def unlock_card(db: Session, card_id: str) -> dict[str, Any]:
    """Unlock a locked card so it works again.

    Cancelled cards cannot be unlocked, and cards on a frozen account stay locked until the
    account is unfrozen.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        card_id: Card id, e.g. "CRD-1001".
    """
    card = _card(db, card_id)
    if card.status == "cancelled":
        hint = f" Its replacement is {card.replaced_by}." if card.replaced_by else ""
        raise ToolError(
            f"Card {card.id} is cancelled and cannot be unlocked.{hint} Use list_cards to find the "
            "customer's active cards."
        )
    if card.status == "active":
        raise ToolError(f"Card {card.id} is already active (not locked); nothing changed.")
    account = db.get(Account, card.account_id)
    if account is not None and account.status == "frozen":
        raise ToolError(
            f"Card {card.id} is on frozen account {account.id}; unfreeze the account (unfreeze_account) "
            "before unlocking its cards."
        )
    card.status = "active"
    return _card_view(card)


@kit.tool(write=True, intent="Report card {card_id} as lost or stolen and issue a replacement")
def report_card_lost(db: Session, card_id: str) -> dict[str, Any]:
    """Report a card lost or stolen: cancel it for good and issue a replacement card.

    The replacement has a new id and number, the same account and daily limit. Returns both
    cards.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        card_id: Card id, e.g. "CRD-1001".
    """
    card = _card(db, card_id)
    if card.status == "cancelled":
        hint = f" (replaced by {card.replaced_by})" if card.replaced_by else ""
        raise ToolError(f"Card {card.id} is already cancelled{hint}; there is nothing to report.")
    account = db.get(Account, card.account_id)
    if account is None or account.status == "closed":
        raise ToolError(f"Card {card.id}'s account is closed; no replacement can be issued.")
    card.status = "cancelled"
    new = _issue_card(db, account, card.daily_limit_cents)
    if account.status == "frozen":
        new.status = "locked"
    card.replaced_by = new.id
    return {"cancelled": _card_view(card), "replacement": _card_view(new)}


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
    card = _card(db, card_id)
    if card.status == "cancelled":
        raise ToolError(f"Card {card.id} is cancelled; its limit cannot be changed. Use list_cards for active cards.")
    cents = _to_cents(daily_limit, "daily_limit")
    if card.type == "debit":
        low, high = DEBIT_CARD_LIMITS
        where = "for a debit card"
    else:
        account = db.get(Account, card.account_id)
        low, high = MIN_CREDIT_CARD_LIMIT, account.credit_limit_cents if account else MIN_CREDIT_CARD_LIMIT
        where = f"for this credit card (its account {card.account_id} has a {_fmt(high)} credit limit)"
    if not low <= cents <= high:
        raise ToolError(f"daily_limit {_fmt(cents)} is out of bounds: it must be {_fmt(low)} to {_fmt(high)} {where}.")
    old = card.daily_limit_cents
    card.daily_limit_cents = cents
    return {**_card_view(card), "previous_daily_limit": _money(old)}


# -- account lifecycle (write) ------------------------------------------------------------------


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
    account = _account(db, account_id)
    reason = reason.strip()
    if not 3 <= len(reason) <= 200:
        raise ToolError("reason must be 3 to 200 characters, e.g. 'Suspected fraud'")
    if account.status == "closed":
        raise ToolError(f"Account {account.id} is closed; a closed account cannot be frozen.")
    if account.status == "frozen":
        raise ToolError(f"Account {account.id} is already frozen ({account.freeze_reason}); nothing changed.")
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
    account = _account(db, account_id)
    if account.status != "frozen":
        raise ToolError(f"Account {account.id} is {account.status}, not frozen; only frozen accounts can be unfrozen.")
    account.status = "active"
    account.freeze_reason = None
    return {"account_id": account.id, "status": account.status}


@kit.tool(write=True, intent="Close account {account_id}")
def close_account(db: Session, account_id: str) -> dict[str, Any]:
    """Close an account for good and cancel its cards.

    The account must be active (unfreeze it first) with a balance of exactly 0.00: move money out
    with transfer_funds or withdraw, or pay off what a credit account owes.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account id, e.g. "ACC-1001".
    """
    account = _account(db, account_id)
    if account.status == "closed":
        raise ToolError(f"Account {account.id} is already closed.")
    if account.status == "frozen":
        raise ToolError(f"Account {account.id} is frozen; unfreeze it (unfreeze_account) before closing it.")
    if account.balance_cents > 0:
        raise ToolError(
            f"Account {account.id} has a balance of {_fmt(account.balance_cents)}; it must be exactly "
            "$0.00 to close. Move the money out first (transfer_funds to another account, or withdraw), "
            "then close it."
        )
    if account.balance_cents < 0:
        raise ToolError(
            f"Credit account {account.id} still owes {_fmt(-account.balance_cents)}; pay it off first "
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
    customer = _customer(db, customer_id)
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
        id=_next_id(db, Account, "ACC", 1001),
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
    out = _account_brief(account)
    out["customer_id"] = customer.id
    if kind != "savings":
        limit = 100_000 if kind == "checking" else account.credit_limit_cents
        out["card"] = _card_view(_issue_card(db, account, limit))
    return out
