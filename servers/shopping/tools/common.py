"""What the shopping tools share: the kit, id lookups, argument checks and the order view."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from gym_mcp.servers.kit import Finder, ServerKit, ToolError, check_length, dollars
from gym_mcp.servers.shopping.data import REFERENCE_DATE, RETURN_WINDOW_DAYS, seed
from gym_mcp.servers.shopping.models import Base, Customer, Order, Product, Return

__all__ = [
    "ADDRESS_SAMPLES",
    "MAX_LIMIT",
    "check_address",
    "check_quantity",
    "kit",
    "load_customer",
    "load_order",
    "load_product",
    "load_return",
    "order_view",
]


MAX_LIMIT = 50
"""Most rows a list tool returns."""

# Literal sample values for task synthesis (ids are drawn from the live database instead).
LIMIT_SAMPLES = (3, 5, 10, 20)
ADDRESS_SAMPLES = (
    "12 Oak St, Austin, TX 73301",
    "480 Lakeview Dr, Denver, CO 80203",
    "75 Harbor Way, Savannah, GA 31401",
    "2210 Chestnut Ave, Madison, WI 53703",
    "9 Birch Ln, Burlington, VT 05401",
    "318 Sunset Blvd, Sacramento, CA 95814",
)

kit = ServerKit(
    "shopping",
    base=Base,
    seed=seed,
    today=REFERENCE_DATE,
    samples={"limit": LIMIT_SAMPLES},
    instructions=(
        "Online store support desk. Look up customers, browse the product catalog, manage a "
        "customer's cart (add, update, remove items, coupons), check out, and handle orders: "
        "status, shipping address changes, cancellations and returns. Ids look like "
        '"CUS-1001" (customer), "PRD-1001" (product), "ORD-1001" (order), "RET-1001" (return). '
        f"Amounts are in US dollars. Today is {REFERENCE_DATE.isoformat()}; returns are accepted "
        f"within {RETURN_WINDOW_DAYS} days of delivery."
    ),
    inline=True,
)


# -- lookups ----------------------------------------------------------------------------------

load_customer = Finder(Customer, "customer", "CUS-1001", "use find_customer to look one up by name or email")
load_product = Finder(Product, "product", "PRD-1001", "use search_products to find one")
load_order = Finder(Order, "order", "ORD-1001", "use list_orders with the customer id to see a customer's orders")
load_return = Finder(Return, "return", "RET-1001", "use list_returns with the customer id to see a customer's returns")


# -- checks and views --------------------------------------------------------------------------


def check_quantity(quantity: int) -> None:
    """Reject a quantity that is not a positive integer."""
    if quantity < 1:
        raise ToolError(f"quantity must be a positive integer (1 or more), got {quantity}.")


def check_address(address: str) -> str:
    """Validate a free-text shipping address."""
    detail = ' with street, city, state and ZIP, e.g. "12 Oak St, Austin, TX 73301".'
    return check_length(" ".join(address.split()), "shipping address", 10, 200, detail)


def order_view(order: Order) -> dict[str, Any]:
    """An order with its lines, amounts, dates and returns."""
    view: dict[str, Any] = {
        "order_id": order.id,
        "customer_id": order.customer_id,
        "status": order.status,
        "placed_on": order.placed_on.isoformat(),
    }
    for key, value in (
        ("shipped_on", order.shipped_on),
        ("delivered_on", order.delivered_on),
        ("cancelled_on", order.cancelled_on),
    ):
        if value is not None:
            view[key] = value.isoformat()
    if order.delivered_on is not None:
        view["return_by"] = (order.delivered_on + timedelta(days=RETURN_WINDOW_DAYS)).isoformat()
    view["shipping_address"] = order.shipping_address
    view["items"] = [
        {
            "product_id": item.product_id,
            "name": item.product.name,
            "quantity": item.quantity,
            "unit_price": dollars(item.unit_price_cents),
            "line_total": dollars(item.unit_price_cents * item.quantity),
        }
        for item in order.items
    ]
    view["subtotal"] = dollars(order.subtotal_cents)
    if order.coupon_code:
        view["coupon"] = order.coupon_code
    view["discount"] = dollars(order.discount_cents)
    view["total"] = dollars(order.total_cents)
    if order.returns:
        view["returns"] = [
            {"return_id": r.id, "product_id": r.product_id, "quantity": r.quantity, "status": r.status}
            for r in order.returns
        ]
    return view
