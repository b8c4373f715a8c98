"""Tools of the shopping server: catalog search, carts, checkout, orders and returns.

Every tool takes human-readable ids (``CUS-1001``, ``PRD-1001``, ``ORD-1001``, ``RET-1001``,
case-insensitive), returns compact JSON with amounts in dollars rounded to cents, and raises
`ToolError` with a message saying what went wrong and how to fix it. "Today" is the kit's fixed
reference date, so episodes replay identically.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import InstrumentedAttribute, Session

from gym_mcp.servers.kit import ServerKit, ToolError
from gym_mcp.servers.shopping.data import REFERENCE_DATE, RETURN_WINDOW_DAYS, seed
from gym_mcp.servers.shopping.models import (
    ORDER_STATUSES,
    Base,
    Cart,
    CartItem,
    Category,
    Coupon,
    Customer,
    Order,
    OrderItem,
    Product,
    Return,
    coupon_discount_cents,
    refund_cents,
)

__all__ = ["kit"]

MAX_LIMIT = 50

# Literal sample values for task synthesis (ids are drawn from the live database instead).
_LIMITS = (3, 5, 10, 20)
_CATEGORIES = (
    "Electronics",
    "Home & Kitchen",
    "Books",
    "Clothing",
    "Sports & Outdoors",
    "Toys & Games",
    "Beauty & Personal Care",
    "Grocery",
)
_QUERIES = ("bluetooth speaker", "coffee", "yoga", "backpack", "puzzle", "tent", "kettle", "honey")
_ADDRESSES = (
    "12 Oak St, Austin, TX 73301",
    "480 Lakeview Dr, Denver, CO 80203",
    "75 Harbor Way, Savannah, GA 31401",
    "2210 Chestnut Ave, Madison, WI 53703",
    "9 Birch Ln, Burlington, VT 05401",
    "318 Sunset Blvd, Sacramento, CA 95814",
)
_RETURN_REASONS = (
    "Item arrived damaged",
    "Wrong size",
    "Not as described",
    "Changed my mind",
    "Defective on arrival",
    "Arrived too late",
)

kit = ServerKit(
    "shopping",
    base=Base,
    seed=seed,
    today=REFERENCE_DATE,
    instructions=(
        "Online store support desk. Look up customers, browse the product catalog, manage a "
        "customer's cart (add, update, remove items, coupons), check out, and handle orders: "
        "status, shipping address changes, cancellations and returns. Ids look like "
        '"CUS-1001" (customer), "PRD-1001" (product), "ORD-1001" (order), "RET-1001" (return). '
        f"Amounts are in US dollars. Today is {REFERENCE_DATE.isoformat()}; returns are accepted "
        f"within {RETURN_WINDOW_DAYS} days of delivery."
    ),
)


# -- helpers -----------------------------------------------------------------------------------


def _money(cents: int) -> float:
    """Cents as dollars rounded to 2 decimals."""
    return round(cents / 100, 2)


def _norm_id(value: str) -> str:
    """Normalise an id the model typed (surrounding spaces, lower case)."""
    return value.strip().upper()


def _next_id(db: Session, column: InstrumentedAttribute[str], prefix: str) -> str:
    """The next free id of a table: one more than the highest number in use."""
    numbers = [int(v.split("-", 1)[1]) for v in db.scalars(select(column)) if v.split("-", 1)[1].isdigit()]
    return f"{prefix}-{max(numbers, default=1000) + 1}"


def _check_limit(limit: int) -> None:
    """Reject a list limit outside 1..MAX_LIMIT."""
    if not 1 <= limit <= MAX_LIMIT:
        raise ToolError(f"limit must be between 1 and {MAX_LIMIT}, got {limit}.")


def _check_quantity(quantity: int) -> None:
    """Reject a quantity that is not a positive integer."""
    if quantity < 1:
        raise ToolError(f"quantity must be a positive integer (1 or more), got {quantity}.")


def _check_address(address: str) -> str:
    """Validate a free-text shipping address."""
    text = " ".join(address.split())
    if not 10 <= len(text) <= 200:
        raise ToolError(
            "shipping address must be 10 to 200 characters with street, city, state and ZIP, "
            'e.g. "12 Oak St, Austin, TX 73301".'
        )
    return text


def _customer(db: Session, customer_id: str) -> Customer:
    """Load a customer or explain how to find a valid id."""
    customer = db.get(Customer, _norm_id(customer_id))
    if customer is None:
        raise ToolError(
            f'Unknown customer id "{customer_id}". Customer ids look like "CUS-1001"; '
            "use find_customer to look one up by name or email."
        )
    return customer


def _product(db: Session, product_id: str) -> Product:
    """Load a product or explain how to find a valid id."""
    product = db.get(Product, _norm_id(product_id))
    if product is None:
        raise ToolError(
            f'Unknown product id "{product_id}". Product ids look like "PRD-1001"; use search_products to find one.'
        )
    return product


def _order(db: Session, order_id: str) -> Order:
    """Load an order or explain how to find a valid id."""
    order = db.get(Order, _norm_id(order_id))
    if order is None:
        raise ToolError(
            f'Unknown order id "{order_id}". Order ids look like "ORD-1001"; '
            "use list_orders with the customer id to see a customer's orders."
        )
    return order


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
            f"${_money(coupon.min_subtotal_cents):.2f}, but the subtotal is ${_money(subtotal_cents):.2f}."
        )
    return None


def _subtotal(cart: Cart) -> int:
    """Cart subtotal in cents at current prices."""
    return sum(item.product.price_cents * item.quantity for item in cart.items)


def _product_summary(product: Product) -> dict[str, Any]:
    """The fields of a product a search result needs."""
    return {
        "product_id": product.id,
        "name": product.name,
        "category": product.category.name,
        "price": _money(product.price_cents),
        "stock": product.stock,
    }


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
                "unit_price": _money(item.product.price_cents),
                "quantity": item.quantity,
                "line_total": _money(item.product.price_cents * item.quantity),
                "available": item.product.stock,
            }
            for item in cart.items
        ],
        "subtotal": _money(subtotal),
        "coupon": cart.coupon_code,
    }
    if coupon is not None:
        problem = _coupon_problem(coupon, subtotal)
        if problem:
            view["coupon_warning"] = problem
        else:
            discount = coupon_discount_cents(coupon, subtotal)
    view["discount"] = _money(discount)
    view["total"] = _money(subtotal - discount)
    return view


def _returned_quantity(order: Order, product_id: str) -> int:
    """Units of a product already returned (or being returned) from an order."""
    return sum(r.quantity for r in order.returns if r.product_id == product_id and r.status != "rejected")


def _return_view(ret: Return) -> dict[str, Any]:
    """The fields of a return a model needs."""
    return {
        "return_id": ret.id,
        "order_id": ret.order_id,
        "product_id": ret.product_id,
        "name": ret.product.name,
        "quantity": ret.quantity,
        "reason": ret.reason,
        "status": ret.status,
        "refund": _money(ret.refund_cents),
        "requested_on": ret.requested_on.isoformat(),
    }


def _order_view(order: Order) -> dict[str, Any]:
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
            "unit_price": _money(item.unit_price_cents),
            "line_total": _money(item.unit_price_cents * item.quantity),
        }
        for item in order.items
    ]
    view["subtotal"] = _money(order.subtotal_cents)
    if order.coupon_code:
        view["coupon"] = order.coupon_code
    view["discount"] = _money(order.discount_cents)
    view["total"] = _money(order.total_cents)
    if order.returns:
        view["returns"] = [
            {"return_id": r.id, "product_id": r.product_id, "quantity": r.quantity, "status": r.status}
            for r in order.returns
        ]
    return view


# -- catalog -----------------------------------------------------------------------------------


@kit.tool(write=False, intent="List the product categories")
def list_categories(db: Session) -> list[dict[str, Any]]:
    """List the product categories with how many products each holds.

    Use it to learn the exact category names search_products accepts.
    Returns a list of {"category", "product_count"}.
    """
    rows = db.execute(
        select(Category.name, func.count(Product.id))
        .join(Product, Product.category_id == Category.id, isouter=True)
        .group_by(Category.id)
        .order_by(Category.name)
    )
    return [{"category": name, "product_count": count} for name, count in rows]


@kit.tool(
    write=False,
    intent=(
        "Search the catalog for products[ matching '{query}'][ in category {category}]"
        "[ priced at most ${max_price}][, showing up to {limit} results]"
    ),
    samples={"query": _QUERIES, "category": _CATEGORIES, "max_price": (15, 25, 40, 50, 75, 100, 150), "limit": _LIMITS},
)
def search_products(
    db: Session,
    query: str = "",
    category: str | None = None,
    max_price: float | None = None,
    in_stock_only: bool = False,
    limit: int = 10,
) -> dict[str, Any]:
    """Search the catalog by words in the name, brand or description, category and price.

    Every word of the query must match. Results are sorted by price, cheapest first.
    Returns {"total": number of matches, "products": [{"product_id", "name", "category",
    "price", "stock"}]}; stock 0 means out of stock.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        query: Words to look for, e.g. "wireless earbuds"; empty matches every product.
        category: Exact category name from list_categories, e.g. "Electronics"; omit for all.
        max_price: Highest unit price in dollars, e.g. 49.99; omit for no limit.
        in_stock_only: True to leave out products with no stock.
        limit: Maximum number of products to return, 1 to 50.
    """
    _check_limit(limit)
    stmt = select(Product).join(Product.category)
    for word in query.split():
        stmt = stmt.where(
            or_(
                Product.name.icontains(word, autoescape=True),
                Product.brand.icontains(word, autoescape=True),
                Product.description.icontains(word, autoescape=True),
            )
        )
    if category is not None and category.strip():
        found = db.scalar(select(Category).where(func.lower(Category.name) == category.strip().lower()))
        if found is None:
            names = ", ".join(db.scalars(select(Category.name).order_by(Category.name)))
            raise ToolError(f'Unknown category "{category}". Valid categories: {names}.')
        stmt = stmt.where(Product.category_id == found.id)
    if max_price is not None:
        if max_price <= 0:
            raise ToolError(f"max_price must be a positive amount in dollars, e.g. 49.99; got {max_price}.")
        stmt = stmt.where(Product.price_cents <= round(max_price * 100))
    if in_stock_only:
        stmt = stmt.where(Product.stock > 0)
    total = db.scalar(select(func.count()).select_from(stmt.subquery())) or 0
    products = db.scalars(stmt.order_by(Product.price_cents, Product.id).limit(limit))
    return {"total": total, "products": [_product_summary(p) for p in products]}


@kit.tool(write=False, intent="Show the details of product {product_id}")
def get_product(db: Session, product_id: str) -> dict[str, Any]:
    """Get one product's full details: name, brand, category, description, price, stock, rating.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        product_id: Product id, e.g. "PRD-1001".
    """
    product = _product(db, product_id)
    return {
        **_product_summary(product),
        "brand": product.brand,
        "description": product.description,
        "rating": product.rating / 10,
    }


# -- customers ---------------------------------------------------------------------------------


@kit.tool(
    write=False,
    intent="Find the customers whose name or email contains '{query}'[, showing up to {limit} results]",
    samples={"query": ("emma", "olivia", "johnson", "moore", "brown", "fischer", "inbox.org"), "limit": _LIMITS},
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
    _check_limit(limit)
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
    customer = _customer(db, customer_id)
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


# -- cart --------------------------------------------------------------------------------------


@kit.tool(write=False, intent="Show the cart of customer {customer_id}")
def view_cart(db: Session, customer_id: str) -> dict[str, Any]:
    """Show a customer's cart: items, current prices, subtotal, coupon, discount and total.

    Each item also shows "available", the stock on hand.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        customer_id: Customer id, e.g. "CUS-1001".
    """
    customer = _customer(db, customer_id)
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
    customer = _customer(db, customer_id)
    product = _product(db, product_id)
    _check_quantity(quantity)
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
    customer = _customer(db, customer_id)
    product = _product(db, product_id)
    _check_quantity(quantity)
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
    customer = _customer(db, customer_id)
    product = _product(db, product_id)
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
    customer = _customer(db, customer_id)
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
    customer = _customer(db, customer_id)
    cart = _cart(db, customer)
    if cart.coupon_code is None:
        raise ToolError(f"{customer.id}'s cart has no coupon applied.")
    cart.coupon_code = None
    db.flush()
    return _cart_view(db, cart)


@kit.tool(
    write=True,
    intent="Check out the cart of customer {customer_id}[ and ship the order to {shipping_address}]",
    samples={"shipping_address": _ADDRESSES},
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
    customer = _customer(db, customer_id)
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
    address = customer.address if shipping_address is None else _check_address(shipping_address)
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
        id=_next_id(db, Order.id, "ORD"),
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
    return _order_view(order)


# -- orders ------------------------------------------------------------------------------------


@kit.tool(
    write=False,
    intent="List the[ {status}] orders of customer {customer_id}[, showing up to {limit}]",
    samples={"status": ORDER_STATUSES, "limit": _LIMITS},
)
def list_orders(db: Session, customer_id: str, status: str | None = None, limit: int = 20) -> dict[str, Any]:
    """List a customer's orders, newest first.

    Returns {"total": number of matching orders, "orders": [{"order_id", "status", "placed_on",
    "item_count", "total"}]}. Use get_order for the items and dates of one order.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        customer_id: Customer id, e.g. "CUS-1001".
        status: Only orders with this status: "placed", "paid", "shipped", "delivered" or
            "cancelled"; omit for all.
        limit: Maximum number of orders to return, 1 to 50.
    """
    customer = _customer(db, customer_id)
    _check_limit(limit)
    stmt = select(Order).where(Order.customer_id == customer.id)
    if status is not None and status.strip():
        wanted = status.strip().lower()
        if wanted not in ORDER_STATUSES:
            raise ToolError(f'Unknown status "{status}". Use one of: {", ".join(ORDER_STATUSES)}.')
        stmt = stmt.where(Order.status == wanted)
    total = db.scalar(select(func.count()).select_from(stmt.subquery())) or 0
    orders = db.scalars(stmt.order_by(Order.placed_on.desc(), Order.id.desc()).limit(limit))
    return {
        "total": total,
        "orders": [
            {
                "order_id": o.id,
                "status": o.status,
                "placed_on": o.placed_on.isoformat(),
                "item_count": sum(i.quantity for i in o.items),
                "total": _money(o.total_cents),
            }
            for o in orders
        ],
    }


@kit.tool(write=False, intent="Show order {order_id}")
def get_order(db: Session, order_id: str) -> dict[str, Any]:
    """Get one order: status, dates, shipping address, items, amounts and any returns.

    Delivered orders also show "return_by", the last day a return can be requested.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        order_id: Order id, e.g. "ORD-1001".
    """
    return _order_view(_order(db, order_id))


@kit.tool(write=True, intent="Cancel order {order_id}")
def cancel_order(db: Session, order_id: str) -> dict[str, Any]:
    """Cancel an order that has not shipped yet (status "placed" or "paid") and restock its items.

    Paid orders are refunded in full. Shipped or delivered orders cannot be cancelled; a
    delivered order can be returned with request_return instead.
    Returns {"order_id", "status", "refund"}.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        order_id: Order id, e.g. "ORD-1001".
    """
    order = _order(db, order_id)
    if order.status == "cancelled":
        raise ToolError(f"{order.id} is already cancelled (on {order.cancelled_on}).")
    if order.status == "shipped":
        raise ToolError(
            f"{order.id} cannot be cancelled: it shipped on {order.shipped_on}. Once it is delivered, "
            f"the customer can return it with request_return within {RETURN_WINDOW_DAYS} days."
        )
    if order.status == "delivered":
        raise ToolError(
            f"{order.id} cannot be cancelled: it was delivered on {order.delivered_on}. "
            "Use request_return to return its items instead."
        )
    refund = order.total_cents if order.status == "paid" else 0
    for item in order.items:
        item.product.stock += item.quantity
    order.status = "cancelled"
    order.cancelled_on = kit.today
    db.flush()
    return {"order_id": order.id, "status": order.status, "refund": _money(refund)}


@kit.tool(
    write=True, intent="Change the shipping address of order {order_id} to {address}", samples={"address": _ADDRESSES}
)
def update_shipping_address(db: Session, order_id: str, address: str) -> dict[str, Any]:
    """Change where an order ships, while it has not shipped yet (status "placed" or "paid").

    Returns {"order_id", "status", "shipping_address"}.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        order_id: Order id, e.g. "ORD-1001".
        address: Full new address, e.g. "12 Oak St, Austin, TX 73301".
    """
    order = _order(db, order_id)
    if order.status in ("shipped", "delivered"):
        raise ToolError(
            f"The address of {order.id} cannot be changed: it is already {order.status} "
            f"(shipped on {order.shipped_on})."
        )
    if order.status == "cancelled":
        raise ToolError(f"{order.id} is cancelled; there is no shipment to redirect.")
    order.shipping_address = _check_address(address)
    db.flush()
    return {"order_id": order.id, "status": order.status, "shipping_address": order.shipping_address}


# -- returns -----------------------------------------------------------------------------------


@kit.tool(
    write=True,
    intent="Request a return of {quantity} of product {product_id} from order {order_id} with the reason '{reason}'",
    samples={"quantity": (1, 1, 1, 2), "reason": _RETURN_REASONS},
)
def request_return(db: Session, order_id: str, product_id: str, quantity: int, reason: str) -> dict[str, Any]:
    """Open a return for units of one product of a delivered order.

    Allowed only for delivered orders, within 30 days of delivery, and for no more units than
    were ordered less those already returned. The refund is the price paid (less the item's share
    of any coupon discount). Returns the new return with status "requested".

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        order_id: Order id, e.g. "ORD-1001".
        product_id: Product id of an item of that order, e.g. "PRD-1001".
        quantity: Units to return, a positive integer, e.g. 1.
        reason: Why the customer returns it, e.g. "Arrived damaged".
    """
    order = _order(db, order_id)
    product = _product(db, product_id)
    _check_quantity(quantity)
    text = " ".join(reason.split())
    if not 3 <= len(text) <= 200:
        raise ToolError('reason must be 3 to 200 characters, e.g. "Arrived damaged".')
    if order.status != "delivered":
        raise ToolError(
            f"{order.id} is {order.status}; only delivered orders can be returned."
            + (" Cancel it with cancel_order instead." if order.status in ("placed", "paid") else "")
        )
    assert order.delivered_on is not None
    age = (kit.today - order.delivered_on).days
    if age > RETURN_WINDOW_DAYS:
        deadline = order.delivered_on + timedelta(days=RETURN_WINDOW_DAYS)
        raise ToolError(
            f"{order.id} was delivered on {order.delivered_on} ({age} days ago); returns are accepted "
            f"only within {RETURN_WINDOW_DAYS} days of delivery (the window closed on {deadline})."
        )
    item = next((i for i in order.items if i.product_id == product.id), None)
    if item is None:
        ids = ", ".join(i.product_id for i in order.items)
        raise ToolError(f"{product.id} is not part of {order.id}; its products are: {ids}.")
    returnable = item.quantity - _returned_quantity(order, product.id)
    if quantity > returnable:
        raise ToolError(
            f"Cannot return {quantity} of {product.id}: {order.id} has {item.quantity} and "
            f"{item.quantity - returnable} already returned or pending, so at most {returnable} "
            "can be returned."
        )
    ret = Return(
        id=_next_id(db, Return.id, "RET"),
        order_id=order.id,
        product_id=product.id,
        quantity=quantity,
        reason=text,
        status="requested",
        requested_on=kit.today,
        refund_cents=refund_cents(item.unit_price_cents, quantity, order),
        product=product,
    )
    order.returns.append(ret)
    db.flush()
    return _return_view(ret)


@kit.tool(write=False, intent="Show return {return_id}")
def get_return(db: Session, return_id: str) -> dict[str, Any]:
    """Get one return: order, product, quantity, reason, status and refund amount.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        return_id: Return id, e.g. "RET-1001".
    """
    ret = db.get(Return, _norm_id(return_id))
    if ret is None:
        raise ToolError(
            f'Unknown return id "{return_id}". Return ids look like "RET-1001"; '
            "use list_returns with the customer id to see a customer's returns."
        )
    return _return_view(ret)


@kit.tool(
    write=False,
    intent="List the returns of customer {customer_id}[, showing up to {limit}]",
    samples={"limit": _LIMITS},
)
def list_returns(db: Session, customer_id: str, limit: int = 20) -> list[dict[str, Any]]:
    """List a customer's returns, newest first.

    Returns a list of {"return_id", "order_id", "product_id", "name", "quantity", "reason",
    "status", "refund", "requested_on"}.

    Args:
        db: Database session of this call (supplied by the kit, not by the model).
        customer_id: Customer id, e.g. "CUS-1001".
        limit: Maximum number of returns to return, 1 to 50.
    """
    customer = _customer(db, customer_id)
    _check_limit(limit)
    rows = db.scalars(
        select(Return)
        .join(Return.order)
        .where(Order.customer_id == customer.id)
        .order_by(Return.requested_on.desc(), Return.id.desc())
        .limit(limit)
    )
    return [_return_view(r) for r in rows]
