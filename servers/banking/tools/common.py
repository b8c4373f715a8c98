"""What the banking tools share: the kit, id lookups, the rules of moving money, result shapes.

Amounts are stored in cents and shown in dollars (`dollars`, `format_dollars` of the kit). A
credit account's balance is negative while money is owed on it; money can leave it down to
minus its credit limit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gym_mcp.servers.banking.data import seed
from gym_mcp.servers.banking.models import BANK_NAME, TODAY, Account, Base, Card, Customer, Payee, Transaction
from gym_mcp.servers.kit import Finder, ServerKit, ToolError, dollars, format_dollars, next_id, next_number, pick

__all__ = [
    "account_brief",
    "available_cents",
    "card_view",
    "check_can_receive",
    "check_can_send",
    "customer_rows",
    "issue_card",
    "kit",
    "load_account",
    "load_card",
    "load_customer",
    "load_payee",
    "payee_view",
    "post_transaction",
    "txn_view",
    "withdrawn_today",
]


INSTRUCTIONS = f"""\
Retail banking back office of {BANK_NAME}. Customers (ids like "CUS-1001") hold checking,
savings and credit accounts ("ACC-1001"), payees ("PAY-1001") and debit/credit cards
("CRD-1001"); every posted entry is a transaction ("TXN-10001"). Find a customer with
find_customer, then list_accounts / list_payees / list_cards to get the other ids.
Amounts are dollars with at most 2 decimals. A credit account's balance is negative while money
is owed; paying it down is a deposit or a transfer into it. Money cannot leave a frozen or closed
account; frozen accounts can still receive money. Today is {TODAY.isoformat()}."""

AMOUNT_SAMPLES = (5, 12.75, 20, 40, 75, 150)
"""Dollar amounts for task synthesis (the ``amount`` samples of the tools that move money)."""

kit = ServerKit(
    "banking",
    base=Base,
    seed=seed,
    instructions=INSTRUCTIONS,
    today=TODAY,
    samples={"amount": AMOUNT_SAMPLES, "limit": (3, 5, 10, 20)},
    inline=True,
)

# -- lookups ------------------------------------------------------------------------------------

_MISSING = "No {noun} with id {id!r}. {Noun} ids look like '{example}'; {hint}."
load_customer = Finder(
    Customer, "customer", "CUS-1001", "use find_customer with a name or email to look one up", message=_MISSING
)
load_account = Finder(
    Account,
    "account",
    "ACC-1001",
    "use list_accounts with the customer's id (find_customer gives it) to see valid ones",
    message=_MISSING,
)
load_payee = Finder(
    Payee, "payee", "PAY-1001", "use list_payees with the customer's id to see valid ones", message=_MISSING
)
load_card = Finder(
    Card, "card", "CRD-1001", "use list_cards with the customer's id to see valid ones", message=_MISSING
)

CustomerRowT = TypeVar("CustomerRowT", Account, Card)


def customer_rows(
    db: Session, model: type[CustomerRowT], customer_id: str, *, leave_out: str | None = None
) -> Sequence[CustomerRowT]:
    """A customer's accounts or cards, by id.

    Args:
        db: The session of the call.
        model: `Account` or `Card`.
        customer_id: The customer's id as the model gave it (an unknown one raises `ToolError`).
        leave_out: A status whose rows are left out, e.g. ``"closed"``; None lists them all.

    Returns:
        The rows, ordered by id.
    """
    customer = load_customer(db, customer_id)
    stmt = select(model).where(model.customer_id == customer.id)
    if leave_out is not None:
        stmt = stmt.where(model.status != leave_out)
    return db.scalars(stmt.order_by(model.id)).all()


# -- rules of moving money ----------------------------------------------------------------------


def available_cents(account: Account) -> int:
    """Money that can leave the account, in cents (credit accounts: unused credit)."""
    return account.balance_cents + account.credit_limit_cents


def withdrawn_today(db: Session, account: Account) -> int:
    """Cash withdrawn from the account today, in cents (positive)."""
    total = db.scalar(
        select(func.coalesce(func.sum(Transaction.amount_cents), 0)).where(
            Transaction.account_id == account.id,
            Transaction.kind == "withdrawal",
            Transaction.posted_on == kit.today,
        )
    )
    return -int(total or 0)


def check_can_send(account: Account, cents: int) -> None:
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
    available = available_cents(account)
    if cents > available:
        what = "available credit" if account.type == "credit" else "balance"
        raise ToolError(
            f"Insufficient funds in {account.id}: {what} is {format_dollars(available)} but the amount is "
            f"{format_dollars(cents)}. "
            f"Use an amount of at most {format_dollars(max(available, 0))}, or another account (list_accounts)."
        )


def check_can_receive(account: Account, cents: int) -> None:
    """Money may go into any account that is not closed; a credit account only up to what it owes."""
    if account.status == "closed":
        raise ToolError(
            f"Account {account.id} is closed and cannot receive money. "
            "Use one of the customer's active accounts (list_accounts)."
        )
    if account.type == "credit" and cents > -account.balance_cents:
        owed = max(-account.balance_cents, 0)
        raise ToolError(
            f"{account.id} is a credit account that owes {format_dollars(owed)}; a payment into it cannot exceed the "
            f"amount owed. Send at most {format_dollars(owed)}."
        )


def post_transaction(
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
        id=next_id(db, Transaction.id, "TXN", first=10001),
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


# -- result shapes ------------------------------------------------------------------------------


def account_brief(account: Account) -> dict[str, Any]:
    """The fields of an account a model needs in a list."""
    out: dict[str, Any] = {
        "account_id": account.id,
        **pick(account, "type", "nickname", "status"),
        "balance": dollars(account.balance_cents),
    }
    if account.type == "credit":
        out["credit_limit"] = dollars(account.credit_limit_cents)
        out["available_credit"] = dollars(available_cents(account))
    return out


def card_view(card: Card) -> dict[str, Any]:
    """The fields of a card a model needs."""
    out: dict[str, Any] = {
        "card_id": card.id,
        **pick(card, "type", "account_id", "last4", "status"),
        "daily_limit": dollars(card.daily_limit_cents),
        "expires": card.expires,
    }
    if card.replaced_by:
        out["replaced_by"] = card.replaced_by
    return out


def payee_view(payee: Payee) -> dict[str, Any]:
    """The fields of a payee a model needs."""
    return {"payee_id": payee.id, **pick(payee, "name", "bank_name", "account_number")}


def txn_view(txn: Transaction) -> dict[str, Any]:
    """The fields of a transaction a model needs."""
    out: dict[str, Any] = {
        "transaction_id": txn.id,
        "date": txn.posted_on.isoformat(),
        "kind": txn.kind,
        "amount": dollars(txn.amount_cents),
        "balance_after": dollars(txn.balance_after_cents),
        "description": txn.description,
    }
    if txn.counterparty:
        out["counterparty"] = txn.counterparty
    return out


def issue_card(db: Session, account: Account, daily_limit_cents: int) -> Card:
    """Issue a new active card on an account (id and last 4 digits follow from the id number)."""
    number = next_number(db, Card.id, "CRD")
    card = Card(
        id=f"CRD-{number}",
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
