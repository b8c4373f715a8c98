"""What the CRM tools share: the kit, id lookups, the rules of owners, accounts and stages, result shapes."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.crm.data import seed
from gym_mcp.servers.crm.models import (
    CLOSED_STAGES,
    OPEN_STAGES,
    STAGE_PROBABILITY,
    STAGES,
    TODAY,
    Account,
    Activity,
    Base,
    Contact,
    Lead,
    Note,
    Opportunity,
    Owner,
)
from gym_mcp.servers.kit import Finder, ServerKit, ToolError, dollars, parse_date, pick

__all__ = [
    "account_brief",
    "activity_view",
    "allowed_next_stages",
    "check_account_open",
    "check_active_owner",
    "check_email",
    "check_future_date",
    "check_stage_name",
    "kit",
    "lead_view",
    "load_account",
    "load_activity",
    "load_contact",
    "load_lead",
    "load_opportunity",
    "load_owner",
    "note_view",
    "notes_of",
    "opportunity_view",
    "owner_name",
    "stages_text",
]

INSTRUCTIONS = f"""\
Sales CRM. Owners are sales reps ("OWN-1001"); accounts are companies ("ACC-1001") with contacts
("CON-1001"); leads ("LEAD-1001") are unqualified prospects (new, contacted, qualified,
disqualified, converted); opportunities ("OPP-1001") are deals that move one stage at a time
through prospecting -> qualification -> proposal -> negotiation -> closed_won, or to closed_lost
from any open stage (closed stages are final); activities ("ACT-1001") are calls, emails,
meetings and tasks with due dates; notes ("NOTE-1001") annotate any record. Only qualified leads
convert (once); a won deal needs an amount; only active owners take new work; an account with
open opportunities cannot be archived. Amounts are dollars. Today is {TODAY.isoformat()}."""

kit = ServerKit(
    "crm",
    base=Base,
    seed=seed,
    instructions=INSTRUCTIONS,
    today=TODAY,
    samples={"limit": (3, 5, 10, 20)},
    inline=True,
)

# -- lookups ------------------------------------------------------------------------------------

_MISSING = "No {noun} with id {id!r}. {Noun} ids look like '{example}'; {hint}."
load_owner = Finder(Owner, "owner", "OWN-1001", "use list_owners to see valid ones", message=_MISSING)
load_account = Finder(
    Account, "account", "ACC-1001", "use list_accounts (search by name) to see valid ones", message=_MISSING
)
load_contact = Finder(
    Contact, "contact", "CON-1001", "use list_contacts (by account or name) to see valid ones", message=_MISSING
)
load_lead = Finder(Lead, "lead", "LEAD-1001", "use list_leads to see valid ones", message=_MISSING)
load_opportunity = Finder(
    Opportunity, "opportunity", "OPP-1001", "use list_opportunities to see valid ones", message=_MISSING
)
load_activity = Finder(Activity, "activity", "ACT-1001", "use list_activities to see valid ones", message=_MISSING)

# -- rules --------------------------------------------------------------------------------------


def check_active_owner(db: Session, owner_id: str, field: str = "owner_id") -> Owner:
    """Load an owner who can take new work: inactive reps (who left) own nothing new.

    Raises:
        ToolError: Unknown or inactive owner.
    """
    owner = load_owner(db, owner_id, field)
    if not owner.active:
        raise ToolError(
            f"Owner {owner.id} ({owner.name}) is inactive and cannot be given records; "
            "pick an active owner (list_owners shows who is active)."
        )
    return owner


def check_account_open(account: Account, action: str) -> None:
    """Refuse changes under an archived account.

    Args:
        account: The account.
        action: What was attempted, e.g. ``"add a contact to"``.
    """
    if account.status == "archived":
        raise ToolError(
            f"Account {account.id} ({account.name}) was archived on {account.archived_on}; you cannot {action} "
            "an archived account. Use an active account (list_accounts)."
        )


def check_email(email: str, field: str = "email") -> str:
    """A trimmed, lower-case email address, or a `ToolError` showing the expected form."""
    text = email.strip().lower()
    local, _, domain = text.partition("@")
    if not local or "." not in domain or " " in text or domain.startswith(".") or domain.endswith("."):
        raise ToolError(f"{field} {email!r} is not a valid email address; use a form like 'jane.doe@example.com'.")
    return text


def check_future_date(value: str, field: str, *, horizon_days: int = 730) -> date:
    """Parse a date that must be today or later (and within two years).

    Raises:
        ToolError: Not a date, before today or too far ahead.
    """
    day = parse_date(value, field)
    if day < kit.today:
        raise ToolError(f"{field} {day} is in the past; today is {kit.today}, use today or a later date.")
    if day > kit.today + timedelta(days=horizon_days):
        raise ToolError(f"{field} {day} is more than {horizon_days // 365} years ahead; use an earlier date.")
    return day


def allowed_next_stages(stage: str) -> list[str]:
    """The stages an opportunity may move to from ``stage`` (empty once closed)."""
    if stage in CLOSED_STAGES:
        return []
    i = OPEN_STAGES.index(stage)
    forward = OPEN_STAGES[i + 1] if i + 1 < len(OPEN_STAGES) else "closed_won"
    return [forward, "closed_lost"]


def stages_text(stage: str) -> str:
    """The allowed next stages of ``stage`` and the tool for each, for error messages."""
    forward, lost = allowed_next_stages(stage)
    how = "close_opportunity with outcome 'won'" if forward == "closed_won" else "advance_opportunity_stage"
    return f"the allowed next stages are {forward} ({how}) and {lost} (close_opportunity with outcome 'lost')"


def check_stage_name(stage: str) -> str:
    """A stage name as given, normalised, or a `ToolError` listing the valid ones."""
    name = stage.strip().lower().replace(" ", "_").replace("-", "_")
    if name not in STAGES:
        raise ToolError(f"stage must be one of {', '.join(STAGES)}; got {stage!r}")
    return name


def owner_name(db: Session, owner_id: str) -> str:
    """An owner's full name (their id when unknown)."""
    owner = db.get(Owner, owner_id)
    return owner.name if owner is not None else owner_id


# -- result shapes ------------------------------------------------------------------------------


def account_brief(account: Account) -> dict[str, Any]:
    """The fields of an account a model needs in a list."""
    return {"account_id": account.id, **pick(account, "name", "industry", "city", "owner_id", "status")}


def opportunity_view(opp: Opportunity) -> dict[str, Any]:
    """The fields of an opportunity a model needs."""
    return {
        "opportunity_id": opp.id,
        **pick(opp, "name", "account_id", "stage"),
        "amount": dollars(opp.amount_cents) if opp.amount_cents is not None else None,
        "probability": STAGE_PROBABILITY[opp.stage],
        "close_date": opp.close_date.isoformat(),
        "owner_id": opp.owner_id,
    }


def lead_view(lead: Lead) -> dict[str, Any]:
    """The fields of a lead a model needs."""
    out: dict[str, Any] = {
        "lead_id": lead.id,
        "name": lead.name,
        **pick(lead, "company", "email", "source", "status", "owner_id"),
        "created_on": lead.created_on.isoformat(),
    }
    if lead.disqualify_reason:
        out["disqualify_reason"] = lead.disqualify_reason
    if lead.status == "converted":
        out["converted_on"] = lead.converted_on.isoformat() if lead.converted_on else None
        out["converted_account_id"] = lead.converted_account_id
        out["converted_contact_id"] = lead.converted_contact_id
        out["converted_opportunity_id"] = lead.converted_opportunity_id
    return out


def activity_view(activity: Activity) -> dict[str, Any]:
    """The fields of an activity a model needs; ``overdue`` when open and due before today."""
    out: dict[str, Any] = {
        "activity_id": activity.id,
        **pick(activity, "kind", "subject"),
        "due_date": activity.due_date.isoformat(),
        "done": activity.done,
        "overdue": not activity.done and activity.due_date < kit.today,
        **pick(activity, "account_id", "contact_id", "opportunity_id", "owner_id"),
    }
    if activity.done:
        out["completed_on"] = activity.completed_on.isoformat() if activity.completed_on else None
        out["outcome"] = activity.outcome
    return out


def note_view(note: Note) -> dict[str, Any]:
    """The fields of a note a model needs."""
    return {"note_id": note.id, "body": note.body, "created_on": note.created_on.isoformat()}


def notes_of(db: Session, column: Any, record_id: str) -> list[dict[str, Any]]:
    """The notes on one record, newest first."""
    rows = db.scalars(select(Note).where(column == record_id).order_by(Note.created_on.desc(), Note.id.desc()))
    return [note_view(n) for n in rows]
