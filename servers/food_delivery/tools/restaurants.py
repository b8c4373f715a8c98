"""Food delivery tools for browsing: search restaurants, a restaurant's details, its menu, one item."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.food_delivery.data import CUISINES
from gym_mcp.servers.food_delivery.models import MenuItem, Restaurant
from gym_mcp.servers.food_delivery.tools.common import (
    delivery_distance,
    hours_view,
    item_view,
    kit,
    load_address,
    load_item,
    load_restaurant,
    open_now,
    restaurant_brief,
)
from gym_mcp.servers.kit import ToolError, check_limit, pick


@kit.tool(
    write=False,
    intent="Find restaurants[ matching '{query}'][ with {cuisine} cuisine][ that deliver to address {address_id}]",
    samples={
        "query": ("pizza", "sushi", "ramen", "tacos", "curry", "burger", "pho", "dumplings"),
        "cuisine": ("Italian", "Japanese", "Mexican", "Indian", "Thai", "Chinese"),
    },
)
def search_restaurants(
    db: Session,
    query: str | None = None,
    cuisine: str | None = None,
    address_id: str | None = None,
    open_now_only: bool = False,
    limit: int = 10,
) -> list[dict[str, Any]]:
    """Search restaurants by name, dish or cuisine; optionally only those that deliver to an address or are open now.

    Each result says whether the restaurant is open now (and when it next opens if not), its
    minimum order, delivery fee and radius, and with address_id its distance and whether it
    delivers there (those that do come first, nearest first).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        query: Words in the restaurant's name or in a dish on its menu, e.g. "pizza".
        cuisine: One of Italian, Japanese, Mexican, Indian, Thai, American, Chinese, Mediterranean,
            Vietnamese, Cafe, e.g. "Thai".
        address_id: A customer's address, e.g. "ADR-1001": keep only restaurants that deliver there.
        open_now_only: True to keep only restaurants open right now.
        limit: Most results, 1 to 50, e.g. 10.
    """
    check_limit(limit, 50)
    stmt = select(Restaurant).order_by(Restaurant.id)
    if cuisine is not None and cuisine.strip():
        wanted = cuisine.strip().lower()
        known = {c.lower(): c for c in CUISINES}
        if wanted not in known:
            raise ToolError(f"Unknown cuisine {cuisine!r}; use one of {', '.join(CUISINES)}.")
        stmt = stmt.where(Restaurant.cuisine == known[wanted])
    if query is not None and query.strip():
        text = query.strip().lower()  # "%" and "_" are searched for as themselves (autoescape)
        dishes = select(MenuItem.restaurant_id).where(func.lower(MenuItem.name).contains(text, autoescape=True))
        stmt = stmt.where(or_(func.lower(Restaurant.name).contains(text, autoescape=True), Restaurant.id.in_(dishes)))
    address = load_address(db, address_id) if address_id is not None else None
    rows = list(db.scalars(stmt))
    if open_now_only:
        rows = [r for r in rows if open_now(r)]
    if address is not None:
        rows = [r for r in rows if delivery_distance(r, address) <= r.delivery_radius_km]
        rows.sort(key=lambda r: (delivery_distance(r, address), r.id))
    return [restaurant_brief(db, r, address) for r in rows[:limit]]


@kit.tool(write=False, intent="Show the details and opening hours of restaurant {restaurant_id}")
def get_restaurant(db: Session, restaurant_id: str, address_id: str | None = None) -> dict[str, Any]:
    """Show a restaurant: cuisine, address, opening hours per weekday, whether it is open now, delivery terms.

    Use it to explain why an order is refused (closed now, too far, below the minimum order).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        restaurant_id: Restaurant id, e.g. "RST-1001".
        address_id: Optional customer address, e.g. "ADR-1001", to see its distance and whether
            the restaurant delivers there.
    """
    restaurant = load_restaurant(db, restaurant_id)
    address = load_address(db, address_id) if address_id is not None else None
    out = restaurant_brief(db, restaurant, address)
    out["street"] = restaurant.street
    out["prep_minutes"] = restaurant.prep_minutes
    out["opening_hours"] = hours_view(restaurant)
    return out


@kit.tool(write=False, intent="Show the menu of restaurant {restaurant_id}")
def get_menu(db: Session, restaurant_id: str, category: str | None = None) -> dict[str, Any]:
    """List a restaurant's menu items by category, with prices, availability and the choices each requires.

    Use get_item for an item's option groups and option ids before adding it to a cart.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        restaurant_id: Restaurant id, e.g. "RST-1001".
        category: Optional category to keep, e.g. "Pizza" (case-insensitive).
    """
    restaurant = load_restaurant(db, restaurant_id)
    items = list(db.scalars(select(MenuItem).where(MenuItem.restaurant_id == restaurant.id).order_by(MenuItem.id)))
    if category is not None and category.strip():
        categories = sorted({i.category for i in items})
        items = [i for i in items if i.category.lower() == category.strip().lower()]
        if not items:
            raise ToolError(
                f"{restaurant.name} has no category {category!r}; its categories are {', '.join(categories)}."
            )
    return {
        **pick(restaurant, "name", "cuisine"),
        "restaurant_id": restaurant.id,
        "open_now": open_now(restaurant),
        "items": [item_view(i, options=False) for i in items],
    }


@kit.tool(write=False, intent="Show the details and options of menu item {item_id}")
def get_item(db: Session, item_id: str) -> dict[str, Any]:
    """Show one menu item with its option groups, before adding it to a cart (add_to_cart needs the option ids).

    Each group lists its options (ids, price deltas), whether a choice is required and how many
    options may be chosen.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        item_id: Menu item id, e.g. "ITM-1001".
    """
    return item_view(load_item(db, item_id))
