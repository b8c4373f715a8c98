"""What the budget tools share: the kit, id lookups, months, the money and overspend rules, result shapes."""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gym_mcp.servers.budget.data import seed
from gym_mcp.servers.budget.models import TODAY, Account, Base, Bill, Budget, Category, Goal, Transaction
from gym_mcp.servers.kit import Finder, ServerKit, ToolError, dollars, format_dollars, pick

__all__ = [
    "apply_spending",
    "available_cents",
    "budget_check",
    "budget_view",
    "current_month",
    "kit",
    "load_account",
    "load_bill",
    "load_category",
    "load_goal",
    "load_transaction",
    "month_of",
    "month_range",
    "parse_month",
    "post_spending",
    "spent_cents",
    "transaction_view",
]

INSTRUCTIONS = f"""\
Household budget app. Accounts ("ACC-1001": checking, savings, credit cards whose balance is
negative when money is owed) hold the money; transactions ("TXN-1001") move it in or out in a
category ("CAT-1001", expense or income). Each expense category can have a monthly budget
("BUD-1001", month "YYYY-MM") whose policy says what happens to a transaction that would take it
over the limit: "flag" records it flagged, "block" refuses it. Savings goals ("GOL-1001") are
funded from checking or savings accounts; recurring bills ("BIL-1001") are paid from their
account. Start with list_accounts, list_categories, get_budget_report, list_goals or list_bills.
Amounts are dollars, e.g. 25.50. Today is {TODAY.isoformat()}."""

kit = ServerKit(
    "budget",
    base=Base,
    seed=seed,
    instructions=INSTRUCTIONS,
    today=TODAY,
    samples={"amount": (5, 12.5, 20, 35, 60), "limit": (5, 10, 20)},
    inline=True,
)

# -- lookups ------------------------------------------------------------------------------------

_MISSING = "No {noun} with id {id!r}. {Noun} ids look like '{example}'; {hint}."
load_account = Finder(Account, "account", "ACC-1001", "use list_accounts to see valid ones", message=_MISSING)
load_category = Finder(Category, "category", "CAT-1001", "use list_categories to see valid ones", message=_MISSING)
load_transaction = Finder(
    Transaction, "transaction", "TXN-1001", "use list_transactions to see valid ones", message=_MISSING
)
load_goal = Finder(Goal, "goal", "GOL-1001", "use list_goals to see valid ones", message=_MISSING)
load_bill = Finder(Bill, "bill", "BIL-1001", "use list_bills to see valid ones", message=_MISSING)

# -- months -------------------------------------------------------------------------------------


def month_of(day: date) -> str:
    """The ``YYYY-MM`` month of a date."""
    return day.isoformat()[:7]


def current_month() -> str:
    """The month of the kit's today."""
    return month_of(kit.today)


def parse_month(value: str, field: str = "month") -> str:
    """A ``YYYY-MM`` month argument, or a `ToolError` with an example."""
    text = value.strip() if isinstance(value, str) else ""
    if not re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", text):
        raise ToolError(f'{field} {value!r} is not a month; use "YYYY-MM", e.g. "{current_month()}".')
    return text


def month_range(month: str) -> tuple[date, date]:
    """The first day of a month and the first day of the next."""
    first = date.fromisoformat(f"{month}-01")
    return first, (first + timedelta(days=32)).replace(day=1)


# -- the money rules ----------------------------------------------------------------------------


def spent_cents(db: Session, category_id: str, month: str) -> int:
    """What was spent in a category in a month."""
    first, after = month_range(month)
    total = db.scalar(
        select(func.coalesce(func.sum(Transaction.amount_cents), 0)).where(
            Transaction.category_id == category_id, Transaction.posted_on >= first, Transaction.posted_on < after
        )
    )
    return int(total or 0)


def available_cents(account: Account) -> int:
    """What can still be spent from an account: the balance, or a card's credit left."""
    if account.type == "credit":
        return (account.credit_limit_cents or 0) + account.balance_cents
    return account.balance_cents


def apply_spending(account: Account, cents: int) -> None:
    """Take an expense out of an account, refusing more than it has (or a card's credit left)."""
    left = available_cents(account)
    if cents > left:
        what = "credit left on" if account.type == "credit" else "balance of"
        raise ToolError(
            f"Not enough money: {format_dollars(cents)} is more than the {format_dollars(left)} {what} "
            f"{account.id} ({account.name}). Use another account (list_accounts) or a smaller amount."
        )
    account.balance_cents -= cents


def budget_check(db: Session, category: Category, month: str, cents: int) -> tuple[bool, Budget | None]:
    """Apply a category's monthly budget to a new expense: refuse it (block) or say it must be flagged.

    Returns:
        (flagged, budget): flagged is True when the expense takes a flag-policy budget over its limit.
    """
    if category.kind != "expense":
        return False, None
    budget = db.scalar(select(Budget).where(Budget.category_id == category.id, Budget.month == month))
    if budget is None:
        return False, None
    spent = spent_cents(db, category.id, month)
    if spent + cents <= budget.limit_cents:
        return False, budget
    if budget.policy == "block":
        left = max(0, budget.limit_cents - spent)
        raise ToolError(
            f"Refused by the {month} budget of {category.name} ({category.id}): {format_dollars(spent)} of "
            f"{format_dollars(budget.limit_cents)} is spent, so {format_dollars(cents)} would go over and this "
            f"budget blocks overspending. At most {format_dollars(left)} fits; raise the limit with set_budget or "
            "use another category."
        )
    return True, budget


def post_spending(
    db: Session, account: Account, category: Category, cents: int, month: str
) -> tuple[bool, Budget | None]:
    """Apply a new transaction to its account under the funds and overspend rules; return (flagged, the budget)."""
    flagged, budget = budget_check(db, category, month, cents)
    if category.kind == "expense":
        apply_spending(account, cents)
    else:
        account.balance_cents += cents
    return flagged, budget


# -- result shapes ------------------------------------------------------------------------------


def budget_view(db: Session, budget: Budget) -> dict[str, Any]:
    """A budget with what is spent and what is left."""
    spent = spent_cents(db, budget.category_id, budget.month)
    category = db.get(Category, budget.category_id)
    assert category is not None
    return {
        "budget_id": budget.id,
        "category_id": budget.category_id,
        "category": category.name,
        "month": budget.month,
        "limit": dollars(budget.limit_cents),
        "spent": dollars(spent),
        "remaining": dollars(budget.limit_cents - spent),
        "policy": budget.policy,
        "status": "over" if spent > budget.limit_cents else "near" if spent * 10 >= budget.limit_cents * 9 else "ok",
    }


def transaction_view(db: Session, txn: Transaction) -> dict[str, Any]:
    """The fields of a transaction a model needs (``direction`` is "out" for expenses, "in" for income)."""
    category = db.get(Category, txn.category_id)
    assert category is not None
    return {
        "transaction_id": txn.id,
        **pick(txn, "account_id", "category_id"),
        "category": category.name,
        "direction": "out" if category.kind == "expense" else "in",
        "amount": dollars(txn.amount_cents),
        "payee": txn.payee,
        "posted_on": txn.posted_on.isoformat(),
        "flagged": txn.flagged,
        "bill_id": txn.bill_id,
    }
