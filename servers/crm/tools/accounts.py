"""CRM tools for the sales team and accounts: list owners, find, read, create, change, reassign and archive accounts."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.crm.models import (
    INDUSTRIES,
    OPEN_STAGES,
    REGIONS,
    Account,
    Activity,
    Contact,
    Note,
    Opportunity,
    Owner,
)
from gym_mcp.servers.crm.tools.common import (
    account_brief,
    activity_view,
    check_account_open,
    check_active_owner,
    check_email,
    kit,
    load_account,
    load_contact,
    notes_of,
    opportunity_view,
)
from gym_mcp.servers.kit import ToolError, check_length, check_limit, dollars, next_id

_PHONE = re.compile(r"^\+?[\d\s().-]{7,20}$")


def _industry(value: str) -> str:
    """An industry as given, matched case-insensitively, or a `ToolError` listing the valid ones."""
    for industry in INDUSTRIES:
        if value.strip().lower() == industry.lower():
            return industry
    raise ToolError(f"industry must be one of {', '.join(INDUSTRIES)}; got {value!r}")


def _phone(value: str) -> str:
    text = value.strip()
    if not _PHONE.match(text):
        raise ToolError(f"phone {value!r} is not a phone number; use a form like '+1-503-555-0142'.")
    return text


def _open_opportunities(db: Session, account_id: str) -> list[Opportunity]:
    return list(
        db.scalars(
            select(Opportunity)
            .where(Opportunity.account_id == account_id, Opportunity.stage.in_(OPEN_STAGES))
            .order_by(Opportunity.id)
        )
    )


@kit.tool(
    write=False,
    intent="List the sales owners[ in the {region} region]",
    samples={"region": REGIONS},
)
def list_owners(db: Session, region: str | None = None, active_only: bool = False) -> list[dict[str, Any]]:
    """List the sales reps (owners) with their region, whether they are active, and their open pipeline.

    Use it to find an owner id for create_lead, create_opportunity or the reassign tools: only
    active owners can be given records.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        region: Only owners of this region: West, Central, East or EMEA.
        active_only: Leave out inactive owners (reps who left).
    """
    stmt = select(Owner).order_by(Owner.id)
    if region is not None:
        wanted = region.strip().lower()
        if wanted not in [r.lower() for r in REGIONS]:
            raise ToolError(f"region must be one of {', '.join(REGIONS)}; got {region!r}")
        stmt = stmt.where(func.lower(Owner.region) == wanted)
    if active_only:
        stmt = stmt.where(Owner.active.is_(True))
    out = []
    for owner in db.scalars(stmt):
        opps = list(
            db.scalars(select(Opportunity).where(Opportunity.owner_id == owner.id, Opportunity.stage.in_(OPEN_STAGES)))
        )
        out.append(
            {
                "owner_id": owner.id,
                "name": owner.name,
                "email": owner.email,
                "title": owner.title,
                "region": owner.region,
                "active": owner.active,
                "open_opportunities": len(opps),
                "open_pipeline": dollars(sum(o.amount_cents or 0 for o in opps)),
            }
        )
    return out


@kit.tool(
    write=False,
    intent="List the accounts[ matching '{query}'][ owned by {owner_id}][ in {industry}][, at most {limit}]",
    samples={
        "query": ("Northwind", "Summit", "Labs", "Health", "Logistics", "Meridian", "Energy"),
        "industry": INDUSTRIES,
    },
)
def list_accounts(
    db: Session,
    query: str | None = None,
    owner_id: str | None = None,
    industry: str | None = None,
    include_archived: bool = False,
    limit: int = 20,
) -> list[dict[str, Any]]:
    """Search accounts (companies) by name, owner or industry; archived ones are left out unless asked.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        query: Part of the account name, case-insensitive, e.g. "northwind".
        owner_id: Only accounts of this owner, e.g. "OWN-1001".
        industry: Only this industry, e.g. "Software" (Software, Manufacturing, Healthcare, Retail,
            Finance, Logistics, Education, Energy, Media, Hospitality).
        include_archived: Also list archived accounts.
        limit: Maximum number of accounts to return, 1 to 100.
    """
    check_limit(limit)
    stmt = select(Account)
    if query is not None:
        stmt = stmt.where(func.lower(Account.name).contains(query.strip().lower(), autoescape=True))
    if owner_id is not None:
        stmt = stmt.where(Account.owner_id == owner_id.strip().upper())
    if industry is not None:
        stmt = stmt.where(Account.industry == _industry(industry))
    if not include_archived:
        stmt = stmt.where(Account.status == "active")
    return [account_brief(a) for a in db.scalars(stmt.order_by(Account.id).limit(limit))]


@kit.tool(write=False, intent="Show the details of account {account_id}")
def get_account(db: Session, account_id: str) -> dict[str, Any]:
    """Get one account with its contacts, open opportunities, open activities and notes.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account id, e.g. "ACC-1001".
    """
    account = load_account(db, account_id)
    contacts = db.scalars(select(Contact).where(Contact.account_id == account.id).order_by(Contact.id))
    activities = db.scalars(
        select(Activity)
        .where(Activity.account_id == account.id, Activity.done.is_(False))
        .order_by(Activity.due_date, Activity.id)
    )
    closed = db.scalar(
        select(func.count())
        .select_from(Opportunity)
        .where(Opportunity.account_id == account.id, Opportunity.stage.not_in(OPEN_STAGES))
    )
    out = {
        **account_brief(account),
        "phone": account.phone,
        "website": account.website,
        "employees": account.employees,
        "created_on": account.created_on.isoformat(),
        "contacts": [{"contact_id": c.id, "name": c.name, "title": c.title, "email": c.email} for c in contacts],
        "open_opportunities": [opportunity_view(o) for o in _open_opportunities(db, account.id)],
        "closed_opportunity_count": closed,
        "open_activities": [activity_view(a) for a in activities],
        "notes": notes_of(db, Note.account_id, account.id),
    }
    if account.archived_on:
        out["archived_on"] = account.archived_on.isoformat()
    return out


@kit.tool(
    write=True,
    intent=(
        "Create an account named '{account_name}' in the {industry} industry, owned by {owner_id}"
        "[, based in {city}][, website {website}]"
    ),
    samples={
        "account_name": ("Acme Robotics", "Globex Freight", "Initech Software", "Umbrella Clinics", "Hooli Media"),
        "industry": INDUSTRIES,
        "owner_id": ("OWN-1001", "OWN-1002", "OWN-1003", "OWN-1004"),
        "city": ("Portland", "Austin", "Boston", "Toronto", "Berlin"),
        "website": ("www.acmerobotics.com", "www.globexfreight.io", "www.initech.net", "www.umbrella-clinics.com"),
    },
)
def create_account(
    db: Session, account_name: str, industry: str, owner_id: str, city: str | None = None, website: str | None = None
) -> dict[str, Any]:
    """Create a new account (company) owned by an active sales rep.

    Names are unique (case-insensitive): an existing account of the same name is refused with its id.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_name: Company name, 2 to 80 characters, e.g. "Acme Robotics".
        industry: One of Software, Manufacturing, Healthcare, Retail, Finance, Logistics, Education,
            Energy, Media, Hospitality.
        owner_id: The active owner who will own it, e.g. "OWN-1001".
        city: Headquarters city, e.g. "Portland".
        website: Web address, e.g. "www.acmerobotics.com".
    """
    label = check_length(account_name.strip(), "account_name", 2, 80, ", e.g. 'Acme Robotics'")
    kind = _industry(industry)
    owner = check_active_owner(db, owner_id)
    same = db.scalar(select(Account).where(func.lower(Account.name) == label.lower()))
    if same is not None:
        raise ToolError(f"An account named {same.name!r} already exists ({same.id}); use it instead of a duplicate.")
    account = Account(
        id=next_id(db, Account.id, "ACC"),
        name=label,
        industry=kind,
        city=(city or "").strip() or "Unknown",
        phone="",
        website=(website or "").strip().lower(),
        employees=0,
        owner_id=owner.id,
        status="active",
        created_on=kit.today,
    )
    db.add(account)
    db.flush()
    return account_brief(account)


@kit.tool(
    write=True,
    intent=(
        "Update account {account_id}[, setting the phone to {phone}][, setting the website to {website}]"
        "[, setting the industry to {industry}][, setting the city to {city}]"
    ),
    samples={
        "phone": ("+1-503-555-0142", "+1-617-555-0199", "+44 20 7946 0958", "+1-312-555-0107"),
        "website": ("www.example-new.com", "www.rebrand.io", "www.newdomain.net"),
        "industry": INDUSTRIES,
        "city": ("Denver", "Chicago", "Dublin", "Seattle", "Amsterdam"),
    },
)
def update_account(
    db: Session,
    account_id: str,
    phone: str | None = None,
    website: str | None = None,
    industry: str | None = None,
    city: str | None = None,
) -> dict[str, Any]:
    """Change an account's phone, website, industry or city; give at least one of them.

    Archived accounts cannot be changed. Use reassign_account to change the owner.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account id, e.g. "ACC-1001".
        phone: New main phone number, e.g. "+1-503-555-0142".
        website: New web address, e.g. "www.acme.com".
        industry: New industry, e.g. "Software".
        city: New headquarters city, e.g. "Denver".
    """
    account = load_account(db, account_id)
    if phone is None and website is None and industry is None and city is None:
        raise ToolError("Nothing to change: give at least one of phone, website, industry or city.")
    check_account_open(account, "update")
    changed: dict[str, Any] = {}
    if phone is not None:
        account.phone = changed["phone"] = _phone(phone)
    if website is not None:
        account.website = changed["website"] = check_length(website.strip().lower(), "website", 4, 80)
    if industry is not None:
        account.industry = changed["industry"] = _industry(industry)
    if city is not None:
        account.city = changed["city"] = check_length(city.strip(), "city", 2, 60)
    return {"account_id": account.id, "changed": changed}


@kit.tool(
    write=True,
    intent="Reassign account {account_id} to owner {owner_id}",
    samples={"owner_id": ("OWN-1001", "OWN-1002", "OWN-1003", "OWN-1004", "OWN-1005", "OWN-1006")},
)
def reassign_account(db: Session, account_id: str, owner_id: str) -> dict[str, Any]:
    """Give an account to another active owner, together with its open opportunities.

    Closed opportunities keep the owner who closed them; open activities are not moved.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account id, e.g. "ACC-1001".
        owner_id: The active owner who takes it over, e.g. "OWN-1002".
    """
    account = load_account(db, account_id)
    check_account_open(account, "reassign")
    owner = check_active_owner(db, owner_id)
    if account.owner_id == owner.id:
        raise ToolError(f"Account {account.id} is already owned by {owner.id} ({owner.name}); nothing changed.")
    previous = account.owner_id
    account.owner_id = owner.id
    moved = []
    for opp in _open_opportunities(db, account.id):
        if opp.owner_id != owner.id:
            opp.owner_id = owner.id
            moved.append(opp.id)
    return {
        "account_id": account.id,
        "previous_owner_id": previous,
        "owner_id": owner.id,
        "opportunities_moved": moved,
    }


@kit.tool(write=True, intent="Archive account {account_id}", confirm="always")
def archive_account(db: Session, account_id: str) -> dict[str, Any]:
    """Archive an account for good: it leaves the lists and takes no new contacts, deals or activities.

    Refused while the account has open opportunities: close each one first (close_opportunity).
    This cannot be undone.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account id, e.g. "ACC-1001".
    """
    account = load_account(db, account_id)
    if account.status == "archived":
        raise ToolError(f"Account {account.id} is already archived (since {account.archived_on}); nothing changed.")
    open_opps = _open_opportunities(db, account.id)
    if open_opps:
        ids = ", ".join(o.id for o in open_opps)
        raise ToolError(
            f"Account {account.id} has {len(open_opps)} open opportunit{'y' if len(open_opps) == 1 else 'ies'} "
            f"({ids}); an account with open opportunities cannot be archived. Close them first "
            "(close_opportunity with outcome 'won' or 'lost')."
        )
    account.status = "archived"
    account.archived_on = kit.today
    return {"account_id": account.id, "status": "archived", "archived_on": kit.today.isoformat()}


# -- contacts ----------------------------------------------------------------------------------


@kit.tool(
    write=False,
    intent="List the contacts[ of account {account_id}][ matching '{query}'][, at most {limit}]",
    samples={"query": ("Garcia", "Nguyen", "Patel", "Olivia", "Kim", "CFO", "Director")},
)
def list_contacts(
    db: Session, account_id: str | None = None, query: str | None = None, limit: int = 20
) -> list[dict[str, Any]]:
    """List contacts (people at accounts), optionally of one account or matching a name, email or title.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Only contacts of this account, e.g. "ACC-1001".
        query: Part of a name, email or job title, case-insensitive, e.g. "garcia" or "CFO".
        limit: Maximum number of contacts to return, 1 to 100.
    """
    check_limit(limit)
    stmt = select(Contact)
    if account_id is not None:
        stmt = stmt.where(Contact.account_id == load_account(db, account_id).id)
    if query is not None:
        text = query.strip().lower()
        full = func.lower(Contact.first_name + " " + Contact.last_name)
        stmt = stmt.where(
            or_(
                full.contains(text, autoescape=True),
                Contact.email.contains(text, autoescape=True),
                func.lower(Contact.title).contains(text, autoescape=True),
            )
        )
    return [
        {"contact_id": c.id, "name": c.name, **{k: getattr(c, k) for k in ("title", "email", "phone", "account_id")}}
        for c in db.scalars(stmt.order_by(Contact.id).limit(limit))
    ]


def _check_unique_email(db: Session, email: str, but: str | None = None) -> None:
    other = db.scalar(select(Contact).where(Contact.email == email, Contact.id != (but or "")))
    if other is not None:
        raise ToolError(f"{email} is already the email of {other.id} ({other.name} at {other.account_id}).")


@kit.tool(
    write=True,
    intent="Add {first_name} {last_name} ({email}) as a contact at account {account_id}[ with the title {title}]",
    samples={
        "first_name": ("Jordan", "Priya", "Marcus", "Elena", "Tariq"),
        "last_name": ("Reyes", "Lindgren", "Okoye", "Brandt", "Haas"),
        "email": ("jordan.reyes@example.com", "p.lindgren@example.org", "marcus@okoye.io", "elena.b@example.net"),
        "title": ("CFO", "Head of IT", "Procurement Manager", "VP of Sales", "Office Manager"),
    },
)
def create_contact(
    db: Session, account_id: str, first_name: str, last_name: str, email: str, title: str | None = None
) -> dict[str, Any]:
    """Add a person (contact) to an active account. Emails are unique across contacts.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account the person works at, e.g. "ACC-1001".
        first_name: First name, e.g. "Jordan".
        last_name: Last name, e.g. "Reyes".
        email: Work email, e.g. "jordan.reyes@example.com".
        title: Job title, e.g. "CFO".
    """
    account = load_account(db, account_id)
    check_account_open(account, "add a contact to")
    first = check_length(first_name.strip(), "first_name", 1, 60)
    last = check_length(last_name.strip(), "last_name", 1, 60)
    address = check_email(email)
    _check_unique_email(db, address)
    contact = Contact(
        id=next_id(db, Contact.id, "CON"),
        account_id=account.id,
        first_name=first,
        last_name=last,
        email=address,
        phone="",
        title=(title or "").strip(),
    )
    db.add(contact)
    db.flush()
    return {"contact_id": contact.id, "name": contact.name, "email": contact.email, "account_id": account.id}


@kit.tool(
    write=True,
    intent=(
        "Update contact {contact_id}[, setting the title to {title}][, setting the email to {email}]"
        "[, setting the phone to {phone}]"
    ),
    samples={
        "title": ("CFO", "CTO", "VP of Operations", "Finance Manager", "Marketing Director"),
        "email": ("new.address@example.com", "j.doe@example.org", "contact@example.net"),
        "phone": ("+1-503-555-0142", "+1-617-555-0199", "+44 20 7946 0958"),
    },
)
def update_contact(
    db: Session, contact_id: str, title: str | None = None, email: str | None = None, phone: str | None = None
) -> dict[str, Any]:
    """Change a contact's job title, email or phone; give at least one of them.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        contact_id: Contact id, e.g. "CON-1001".
        title: New job title, e.g. "CFO".
        email: New email, unique across contacts, e.g. "jordan.reyes@example.com".
        phone: New phone number, e.g. "+1-503-555-0142".
    """
    contact = load_contact(db, contact_id)
    if title is None and email is None and phone is None:
        raise ToolError("Nothing to change: give at least one of title, email or phone.")
    changed: dict[str, Any] = {}
    if title is not None:
        contact.title = changed["title"] = check_length(title.strip(), "title", 2, 60)
    if email is not None:
        address = check_email(email)
        _check_unique_email(db, address, but=contact.id)
        contact.email = changed["email"] = address
    if phone is not None:
        contact.phone = changed["phone"] = _phone(phone)
    return {"contact_id": contact.id, "changed": changed}
