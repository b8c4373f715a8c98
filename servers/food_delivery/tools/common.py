"""What the food delivery tools share: the kit, the fixed clock, id lookups, business rules, views.

Amounts are stored in cents and shown in dollars. "Now" is always the kit's fixed clock
(`now`: ``kit.today`` at 12:30, a Thursday lunchtime), so opening-hour rules, order
timestamps and promotion expiry replay identically whatever the wall clock says.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, time, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gym_mcp.servers.food_delivery.data import seed
from gym_mcp.servers.food_delivery.hours import Interval, distance_km, is_open, next_opening
from gym_mcp.servers.food_delivery.models import (
    CLOCK,
    TODAY,
    WEEKDAYS,
    Address,
    Base,
    Cart,
    CartItem,
    Customer,
    MenuItem,
    Option,
    Order,
    Promotion,
    Rating,
    Restaurant,
)
from gym_mcp.servers.kit import Finder, ServerKit, ToolError, dollars, format_dollars, pick

__all__ = [
    "address_of",
    "cart_of",
    "cart_subtotal",
    "cart_view",
    "check_delivers",
    "check_open",
    "delivery_distance",
    "discount_cents",
    "format_moment",
    "hours_view",
    "item_view",
    "kit",
    "line_options",
    "line_unit_cents",
    "load_address",
    "load_cart_item",
    "load_customer",
    "load_item",
    "load_order",
    "load_restaurant",
    "minutes_until",
    "next_open_text",
    "now",
    "open_now",
    "order_view",
    "orders_count",
    "promo_problem",
    "promotion_view",
    "rating_summary",
    "restaurant_brief",
    "timeline",
]

INSTRUCTIONS = f"""\
Food delivery app support desk. Customers ("CUS-1001") have delivery addresses ("ADR-1001"), one
cart each and orders ("ORD-1001"). Restaurants ("RST-1001") have opening hours, a delivery radius
and a minimum order; their menus hold items ("ITM-1001") whose option groups ("OPG-1001") offer
options ("OPT-1001") such as a size or extra toppings. A cart holds items of one restaurant at a
time (lines "CRT-1001"); apply a promotion code, then checkout places the order. Orders go
placed -> accepted -> preparing -> picked_up (a courier "COU-1001" is assigned) -> delivered, and
can be cancelled only before pickup; a delivered order can be rated once. Amounts are US dollars.
Now is {WEEKDAYS[TODAY.weekday()]} {TODAY.isoformat()} {CLOCK.strftime("%H:%M")}."""

kit = ServerKit(
    "food_delivery",
    base=Base,
    seed=seed,
    instructions=INSTRUCTIONS,
    today=TODAY,
    samples={"limit": (3, 5, 10, 20), "quantity": (1, 2, 3)},
    inline=True,
)


def now() -> datetime:
    """The fixed moment every "now" rule uses: the kit's ``today`` at 12:30."""
    return datetime.combine(kit.today, CLOCK)


# -- lookups ------------------------------------------------------------------------------------

_MISSING = "No {noun} with id {id!r}. {Noun} ids look like '{example}'; {hint}."
load_customer = Finder(
    Customer, "customer", "CUS-1001", "use find_customer with a name or email to look one up", message=_MISSING
)
load_address = Finder(
    Address, "address", "ADR-1001", "use list_addresses with the customer's id to see valid ones", message=_MISSING
)
load_restaurant = Finder(Restaurant, "restaurant", "RST-1001", "use search_restaurants to find one", message=_MISSING)
load_item = Finder(
    MenuItem, "item", "ITM-1001", "use get_menu with the restaurant's id to see its items", message=_MISSING
)
load_cart_item = Finder(
    CartItem, "cart line", "CRT-1001", "use get_cart with the customer's id to see the cart's lines", message=_MISSING
)
load_order = Finder(
    Order, "order", "ORD-1001", "use list_orders with the customer's id to see their orders", message=_MISSING
)


def address_of(db: Session, customer: Customer, address_id: str | None) -> Address:
    """The customer's address with this id, or their default address when None.

    Raises:
        ToolError: The address is unknown or belongs to another customer, or the customer has none.
    """
    if address_id is None:
        address = db.scalar(
            select(Address)
            .where(Address.customer_id == customer.id)
            .order_by(Address.is_default.desc(), Address.id)
            .limit(1)
        )
        if address is None:
            raise ToolError(f"{customer.id} has no delivery address; add one with add_address first.")
        return address
    address = load_address(db, address_id)
    if address.customer_id != customer.id:
        own = db.scalars(select(Address.id).where(Address.customer_id == customer.id).order_by(Address.id)).all()
        listed = ", ".join(own) if own else "none yet (add_address)"
        raise ToolError(
            f"Address {address.id} belongs to another customer; {customer.id}'s addresses are {listed}. "
            "Use one of those."
        )
    return address


# -- opening hours and delivery radius ------------------------------------------------------------


def _intervals(restaurant: Restaurant) -> list[Interval]:
    """The restaurant's opening intervals as (weekday, opens, closes)."""

    def clock(text: str) -> time:
        hours, minutes = text.split(":")
        return time(int(hours), int(minutes))

    return [(h.weekday, clock(h.opens), clock(h.closes)) for h in restaurant.hours]


def format_moment(at: datetime) -> str:
    """A moment for messages, e.g. ``"Thursday 2026-01-15 17:00"``."""
    return f"{WEEKDAYS[at.weekday()]} {at.date().isoformat()} {at.strftime('%H:%M')}"


def open_now(restaurant: Restaurant) -> bool:
    """Whether the restaurant is open at the fixed clock."""
    return is_open(_intervals(restaurant), now())


def next_open_text(restaurant: Restaurant) -> str | None:
    """When a closed restaurant next opens (``"Thursday 2026-01-15 17:00"``), None when it never does."""
    begin = next_opening(_intervals(restaurant), now())
    return format_moment(begin) if begin is not None else None


def check_open(restaurant: Restaurant) -> None:
    """Refuse an order to a restaurant that is closed at the fixed clock; the error gives the next opening."""
    if open_now(restaurant):
        return
    when = next_open_text(restaurant)
    reopen = f"it next opens {when}" if when else "it has no opening hours"
    raise ToolError(
        f"{restaurant.name} ({restaurant.id}) is closed now ({format_moment(now())}); {reopen}. "
        "Order again once it is open, or pick a restaurant that is open now (search_restaurants with open_now=true)."
    )


def hours_view(restaurant: Restaurant) -> dict[str, list[str] | str]:
    """Opening hours by weekday name, e.g. ``{"Monday": ["11:00-22:00"], "Tuesday": "closed"}``."""
    out: dict[str, list[str] | str] = {}
    for weekday, name in enumerate(WEEKDAYS):
        spans = [f"{h.opens}-{h.closes}" for h in restaurant.hours if h.weekday == weekday]
        out[name] = spans or "closed"
    return out


def delivery_distance(restaurant: Restaurant, address: Address) -> float:
    """Kilometres from a restaurant to an address, rounded to 0.1."""
    return distance_km(restaurant.latitude, restaurant.longitude, address.latitude, address.longitude)


def check_delivers(restaurant: Restaurant, address: Address) -> float:
    """Refuse an address beyond the restaurant's delivery radius; return the distance in km."""
    distance = delivery_distance(restaurant, address)
    if distance > restaurant.delivery_radius_km:
        raise ToolError(
            f"Address {address.id} ({address.label}, {address.street}) is {distance:.1f} km from "
            f"{restaurant.name} ({restaurant.id}), beyond its {restaurant.delivery_radius_km:.1f} km delivery radius. "
            "Deliver to a closer address (list_addresses, add_address) or choose a restaurant that delivers there "
            "(search_restaurants with address_id)."
        )
    return distance


# -- carts and prices -------------------------------------------------------------------------------


def cart_of(db: Session, customer: Customer, *, create: bool = False) -> Cart | None:
    """The customer's cart; created empty when ``create`` and missing."""
    cart = db.get(Cart, customer.id)
    if cart is None and create:
        cart = Cart(customer_id=customer.id)
        db.add(cart)
        db.flush()
    return cart


def line_options(db: Session, line: CartItem) -> list[Option]:
    """The options chosen on a cart line, in the order they were given."""
    ids = [i for i in line.option_ids.split(",") if i]
    return [o for i in ids if (o := db.get(Option, i)) is not None]


def line_unit_cents(db: Session, line: CartItem) -> int:
    """Current price of one unit of a cart line: the item's price plus its options' deltas."""
    return line.item.price_cents + sum(o.price_delta_cents for o in line_options(db, line))


def cart_subtotal(db: Session, cart: Cart) -> int:
    """Subtotal of a cart at current prices, in cents."""
    return sum(line_unit_cents(db, line) * line.quantity for line in cart.items)


def orders_count(db: Session, customer_id: str) -> int:
    """How many orders (not cancelled) a customer has placed."""
    return int(
        db.scalar(select(func.count(Order.id)).where(Order.customer_id == customer_id, Order.status != "cancelled"))
        or 0
    )


def promo_problem(
    db: Session, promo: Promotion, customer_id: str, restaurant_id: str | None, subtotal: int
) -> str | None:
    """Why a promotion cannot be used on a cart, naming the unmet condition; None when it can."""
    if promo.expires_on < kit.today:
        return (
            f"Promotion {promo.code} expired on {promo.expires_on.isoformat()} (today is {kit.today.isoformat()}); "
            "see list_promotions for codes that are still valid."
        )
    if promo.restaurant_id is not None and promo.restaurant_id != restaurant_id:
        valid_at = db.get(Restaurant, promo.restaurant_id)
        name = valid_at.name if valid_at else promo.restaurant_id
        return (
            f"Promotion {promo.code} is only valid at {name} ({promo.restaurant_id}), "
            f"but this cart is from {restaurant_id}."
        )
    if promo.first_order_only:
        placed = orders_count(db, customer_id)
        if placed:
            return (
                f"Promotion {promo.code} is for a customer's first order only, and {customer_id} has already "
                f"placed {placed} order(s)."
            )
    if subtotal < promo.min_subtotal_cents:
        return (
            f"Promotion {promo.code} needs a subtotal of at least {format_dollars(promo.min_subtotal_cents)}, but the "
            f"cart's subtotal is {format_dollars(subtotal)}; add {format_dollars(promo.min_subtotal_cents - subtotal)} "
            "more."
        )
    return None


def discount_cents(promo: Promotion, subtotal: int) -> int:
    """The discount of a promotion on a subtotal: a percentage (capped when it has a cap) or a fixed amount."""
    if promo.percent_off is not None:
        cents = subtotal * promo.percent_off // 100
        return min(cents, promo.max_discount_cents) if promo.max_discount_cents is not None else cents
    return min(promo.amount_off_cents or 0, subtotal)


def cart_view(db: Session, customer: Customer, cart: Cart | None) -> dict[str, Any]:
    """A cart: its restaurant, lines, subtotal, promotion, discount, delivery fee and total."""
    if cart is None or not cart.items:
        return {
            "customer_id": customer.id,
            "restaurant_id": None,
            "items": [],
            "subtotal": 0.0,
            "promo_code": cart.promo_code if cart else None,
            "discount": 0.0,
            "delivery_fee": 0.0,
            "total": 0.0,
        }
    restaurant = db.get(Restaurant, cart.restaurant_id) if cart.restaurant_id else None
    lines = []
    for line in cart.items:
        unit = line_unit_cents(db, line)
        lines.append(
            {
                "cart_item_id": line.id,
                "item_id": line.item_id,
                "name": line.item.name,
                "options": [o.name for o in line_options(db, line)],
                "unit_price": dollars(unit),
                "quantity": line.quantity,
                "line_total": dollars(unit * line.quantity),
            }
        )
    subtotal = cart_subtotal(db, cart)
    fee = restaurant.delivery_fee_cents if restaurant else 0
    view: dict[str, Any] = {
        "customer_id": customer.id,
        "restaurant_id": cart.restaurant_id,
        "restaurant_name": restaurant.name if restaurant else None,
        "items": lines,
        "subtotal": dollars(subtotal),
        "promo_code": cart.promo_code,
    }
    discount = 0
    if cart.promo_code:
        promo = db.get(Promotion, cart.promo_code)
        problem = promo_problem(db, promo, customer.id, cart.restaurant_id, subtotal) if promo else "unknown code"
        if problem or promo is None:
            view["promo_warning"] = problem
        else:
            discount = discount_cents(promo, subtotal)
    view["discount"] = dollars(discount)
    view["delivery_fee"] = dollars(fee)
    view["total"] = dollars(subtotal - discount + fee)
    if restaurant is not None:
        if subtotal < restaurant.min_order_cents:
            view["minimum_order_warning"] = (
                f"{restaurant.name} has a {format_dollars(restaurant.min_order_cents)} minimum order; "
                f"add {format_dollars(restaurant.min_order_cents - subtotal)} more."
            )
        if not open_now(restaurant):
            view["restaurant_closed_warning"] = (
                f"{restaurant.name} is closed now; it next opens {next_open_text(restaurant)}."
            )
    return view


# -- result shapes ----------------------------------------------------------------------------------


def rating_summary(db: Session, restaurant_id: str) -> tuple[float | None, int]:
    """(average stars rounded to 0.1 or None, number of ratings) of a restaurant."""
    avg, count = db.execute(
        select(func.avg(Rating.stars), func.count(Rating.id)).where(Rating.restaurant_id == restaurant_id)
    ).one()
    return (round(float(avg), 1) if avg is not None else None), int(count)


def restaurant_brief(db: Session, restaurant: Restaurant, address: Address | None = None) -> dict[str, Any]:
    """The fields of a restaurant a model needs in a list (distance and delivers_to when an address is given)."""
    stars, count = rating_summary(db, restaurant.id)
    out: dict[str, Any] = {
        "restaurant_id": restaurant.id,
        **pick(restaurant, "name", "cuisine", "price_level"),
        "rating": stars,
        "ratings": count,
        "open_now": open_now(restaurant),
        "min_order": dollars(restaurant.min_order_cents),
        "delivery_fee": dollars(restaurant.delivery_fee_cents),
        "delivery_radius_km": restaurant.delivery_radius_km,
    }
    if not out["open_now"]:
        out["next_opening"] = next_open_text(restaurant)
    if address is not None:
        distance = delivery_distance(restaurant, address)
        out["distance_km"] = distance
        out["delivers_to_address"] = distance <= restaurant.delivery_radius_km
    return out


def item_view(item: MenuItem, *, options: bool = True) -> dict[str, Any]:
    """A menu item; with its option groups and options when ``options``."""
    out: dict[str, Any] = {
        "item_id": item.id,
        "restaurant_id": item.restaurant_id,
        **pick(item, "name", "category", "description"),
        "price": dollars(item.price_cents),
        "available": item.available,
    }
    if options:
        out["option_groups"] = [
            {
                "group_id": g.id,
                "name": g.name,
                "required": g.required,
                "max_choices": g.max_choices,
                "options": [
                    {"option_id": o.id, "name": o.name, "price_delta": dollars(o.price_delta_cents)} for o in g.options
                ],
            }
            for g in item.groups
        ]
    else:
        out["required_choices"] = [g.name for g in item.groups if g.required]
    return out


def promotion_view(promo: Promotion) -> dict[str, Any]:
    """A promotion and its conditions."""
    out: dict[str, Any] = {"code": promo.code, "description": promo.description}
    if promo.percent_off is not None:
        out["percent_off"] = promo.percent_off
        if promo.max_discount_cents is not None:
            out["max_discount"] = dollars(promo.max_discount_cents)
    else:
        out["amount_off"] = dollars(promo.amount_off_cents or 0)
    out["min_subtotal"] = dollars(promo.min_subtotal_cents)
    out["first_order_only"] = promo.first_order_only
    out["restaurant_id"] = promo.restaurant_id
    out["expires_on"] = promo.expires_on.isoformat()
    out["expired"] = promo.expires_on < kit.today
    return out


def _stamp(at: datetime | None) -> str | None:
    return at.isoformat(timespec="minutes") if at is not None else None


def order_view(order: Order, *, lines: bool = True) -> dict[str, Any]:
    """An order: status, restaurant, address, amounts and (when ``lines``) its items."""
    out: dict[str, Any] = {
        "order_id": order.id,
        "customer_id": order.customer_id,
        "restaurant_id": order.restaurant_id,
        "restaurant_name": order.restaurant.name,
        "address_id": order.address_id,
        "status": order.status,
        "placed_at": _stamp(order.placed_at),
    }
    if lines:
        out["items"] = [
            {
                "item_id": line.item_id,
                "name": line.name,
                "options": [o for o in line.options.split(", ") if o],
                "quantity": line.quantity,
                "unit_price": dollars(line.unit_price_cents),
                "line_total": dollars(line.unit_price_cents * line.quantity),
            }
            for line in order.items
        ]
    out["subtotal"] = dollars(order.subtotal_cents)
    if order.promo_code:
        out["promo_code"] = order.promo_code
    out["discount"] = dollars(order.discount_cents)
    out["delivery_fee"] = dollars(order.delivery_fee_cents)
    out["total"] = dollars(order.total_cents)
    if order.status == "cancelled":
        out["cancelled_at"] = _stamp(order.cancelled_at)
        out["cancel_reason"] = order.cancel_reason
    return out


def timeline(order: Order) -> list[dict[str, str]]:
    """The statuses an order went through, with when."""
    steps: Sequence[tuple[str, datetime | None]] = (
        ("placed", order.placed_at),
        ("accepted", order.accepted_at),
        ("preparing", order.preparing_at),
        ("picked_up", order.picked_up_at),
        ("delivered", order.delivered_at),
        ("cancelled", order.cancelled_at),
    )
    return [{"status": s, "at": _stamp(at) or ""} for s, at in steps if at is not None]


def minutes_until(at: datetime) -> int:
    """Whole minutes from the fixed clock to a moment (0 when it is past)."""
    return max(0, int((at - now()) / timedelta(minutes=1)))
