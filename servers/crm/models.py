"""Data model of the CRM server: owners, accounts, contacts, leads, opportunities, activities and notes.

Money is stored as integer cents. Ids are stable, human-readable strings (``OWN-1001``,
``ACC-1001``, ``CON-1001``, ``LEAD-1001``, ``OPP-1001``, ``ACT-1001``, ``NOTE-1001``); new ones
take the next number after the largest in the table, so replaying the same calls yields the
same ids. Business dates (``created_on``, ``close_date``, ``due_date``) follow the kit's fixed
``today``; only ``created_at`` holds the wall clock, and it is volatile.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Boolean, Date, ForeignKey, Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from gym_mcp.servers.kit import string_id, volatile_timestamp

__all__ = [
    "ACCOUNT_STATUSES",
    "ACTIVITY_KINDS",
    "CLOSED_STAGES",
    "INDUSTRIES",
    "LEAD_SOURCES",
    "LEAD_STATUSES",
    "OPEN_STAGES",
    "REGIONS",
    "STAGES",
    "STAGE_PROBABILITY",
    "TODAY",
    "Account",
    "Activity",
    "Base",
    "Contact",
    "Lead",
    "Note",
    "Opportunity",
    "Owner",
]

TODAY = date(2026, 1, 15)
"""The server's fixed reference date (the kit's ``today``)."""

OPEN_STAGES = ("prospecting", "qualification", "proposal", "negotiation")
"""The open stages of an opportunity, in the order it moves through them."""
CLOSED_STAGES = ("closed_won", "closed_lost")
"""The final stages: nothing moves an opportunity out of them."""
STAGES = OPEN_STAGES + CLOSED_STAGES
STAGE_PROBABILITY = {
    "prospecting": 10,
    "qualification": 20,
    "proposal": 50,
    "negotiation": 75,
    "closed_won": 100,
    "closed_lost": 0,
}
"""Win probability (percent) of each stage."""

LEAD_STATUSES = ("new", "contacted", "qualified", "disqualified", "converted")
LEAD_SOURCES = ("web", "referral", "trade_show", "cold_call", "partner", "webinar")
ACCOUNT_STATUSES = ("active", "archived")
ACTIVITY_KINDS = ("call", "email", "meeting", "task")
INDUSTRIES = (
    "Software",
    "Manufacturing",
    "Healthcare",
    "Retail",
    "Finance",
    "Logistics",
    "Education",
    "Energy",
    "Media",
    "Hospitality",
)
REGIONS = ("West", "Central", "East", "EMEA")


class Base(DeclarativeBase):
    """Declarative base of the CRM tables."""


class _Record:
    """What every CRM row has: a string id (first) and a volatile creation time (last)."""

    id: Mapped[str] = string_id(sort_order=-1)
    created_at: Mapped[datetime] = volatile_timestamp()


class Owner(_Record, Base):
    """A sales rep who owns accounts, leads and opportunities; inactive reps can own nothing new."""

    __tablename__ = "owners"

    first_name: Mapped[str] = mapped_column(String(60))
    last_name: Mapped[str] = mapped_column(String(60))
    email: Mapped[str] = mapped_column(String(120), unique=True)
    title: Mapped[str] = mapped_column(String(60))
    region: Mapped[str] = mapped_column(String(20))
    active: Mapped[bool] = mapped_column(Boolean, default=True)

    @property
    def name(self) -> str:
        """Full name, e.g. ``"Ada Lovelace"``."""
        return f"{self.first_name} {self.last_name}"


class Account(_Record, Base):
    """A customer or prospect company."""

    __tablename__ = "accounts"

    name: Mapped[str] = mapped_column(String(80))
    industry: Mapped[str] = mapped_column(String(30))
    city: Mapped[str] = mapped_column(String(60))
    phone: Mapped[str] = mapped_column(String(20))
    website: Mapped[str] = mapped_column(String(80))
    employees: Mapped[int] = mapped_column(Integer)
    owner_id: Mapped[str] = mapped_column(ForeignKey("owners.id"), index=True)
    status: Mapped[str] = mapped_column(String(16), default="active")
    created_on: Mapped[date] = mapped_column(Date)
    archived_on: Mapped[date | None] = mapped_column(Date, nullable=True, default=None)


class Contact(_Record, Base):
    """A person working at an account."""

    __tablename__ = "contacts"

    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"), index=True)
    first_name: Mapped[str] = mapped_column(String(60))
    last_name: Mapped[str] = mapped_column(String(60))
    email: Mapped[str | None] = mapped_column(String(120), unique=True, nullable=True, default=None)
    phone: Mapped[str] = mapped_column(String(20))
    title: Mapped[str] = mapped_column(String(60))

    @property
    def name(self) -> str:
        """Full name, e.g. ``"Ada Lovelace"``."""
        return f"{self.first_name} {self.last_name}"


class Lead(_Record, Base):
    """An unqualified prospect; converting a qualified lead creates an account, a contact and maybe an opportunity."""

    __tablename__ = "leads"

    first_name: Mapped[str] = mapped_column(String(60))
    last_name: Mapped[str] = mapped_column(String(60))
    company: Mapped[str] = mapped_column(String(80))
    email: Mapped[str | None] = mapped_column(String(120), nullable=True, default=None)
    source: Mapped[str] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(16), default="new")
    owner_id: Mapped[str] = mapped_column(ForeignKey("owners.id"), index=True)
    created_on: Mapped[date] = mapped_column(Date)
    disqualify_reason: Mapped[str | None] = mapped_column(String(200), nullable=True, default=None)
    converted_on: Mapped[date | None] = mapped_column(Date, nullable=True, default=None)
    converted_account_id: Mapped[str | None] = mapped_column(String(16), nullable=True, default=None)
    converted_contact_id: Mapped[str | None] = mapped_column(String(16), nullable=True, default=None)
    converted_opportunity_id: Mapped[str | None] = mapped_column(String(16), nullable=True, default=None)

    @property
    def name(self) -> str:
        """Full name, e.g. ``"Ada Lovelace"``."""
        return f"{self.first_name} {self.last_name}"


class Opportunity(_Record, Base):
    """A potential deal with an account; ``close_date`` is expected while open and actual once closed."""

    __tablename__ = "opportunities"

    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"), index=True)
    name: Mapped[str] = mapped_column(String(100))
    stage: Mapped[str] = mapped_column(String(20), default="prospecting")
    amount_cents: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
    close_date: Mapped[date] = mapped_column(Date)
    owner_id: Mapped[str] = mapped_column(ForeignKey("owners.id"), index=True)
    created_on: Mapped[date] = mapped_column(Date)
    close_reason: Mapped[str | None] = mapped_column(String(200), nullable=True, default=None)


class Activity(_Record, Base):
    """A call, email, meeting or task about an account (and maybe one of its contacts or opportunities)."""

    __tablename__ = "activities"

    kind: Mapped[str] = mapped_column(String(16))
    subject: Mapped[str] = mapped_column(String(120))
    due_date: Mapped[date] = mapped_column(Date)
    done: Mapped[bool] = mapped_column(Boolean, default=False)
    completed_on: Mapped[date | None] = mapped_column(Date, nullable=True, default=None)
    outcome: Mapped[str | None] = mapped_column(String(200), nullable=True, default=None)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"), index=True)
    contact_id: Mapped[str | None] = mapped_column(ForeignKey("contacts.id"), nullable=True, default=None)
    opportunity_id: Mapped[str | None] = mapped_column(ForeignKey("opportunities.id"), nullable=True, default=None)
    owner_id: Mapped[str] = mapped_column(ForeignKey("owners.id"), index=True)


class Note(_Record, Base):
    """A free-text note on exactly one account, contact, lead or opportunity."""

    __tablename__ = "notes"

    body: Mapped[str] = mapped_column(String(1000))
    account_id: Mapped[str | None] = mapped_column(ForeignKey("accounts.id"), nullable=True, default=None)
    contact_id: Mapped[str | None] = mapped_column(ForeignKey("contacts.id"), nullable=True, default=None)
    lead_id: Mapped[str | None] = mapped_column(ForeignKey("leads.id"), nullable=True, default=None)
    opportunity_id: Mapped[str | None] = mapped_column(ForeignKey("opportunities.id"), nullable=True, default=None)
    created_on: Mapped[date] = mapped_column(Date)
