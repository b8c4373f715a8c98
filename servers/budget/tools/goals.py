"""Budget tools for savings goals: list them, create one, contribute to one from an account."""

from __future__ import annotations

import math
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gym_mcp.servers.budget.models import Contribution, Goal
from gym_mcp.servers.budget.tools.common import kit, load_account, load_goal
from gym_mcp.servers.kit import ToolError, check_length, dollars, format_dollars, next_id, parse_date, to_cents

GOAL_STATUSES = ("active", "completed")


def _goal_view(goal: Goal) -> dict[str, Any]:
    """A goal with what is left and what it needs per month to be reached on time."""
    left = goal.target_cents - goal.saved_cents
    months = max(1, math.ceil((goal.target_date - kit.today).days / 30)) if goal.target_date > kit.today else None
    return {
        "goal_id": goal.id,
        "name": goal.name,
        "target": dollars(goal.target_cents),
        "saved": dollars(goal.saved_cents),
        "remaining": dollars(left),
        "target_date": goal.target_date.isoformat(),
        "status": goal.status,
        "needed_per_month": dollars(math.ceil(left / months)) if months and left else None,
    }


@kit.tool(write=False, intent="Show my[ {status}] savings goals", samples={"status": GOAL_STATUSES})
def list_goals(db: Session, status: str | None = None) -> list[dict[str, Any]]:
    """List savings goals: target, saved, remaining, target date and what is needed per month to get there.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        status: Only "active" or "completed" goals, e.g. "active".
    """
    stmt = select(Goal).order_by(Goal.id)
    if status is not None:
        if status.strip().lower() not in GOAL_STATUSES:
            raise ToolError(f"status must be one of {', '.join(GOAL_STATUSES)}; got {status!r}")
        stmt = stmt.where(Goal.status == status.strip().lower())
    return [_goal_view(g) for g in db.scalars(stmt)]


@kit.tool(
    write=True,
    intent="Create a savings goal '{name}' of ${target} by {target_date}",
    samples={
        "name": ("Summer vacation", "New phone", "Concert tickets", "Kitchen remodel", "Ski trip"),
        "target": (300, 800, 1500, 5000),
        "target_date": ("2026-03-31", "2026-06-30", "2026-12-01"),
    },
)
def create_goal(db: Session, name: str, target: float, target_date: str) -> dict[str, Any]:
    """Create a savings goal with a target amount and a date in the future; names of active goals are unique.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        name: Goal name, 2 to 60 characters, e.g. "Summer vacation".
        target: Target amount in dollars, e.g. 1500.
        target_date: When it should be reached, ISO format, after today, e.g. "2026-06-30".
    """
    text = check_length(name.strip(), "name", 2, 60, ", e.g. 'Summer vacation'")
    cents = to_cents(target, "target")
    day = parse_date(target_date, "target_date")
    if day <= kit.today:
        raise ToolError(f"target_date {day} is not after today ({kit.today}); a goal needs a date in the future.")
    clash = db.scalar(select(Goal).where(func.lower(Goal.name) == text.lower(), Goal.status == "active"))
    if clash is not None:
        raise ToolError(
            f"An active goal is already named {clash.name!r} ({clash.id}); contribute to it or pick a new name."
        )
    goal = Goal(
        id=next_id(db, Goal.id, "GOL"), name=text, target_cents=cents, saved_cents=0, target_date=day, status="active"
    )
    db.add(goal)
    db.flush()
    return _goal_view(goal)


@kit.tool(
    write=True,
    intent="Put ${amount} from account {account_id} towards goal {goal_id}",
    samples={"amount": (10, 20, 25, 50, 100)},
    confirm="amount >= 1000",
)
def contribute_to_goal(db: Session, goal_id: str, account_id: str, amount: float) -> dict[str, Any]:
    """Move money from a checking or savings account into an active goal.

    The amount cannot exceed the account's balance (credit cards cannot fund goals), nor what
    the goal still needs: a goal never goes past its target. Reaching it completes the goal.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        goal_id: Goal id, e.g. "GOL-1001".
        account_id: Checking or savings account to take the money from, e.g. "ACC-1002".
        amount: Dollars, greater than 0 with at most 2 decimals, e.g. 50.
    """
    goal = load_goal(db, goal_id)
    account = load_account(db, account_id)
    cents = to_cents(amount)
    if goal.status == "completed":
        raise ToolError(f"Goal {goal.id} ({goal.name}) is already completed at {format_dollars(goal.target_cents)}.")
    if account.type == "credit":
        raise ToolError(
            f"{account.id} ({account.name}) is a credit card; fund goals from a checking or savings account."
        )
    if cents > account.balance_cents:
        raise ToolError(
            f"{account.id} ({account.name}) holds {format_dollars(account.balance_cents)}, less than "
            f"{format_dollars(cents)}; contribute at most that, or use another account (list_accounts)."
        )
    left = goal.target_cents - goal.saved_cents
    if cents > left:
        raise ToolError(
            f"Goal {goal.id} ({goal.name}) needs only {format_dollars(left)} more to reach its "
            f"{format_dollars(goal.target_cents)} target; contribute at most {format_dollars(left)}."
        )
    account.balance_cents -= cents
    goal.saved_cents += cents
    if goal.saved_cents == goal.target_cents:
        goal.status = "completed"
    contribution = Contribution(
        id=next_id(db, Contribution.id, "CON"),
        goal_id=goal.id,
        account_id=account.id,
        amount_cents=cents,
        made_on=kit.today,
    )
    db.add(contribution)
    db.flush()
    return {"contribution_id": contribution.id, **_goal_view(goal), "account_balance": dollars(account.balance_cents)}
