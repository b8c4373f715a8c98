"""CRM tools for leads: list and read them, create them, move their status, reassign and convert them."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gym_mcp.servers.crm.models import LEAD_SOURCES, LEAD_STATUSES, Account, Contact, Lead, Note, Opportunity
from gym_mcp.servers.crm.tools.common import (
    check_active_owner,
    check_email,
    kit,
    lead_view,
    load_lead,
    notes_of,
    opportunity_view,
)
from gym_mcp.servers.kit import ToolError, check_length, check_limit, next_id, to_cents

SETTABLE_STATUSES = ("new", "contacted", "qualified", "disqualified")
"""The statuses update_lead_status sets; ``converted`` comes only from convert_lead."""

OWNER_SAMPLES = ("OWN-1001", "OWN-1002", "OWN-1003", "OWN-1004", "OWN-1005", "OWN-1006")


def _status(value: str, allowed: tuple[str, ...], field: str = "status") -> str:
    text = value.strip().lower()
    if text not in allowed:
        raise ToolError(f"{field} must be one of {', '.join(allowed)}; got {value!r}")
    return text


def _converted_text(lead: Lead) -> str:
    """What a converted lead became, for error messages."""
    parts = [f"account {lead.converted_account_id}", f"contact {lead.converted_contact_id}"]
    if lead.converted_opportunity_id:
        parts.append(f"opportunity {lead.converted_opportunity_id}")
    return f"Lead {lead.id} was already converted on {lead.converted_on} into {', '.join(parts)}"


@kit.tool(
    write=False,
    intent="List the[ {status}] leads[ from {source}][ owned by {owner_id}][, at most {limit}]",
    samples={"status": LEAD_STATUSES, "source": LEAD_SOURCES},
)
def list_leads(
    db: Session, status: str | None = None, source: str | None = None, owner_id: str | None = None, limit: int = 20
) -> list[dict[str, Any]]:
    """List leads (unqualified prospects), newest first, optionally by status, source or owner.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        status: Only this status: new, contacted, qualified, disqualified or converted.
        source: Only this source: web, referral, trade_show, cold_call, partner or webinar.
        owner_id: Only leads of this owner, e.g. "OWN-1001".
        limit: Maximum number of leads to return, 1 to 100.
    """
    check_limit(limit)
    stmt = select(Lead)
    if status is not None:
        stmt = stmt.where(Lead.status == _status(status, LEAD_STATUSES))
    if source is not None:
        stmt = stmt.where(Lead.source == _status(source, LEAD_SOURCES, "source"))
    if owner_id is not None:
        stmt = stmt.where(Lead.owner_id == owner_id.strip().upper())
    rows = db.scalars(stmt.order_by(Lead.created_on.desc(), Lead.id.desc()).limit(limit))
    return [lead_view(lead) for lead in rows]


@kit.tool(write=False, intent="Show lead {lead_id}")
def get_lead(db: Session, lead_id: str) -> dict[str, Any]:
    """Get one lead with its notes; a converted lead also shows the account, contact and opportunity it became.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        lead_id: Lead id, e.g. "LEAD-1001".
    """
    lead = load_lead(db, lead_id)
    return {**lead_view(lead), "notes": notes_of(db, Note.lead_id, lead.id)}


@kit.tool(
    write=True,
    intent=(
        "Create a lead for {first_name} {last_name} of {company} (source: {source}), owned by {owner_id}"
        "[, email {email}]"
    ),
    samples={
        "first_name": ("Jordan", "Priya", "Marcus", "Elena", "Tariq"),
        "last_name": ("Reyes", "Lindgren", "Okoye", "Brandt", "Haas"),
        "company": ("Acme Robotics", "Globex Freight", "Initech Software", "Umbrella Clinics", "Vandelay Imports"),
        "source": LEAD_SOURCES,
        "owner_id": OWNER_SAMPLES,
        "email": ("jordan@acmerobotics.com", "priya@globexfreight.io", "marcus@initech.net", "elena@vandelay.com"),
    },
)
def create_lead(
    db: Session,
    first_name: str,
    last_name: str,
    company: str,
    source: str,
    owner_id: str,
    email: str | None = None,
) -> dict[str, Any]:
    """Create a new lead (status new) owned by an active sales rep.

    An email already used by another open lead is refused with that lead's id.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        first_name: The prospect's first name, e.g. "Jordan".
        last_name: The prospect's last name, e.g. "Reyes".
        company: Their company, e.g. "Acme Robotics".
        source: Where the lead came from: web, referral, trade_show, cold_call, partner or webinar.
        owner_id: The active owner who works the lead, e.g. "OWN-1001".
        email: Their email, e.g. "jordan@acmerobotics.com".
    """
    first = check_length(first_name.strip(), "first_name", 1, 60)
    last = check_length(last_name.strip(), "last_name", 1, 60)
    firm = check_length(company.strip(), "company", 2, 80)
    origin = _status(source, LEAD_SOURCES, "source")
    owner = check_active_owner(db, owner_id)
    address = check_email(email) if email is not None else None
    if address is not None:
        other = db.scalar(select(Lead).where(Lead.email == address, Lead.status != "converted"))
        if other is not None:
            raise ToolError(f"{address} is already the email of open lead {other.id} ({other.name}); use that lead.")
    lead = Lead(
        id=next_id(db, Lead.id, "LEAD"),
        first_name=first,
        last_name=last,
        company=firm,
        email=address,
        source=origin,
        status="new",
        owner_id=owner.id,
        created_on=kit.today,
    )
    db.add(lead)
    db.flush()
    return lead_view(lead)


@kit.tool(
    write=True,
    intent="Set the status of lead {lead_id} to {status}[ with the reason '{reason}']",
    samples={
        "status": SETTABLE_STATUSES,
        "reason": ("No budget", "Not a decision maker", "Went with a competitor", "Company too small"),
    },
)
def update_lead_status(db: Session, lead_id: str, status: str, reason: str | None = None) -> dict[str, Any]:
    """Move a lead to new, contacted, qualified or disqualified.

    A converted lead cannot change any more, and "converted" is set only by convert_lead. The
    reason is kept when disqualifying.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        lead_id: Lead id, e.g. "LEAD-1001".
        status: The new status: new, contacted, qualified or disqualified.
        reason: Why it is disqualified, e.g. "No budget".
    """
    lead = load_lead(db, lead_id)
    if status.strip().lower() == "converted":
        raise ToolError("status 'converted' is set by convert_lead (which also creates the account and contact).")
    new = _status(status, SETTABLE_STATUSES)
    if lead.status == "converted":
        raise ToolError(f"{_converted_text(lead)}; a converted lead's status cannot change.")
    if lead.status == new:
        raise ToolError(f"Lead {lead.id} is already {new}; nothing changed.")
    previous = lead.status
    lead.status = new
    lead.disqualify_reason = (
        check_length(reason.strip(), "reason", 2, 200) if new == "disqualified" and reason else None
    )
    return {"lead_id": lead.id, "previous_status": previous, "status": new, "disqualify_reason": lead.disqualify_reason}


@kit.tool(
    write=True,
    intent="Reassign lead {lead_id} to owner {owner_id}",
    samples={"owner_id": OWNER_SAMPLES},
)
def reassign_lead(db: Session, lead_id: str, owner_id: str) -> dict[str, Any]:
    """Give a lead that is not yet converted to another active owner.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        lead_id: Lead id, e.g. "LEAD-1001".
        owner_id: The active owner who takes it over, e.g. "OWN-1002".
    """
    lead = load_lead(db, lead_id)
    if lead.status == "converted":
        raise ToolError(f"{_converted_text(lead)}; reassign that account instead (reassign_account).")
    owner = check_active_owner(db, owner_id)
    if lead.owner_id == owner.id:
        raise ToolError(f"Lead {lead.id} is already owned by {owner.id} ({owner.name}); nothing changed.")
    previous, lead.owner_id = lead.owner_id, owner.id
    return {"lead_id": lead.id, "previous_owner_id": previous, "owner_id": owner.id}


@kit.tool(
    write=True,
    intent="Convert lead {lead_id}[ with a new opportunity '{opportunity_name}'][ worth ${amount}]",
    samples={
        "opportunity_name": ("First order", "Pilot project", "Annual subscription", "Platform licence"),
        "amount": (5000, 12000, 25000, 48000.5, 90000),
    },
)
def convert_lead(
    db: Session, lead_id: str, opportunity_name: str | None = None, amount: float | None = None
) -> dict[str, Any]:
    """Convert a qualified lead into an account, a contact and, if opportunity_name is given, an opportunity.

    Only qualified leads convert, and only once. The account takes the lead's company name (an
    existing account of that name is reused), its owner is the lead's owner, who must be active
    (reassign_lead first otherwise). A new opportunity starts in prospecting and is expected to
    close in 90 days.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        lead_id: Lead id, e.g. "LEAD-1001".
        opportunity_name: Name of the deal to open, e.g. "Pilot project"; no opportunity when left out.
        amount: Expected deal size in dollars, e.g. 25000; only with opportunity_name.
    """
    lead = load_lead(db, lead_id)
    if lead.status == "converted":
        raise ToolError(f"{_converted_text(lead)}; a lead converts only once.")
    if lead.status != "qualified":
        raise ToolError(
            f"Lead {lead.id} is {lead.status}; only qualified leads can be converted. "
            "Qualify it first with update_lead_status (status 'qualified')."
        )
    if amount is not None and opportunity_name is None:
        raise ToolError("amount needs opportunity_name: give the name of the opportunity to create, or drop amount.")
    cents = to_cents(amount) if amount is not None else None
    owner = check_active_owner(db, lead.owner_id)
    deal_name = check_length(opportunity_name.strip(), "opportunity_name", 2, 80) if opportunity_name else None
    account = db.scalar(
        select(Account).where(func.lower(Account.name) == lead.company.lower(), Account.status == "active")
    )
    created = account is None
    if account is None:
        account = Account(
            id=next_id(db, Account.id, "ACC"),
            name=lead.company,
            industry="Software",
            city="Unknown",
            phone="",
            website="",
            employees=0,
            owner_id=owner.id,
            status="active",
            created_on=kit.today,
        )
        db.add(account)
        db.flush()
    address = lead.email
    if address is not None and db.scalar(select(Contact).where(Contact.email == address)) is not None:
        address = None  # already a contact's email: the new contact goes without it
    contact = Contact(
        id=next_id(db, Contact.id, "CON"),
        account_id=account.id,
        first_name=lead.first_name,
        last_name=lead.last_name,
        email=address,
        phone="",
        title="",
    )
    db.add(contact)
    db.flush()
    opp = None
    if deal_name is not None:
        opp = Opportunity(
            id=next_id(db, Opportunity.id, "OPP"),
            account_id=account.id,
            name=f"{account.name} - {deal_name}",
            stage="prospecting",
            amount_cents=cents,
            close_date=kit.today + timedelta(days=90),
            owner_id=owner.id,
            created_on=kit.today,
        )
        db.add(opp)
        db.flush()
    lead.status = "converted"
    lead.converted_on = kit.today
    lead.converted_account_id = account.id
    lead.converted_contact_id = contact.id
    lead.converted_opportunity_id = opp.id if opp is not None else None
    return {
        "lead_id": lead.id,
        "status": "converted",
        "account_id": account.id,
        "account_created": created,
        "contact_id": contact.id,
        "opportunity": opportunity_view(opp) if opp is not None else None,
    }
