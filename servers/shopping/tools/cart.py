"""Shopping tools for a customer's cart: items, coupons, and checkout into an order."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_limit, dollars, next_id
from gym_mcp.servers.shopping.models import (
    Cart,
    CartItem,
    Coupon,
    Customer,
    Order,
    OrderItem,
    Product,
    coupon_discount_cents,
)
from gym_mcp.servers.shopping.tools.common import (
    ADDRESS_SAMPLES,
    MAX_LIMIT,
    check_address,
    check_quantity,
    kit,
    load_customer,
    load_order,
    load_product,
    order_view,
)


def _cart(db: Session, customer: Customer) -> Cart:
    """The customer's cart, created empty if missing."""
    cart = db.get(Cart, customer.id)
    if cart is None:
        cart = Cart(customer_id=customer.id)
        db.add(cart)
        db.flush()
    return cart


def _cart_item(cart: Cart, product: Product) -> CartItem | None:
    """The cart line holding a product, if any."""
    return next((item for item in cart.items if item.product_id == product.id), None)


def _check_stock(product: Product, wanted: int) -> None:
    """Raise when ``wanted`` units of a product exceed its stock."""
    if product.stock == 0:
        raise ToolError(
            f"{product.id} ({product.name}) is out of stock (0 available). Choose another product with search_products."
        )
    if wanted > product.stock:
        raise ToolError(
            f"Not enough stock for {product.id} ({product.name}): the cart would hold {wanted} "
            f"but only {product.stock} are available. Use a quantity of at most {product.stock}."
        )


def _coupon_problem(coupon: Coupon, subtotal_cents: int) -> str | None:
    """Why a coupon cannot be used on a subtotal, or None when it can."""
    if not coupon.active:
        return f"Coupon {coupon.code} is no longer active and cannot be used."
    if coupon.expires_on < kit.today:
        return f"Coupon {coupon.code} expired on {coupon.expires_on.isoformat()} and cannot be used."
    if subtotal_cents < coupon.min_subtotal_cents:
        return (
            f"Coupon {coupon.code} requires a cart subtotal of at least "
            f"${dollars(coupon.min_subtotal_cents):.2f}, but the subtotal is ${dollars(subtotal_cents):.2f}."
        )
    return None


def _subtotal(cart: Cart) -> int:
    """Cart subtotal in cents at current prices."""
    return sum(item.product.price_cents * item.quantity for item in cart.items)


def _cart_view(db: Session, cart: Cart) -> dict[str, Any]:
    """A cart with its lines, subtotal, coupon discount and total."""
    subtotal = _subtotal(cart)
    coupon = db.get(Coupon, cart.coupon_code) if cart.coupon_code else None
    discount = 0
    view: dict[str, Any] = {
        "customer_id": cart.customer_id,
        "items": [
            {
                "product_id": item.product_id,
                "name": item.product.name,
                "unit_price": dollars(item.product.price_cents),
                "quantity": item.quantity,
                "line_total": dollars(item.product.price_cents * item.quantity),
                "available": item.product.stock,
            }
            for item in cart.items
        ],
        "subtotal": dollars(subtotal),
        "coupon": cart.coupon_code,
    }
    if coupon is not None:
        problem = _coupon_problem(coupon, subtotal)
        if problem:
            view["coupon_warning"] = problem
        else:
            discount = coupon_discount_cents(coupon, subtotal)
    view["discount"] = dollars(discount)
    view["total"] = dollars(subtotal - discount)
    return view


@kit.tool(write=False, intent="Show the cart of customer {customer_id}")
def view_cart(db: Session, customer_id: str) -> dict[str, Any]:
    """Show a customer's cart: items, current prices, subtotal, coupon, discount and total.

    Each item also shows "available", the stock on hand.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        customer_id: Customer id, e.g. "CUS-1001".
    """
    customer = load_customer(db, customer_id)
    cart = db.get(Cart, customer.id)
    if cart is None:
        return {
            "customer_id": customer.id,
            "items": [],
            "subtotal": 0.0,
            "coupon": None,
            "discount": 0.0,
            "total": 0.0,
        }
    return _cart_view(db, cart)


@kit.tool(
    write=True,
    intent="Add[ {quantity} of] product {product_id} to the cart of customer {customer_id}",
    samples={"quantity": (1, 1, 2, 3)},
)
def add_to_cart(db: Session, customer_id: str, product_id: str, quantity: int = 1) -> dict[str, Any]:
    """Add units of a product to a customer's cart (adds to the quantity already there).

    The total in the cart cannot exceed the stock on hand. Returns the updated cart.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        customer_id: Customer id, e.g. "CUS-1001".
        product_id: Product id, e.g. "PRD-1001".
        quantity: Units to add, a positive integer, e.g. 2.
    """
    customer = load_customer(db, customer_id)
    product = load_product(db, product_id)
    check_quantity(quantity)
    cart = _cart(db, customer)
    item = _cart_item(cart, product)
    _check_stock(product, quantity + (item.quantity if item else 0))
    if item is None:
        cart.items.append(CartItem(product_id=product.id, quantity=quantity, product=product))
    else:
        item.quantity += quantity
    db.flush()
    return _cart_view(db, cart)


@kit.tool(
    write=True,
    intent="Change the quantity of product {product_id} in the cart of customer {customer_id} to {quantity}",
    samples={"quantity": (1, 1, 2, 3)},
)
def update_cart_item(db: Session, customer_id: str, product_id: str, quantity: int) -> dict[str, Any]:
    """Set the quantity of a product already in a customer's cart.

    To take a product out of the cart use remove_from_cart. Returns the updated cart.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        customer_id: Customer id, e.g. "CUS-1001".
        product_id: Product id of an item in the cart, e.g. "PRD-1001".
        quantity: New quantity, a positive integer no higher than the stock, e.g. 3.
    """
    customer = load_customer(db, customer_id)
    product = load_product(db, product_id)
    check_quantity(quantity)
    cart = _cart(db, customer)
    item = _cart_item(cart, product)
    if item is None:
        raise ToolError(
            f"{product.id} is not in {customer.id}'s cart. Use add_to_cart to add it, "
            "or view_cart to see what the cart holds."
        )
    _check_stock(product, quantity)
    item.quantity = quantity
    db.flush()
    return _cart_view(db, cart)


@kit.tool(write=True, intent="Remove product {product_id} from the cart of customer {customer_id}")
def remove_from_cart(db: Session, customer_id: str, product_id: str) -> dict[str, Any]:
    """Remove a product (all its units) from a customer's cart. Returns the updated cart.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        customer_id: Customer id, e.g. "CUS-1001".
        product_id: Product id of an item in the cart, e.g. "PRD-1001".
    """
    customer = load_customer(db, customer_id)
    product = load_product(db, product_id)
    cart = _cart(db, customer)
    item = _cart_item(cart, product)
    if item is None:
        raise ToolError(f"{product.id} is not in {customer.id}'s cart; use view_cart to see what it holds.")
    cart.items.remove(item)
    db.flush()
    return _cart_view(db, cart)


@kit.tool(
    write=True,
    intent="Apply coupon {code} to the cart of customer {customer_id}",
    samples={"code": ("WELCOME10", "FIVEOFF", "SAVE20", "welcome10")},
)
def apply_coupon(db: Session, customer_id: str, code: str) -> dict[str, Any]:
    """Apply a coupon code to a customer's cart (replacing any coupon already applied).

    The cart must not be empty and must meet the coupon's minimum subtotal. The discount is
    taken at checkout. Returns the updated cart with the discount.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        customer_id: Customer id, e.g. "CUS-1001".
        code: Coupon code, e.g. "SAVE20" (case-insensitive).
    """
    customer = load_customer(db, customer_id)
    coupon = db.get(Coupon, code.strip().upper())
    if coupon is None:
        raise ToolError(f'Coupon code "{code}" does not exist. Check the spelling with the customer.')
    cart = _cart(db, customer)
    if not cart.items:
        raise ToolError(f"{customer.id}'s cart is empty; add items with add_to_cart before applying a coupon.")
    problem = _coupon_problem(coupon, _subtotal(cart))
    if problem:
        raise ToolError(problem)
    cart.coupon_code = coupon.code
    db.flush()
    return _cart_view(db, cart)


@kit.tool(write=True, intent="Remove the coupon from the cart of customer {customer_id}")
def remove_coupon(db: Session, customer_id: str) -> dict[str, Any]:
    """Remove the coupon applied to a customer's cart. Returns the updated cart.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        customer_id: Customer id, e.g. "CUS-1001".
    """
    customer = load_customer(db, customer_id)
    cart = _cart(db, customer)
    if cart.coupon_code is None:
        raise ToolError(f"{customer.id}'s cart has no coupon applied.")
    cart.coupon_code = None
    db.flush()
    return _cart_view(db, cart)


@kit.tool(
    write=True,
    intent="Check out the cart of customer {customer_id}[ and ship the order to {shipping_address}]",
    samples={"shipping_address": ADDRESS_SAMPLES},
)
def checkout(db: Session, customer_id: str, shipping_address: str | None = None) -> dict[str, Any]:
    """Place an order from a customer's cart: takes the stock, applies the coupon, empties the cart.

    Fails without changing anything if the cart is empty, any item lacks stock, or the coupon
    no longer qualifies. The new order has status "placed". Returns the order.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        customer_id: Customer id, e.g. "CUS-1001".
        shipping_address: Address to ship to, e.g. "12 Oak St, Austin, TX 73301"; omit to use
            the customer's default address.
    """
    customer = load_customer(db, customer_id)
    cart = _cart(db, customer)
    if not cart.items:
        raise ToolError(f"{customer.id}'s cart is empty; add items with add_to_cart before checking out.")
    short = [
        f"{item.product_id} {item.product.name} (in cart {item.quantity}, available {item.product.stock})"
        for item in cart.items
        if item.quantity > item.product.stock
    ]
    if short:
        raise ToolError(
            "Not enough stock for: " + "; ".join(short) + ". Lower the quantity with update_cart_item "
            "or remove the item with remove_from_cart, then check out again."
        )
    address = customer.address if shipping_address is None else check_address(shipping_address)
    subtotal = _subtotal(cart)
    discount = 0
    if cart.coupon_code:
        coupon = db.get(Coupon, cart.coupon_code)
        assert coupon is not None
        problem = _coupon_problem(coupon, subtotal)
        if problem:
            raise ToolError(f"{problem} Add items or call remove_coupon, then check out again.")
        discount = coupon_discount_cents(coupon, subtotal)
    order = Order(
        id=next_id(db, Order.id, "ORD"),
        customer_id=customer.id,
        status="placed",
        shipping_address=address,
        coupon_code=cart.coupon_code,
        subtotal_cents=subtotal,
        discount_cents=discount,
        total_cents=subtotal - discount,
        placed_on=kit.today,
    )
    for item in cart.items:
        item.product.stock -= item.quantity
        order.items.append(
            OrderItem(
                product_id=item.product_id,
                quantity=item.quantity,
                unit_price_cents=item.product.price_cents,
                product=item.product,
            )
        )
    db.add(order)
    cart.items.clear()
    cart.coupon_code = None
    db.flush()
    return order_view(order)


@kit.tool(write=True, intent="Empty the cart of customer {customer_id}")
def clear_cart(db: Session, customer_id: str) -> dict[str, Any]:
    """Remove every item and the coupon from a customer's cart.

    To take out a single product use remove_from_cart instead. Returns the (empty) cart.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        customer_id: Customer id, e.g. "CUS-1001".
    """
    customer = load_customer(db, customer_id)
    cart = db.get(Cart, customer.id)
    if cart is None or (not cart.items and cart.coupon_code is None):
        raise ToolError(f"The cart of {customer.id} is already empty; there is nothing to clear.")
    cart.items.clear()
    cart.coupon_code = None
    db.flush()
    return _cart_view(db, cart)


@kit.tool(write=True, intent="Put the items of order {order_id} back in the customer's cart to order them again")
def reorder(db: Session, order_id: str) -> dict[str, Any]:
    """Add every item of a past order to its customer's cart again, at today's prices.

    Quantities add to what the cart already holds; nothing is added when any product lacks the
    stock (the error names it), so the cart is never half-filled. Check out with checkout.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        order_id: The past order to repeat, e.g. "ORD-1001".
    """
    order = load_order(db, order_id)
    customer = load_customer(db, order.customer_id)
    cart = _cart(db, customer)
    for line in order.items:
        item = _cart_item(cart, line.product)
        _check_stock(line.product, line.quantity + (item.quantity if item else 0))
    for line in order.items:
        item = _cart_item(cart, line.product)
        if item is None:
            cart.items.append(CartItem(product_id=line.product_id, quantity=line.quantity, product=line.product))
        else:
            item.quantity += line.quantity
    db.flush()
    return _cart_view(db, cart)


@kit.tool(write=False, intent="List the coupons that can be used today[, showing up to {limit}]")
def list_coupons(db: Session, limit: int = 10) -> list[dict[str, Any]]:
    """List the coupons that are active and not expired today, with their conditions.

    Returns a list of {"code", "description", "percent_off" or "amount_off", "min_subtotal",
    "expires_on"}; apply one to a cart with apply_coupon.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        limit: Maximum number of coupons to return, 1 to 50.
    """
    check_limit(limit, MAX_LIMIT)
    rows = db.scalars(
        select(Coupon).where(Coupon.active.is_(True), Coupon.expires_on >= kit.today).order_by(Coupon.code).limit(limit)
    )
    out = []
    for c in rows:
        view: dict[str, Any] = {"code": c.code, "description": c.description}
        if c.percent_off is not None:
            view["percent_off"] = c.percent_off
        else:
            view["amount_off"] = dollars(c.amount_off_cents or 0)
        view["min_subtotal"] = dollars(c.min_subtotal_cents)
        view["expires_on"] = c.expires_on.isoformat()
        out.append(view)
    return out
