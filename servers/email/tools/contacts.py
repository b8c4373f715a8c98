"""Email tools for a mailbox's address book: list, find and add contacts."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.email.models import Contact
from gym_mcp.servers.email.tools.common import contact_view, kit, load_mailbox, parse_addresses
from gym_mcp.servers.kit import ToolError, check_length, check_limit, next_id


@kit.tool(write=False, intent="List the contacts of mailbox {mailbox_id}[, at most {limit} of them]")
def list_contacts(db: Session, mailbox_id: str, limit: int = 50) -> list[dict[str, Any]]:
    """List a mailbox's address book, by name: contact id, name, email and company.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        mailbox_id: Mailbox id, e.g. "MBX-1001".
        limit: Maximum number of contacts to return, 1 to 100.
    """
    check_limit(limit)
    box = load_mailbox(db, mailbox_id)
    rows = db.scalars(
        select(Contact).where(Contact.mailbox_id == box.id).order_by(Contact.name, Contact.id).limit(limit)
    )
    return [contact_view(c) for c in rows]


@kit.tool(
    write=False,
    intent="Find the contacts of mailbox {mailbox_id} matching '{query}'",
    samples={"query": ("contoso", "fabrikam", "globex", "Garcia", "Lee", "Nguyen", "initech", "Patel")},
)
def find_contact(db: Session, mailbox_id: str, query: str) -> list[dict[str, Any]]:
    """Look up someone's email address in a mailbox's address book by part of a name, address or company.

    Use it to turn a name into an address before sending. An empty list means no match.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        mailbox_id: Mailbox id, e.g. "MBX-1001".
        query: At least 2 characters of a name, address or company, e.g. "garcia" or "Contoso".
    """
    box = load_mailbox(db, mailbox_id)
    text = query.strip().lower()
    if len(text) < 2:
        raise ToolError("query must have at least 2 characters, e.g. a last name like 'Garcia'")
    rows = db.scalars(
        select(Contact)
        .where(
            Contact.mailbox_id == box.id,
            or_(
                func.lower(Contact.name).contains(text, autoescape=True),
                func.lower(Contact.email).contains(text, autoescape=True),
                func.lower(Contact.company).contains(text, autoescape=True),
            ),
        )
        .order_by(Contact.name, Contact.id)
    )
    return [contact_view(c) for c in rows]


@kit.tool(
    write=True,
    intent="Add {contact_name} <{email}> to the contacts of mailbox {mailbox_id}[ as working at {company}]",
    samples={
        "contact_name": ("Ana Lopez", "Tom Becker", "Yuki Sato", "Grace Mensah", "Omar Haddad", "Lena Novak"),
        "email": (
            "ana.lopez@contoso.example",
            "tom.becker@fabrikam.example",
            "yuki.sato@globex.example",
            "grace.mensah@initech.example",
            "omar.haddad@tailspin.example",
            "lena.novak@mail.example",
        ),
        "company": ("Contoso Supplies", "Fabrikam Logistics", "Globex Partners", "Initech Software"),
    },
)
def add_contact(db: Session, mailbox_id: str, contact_name: str, email: str, company: str = "") -> dict[str, Any]:
    """Add someone to a mailbox's address book. Each address appears once per address book.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        mailbox_id: Mailbox id, e.g. "MBX-1001".
        contact_name: Full name, 1 to 80 characters, e.g. "Ana Lopez".
        email: Email address, e.g. "ana.lopez@contoso.example".
        company: Company, up to 80 characters, e.g. "Contoso Supplies".
    """
    box = load_mailbox(db, mailbox_id)
    name = check_length(" ".join(contact_name.split()), "contact_name", 1, 80, ", e.g. 'Ana Lopez'")
    (address,) = parse_addresses([email], "email") if email.strip() else ("",)
    if not address:
        raise ToolError("email cannot be empty; pass an address like 'ana.lopez@contoso.example'")
    if address == box.address:
        raise ToolError(f"{address} is the address of mailbox {box.id} itself; add someone else.")
    company = " ".join(company.split())
    if len(company) > 80:
        raise ToolError("company must be at most 80 characters")
    existing = db.scalar(select(Contact).where(Contact.mailbox_id == box.id, Contact.email == address))
    if existing is not None:
        raise ToolError(
            f"{address} is already in the contacts of {box.id} as {existing.name} ({existing.id}); nothing changed."
        )
    contact = Contact(id=next_id(db, Contact.id, "CON"), mailbox_id=box.id, name=name, email=address, company=company)
    db.add(contact)
    db.flush()
    return {**contact_view(contact), "mailbox_id": box.id}
