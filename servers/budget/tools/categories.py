"""Budget tools for categories and monthly budgets: list, create and delete categories, set and report budgets."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gym_mcp.servers.budget.models import POLICIES, Bill, Budget, Category, Transaction
from gym_mcp.servers.budget.tools.common import (
    budget_view,
    current_month,
    kit,
    load_category,
    parse_month,
    spent_cents,
)
from gym_mcp.servers.kit import ToolError, check_length, dollars, format_dollars, next_id, to_cents

KINDS = ("expense", "income")
MONTH_SAMPLES = ("2026-01", "2026-02")


@kit.tool(write=False, intent="List the[ {kind}] categories", samples={"kind": KINDS})
def list_categories(db: Session, kind: str | None = None) -> list[dict[str, Any]]:
    """List the categories with how many transactions use each and this month's spending and budget.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        kind: Only "expense" or "income" categories, e.g. "expense".
    """
    stmt = select(Category).order_by(Category.id)
    if kind is not None:
        if kind.strip().lower() not in KINDS:
            raise ToolError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
        stmt = stmt.where(Category.kind == kind.strip().lower())
    month = current_month()
    out = []
    for category in db.scalars(stmt):
        used = db.scalar(select(func.count()).select_from(Transaction).where(Transaction.category_id == category.id))
        budget = db.scalar(select(Budget).where(Budget.category_id == category.id, Budget.month == month))
        out.append(
            {
                "category_id": category.id,
                "name": category.name,
                "kind": category.kind,
                "transactions": used,
                "spent_this_month": dollars(spent_cents(db, category.id, month))
                if category.kind == "expense"
                else None,
                "budget_this_month": dollars(budget.limit_cents) if budget else None,
            }
        )
    return out


@kit.tool(
    write=True,
    intent="Create a[n {kind}] category named '{name}'",
    samples={"name": ("Hobby supplies", "Home office", "Donations", "Pet insurance", "Side gigs"), "kind": KINDS},
)
def create_category(db: Session, name: str, kind: str = "expense") -> dict[str, Any]:
    """Create a category; names are unique (case-insensitive).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        name: Category name, 2 to 40 characters, e.g. "Home office".
        kind: "expense" (money out, can have a budget) or "income" (money in), e.g. "expense" (the default).
    """
    text = check_length(name.strip(), "name", 2, 40, ", e.g. 'Home office'")
    wanted = kind.strip().lower()
    if wanted not in KINDS:
        raise ToolError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
    clash = db.scalar(select(Category).where(func.lower(Category.name) == text.lower()))
    if clash is not None:
        raise ToolError(f"A category named {clash.name!r} already exists ({clash.id}); pick another name.")
    category = Category(id=next_id(db, Category.id, "CAT"), name=text, kind=wanted)
    db.add(category)
    db.flush()
    return {"category_id": category.id, "name": category.name, "kind": category.kind}


@kit.tool(write=True, intent="Delete category {category_id}", confirm="always")
def delete_category(db: Session, category_id: str) -> dict[str, Any]:
    """Delete a category and its budgets. Irreversible.

    A category cannot be deleted while transactions or active bills use it: move the
    transactions to another category (recategorize_transaction) and cancel the bills first.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        category_id: Category id, e.g. "CAT-1001".
    """
    category = load_category(db, category_id)
    used = db.scalar(select(func.count()).select_from(Transaction).where(Transaction.category_id == category.id))
    bills = list(
        db.scalars(select(Bill.id).where(Bill.category_id == category.id, Bill.status == "active").order_by(Bill.id))
    )
    if used or bills:
        free = [
            f"{c.id} ({c.name})"
            for c in db.scalars(select(Category).order_by(Category.id))
            if not db.scalar(select(func.count()).select_from(Transaction).where(Transaction.category_id == c.id))
            and not db.scalar(
                select(func.count()).select_from(Bill).where(Bill.category_id == c.id, Bill.status == "active")
            )
        ]
        bill_text = f" and active bills {', '.join(bills)} (cancel_bill)" if bills else ""
        raise ToolError(
            f"Category {category.id} ({category.name}) is still used by {used} transactions (recategorize_transaction "
            f"moves them){bill_text}, so it cannot be deleted. Categories nothing uses: {', '.join(free) or 'none'}."
        )
    removed = [b.id for b in db.scalars(select(Budget).where(Budget.category_id == category.id).order_by(Budget.id))]
    for budget in db.scalars(select(Budget).where(Budget.category_id == category.id)):
        db.delete(budget)
    db.delete(category)
    return {"deleted_category_id": category.id, "name": category.name, "deleted_budget_ids": removed}


@kit.tool(
    write=False, intent="Show the budget report[ for {month}]", samples={"month": ("2025-11", "2025-12", "2026-01")}
)
def get_budget_report(db: Session, month: str | None = None) -> dict[str, Any]:
    """Report a month's budgets: limit, spent, remaining, policy and status (ok, near at 90%+, over).

    Also gives the month's total spending in categories without a budget and its total income.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        month: The month as "YYYY-MM", e.g. "2026-01"; defaults to the current month.
    """
    wanted = current_month() if month is None else parse_month(month)
    budgets = list(db.scalars(select(Budget).where(Budget.month == wanted).order_by(Budget.category_id)))
    budgeted = {b.category_id for b in budgets}
    unbudgeted = income = 0
    for category in db.scalars(select(Category)):
        spent = spent_cents(db, category.id, wanted)
        if category.kind == "income":
            income += spent
        elif category.id not in budgeted:
            unbudgeted += spent
    return {
        "month": wanted,
        "budgets": [budget_view(db, b) for b in budgets],
        "unbudgeted_spending": dollars(unbudgeted),
        "income": dollars(income),
    }


@kit.tool(
    write=True,
    intent="Set the[ {month}] budget of category {category_id} to ${amount}[ with the {policy} policy]",
    samples={"amount": (150, 250, 400, 600, 900), "policy": POLICIES, "month": MONTH_SAMPLES},
)
def set_budget(
    db: Session, category_id: str, amount: float, policy: str | None = None, month: str | None = None
) -> dict[str, Any]:
    """Create or change the monthly budget of an expense category.

    Only the current month or a later one (up to 12 months ahead) can be budgeted; past months
    are closed. policy "flag" records an overspending transaction flagged, "block" refuses it; a
    new budget defaults to "flag", a changed one keeps its policy unless one is given.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        category_id: Expense category id, e.g. "CAT-1001".
        amount: The monthly limit in dollars, e.g. 400.
        policy: "flag" or "block", e.g. "block".
        month: The month as "YYYY-MM", e.g. "2026-02"; defaults to the current month.
    """
    category = load_category(db, category_id)
    cents = to_cents(amount)
    wanted = current_month() if month is None else parse_month(month)
    if category.kind != "expense":
        raise ToolError(f"{category.id} ({category.name}) is an income category; only expense categories have budgets.")
    now = current_month()
    year, mon = int(now[:4]), int(now[5:])
    last = f"{year + 1}-{mon:02d}"
    if not now <= wanted <= last:
        raise ToolError(f"month {wanted} cannot be budgeted: months before {now} are closed, and the latest is {last}.")
    rule = None if policy is None else policy.strip().lower()
    if rule is not None and rule not in POLICIES:
        raise ToolError(f"policy must be one of {', '.join(POLICIES)}; got {policy!r}")
    budget = db.scalar(select(Budget).where(Budget.category_id == category.id, Budget.month == wanted))
    if budget is None:
        budget = Budget(
            id=next_id(db, Budget.id, "BUD"),
            category_id=category.id,
            month=wanted,
            limit_cents=cents,
            policy=rule or "flag",
        )
        db.add(budget)
    elif budget.limit_cents == cents and rule in (None, budget.policy):
        raise ToolError(
            f"The {wanted} budget of {category.name} is already {format_dollars(cents)} ({budget.policy}); "
            "nothing changed."
        )
    else:
        budget.limit_cents = cents
        budget.policy = rule or budget.policy
    db.flush()
    return budget_view(db, budget)
