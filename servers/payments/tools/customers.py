"""Payments tools that find customers and read their payment methods."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_limit
from gym_mcp.servers.payments.models import Customer, PaymentMethod, Wallet
from gym_mcp.servers.payments.tools.common import is_expired, kit, load_customer, method_view


@kit.tool(
    write=False,
    intent="Find the customer matching '{query}'[, showing at most {limit} results]",
    samples={"query": ("Miller", "Tremblay", "Keller", "Bianchi", "Patel", "Okafor", "Hugo", "Haruto", "Garcia")},
)
def find_customer(db: Session, query: str, limit: int = 10) -> list[dict[str, Any]]:
    """Search customers by name or email (case-insensitive, partial match).

    Use this first to get a customer id when you only know a name or an email. Returns a list of
    {customer_id, name, email, country, home_currency}; an empty list means no match.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        query: Part of a first name, last name, full name or email, e.g. "garcia" or "mei.chen@".
        limit: Maximum number of customers to return, 1 to 100, e.g. 10.
    """
    check_limit(limit)
    text = query.strip().lower()
    if len(text) < 2:
        raise ToolError("query must have at least 2 characters, e.g. a last name like 'Garcia'")
    full_name = func.lower(Customer.first_name + " " + Customer.last_name)
    rows = db.scalars(
        select(Customer)
        .where(or_(full_name.contains(text, autoescape=True), Customer.email.contains(text, autoescape=True)))
        .order_by(Customer.id)
        .limit(limit)
    )
    out = []
    for c in rows:
        wallets = db.scalar(select(func.count()).select_from(Wallet).where(Wallet.customer_id == c.id))
        out.append(
            {
                "customer_id": c.id,
                "name": c.name,
                "email": c.email,
                "country": c.country,
                "home_currency": c.home_currency,
                "wallet_count": wallets,
            }
        )
    return out


@kit.tool(write=False, intent="List the payment methods of customer {customer_id}")
def list_payment_methods(db: Session, customer_id: str, include_expired: bool = True) -> list[dict[str, Any]]:
    """List a customer's cards and bank accounts, each with status "active" or "expired".

    An expired card cannot be charged (create_payment refuses it); bank accounts never expire.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        customer_id: Customer id, e.g. "CUS-1001".
        include_expired: Also list expired cards (true by default); false lists only methods that can be charged.
    """
    customer = load_customer(db, customer_id)
    rows = db.scalars(select(PaymentMethod).where(PaymentMethod.customer_id == customer.id).order_by(PaymentMethod.id))
    return [method_view(m) for m in rows if include_expired or not is_expired(m)]
