"""CRM tools for opportunities: list and read deals, open and change them, move their stage, close and reassign them."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.crm.models import CLOSED_STAGES, OPEN_STAGES, STAGES, Activity, Note, Opportunity
from gym_mcp.servers.crm.tools.common import (
    activity_view,
    allowed_next_stages,
    check_account_open,
    check_active_owner,
    check_future_date,
    check_stage_name,
    kit,
    load_account,
    load_opportunity,
    notes_of,
    opportunity_view,
    stages_text,
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

OWNER_SAMPLES = ("OWN-1001", "OWN-1002", "OWN-1003", "OWN-1004", "OWN-1005", "OWN-1006")
CLOSE_DATES = ("2026-03-31", "2026-02-27", "2026-04-15", "2026-06-30", "2026-05-29")


def _check_open(opp: Opportunity, action: str) -> None:
    """Refuse to change a closed opportunity: closed stages are final."""
    if opp.stage in CLOSED_STAGES:
        raise ToolError(
            f"Opportunity {opp.id} is {opp.stage} (closed on {opp.close_date}); closed stages are final, so you "
            f"cannot {action} it. Open a new one with create_opportunity if the customer comes back."
        )


@kit.tool(
    write=False,
    intent=(
        "List the opportunities[ in stage {stage}][ of account {account_id}][ owned by {owner_id}][, at most {limit}]"
    ),
    samples={"stage": STAGES},
)
def list_opportunities(
    db: Session,
    stage: str | None = None,
    account_id: str | None = None,
    owner_id: str | None = None,
    limit: int = 20,
) -> dict[str, Any]:
    """List opportunities (deals) by expected close date, optionally by stage, account or owner.

    Returns {opportunities, count, total_amount, more}: total_amount sums the listed amounts and
    more is true when further matches exist beyond the limit. Stages: prospecting, qualification,
    proposal, negotiation (open) and closed_won, closed_lost (closed).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        stage: Only this stage, e.g. "negotiation"; "open" lists every open stage.
        account_id: Only deals of this account, e.g. "ACC-1001".
        owner_id: Only deals of this owner, e.g. "OWN-1001".
        limit: Maximum number of opportunities to return, 1 to 100.
    """
    check_limit(limit)
    stmt = select(Opportunity)
    if stage is not None:
        if stage.strip().lower() == "open":
            stmt = stmt.where(Opportunity.stage.in_(OPEN_STAGES))
        else:
            stmt = stmt.where(Opportunity.stage == check_stage_name(stage))
    if account_id is not None:
        stmt = stmt.where(Opportunity.account_id == load_account(db, account_id).id)
    if owner_id is not None:
        stmt = stmt.where(Opportunity.owner_id == owner_id.strip().upper())
    rows = list(db.scalars(stmt.order_by(Opportunity.close_date, Opportunity.id).limit(limit + 1)))
    shown = rows[:limit]
    return {
        "opportunities": [opportunity_view(o) for o in shown],
        "count": len(shown),
        "total_amount": dollars(sum(o.amount_cents or 0 for o in shown)),
        "more": len(rows) > limit,
    }


@kit.tool(write=False, intent="Show opportunity {opportunity_id}")
def get_opportunity(db: Session, opportunity_id: str) -> dict[str, Any]:
    """Get one opportunity with the stages it may move to next, its activities and notes.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        opportunity_id: Opportunity id, e.g. "OPP-1001".
    """
    opp = load_opportunity(db, opportunity_id)
    activities = db.scalars(
        select(Activity).where(Activity.opportunity_id == opp.id).order_by(Activity.due_date, Activity.id)
    )
    return {
        **opportunity_view(opp),
        "created_on": opp.created_on.isoformat(),
        "close_reason": opp.close_reason,
        "allowed_next_stages": allowed_next_stages(opp.stage),
        "activities": [activity_view(a) for a in activities],
        "notes": notes_of(db, Note.opportunity_id, opp.id),
    }


@kit.tool(
    write=True,
    intent="Open an opportunity '{opportunity_name}' for account {account_id} expected to close on {close_date}"
    "[ worth ${amount}][ owned by {owner_id}]",
    samples={
        "opportunity_name": (
            "Platform licence",
            "Support renewal",
            "Analytics add-on",
            "Pilot project",
            "Enterprise upgrade",
        ),
        "close_date": CLOSE_DATES,
        "amount": (15000, 32000, 7500.5, 60000, 125000),
        "owner_id": OWNER_SAMPLES,
    },
)
def create_opportunity(
    db: Session,
    account_id: str,
    opportunity_name: str,
    close_date: str,
    amount: float | None = None,
    owner_id: str | None = None,
) -> dict[str, Any]:
    """Open a new opportunity (deal) in stage prospecting on an active account.

    The owner defaults to the account's owner; either way the owner must be active.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account id, e.g. "ACC-1001".
        opportunity_name: What is being sold, 2 to 80 characters, e.g. "Platform licence".
        close_date: Expected close date, today or later, e.g. "2026-03-31".
        amount: Expected deal size in dollars, e.g. 25000.
        owner_id: Owner of the deal if not the account's owner, e.g. "OWN-1002".
    """
    account = load_account(db, account_id)
    check_account_open(account, "open an opportunity on")
    label = check_length(opportunity_name.strip(), "opportunity_name", 2, 80, ", e.g. 'Platform licence'")
    close = check_future_date(close_date, "close_date")
    cents = to_cents(amount) if amount is not None else None
    owner = check_active_owner(db, owner_id if owner_id is not None else account.owner_id)
    opp = Opportunity(
        id=next_id(db, Opportunity.id, "OPP"),
        account_id=account.id,
        name=label,
        stage="prospecting",
        amount_cents=cents,
        close_date=close,
        owner_id=owner.id,
        created_on=kit.today,
    )
    db.add(opp)
    db.flush()
    return opportunity_view(opp)


@kit.tool(
    write=True,
    intent=(
        "Update opportunity {opportunity_id}[, setting the amount to ${amount}]"
        "[, setting the expected close date to {close_date}]"
    ),
    samples={"amount": (18000, 42000, 9999.99, 75000, 150000), "close_date": CLOSE_DATES},
)
def update_opportunity(
    db: Session, opportunity_id: str, amount: float | None = None, close_date: str | None = None
) -> dict[str, Any]:
    """Change an open opportunity's amount or expected close date; give at least one of them.

    A won deal needs an amount, so set it here before close_opportunity.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        opportunity_id: Opportunity id, e.g. "OPP-1001".
        amount: New deal size in dollars, greater than 0, e.g. 42000.
        close_date: New expected close date, today or later, e.g. "2026-03-31".
    """
    opp = load_opportunity(db, opportunity_id)
    if amount is None and close_date is None:
        raise ToolError("Nothing to change: give amount, close_date or both.")
    _check_open(opp, "update")
    changed: dict[str, Any] = {}
    if amount is not None:
        opp.amount_cents = to_cents(amount)
        changed["amount"] = dollars(opp.amount_cents)
    if close_date is not None:
        opp.close_date = check_future_date(close_date, "close_date")
        changed["close_date"] = opp.close_date.isoformat()
    return {"opportunity_id": opp.id, "changed": changed}


@kit.tool(
    write=True,
    intent="Advance opportunity {opportunity_id} to the next stage[, {stage}]",
    samples={"stage": ("qualification", "proposal", "negotiation")},
)
def advance_opportunity_stage(db: Session, opportunity_id: str, stage: str | None = None) -> dict[str, Any]:
    """Move an open opportunity one stage forward: prospecting -> qualification -> proposal -> negotiation.

    Stages cannot be skipped or moved back. From negotiation the deal can only be closed, and from
    any open stage it can be lost: both with close_opportunity. Give stage to make sure the deal
    lands where you expect; it must be the next one.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        opportunity_id: Opportunity id, e.g. "OPP-1001".
        stage: The stage expected next, e.g. "proposal"; refused unless it is the next stage.
    """
    opp = load_opportunity(db, opportunity_id)
    _check_open(opp, "move")
    forward = allowed_next_stages(opp.stage)[0]
    wanted = check_stage_name(stage) if stage is not None else forward
    if wanted == opp.stage:
        raise ToolError(f"Opportunity {opp.id} is already in {opp.stage}; {stages_text(opp.stage)}.")
    if wanted in CLOSED_STAGES and wanted in allowed_next_stages(opp.stage):
        outcome = "won" if wanted == "closed_won" else "lost"
        raise ToolError(
            f"Opportunity {opp.id} is in {opp.stage}; closing is final and goes through close_opportunity "
            f"(outcome '{outcome}'): {stages_text(opp.stage)}."
        )
    if wanted != forward:
        raise ToolError(
            f"Opportunity {opp.id} is in {opp.stage} and moves one stage at a time, so it cannot go to {wanted}; "
            f"{stages_text(opp.stage)}."
        )
    previous, opp.stage = opp.stage, forward
    return {**opportunity_view(opp), "previous_stage": previous}


@kit.tool(
    write=True,
    intent="Close opportunity {opportunity_id} as {outcome}[ on {close_date}][ with the reason '{reason}']",
    confirm="always",
    samples={
        "outcome": ("won", "lost"),
        "close_date": ("2026-01-15", "2026-01-14", "2026-01-12", "2026-01-09"),
        "reason": ("Chose a competitor", "Best fit for requirements", "No budget this year", "Strong pilot results"),
    },
)
def close_opportunity(
    db: Session, opportunity_id: str, outcome: str, close_date: str | None = None, reason: str | None = None
) -> dict[str, Any]:
    """Close an opportunity as won (closed_won) or lost (closed_lost). Closed stages are final.

    Lost works from any open stage. Won only from negotiation (the stage before closed_won), and
    only with an amount greater than 0 (set it with update_opportunity) and a close date that is
    not in the future. The close date defaults to today.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        opportunity_id: Opportunity id, e.g. "OPP-1001".
        outcome: "won" or "lost".
        close_date: The day it closed, today or earlier, e.g. "2026-01-15".
        reason: Why it was won or lost, e.g. "Chose a competitor".
    """
    opp = load_opportunity(db, opportunity_id)
    result = outcome.strip().lower().removeprefix("closed_")
    if result not in ("won", "lost"):
        raise ToolError(f"outcome must be 'won' or 'lost'; got {outcome!r}")
    _check_open(opp, "close")
    day = parse_date(close_date, "close_date") if close_date is not None else kit.today
    if day > kit.today:
        raise ToolError(
            f"close_date {day} is in the future (today is {kit.today}); an opportunity closes today or earlier."
        )
    if day < opp.created_on:
        raise ToolError(f"close_date {day} is before {opp.id} was created ({opp.created_on}); use a later date.")
    if result == "won":
        if opp.stage != "negotiation":
            raise ToolError(
                f"Opportunity {opp.id} is in {opp.stage}; it can be won only from negotiation, one stage at a "
                f"time: {stages_text(opp.stage)}."
            )
        if not opp.amount_cents:
            raise ToolError(
                f"Opportunity {opp.id} has no amount; closed_won needs an amount greater than 0. "
                "Set it with update_opportunity (amount), then close it."
            )
    previous = opp.stage
    opp.stage = f"closed_{result}"
    opp.close_date = day
    opp.close_reason = check_length(reason.strip(), "reason", 2, 200) if reason else None
    out = {**opportunity_view(opp), "previous_stage": previous, "close_reason": opp.close_reason}
    if result == "won" and opp.amount_cents:
        out["message"] = f"Won {format_dollars(opp.amount_cents)}."
    return out


@kit.tool(
    write=True,
    intent="Reassign opportunity {opportunity_id} to owner {owner_id}",
    samples={"owner_id": OWNER_SAMPLES},
)
def reassign_opportunity(db: Session, opportunity_id: str, owner_id: str) -> dict[str, Any]:
    """Give an open opportunity to another active owner (the account keeps its own owner).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        opportunity_id: Opportunity id, e.g. "OPP-1001".
        owner_id: The active owner who takes it over, e.g. "OWN-1002".
    """
    opp = load_opportunity(db, opportunity_id)
    _check_open(opp, "reassign")
    owner = check_active_owner(db, owner_id)
    if opp.owner_id == owner.id:
        raise ToolError(f"Opportunity {opp.id} is already owned by {owner.id} ({owner.name}); nothing changed.")
    previous, opp.owner_id = opp.owner_id, owner.id
    return {"opportunity_id": opp.id, "previous_owner_id": previous, "owner_id": owner.id}
