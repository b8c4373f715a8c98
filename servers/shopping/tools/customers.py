"""Shopping tools that find customers and show their profile."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_limit
from gym_mcp.servers.shopping.models import CartItem, Customer, Order
from gym_mcp.servers.shopping.tools.common import MAX_LIMIT, kit, load_customer


@kit.tool(
    write=False,
    intent="Find the customers whose name or email contains '{query}'[, showing up to {limit} results]",
    samples={"query": ("emma", "olivia", "johnson", "moore", "brown", "fischer", "inbox.org")},
)
def find_customer(db: Session, query: str, limit: int = 10) -> list[dict[str, Any]]:
    """Find customers whose name or email contains the query (case-insensitive).

    Use it to get a customer id when you only know a name or email.
    Returns a list of {"customer_id", "name", "email"}.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        query: Part of a name or email, at least 2 characters, e.g. "olivia" or "smith@example.com".
        limit: Maximum number of customers to return, 1 to 50.
    """
    check_limit(limit, MAX_LIMIT)
    text = query.strip()
    if len(text) < 2:
        raise ToolError("query must be at least 2 characters of a customer's name or email.")
    rows = db.scalars(
        select(Customer)
        .where(
            or_(
                Customer.name.icontains(text, autoescape=True),
                Customer.email.icontains(text, autoescape=True),
            )
        )
        .order_by(Customer.id)
        .limit(limit)
    )
    return [{"customer_id": c.id, "name": c.name, "email": c.email} for c in rows]


@kit.tool(write=False, intent="Show the profile of customer {customer_id}")
def get_customer(db: Session, customer_id: str) -> dict[str, Any]:
    """Get a customer's profile: contact details, default shipping address, order and cart counts.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        customer_id: Customer id, e.g. "CUS-1001".
    """
    customer = load_customer(db, customer_id)
    order_count = db.scalar(select(func.count(Order.id)).where(Order.customer_id == customer.id))
    cart_units = db.scalar(
        select(func.coalesce(func.sum(CartItem.quantity), 0)).where(CartItem.customer_id == customer.id)
    )
    return {
        "customer_id": customer.id,
        "name": customer.name,
        "email": customer.email,
        "phone": customer.phone,
        "address": customer.address,
        "member_since": customer.member_since.isoformat(),
        "order_count": order_count,
        "cart_units": cart_units,
    }


_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")
_PHONE = re.compile(r"^\+?[0-9][0-9 ()-]{6,18}[0-9]$")


@kit.tool(
    write=True,
    intent="Change the contact details of customer {customer_id}[: email {email}][, phone {phone}]",
    samples={
        "email": ("jordan.new@example.com", "casey.r@inbox.org", "sam.lee@mail.net"),
        "phone": ("+1 512-555-0199", "+1 303-555-0142", "+1 608-555-0107"),
    },
)
def update_contact_details(
    db: Session, customer_id: str, email: str | None = None, phone: str | None = None
) -> dict[str, Any]:
    """Change a customer's email address and/or phone number.

    Give at least one of the two. An email must look like name@domain.tld and must not belong to
    another customer. Returns the updated contact details.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        customer_id: Customer id, e.g. "CUS-1001".
        email: The new email address, e.g. "jordan.new@example.com".
        phone: The new phone number, e.g. "+1 512-555-0199".
    """
    customer = load_customer(db, customer_id)
    if email is None and phone is None:
        raise ToolError("Give email, phone or both: there is nothing to change.")
    if email is not None:
        email = email.strip().lower()
        if not _EMAIL.match(email):
            raise ToolError(f"{email!r} is not an email address; use the form name@domain.tld.")
        owner = db.scalar(select(Customer).where(func.lower(Customer.email) == email, Customer.id != customer.id))
        if owner is not None:
            raise ToolError(f"{email} already belongs to another customer ({owner.id}); each email is unique.")
        customer.email = email
    if phone is not None:
        phone = " ".join(phone.split())
        if not _PHONE.match(phone):
            raise ToolError(f"{phone!r} is not a phone number; use digits with an optional +, e.g. +1 512-555-0199.")
        customer.phone = phone
    db.flush()
    return {"customer_id": customer.id, "email": customer.email, "phone": customer.phone}
