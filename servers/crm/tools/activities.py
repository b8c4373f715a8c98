"""CRM tools for activities (calls, emails, meetings, tasks) and notes."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.crm.models import ACTIVITY_KINDS, OPEN_STAGES, Activity, Note
from gym_mcp.servers.crm.tools.common import (
    activity_view,
    check_account_open,
    check_active_owner,
    check_future_date,
    kit,
    load_account,
    load_activity,
    load_contact,
    load_lead,
    load_opportunity,
    note_view,
)
from gym_mcp.servers.kit import ToolError, check_length, check_limit, next_id

ACTIVITY_STATUSES = ("open", "done", "overdue")


@kit.tool(
    write=False,
    intent="List the[ {status}] activities[ of account {account_id}][ for opportunity {opportunity_id}]"
    "[ owned by {owner_id}][, at most {limit}]",
    samples={"status": ACTIVITY_STATUSES},
)
def list_activities(
    db: Session,
    status: str | None = None,
    account_id: str | None = None,
    opportunity_id: str | None = None,
    owner_id: str | None = None,
    limit: int = 20,
) -> list[dict[str, Any]]:
    """List activities by due date, optionally by status, account, opportunity or owner.

    Status "open" is not done yet, "overdue" is open with a due date before today, "done" is
    completed. Each activity shows overdue as a flag too.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        status: Only "open", "overdue" or "done" activities.
        account_id: Only activities of this account, e.g. "ACC-1001".
        opportunity_id: Only activities of this opportunity, e.g. "OPP-1001".
        owner_id: Only activities of this owner, e.g. "OWN-1001".
        limit: Maximum number of activities to return, 1 to 100.
    """
    check_limit(limit)
    stmt = select(Activity)
    if status is not None:
        wanted = status.strip().lower()
        if wanted not in ACTIVITY_STATUSES:
            raise ToolError(f"status must be one of {', '.join(ACTIVITY_STATUSES)}; got {status!r}")
        stmt = stmt.where(Activity.done.is_(wanted == "done"))
        if wanted == "overdue":
            stmt = stmt.where(Activity.due_date < kit.today)
    if account_id is not None:
        stmt = stmt.where(Activity.account_id == load_account(db, account_id).id)
    if opportunity_id is not None:
        stmt = stmt.where(Activity.opportunity_id == load_opportunity(db, opportunity_id).id)
    if owner_id is not None:
        stmt = stmt.where(Activity.owner_id == owner_id.strip().upper())
    rows = db.scalars(stmt.order_by(Activity.due_date, Activity.id).limit(limit))
    return [activity_view(a) for a in rows]


@kit.tool(
    write=True,
    intent="Log a {kind} '{subject}' due {due_date} for account {account_id}"
    "[ with contact {contact_id}][ about opportunity {opportunity_id}]",
    samples={
        "kind": ACTIVITY_KINDS,
        "subject": ("Discovery call", "Send proposal", "Product demo", "Prepare quote", "Renewal check-in"),
        "due_date": ("2026-01-15", "2026-01-16", "2026-01-20", "2026-01-27", "2026-02-03"),
    },
)
def log_activity(
    db: Session,
    account_id: str,
    kind: str,
    subject: str,
    due_date: str,
    contact_id: str | None = None,
    opportunity_id: str | None = None,
) -> dict[str, Any]:
    """Schedule a call, email, meeting or task on an active account, optionally with one of its contacts or deals.

    The contact and opportunity must belong to the account, and the opportunity must be open. The
    activity goes to the opportunity's owner when one is given, else to the account's owner, who
    must be active (reassign first otherwise). To record something already done, log it for today
    and complete it with complete_activity.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account id, e.g. "ACC-1001".
        kind: "call", "email", "meeting" or "task".
        subject: What it is about, 2 to 120 characters, e.g. "Discovery call".
        due_date: When it is due, today or later, e.g. "2026-01-20".
        contact_id: A contact of the account, e.g. "CON-1001".
        opportunity_id: An open opportunity of the account, e.g. "OPP-1001".
    """
    account = load_account(db, account_id)
    check_account_open(account, "log an activity on")
    what = kind.strip().lower()
    if what not in ACTIVITY_KINDS:
        raise ToolError(f"kind must be one of {', '.join(ACTIVITY_KINDS)}; got {kind!r}")
    text = check_length(subject.strip(), "subject", 2, 120, ", e.g. 'Discovery call'")
    due = check_future_date(due_date, "due_date", horizon_days=365)
    contact = load_contact(db, contact_id) if contact_id is not None else None
    if contact is not None and contact.account_id != account.id:
        raise ToolError(
            f"Contact {contact.id} ({contact.name}) works at {contact.account_id}, not {account.id}; "
            f"use list_contacts with account_id {account.id!r} to pick one of its contacts."
        )
    opp = load_opportunity(db, opportunity_id) if opportunity_id is not None else None
    if opp is not None:
        if opp.account_id != account.id:
            raise ToolError(
                f"Opportunity {opp.id} belongs to {opp.account_id}, not {account.id}; "
                f"use list_opportunities with account_id {account.id!r} to pick one of its deals."
            )
        if opp.stage not in OPEN_STAGES:
            raise ToolError(f"Opportunity {opp.id} is {opp.stage}; closed opportunities take no new activities.")
    owner = check_active_owner(db, opp.owner_id if opp is not None else account.owner_id)
    activity = Activity(
        id=next_id(db, Activity.id, "ACT"),
        kind=what,
        subject=text,
        due_date=due,
        done=False,
        account_id=account.id,
        contact_id=contact.id if contact else None,
        opportunity_id=opp.id if opp else None,
        owner_id=owner.id,
    )
    db.add(activity)
    db.flush()
    return activity_view(activity)


@kit.tool(
    write=True,
    intent="Mark activity {activity_id} as done[ with the outcome '{outcome}']",
    samples={"outcome": ("Left a voicemail", "Agreed next steps", "Sent the proposal", "Demo went well")},
)
def complete_activity(db: Session, activity_id: str, outcome: str | None = None) -> dict[str, Any]:
    """Mark an open activity as done today, with an optional outcome.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        activity_id: Activity id, e.g. "ACT-1001".
        outcome: What came of it, e.g. "Agreed next steps".
    """
    activity = load_activity(db, activity_id)
    if activity.done:
        raise ToolError(f"Activity {activity.id} was already completed on {activity.completed_on}; nothing changed.")
    activity.done = True
    activity.completed_on = kit.today
    activity.outcome = check_length(outcome.strip(), "outcome", 2, 200) if outcome else None
    return activity_view(activity)


@kit.tool(
    write=True,
    intent="Add the note '{body}'[ to account {account_id}][ to contact {contact_id}][ to lead {lead_id}]"
    "[ to opportunity {opportunity_id}]",
    samples={
        "body": (
            "Budget approved for next quarter.",
            "Prefers email over phone calls.",
            "Evaluating two other vendors.",
            "Asked for a multi-year discount.",
            "Needs SSO before signing.",
        )
    },
)
def add_note(
    db: Session,
    body: str,
    account_id: str | None = None,
    contact_id: str | None = None,
    lead_id: str | None = None,
    opportunity_id: str | None = None,
) -> dict[str, Any]:
    """Add a free-text note to exactly one record: an account, a contact, a lead or an opportunity.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        body: The note, 2 to 1000 characters, e.g. "Budget approved for next quarter.".
        account_id: Account to note, e.g. "ACC-1001".
        contact_id: Contact to note, e.g. "CON-1001".
        lead_id: Lead to note, e.g. "LEAD-1001".
        opportunity_id: Opportunity to note, e.g. "OPP-1001".
    """
    given = {
        k: v
        for k, v in (
            ("account_id", account_id),
            ("contact_id", contact_id),
            ("lead_id", lead_id),
            ("opportunity_id", opportunity_id),
        )
        if v is not None
    }
    if len(given) != 1:
        names = ", ".join(given) if given else "none"
        raise ToolError(
            f"Give exactly one of account_id, contact_id, lead_id or opportunity_id (got {names}); "
            "a note belongs to one record."
        )
    text = check_length(body.strip(), "body", 2, 1000)
    note = Note(id=next_id(db, Note.id, "NOTE"), body=text, created_on=kit.today)
    if account_id is not None:
        account = load_account(db, account_id)
        check_account_open(account, "add a note to")
        note.account_id = account.id
    elif contact_id is not None:
        note.contact_id = load_contact(db, contact_id).id
    elif lead_id is not None:
        note.lead_id = load_lead(db, lead_id).id
    else:
        note.opportunity_id = load_opportunity(db, opportunity_id or "").id
    db.add(note)
    db.flush()
    target = next(iter(given))
    return {**note_view(note), target: getattr(note, target)}
