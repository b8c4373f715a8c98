"""Budget tools for recurring bills: list them with their due dates, add one, pay one, cancel one."""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gym_mcp.servers.budget.data import add_months
from gym_mcp.servers.budget.models import FREQUENCIES, Bill, Category, Transaction
from gym_mcp.servers.budget.tools.common import (
    budget_view,
    kit,
    load_account,
    load_bill,
    load_category,
    month_of,
    post_spending,
    transaction_view,
)
from gym_mcp.servers.kit import ToolError, check_between, check_length, check_status, dollars, next_id, pick, to_cents

PAY_WINDOW_DAYS = 30
"""A bill can be paid once its next due date is at most this many days away (or past)."""
BILL_STATUSES = ("active", "cancelled")


def _bill_view(bill: Bill) -> dict[str, Any]:
    """A bill with its next due date seen from today."""
    days = (bill.next_due - kit.today).days
    return {
        "bill_id": bill.id,
        **pick(bill, "name", "payee", "account_id", "category_id"),
        "amount": dollars(bill.amount_cents),
        **pick(bill, "frequency", "day_of_month", "status"),
        "next_due": bill.next_due.isoformat(),
        "days_until_due": days,
        "overdue": bill.status == "active" and days < 0,
    }


def first_due(day_of_month: int, today: date) -> date:
    """The first date on ``day_of_month`` that is today or later."""
    this_month = today.replace(day=day_of_month)
    return this_month if this_month >= today else add_months(this_month, 1)


@kit.tool(
    write=False,
    intent="List the[ {status}] bills[ due within {due_within_days} days]",
    samples={"status": BILL_STATUSES, "due_within_days": (7, 14, 30)},
)
def list_bills(db: Session, status: str | None = None, due_within_days: int | None = None) -> list[dict[str, Any]]:
    """List recurring bills by next due date, with days until due and whether they are overdue.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        status: Only "active" or "cancelled" bills, e.g. "active".
        due_within_days: Only bills due within this many days from today, overdue ones included, e.g. 14.
    """
    stmt = select(Bill).order_by(Bill.next_due, Bill.id)
    if status is not None:
        if status.strip().lower() not in BILL_STATUSES:
            raise ToolError(f"status must be one of {', '.join(BILL_STATUSES)}; got {status!r}")
        stmt = stmt.where(Bill.status == status.strip().lower())
    rows = [_bill_view(b) for b in db.scalars(stmt)]
    if due_within_days is not None:
        check_between(due_within_days, 0, 366, "due_within_days")
        rows = [r for r in rows if r["days_until_due"] <= due_within_days]
    return rows


@kit.tool(
    write=True,
    intent=(
        "Add a {frequency} bill '{name}' of ${amount} on day {day_of_month}, paid from account {account_id} "
        "in category {category_id}"
    ),
    samples={
        "name": ("Pet insurance", "Lawn care", "Language class", "Meal kit", "Parking permit"),
        "amount": (15, 29.99, 45, 120),
        "frequency": tuple(FREQUENCIES),
        "day_of_month": (1, 5, 15, 20, 28),
    },
)
def add_bill(
    db: Session, account_id: str, category_id: str, name: str, amount: float, frequency: str, day_of_month: int
) -> dict[str, Any]:
    """Add a recurring bill; its first due date is the next day_of_month from today (today included).

    Bills recur monthly, quarterly or yearly on a day from 1 to 28, in an expense category;
    names of active bills are unique.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account it is paid from, e.g. "ACC-1001".
        category_id: Expense category it is booked in, e.g. "CAT-1014".
        name: Bill name, 2 to 60 characters, e.g. "Pet insurance".
        amount: Dollars per payment, e.g. 29.99.
        frequency: "monthly", "quarterly" or "yearly", e.g. "monthly".
        day_of_month: Day of the month it is due, 1 to 28, e.g. 15.
    """
    account = load_account(db, account_id)
    category = load_category(db, category_id)
    text = check_length(name.strip(), "name", 2, 60, ", e.g. 'Pet insurance'")
    cents = to_cents(amount)
    every = frequency.strip().lower()
    if every not in FREQUENCIES:
        raise ToolError(f"frequency must be one of {', '.join(FREQUENCIES)}; got {frequency!r}")
    check_between(day_of_month, 1, 28, "day_of_month", end=" (every month has those days).")
    if category.kind != "expense":
        raise ToolError(f"{category.id} ({category.name}) is an income category; a bill needs an expense category.")
    clash = db.scalar(select(Bill).where(func.lower(Bill.name) == text.lower(), Bill.status == "active"))
    if clash is not None:
        raise ToolError(f"An active bill is already named {clash.name!r} ({clash.id}); pick another name.")
    bill = Bill(
        id=next_id(db, Bill.id, "BIL"),
        name=text,
        payee=text,
        account_id=account.id,
        category_id=category.id,
        amount_cents=cents,
        frequency=every,
        day_of_month=day_of_month,
        next_due=first_due(day_of_month, kit.today),
        status="active",
    )
    db.add(bill)
    db.flush()
    return _bill_view(bill)


@kit.tool(write=True, intent="Pay bill {bill_id}")
def pay_bill(db: Session, bill_id: str) -> dict[str, Any]:
    """Pay the period now due of an active bill: a transaction today from its account, and next_due moves one period on.

    A bill can be paid once its due date is at most 30 days away (or past): a bill already paid
    for the current period is refused. The payment obeys the account's funds and the category's
    budget like any transaction (a "block" budget can refuse it).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        bill_id: Bill id, e.g. "BIL-1001".
    """
    bill = load_bill(db, bill_id)
    check_status(bill, {"cancelled": f"Bill {bill.id} ({bill.name}) is cancelled; it cannot be paid."})
    days = (bill.next_due - kit.today).days
    if days > PAY_WINDOW_DAYS:
        raise ToolError(
            f"Bill {bill.id} ({bill.name}) is next due on {bill.next_due}, {days} days away; the current period is "
            f"paid, and a bill can be paid at most {PAY_WINDOW_DAYS} days before it is due."
        )
    account = load_account(db, bill.account_id)
    category = db.get(Category, bill.category_id)
    assert category is not None
    flagged, budget = post_spending(db, account, category, bill.amount_cents, month_of(kit.today))
    txn = Transaction(
        id=next_id(db, Transaction.id, "TXN"),
        account_id=account.id,
        category_id=category.id,
        posted_on=kit.today,
        amount_cents=bill.amount_cents,
        payee=bill.payee,
        flagged=flagged,
        bill_id=bill.id,
    )
    db.add(txn)
    paid_for = bill.next_due
    bill.next_due = add_months(bill.next_due, FREQUENCIES[bill.frequency], bill.day_of_month)
    db.flush()
    out: dict[str, Any] = {
        "paid_for_due_date": paid_for.isoformat(),
        "bill": _bill_view(bill),
        "transaction": transaction_view(db, txn),
        "account_balance": dollars(account.balance_cents),
    }
    if budget is not None:
        out["budget"] = budget_view(db, budget)
    if flagged:
        out["warning"] = f"Over the {month_of(kit.today)} budget of {category.name}; the payment is flagged."
    return out


@kit.tool(write=True, intent="Cancel bill {bill_id}", confirm="always")
def cancel_bill(db: Session, bill_id: str) -> dict[str, Any]:
    """Cancel a recurring bill: it is no longer due. Irreversible (add_bill creates a new one).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        bill_id: Bill id, e.g. "BIL-1001".
    """
    bill = load_bill(db, bill_id)
    check_status(bill, {"cancelled": f"Bill {bill.id} ({bill.name}) is already cancelled; nothing changed."})
    bill.status = "cancelled"
    return _bill_view(bill)
