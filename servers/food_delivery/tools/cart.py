"""Food delivery tools for a customer's cart: show it, add, change and remove lines, clear it."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from gym_mcp.servers.food_delivery.models import Cart, CartItem, MenuItem, Option, OptionGroup, Restaurant
from gym_mcp.servers.food_delivery.tools.common import (
    cart_of,
    cart_view,
    kit,
    load_cart_item,
    load_customer,
    load_item,
)
from gym_mcp.servers.kit import ToolError, check_between, format_dollars, next_id

MAX_QUANTITY = 20
"""Most units of one line."""


def _choices(group: OptionGroup) -> str:
    """A group's options for a message: ``OPT-1001 Small (+$0.00), OPT-1002 Large (+$4.00)``."""
    return ", ".join(f"{o.id} {o.name} (+{format_dollars(o.price_delta_cents)})" for o in group.options)


def _check_options(item: MenuItem, option_ids: list[str]) -> list[Option]:
    """The chosen options of an item, checked: each belongs to it, required groups chosen, group maxima kept."""
    by_id = {o.id: o for g in item.groups for o in g.options}
    chosen: list[Option] = []
    for raw in option_ids:
        key = raw.strip().upper()
        option = by_id.get(key)
        if option is None:
            groups = "; ".join(f"{g.name}: {_choices(g)}" for g in item.groups) or "none (pass no option_ids)"
            raise ToolError(
                f"Option {raw!r} does not belong to {item.id} ({item.name}); its options are {groups}. "
                "Use get_item to see them."
            )
        if option in chosen:
            raise ToolError(f"Option {option.id} ({option.name}) is listed twice; list each option once.")
        chosen.append(option)
    for group in item.groups:
        picked = [o for o in chosen if o.group_id == group.id]
        if group.required and not picked:
            raise ToolError(
                f"{item.id} ({item.name}) needs a choice for '{group.name}' (required): {_choices(group)}. "
                "Pass one of these ids in option_ids."
            )
        if len(picked) > group.max_choices:
            raise ToolError(
                f"'{group.name}' on {item.id} allows at most {group.max_choices} choice(s), got {len(picked)}: "
                f"{', '.join(o.id for o in picked)}."
            )
    order = {o.id: n for n, o in enumerate(o for g in item.groups for o in g.options)}
    return sorted(chosen, key=lambda o: order[o.id])


def _empty(cart: Cart) -> None:
    """Forget a cart's restaurant and promotion once it holds nothing."""
    if not cart.items:
        cart.restaurant_id = None
        cart.promo_code = None


@kit.tool(write=False, intent="Show the cart of customer {customer_id}")
def get_cart(db: Session, customer_id: str) -> dict[str, Any]:
    """Show a customer's cart: restaurant, lines (cart_item_id, options, prices), subtotal, promotion, fee and total.

    Warnings say when the cart is below the restaurant's minimum order, the restaurant is closed
    now, or the applied promotion no longer qualifies.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        customer_id: Customer id, e.g. "CUS-1001".
    """
    customer = load_customer(db, customer_id)
    return cart_view(db, customer, cart_of(db, customer))


@kit.tool(
    write=True,
    intent="Add[ {quantity} x] menu item {item_id} to the cart of customer {customer_id}",
)
def add_to_cart(
    db: Session, customer_id: str, item_id: str, quantity: int = 1, option_ids: list[str] | None = None
) -> dict[str, Any]:
    """Add a menu item, with its chosen options, to a customer's cart. Returns the updated cart.

    A cart holds items of one restaurant at a time: adding an item of another restaurant is
    refused (clear_cart first). Every required option group of the item needs one of its options
    (get_item lists them), and options must belong to the item. The same item with the same
    options adds to the existing line's quantity.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        customer_id: Customer id, e.g. "CUS-1001".
        item_id: Menu item id, e.g. "ITM-1001".
        quantity: Units to add, 1 to 20, e.g. 2.
        option_ids: Chosen option ids from get_item, e.g. ["OPT-1002", "OPT-1005"]; omit for none.
    """
    customer = load_customer(db, customer_id)
    item = load_item(db, item_id)
    check_between(quantity, 1, MAX_QUANTITY, "quantity")
    if not item.available:
        raise ToolError(
            f"{item.id} ({item.name}) is unavailable right now; pick another item from get_menu "
            f"with restaurant_id {item.restaurant_id!r}."
        )
    options = _check_options(item, option_ids or [])
    cart = cart_of(db, customer, create=True)
    assert cart is not None
    if cart.items and cart.restaurant_id != item.restaurant_id:
        held = db.get(Restaurant, cart.restaurant_id) if cart.restaurant_id else None
        raise ToolError(
            f"{customer.id}'s cart holds items from {held.name if held else 'another restaurant'} "
            f"({cart.restaurant_id}), and a cart holds items from one restaurant "
            f"at a time; {item.id} is from {item.restaurant_id} ({item.restaurant.name}). Clear the cart first "
            "(clear_cart) or check out the current cart."
        )
    key = ",".join(o.id for o in options)
    line = next((x for x in cart.items if x.item_id == item.id and x.option_ids == key), None)
    if line is not None:
        check_between(line.quantity + quantity, 1, MAX_QUANTITY, "the line's total quantity")
        line.quantity += quantity
    else:
        cart.items.append(
            CartItem(
                id=next_id(db, CartItem.id, "CRT"),
                customer_id=customer.id,
                item_id=item.id,
                option_ids=key,
                quantity=quantity,
                item=item,
            )
        )
    cart.restaurant_id = item.restaurant_id
    db.flush()
    return cart_view(db, customer, cart)


@kit.tool(
    write=True,
    intent="Change the quantity of cart line {cart_item_id} to {quantity}",
)
def update_cart_item(db: Session, cart_item_id: str, quantity: int) -> dict[str, Any]:
    """Set the quantity of one line of a cart (use remove_from_cart to take it out). Returns the updated cart.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        cart_item_id: Cart line id from get_cart, e.g. "CRT-1001".
        quantity: New quantity, 1 to 20, e.g. 3.
    """
    line = load_cart_item(db, cart_item_id)
    check_between(quantity, 1, MAX_QUANTITY, "quantity", end="; use remove_from_cart to take a line out.")
    if line.quantity == quantity:
        raise ToolError(f"Cart line {line.id} already has quantity {quantity}; nothing changed.")
    line.quantity = quantity
    db.flush()
    customer = load_customer(db, line.customer_id)
    return cart_view(db, customer, cart_of(db, customer))


@kit.tool(write=True, intent="Remove cart line {cart_item_id} from the cart")
def remove_from_cart(db: Session, cart_item_id: str) -> dict[str, Any]:
    """Remove one line (all its units) from a cart. Returns the updated cart.

    When the last line goes, the cart forgets its restaurant and promotion.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        cart_item_id: Cart line id from get_cart, e.g. "CRT-1001".
    """
    line = load_cart_item(db, cart_item_id)
    customer = load_customer(db, line.customer_id)
    cart = cart_of(db, customer)
    assert cart is not None
    cart.items.remove(line)
    _empty(cart)
    db.flush()
    out = cart_view(db, customer, cart)
    out["removed"] = {"cart_item_id": line.id, "item_id": line.item_id, "quantity": line.quantity}
    return out


@kit.tool(write=True, intent="Empty the cart of customer {customer_id}")
def clear_cart(db: Session, customer_id: str) -> dict[str, Any]:
    """Remove every line and the promotion from a customer's cart, e.g. to order from another restaurant.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        customer_id: Customer id, e.g. "CUS-1001".
    """
    customer = load_customer(db, customer_id)
    cart = cart_of(db, customer)
    if cart is None or not cart.items:
        raise ToolError(f"{customer.id}'s cart is already empty; nothing to clear.")
    removed = len(cart.items)
    value = sum(line.quantity for line in cart.items)
    cart.items.clear()
    _empty(cart)
    db.flush()
    return {
        "customer_id": customer.id,
        "lines_removed": removed,
        "units_removed": value,
        "cart": cart_view(db, customer, cart),
    }
