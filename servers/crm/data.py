"""Deterministic seed data of the CRM server.

`seed` fills an empty database from a `random.Random` alone: the same seed always gives the
same sales team, accounts, contacts, leads, pipeline, activities and notes, and a different
seed gives different ones. The data keeps the server's own rules: closed opportunities have a
close date before today and every won one an amount, archived accounts have no open
opportunities, converted leads point at the account, contact and opportunity they became, and
every contact of an activity works at its account. Every seed also holds what the error paths
need: inactive owners who still own records, open opportunities in negotiation without an
amount, leads in every status and accounts with and without open opportunities.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from sqlalchemy.orm import Session

from gym_mcp.servers.crm.models import (
    ACTIVITY_KINDS,
    INDUSTRIES,
    LEAD_SOURCES,
    OPEN_STAGES,
    REGIONS,
    TODAY,
    Account,
    Activity,
    Contact,
    Lead,
    Note,
    Opportunity,
    Owner,
)
from gym_mcp.servers.kit import NamePool

__all__ = ["seed"]

FIRST_NAMES = (
    "Olivia", "Liam", "Emma", "Noah", "Ava", "Mateo", "Sophia", "Lucas", "Isabella", "Ethan", "Mia", "Aarav",
    "Amelia", "Hiroshi", "Harper", "Kwame", "Evelyn", "Diego", "Abigail", "Omar", "Priya", "Jonas", "Chloe",
    "Rafael", "Zara", "Grace", "Tomasz", "Leila", "Samuel", "Ingrid", "Chen", "Nadia", "Felix", "Aisha", "Marco",
    "Yuki", "Daniel", "Fatima", "Oscar", "Elena", "Kofi", "Sara", "Arjun", "Lucia", "Benjamin", "Maya",
)  # fmt: skip
LAST_NAMES = (
    "Smith", "Garcia", "Nguyen", "Okafor", "Rossi", "Kowalski", "Tanaka", "Patel", "Johansson", "Haddad", "Silva",
    "Kim", "Dubois", "Novak", "Mensah", "Fernandez", "Larsen", "Cohen", "Santos", "Schmidt", "Ahmed", "Walker",
    "Moreau", "Rahman", "Bianchi", "Yilmaz", "Petrov", "Reyes", "Andersen", "Osei", "Sato", "Murphy", "Costa",
    "Weber", "Hughes", "Kaur", "Alvarez", "Fischer", "Brennan", "Mwangi", "Park", "Lindqvist",
)  # fmt: skip
PEOPLE = NamePool(FIRST_NAMES, LAST_NAMES)
"""The names people of the seed data are drawn from."""
CITIES = (
    "Portland", "Seattle", "Austin", "Denver", "Boston", "Chicago", "Atlanta", "Phoenix", "San Diego",
    "Minneapolis", "Raleigh", "Nashville", "Pittsburgh", "Toronto", "London", "Dublin", "Berlin", "Amsterdam",
)  # fmt: skip
NAME_STEMS = (
    "Northwind", "Bluepeak", "Cedarline", "Ironbridge", "Silverlake", "Redwood", "Brightwater", "Stonegate",
    "Harborview", "Clearpath", "Goldcrest", "Pinecone", "Summit", "Riverbend", "Oakridge", "Lumen", "Vertex",
    "Keystone", "Meridian", "Aspen", "Falconer", "Copperfield", "Evergreen", "Starling", "Westbrook", "Nimbus",
    "Trident", "Halcyon", "Quarry", "Juniper", "Solstice", "Tidewater",
)  # fmt: skip
NAME_TAILS = {
    "Software": ("Software", "Labs", "Systems", "Analytics"),
    "Manufacturing": ("Manufacturing", "Industries", "Components", "Fabrication"),
    "Healthcare": ("Health", "Medical", "Clinics", "Biotech"),
    "Retail": ("Retail", "Outfitters", "Markets", "Goods"),
    "Finance": ("Capital", "Financial", "Partners", "Credit Union"),
    "Logistics": ("Logistics", "Freight", "Shipping", "Transport"),
    "Education": ("Learning", "Academy", "Schools", "Institute"),
    "Energy": ("Energy", "Power", "Solar", "Utilities"),
    "Media": ("Media", "Studios", "Publishing", "Broadcasting"),
    "Hospitality": ("Hotels", "Resorts", "Hospitality", "Dining"),
}
CONTACT_TITLES = (
    "CEO", "CFO", "CTO", "VP of Sales", "VP of Operations", "Head of IT", "Procurement Manager",
    "Operations Director", "Finance Manager", "IT Manager", "Marketing Director", "Office Manager",
)  # fmt: skip
OWNER_TITLES = ("Account Executive", "Senior Account Executive", "Sales Development Rep", "Sales Manager")
PRODUCTS = (
    "Platform licence", "Support renewal", "Analytics add-on", "Onboarding package", "Enterprise upgrade",
    "Data migration", "Security suite", "Annual subscription", "Pilot project", "Training bundle",
)  # fmt: skip
LOSS_REASONS = ("Chose a competitor", "No budget this year", "Project cancelled", "Price too high", "No decision")
WIN_REASONS = ("Best fit for requirements", "Strong pilot results", "Competitive price", "Existing relationship")
DISQUALIFY_REASONS = ("No budget", "Not a decision maker", "Company too small", "Duplicate of an existing customer")
ACTIVITY_SUBJECTS = {
    "call": ("Discovery call", "Follow-up call", "Pricing call", "Check-in call", "Renewal call"),
    "email": ("Send proposal", "Send case studies", "Follow-up email", "Share contract draft", "Send pricing"),
    "meeting": ("Product demo", "Quarterly business review", "On-site visit", "Kickoff meeting", "Contract review"),
    "task": ("Prepare quote", "Update forecast", "Draft proposal", "Check credit terms", "Plan account strategy"),
}
OUTCOMES = ("Left a voicemail", "Interested, wants a demo", "Sent the requested documents", "Agreed next steps")
NOTE_BODIES = (
    "Budget approved for next quarter.",
    "Decision maker is the CFO; loop her in early.",
    "Prefers email over phone calls.",
    "Evaluating two other vendors.",
    "Asked for a discount on a multi-year deal.",
    "Legal review takes about three weeks.",
    "Champion is moving to another team in March.",
    "Happy with support so far; renewal looks likely.",
    "Needs SSO before they can sign.",
    "Met at the Chicago trade show.",
)


def _day(low: int, high: int, rng: random.Random) -> date:
    """A day ``low..high`` days from today (negative: in the past)."""
    return TODAY + timedelta(days=rng.randint(low, high))


def _phone(rng: random.Random) -> str:
    return f"+1-{rng.randint(201, 989)}-555-{rng.randint(0, 9999):04d}"


def _owners(rng: random.Random) -> list[Owner]:
    """Twelve sales reps; two of them have left (inactive) but still own records."""
    owners: list[Owner] = []
    names: set[tuple[str, str]] = set()
    while len(owners) < 12:
        first, last = PEOPLE.draw_new(rng, names)
        owners.append(
            Owner(
                id=f"OWN-{1001 + len(owners)}",
                first_name=first,
                last_name=last,
                email=f"{first}.{last}@crmco.example".lower(),
                title=OWNER_TITLES[0] if len(owners) < 4 else rng.choice(OWNER_TITLES),
                region=REGIONS[len(owners) % len(REGIONS)],
                active=True,
            )
        )
    for owner in rng.sample(owners[4:], 2):
        owner.active = False
    return owners


def _company_names(rng: random.Random, count: int) -> list[tuple[str, str]]:
    """``count`` distinct (name, industry) pairs."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    while len(out) < count:
        industry = rng.choice(INDUSTRIES)
        name = f"{rng.choice(NAME_STEMS)} {rng.choice(NAME_TAILS[industry])}"
        if name not in seen:
            seen.add(name)
            out.append((name, industry))
    return out


def _accounts(rng: random.Random, owners: list[Owner], names: list[tuple[str, str]]) -> list[Account]:
    """Fifty accounts, mostly owned by active reps; four archived."""
    accounts = []
    for i, (name, industry) in enumerate(names):
        domain = name.lower().replace(" ", "") + rng.choice((".com", ".io", ".co", ".net"))
        accounts.append(
            Account(
                id=f"ACC-{1001 + i}",
                name=name,
                industry=industry,
                city=rng.choice(CITIES),
                phone=_phone(rng),
                website=f"www.{domain}",
                employees=rng.choice((12, 35, 80, 150, 400, 1200, 5000)),
                owner_id=rng.choice(owners).id,
                status="active",
                created_on=_day(-900, -60, rng),
            )
        )
    for account in rng.sample(accounts, 4):
        account.status = "archived"
        account.archived_on = _day(-50, -5, rng)
    return accounts


def _contacts(rng: random.Random, accounts: list[Account]) -> list[Contact]:
    """Two to four contacts per account, with unique emails at the account's domain."""
    contacts: list[Contact] = []
    emails: set[str] = set()
    for account in accounts:
        domain = account.website.removeprefix("www.")
        for title in rng.sample(CONTACT_TITLES, rng.randint(2, 4)):
            first, last = PEOPLE.draw(rng)
            email = f"{first}.{last}@{domain}".lower()
            if email in emails:
                continue
            emails.add(email)
            contacts.append(
                Contact(
                    id=f"CON-{1001 + len(contacts)}",
                    account_id=account.id,
                    first_name=first,
                    last_name=last,
                    email=email,
                    phone=_phone(rng),
                    title=title,
                )
            )
    return contacts


def _opportunities(rng: random.Random, accounts: list[Account], owners: list[Owner]) -> list[Opportunity]:
    """Zero to three deals per account: about 60% open across the stages, the rest won or lost."""
    opps: list[Opportunity] = []
    active_owners = [o.id for o in owners if o.active]
    inactive = {o.id for o in owners if not o.active}
    for account in accounts:
        count = rng.choices((0, 1, 2, 3), weights=(2, 4, 3, 2))[0]
        for _ in range(count):
            roll = rng.random()
            if account.status == "archived" or roll < 0.25:
                stage = "closed_won" if rng.random() < 0.6 else "closed_lost"
            else:
                stage = rng.choice(OPEN_STAGES)
            created = max(account.created_on, _day(-400, -20, rng))
            owner = account.owner_id if account.owner_id not in inactive else rng.choice(active_owners)
            amount: int | None = rng.choice((8, 12, 18, 25, 40, 60, 90, 150, 240)) * 100_000 + rng.randint(0, 9) * 5000
            if stage in OPEN_STAGES:
                close = _day(10, 150, rng)
                if rng.random() < (0.3 if stage == "negotiation" else 0.15):
                    amount = None
                reason = None
            else:
                last = min(TODAY - timedelta(days=1), account.archived_on or TODAY)
                close = created + timedelta(days=rng.randint(1, max(1, (last - created).days)))
                close = min(close, last)
                reason = rng.choice(WIN_REASONS if stage == "closed_won" else LOSS_REASONS)
            opps.append(
                Opportunity(
                    id=f"OPP-{1001 + len(opps)}",
                    account_id=account.id,
                    name=f"{account.name} - {rng.choice(PRODUCTS)}",
                    stage=stage,
                    amount_cents=amount,
                    close_date=close,
                    owner_id=owner,
                    created_on=created,
                    close_reason=reason,
                )
            )
    return opps


def _leads(
    rng: random.Random,
    owners: list[Owner],
    accounts: list[Account],
    contacts: list[Contact],
    opps: list[Opportunity],
    companies: list[tuple[str, str]],
) -> list[Lead]:
    """Sixty leads in every status; the converted ones are the origin of some accounts."""
    leads: list[Lead] = []
    by_account = {a.id: [c for c in contacts if c.account_id == a.id] for a in accounts}
    first_opp: dict[str, Opportunity] = {}
    for deal in opps:
        first_opp.setdefault(deal.account_id, deal)
    converted = rng.sample([a for a in accounts if a.status == "active"], 10)
    statuses = ["new"] * 14 + ["contacted"] * 13 + ["qualified"] * 15 + ["disqualified"] * 8
    rng.shuffle(statuses)
    emails: set[str] = set()
    for status, (company, _) in zip(statuses, companies, strict=False):
        first, last = PEOPLE.draw(rng)
        email = f"{first[0]}{last}@{company.lower().replace(' ', '')}.com".lower()
        lead = Lead(
            first_name=first,
            last_name=last,
            company=company,
            email=None if rng.random() < 0.1 or email in emails else email,
            source=rng.choice(LEAD_SOURCES),
            status=status,
            owner_id=rng.choice(owners).id,
            created_on=_day(-120, -1, rng),
        )
        emails.add(email)
        if status == "disqualified":
            lead.disqualify_reason = rng.choice(DISQUALIFY_REASONS)
        leads.append(lead)
    for account in converted:
        contact = by_account[account.id][0]
        opp = first_opp.get(account.id)
        leads.append(
            Lead(
                first_name=contact.first_name,
                last_name=contact.last_name,
                company=account.name,
                email=contact.email,
                source=rng.choice(LEAD_SOURCES),
                status="converted",
                owner_id=account.owner_id,
                created_on=account.created_on - timedelta(days=rng.randint(5, 60)),
                converted_on=account.created_on,
                converted_account_id=account.id,
                converted_contact_id=contact.id,
            )
        )
        if opp is not None and rng.random() < 0.7:  # the deal came with the conversion
            opp.created_on = account.created_on
            leads[-1].converted_opportunity_id = opp.id
    leads.sort(key=lambda lead: (lead.created_on, lead.last_name, lead.first_name))
    for i, lead in enumerate(leads):
        lead.id = f"LEAD-{1001 + i}"
    return leads


def _activities(
    rng: random.Random, accounts: list[Account], contacts: list[Contact], opps: list[Opportunity]
) -> list[Activity]:
    """About three activities per active account: done ones in the past, open ones overdue or upcoming."""
    activities: list[Activity] = []
    for account in accounts:
        people = [c for c in contacts if c.account_id == account.id]
        deals = [o for o in opps if o.account_id == account.id and o.stage in OPEN_STAGES]
        count = rng.randint(1, 2) if account.status == "archived" else rng.randint(2, 5)
        for _ in range(count):
            kind = rng.choice(ACTIVITY_KINDS)
            done = account.status == "archived" or rng.random() < 0.5
            due = _day(-90, -1, rng) if done else _day(-12, 30, rng)
            opp = rng.choice(deals) if deals and rng.random() < 0.5 else None
            activities.append(
                Activity(
                    kind=kind,
                    subject=rng.choice(ACTIVITY_SUBJECTS[kind]),
                    due_date=due,
                    done=done,
                    completed_on=min(due + timedelta(days=rng.randint(0, 2)), TODAY) if done else None,
                    outcome=rng.choice(OUTCOMES) if done and kind in ("call", "meeting") else None,
                    account_id=account.id,
                    contact_id=rng.choice(people).id if people and rng.random() < 0.7 else None,
                    opportunity_id=opp.id if opp else None,
                    owner_id=opp.owner_id if opp else account.owner_id,
                )
            )
    activities.sort(key=lambda a: (a.due_date, a.account_id, a.subject))
    for i, activity in enumerate(activities):
        activity.id = f"ACT-{1001 + i}"
    return activities


def _notes(
    rng: random.Random, accounts: list[Account], contacts: list[Contact], leads: list[Lead], opps: list[Opportunity]
) -> list[Note]:
    """Fifty notes on accounts, contacts, open leads and opportunities."""
    notes: list[Note] = []
    open_leads = [lead for lead in leads if lead.status != "converted"]
    for i in range(50):
        note = Note(id=f"NOTE-{1001 + i}", body=rng.choice(NOTE_BODIES), created_on=_day(-60, 0, rng))
        target = rng.choice(("account", "account", "opportunity", "opportunity", "lead", "contact"))
        if target == "account":
            note.account_id = rng.choice(accounts).id
        elif target == "opportunity":
            note.opportunity_id = rng.choice(opps).id
        elif target == "lead":
            note.lead_id = rng.choice(open_leads).id
        else:
            note.contact_id = rng.choice(contacts).id
        notes.append(note)
    return notes


def seed(db: Session, rng: random.Random) -> None:
    """Fill an empty CRM database deterministically.

    Args:
        db: Session on the freshly created schema.
        rng: The only source of randomness.
    """
    owners = _owners(rng)
    companies = _company_names(rng, 100)
    accounts = _accounts(rng, owners, companies[:50])
    contacts = _contacts(rng, accounts)
    opps = _opportunities(rng, accounts, owners)
    leads = _leads(rng, owners, accounts, contacts, opps, companies[50:])
    activities = _activities(rng, accounts, contacts, opps)
    notes = _notes(rng, accounts, contacts, leads, opps)
    for rows in (owners, accounts, contacts, opps, leads, activities, notes):
        db.add_all(rows)
        db.flush()
