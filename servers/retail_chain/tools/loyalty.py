"""Retail chain tools for loyalty members and sales: find and enroll members, ring up a sale, list sales."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_between, check_length, check_limit, dollars, next_id, pick
from gym_mcp.servers.retail_chain.models import POINT_VALUE_CENTS, Member, Product, Sale, SaleItem
from gym_mcp.servers.retail_chain.tools.common import (
    check_open,
    current_price,
    kit,
    load_member,
    load_product,
    load_store,
    member_view,
    stock_of,
)


@kit.tool(
    write=False,
    intent="Find the loyalty members[ matching '{query}']",
    samples={"query": ("Garcia", "Smith", "Patel", "Olivia", "Chen", "Nguyen")},
)
def find_members(db: Session, query: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
    """Find loyalty members by name or email, with their points balance and what it is worth.

    Returns a list of {member_id, name, email, home_store_id, points, points_value, joined_on}.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        query: Part of the name or email, at least 2 characters, e.g. "garcia".
        limit: Maximum number of members to return, 1 to 100, e.g. 20.
    """
    check_limit(limit)
    stmt = select(Member)
    if query is not None:
        text = query.strip().lower()
        if len(text) < 2:
            raise ToolError("query must have at least 2 characters, e.g. a last name like 'Garcia'")
        stmt = stmt.where(
            or_(func.lower(Member.name).contains(text, autoescape=True), Member.email.contains(text, autoescape=True))
        )
    return [member_view(m) for m in db.scalars(stmt.order_by(Member.id).limit(limit))]


@kit.tool(
    write=True,
    intent="Enroll {name} ({email}) in the loyalty program at store {home_store_id}",
    samples={
        "name": ("Grace Hopper", "Alan Turing", "Ada Byron", "Linus Pauling"),
        "email": ("grace.h@newmail.example", "alan.t@newmail.example", "ada.b@newmail.example"),
    },
)
def enroll_member(db: Session, name: str, email: str, home_store_id: str) -> dict[str, Any]:
    """Enroll a shopper in the loyalty program with 0 points; the email must not belong to a member yet.

    The home store must be open. Returns the new member.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        name: Full name, 2 to 80 characters, e.g. "Grace Hopper".
        email: Email address, unique among members, e.g. "grace.h@newmail.example".
        home_store_id: The member's usual store, an open one, e.g. "STO-1001".
    """
    full = check_length(" ".join(name.split()), "name", 2, 80, ", e.g. 'Grace Hopper'")
    address = email.strip().lower()
    if "@" not in address or "." not in address.split("@")[-1] or len(address) > 120:
        raise ToolError(f"email {email!r} is not a valid address, e.g. 'grace.h@newmail.example'")
    store = load_store(db, home_store_id, "home_store_id")
    check_open(store, "be a member's home store")
    taken = db.scalar(select(Member).where(Member.email == address))
    if taken is not None:
        raise ToolError(f"{address} already belongs to member {taken.id} ({taken.name}); use that member instead.")
    member = Member(
        id=next_id(db, Member.id, "MEM"),
        name=full,
        email=address,
        home_store_id=store.id,
        points=0,
        joined_on=kit.today,
    )
    db.add(member)
    db.flush()
    return member_view(member)


@kit.tool(
    write=True,
    intent="Ring up {quantity} of product {product_id} at store {store_id}[ for member {member_id}]"
    "[ redeeming {redeem_points} points]",
    samples={"quantity": (1, 2, 3, 4), "redeem_points": (100, 200, 300)},
)
def record_sale(
    db: Session,
    store_id: str,
    product_id: str,
    quantity: int,
    member_id: str | None = None,
    redeem_points: int = 0,
) -> dict[str, Any]:
    """Ring up a sale of one product at an open store, at today's price, taking the units from its stock.

    A loyalty member can redeem points (100 points = $1.00 off), at most their balance and at most
    the sale's subtotal; they earn 1 point per whole dollar paid after the discount. A closed store
    cannot sell. Returns the receipt with the member's new balance.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        store_id: Store id, e.g. "STO-1001".
        product_id: Product id, e.g. "PRD-1001".
        quantity: Units sold, 1 to 100, at most the store's stock, e.g. 2.
        member_id: The loyalty member buying, e.g. "MEM-1001"; leave out for a shopper without a card.
        redeem_points: Points to redeem (needs member_id), at most the member's balance, e.g. 200.
    """
    store = load_store(db, store_id)
    product = load_product(db, product_id)
    check_between(quantity, 1, 100, "quantity")
    member = load_member(db, member_id) if member_id is not None else None
    check_between(redeem_points, 0, 1_000_000, "redeem_points")
    check_open(store, "sell")
    level = stock_of(db, store.id, product.id)
    have = level.quantity if level else 0
    if level is None or have < quantity:
        raise ToolError(
            f"Store {store.id} has only {have} units of {product.id} ({product.name}), fewer than the {quantity} "
            "to sell; sell at most that many, or move stock in first with transfer_stock or restock."
        )
    unit = current_price(db, product)
    subtotal = unit * quantity
    if redeem_points and member is None:
        raise ToolError("redeem_points needs member_id: only a loyalty member can redeem points (find_members).")
    if member is not None and redeem_points > member.points:
        raise ToolError(
            f"Member {member.id} has only {member.points} points, fewer than the {redeem_points} to redeem; "
            f"redeem at most {member.points}."
        )
    if redeem_points * POINT_VALUE_CENTS > subtotal:
        raise ToolError(
            f"Redeeming {redeem_points} points ({dollars(redeem_points * POINT_VALUE_CENTS)} dollars) is more than the "
            f"sale's subtotal of {dollars(subtotal)} dollars; redeem at most {subtotal // POINT_VALUE_CENTS} points."
        )
    total = subtotal - redeem_points * POINT_VALUE_CENTS
    earned = total // 100 if member is not None else 0
    level.quantity -= quantity
    sale = Sale(
        id=next_id(db, Sale.id, "SAL"),
        store_id=store.id,
        member_id=member.id if member else None,
        sold_on=kit.today,
        subtotal_cents=subtotal,
        points_redeemed=redeem_points,
        total_cents=total,
        points_earned=earned,
    )
    db.add(sale)
    db.flush()
    db.add(SaleItem(sale_id=sale.id, product_id=product.id, quantity=quantity, unit_price_cents=unit))
    if member is not None:
        member.points += earned - redeem_points
    return {
        **_sale_view(db, sale),
        "member_points": member.points if member else None,
        "stock_left": level.quantity,
    }


def _sale_view(db: Session, sale: Sale) -> dict[str, Any]:
    """The fields of a sale a model needs, with its lines."""
    lines = db.execute(
        select(SaleItem, Product.name)
        .join(Product, Product.id == SaleItem.product_id)
        .where(SaleItem.sale_id == sale.id)
    ).all()
    return {
        "sale_id": sale.id,
        **pick(sale, "store_id", "member_id"),
        "sold_on": sale.sold_on.isoformat(),
        "lines": [
            {"product_id": i.product_id, "name": n, "quantity": i.quantity, "unit_price": dollars(i.unit_price_cents)}
            for i, n in lines
        ],
        "subtotal": dollars(sale.subtotal_cents),
        "points_redeemed": sale.points_redeemed,
        "total": dollars(sale.total_cents),
        "points_earned": sale.points_earned,
    }


@kit.tool(write=False, intent="List the sales[ of store {store_id}][ of member {member_id}]")
def list_sales(
    db: Session, store_id: str | None = None, member_id: str | None = None, limit: int = 20
) -> list[dict[str, Any]]:
    """List sales, newest first: of a store, of a loyalty member, or of the whole chain.

    Each sale has its lines at the prices of its day, the points redeemed and earned.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        store_id: Only this store's sales, e.g. "STO-1001".
        member_id: Only this member's sales, e.g. "MEM-1001".
        limit: Maximum number of sales to return, 1 to 100, e.g. 20.
    """
    check_limit(limit)
    stmt = select(Sale)
    if store_id is not None:
        stmt = stmt.where(Sale.store_id == load_store(db, store_id).id)
    if member_id is not None:
        stmt = stmt.where(Sale.member_id == load_member(db, member_id).id)
    rows = db.scalars(stmt.order_by(Sale.sold_on.desc(), Sale.id.desc()).limit(limit))
    return [_sale_view(db, s) for s in rows]
