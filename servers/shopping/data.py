"""Deterministic seed data of the shopping server.

`seed` fills an empty database from a `random.Random` only: the same seed always yields the
same catalog, customers, carts, orders and returns, and a different seed yields different ones.
Every business date is relative to `REFERENCE_DATE` (the kit's fixed "today"), and the data is
shaped so that every rule of the tools can be met: some products are out of stock, and orders
exist in every status, including deliveries inside and outside the 30-day return window.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from sqlalchemy.orm import Session

from gym_mcp.servers.shopping.models import (
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

__all__ = ["REFERENCE_DATE", "RETURN_WINDOW_DAYS", "seed"]

REFERENCE_DATE = date(2026, 1, 15)
"""The server's fixed "today"; seeded dates are placed relative to it."""

RETURN_WINDOW_DAYS = 30
"""Returns are accepted up to this many days after delivery."""

PRODUCTS_PER_CATEGORY = 15
N_CUSTOMERS = 50
N_CARTS = 15

# Category -> (brands, [(item, min dollars, max dollars)]). For books the "brand" is the author.
CATALOG: dict[str, tuple[list[str], list[tuple[str, int, int]]]] = {
    "Electronics": (
        ["Voltix", "Sonara", "Nexon", "Aurion", "Pixelon", "Kestrel Audio"],
        [
            ("Wireless Earbuds", 29, 149),
            ("Bluetooth Speaker", 25, 199),
            ("Noise-Cancelling Headphones", 99, 349),
            ("65W USB-C Charger", 19, 59),
            ("Portable Power Bank", 19, 79),
            ("Smartwatch", 99, 399),
            ("4K Streaming Stick", 29, 69),
            ("Mechanical Keyboard", 49, 179),
            ("Wireless Mouse", 15, 79),
            ("27-inch Monitor", 149, 449),
            ("1080p Webcam", 29, 99),
            ("10-inch Tablet", 129, 499),
            ("E-Reader", 89, 249),
            ("Smart Plug 2-Pack", 15, 39),
            ("Action Camera", 99, 299),
            ("6 ft HDMI Cable", 7, 19),
            ("Laptop Stand", 19, 59),
            ("Fitness Tracker", 39, 149),
        ],
    ),
    "Home & Kitchen": (
        ["Hearthstone", "Copperleaf", "Nordhaus", "Maple & Co.", "Kitchara", "Duvell"],
        [
            ("10-Piece Cookware Set", 89, 299),
            ("Nonstick Frying Pan", 19, 59),
            ("8-inch Chef's Knife", 25, 129),
            ("Electric Kettle", 25, 89),
            ("Drip Coffee Maker", 39, 149),
            ("French Press", 19, 49),
            ("High-Speed Blender", 49, 199),
            ("Air Fryer", 59, 179),
            ("Cast Iron Skillet", 19, 69),
            ("Bamboo Cutting Board Set", 15, 45),
            ("Glass Food Storage Set", 19, 59),
            ("Dish Drying Rack", 15, 49),
            ("Bath Towel Set", 25, 79),
            ("Memory Foam Pillow", 29, 79),
            ("Knit Throw Blanket", 25, 89),
            ("Ceramic Table Lamp", 29, 99),
            ("Soy Scented Candle", 9, 35),
            ("Insulated Tumbler", 15, 39),
        ],
    ),
    "Books": (
        ["Elena Marsh", "Tomas Reyes", "Priya Natarajan", "Owen Calloway", "Hannah Lindqvist", "Marcus Bell"],
        [
            ("The Silent Harbor", 12, 28),
            ("A Map of Lost Rivers", 12, 28),
            ("Quantum Gardens", 14, 32),
            ("The Baker's Almanac", 18, 35),
            ("Midnight in Lisbon", 10, 24),
            ("Practical Python Recipes", 25, 49),
            ("The Last Lighthouse Keeper", 10, 26),
            ("Wild Trails of the Rockies", 18, 38),
            ("Mindful Mornings", 9, 22),
            ("The Glass Orchard", 11, 27),
            ("Cooking for Busy Weeknights", 15, 32),
            ("Beneath Copper Skies", 10, 25),
            ("The Startup Field Guide", 18, 36),
            ("Roads of the Silk Trade", 20, 40),
            ("Stargazing for Beginners", 12, 28),
            ("The Ember Crown", 10, 26),
            ("Letters from the Coast", 11, 24),
            ("The Patient Investor", 16, 34),
        ],
    ),
    "Clothing": (
        ["Northline", "Urban Thread", "Alder & Pine", "Coastwear", "Stride", "Velora"],
        [
            ("Crewneck T-Shirt", 12, 35),
            ("Slim Fit Jeans", 39, 98),
            ("Hooded Sweatshirt", 35, 85),
            ("Packable Rain Jacket", 49, 149),
            ("Wool Socks 3-Pack", 15, 35),
            ("Running Shorts", 19, 45),
            ("Oxford Button-Down Shirt", 35, 79),
            ("Puffer Vest", 49, 129),
            ("Chino Pants", 35, 79),
            ("Fleece Pullover", 29, 89),
            ("Leather Belt", 19, 59),
            ("Knit Beanie", 12, 29),
            ("Canvas Sneakers", 35, 79),
            ("Linen Shirt", 29, 69),
            ("High-Rise Yoga Leggings", 29, 89),
            ("Down Parka", 129, 349),
            ("Flannel Pajama Set", 29, 69),
            ("Baseball Cap", 15, 35),
        ],
    ),
    "Sports & Outdoors": (
        ["Summitline", "TrailForge", "Peakform", "Riverbend", "Ironclad Fitness", "Zephyr Outdoor"],
        [
            ("Non-Slip Yoga Mat", 19, 79),
            ("Adjustable Dumbbells", 99, 349),
            ("Resistance Bands Set", 15, 39),
            ("Insulated Water Bottle", 19, 45),
            ("2-Person Tent", 89, 249),
            ("3-Season Sleeping Bag", 49, 149),
            ("40L Hiking Backpack", 59, 179),
            ("Trekking Poles", 29, 99),
            ("LED Camping Lantern", 15, 49),
            ("Speed Jump Rope", 9, 25),
            ("Foam Roller", 15, 39),
            ("Cycling Helmet", 39, 129),
            ("Graphite Tennis Racket", 49, 199),
            ("Match Soccer Ball", 19, 49),
            ("Kayak Paddle", 49, 149),
            ("Portable Camp Stove", 29, 99),
            ("Camping Hammock", 25, 69),
            ("Rechargeable Headlamp", 15, 45),
        ],
    ),
    "Toys & Games": (
        ["Brightbox", "Tinker Lane", "Playfield", "Little Comet", "Wonderworks", "Jolly Fox"],
        [
            ("Building Blocks Set 500 pcs", 25, 79),
            ("1000-Piece Jigsaw Puzzle", 15, 29),
            ("Strategy Board Game", 25, 59),
            ("Remote Control Car", 29, 99),
            ("Plush Teddy Bear", 12, 35),
            ("Wooden Train Set", 29, 89),
            ("Family Card Game", 9, 19),
            ("Art & Craft Kit", 15, 39),
            ("Science Experiment Kit", 19, 49),
            ("Wooden Dollhouse", 59, 149),
            ("Magnetic Tiles 60 pcs", 39, 89),
            ("Kids' Kick Scooter", 39, 99),
            ("Marble Run", 25, 59),
            ("Stacking Rings", 9, 19),
            ("Play Kitchen", 79, 199),
            ("Rainbow Kite", 12, 29),
            ("Folding Chess Set", 15, 49),
            ("Water Blaster", 9, 29),
        ],
    ),
    "Beauty & Personal Care": (
        ["Lumiere", "Petal & Stone", "Purely", "Verdant", "Silkwave", "Aurora Skin"],
        [
            ("Moisturizing Face Cream", 15, 59),
            ("Vitamin C Serum", 19, 69),
            ("Gentle Foaming Cleanser", 9, 29),
            ("Sunscreen SPF 50", 9, 29),
            ("Shampoo & Conditioner Set", 15, 45),
            ("Electric Toothbrush", 29, 149),
            ("Ionic Hair Dryer", 39, 199),
            ("Beard Trimmer", 25, 89),
            ("Lip Balm 4-Pack", 6, 15),
            ("Shea Body Lotion", 9, 29),
            ("Eau de Parfum 50 ml", 39, 129),
            ("Makeup Brush Set", 15, 49),
            ("Repair Hand Cream", 6, 19),
            ("Nail Care Kit", 12, 35),
            ("Ceramic Hair Straightener", 29, 119),
            ("Dry Shampoo", 7, 19),
            ("Sheet Mask 10-Pack", 12, 29),
            ("Bath Bomb Gift Set", 15, 35),
        ],
    ),
    "Grocery": (
        ["Golden Field", "Harvest Moon", "Wildgrove", "Sunny Acres", "Blue Ridge Pantry", "Terra Verde"],
        [
            ("Organic Ground Coffee 12 oz", 9, 19),
            ("Green Tea 100 Bags", 7, 16),
            ("Extra Virgin Olive Oil 1 L", 12, 29),
            ("Raw Honey 16 oz", 8, 19),
            ("Dark Chocolate Bar 6-Pack", 12, 24),
            ("Roasted Mixed Nuts 2 lb", 14, 29),
            ("Pure Maple Syrup", 12, 26),
            ("Basmati Rice 5 lb", 9, 19),
            ("Whole Wheat Pasta 6-Pack", 8, 16),
            ("Honey Almond Granola 3-Pack", 12, 22),
            ("Sparkling Water 12-Pack", 6, 14),
            ("Creamy Peanut Butter", 4, 11),
            ("Protein Bars 12-Pack", 15, 32),
            ("Dried Mango Slices", 6, 14),
            ("Sea Salt Crackers", 3, 8),
            ("Hot Sauce Trio", 12, 24),
            ("Oat Milk 6-Pack", 14, 24),
            ("World Spice Sampler", 19, 39),
        ],
    ),
}

ADJECTIVES = [
    "Everyday", "Premium", "Compact", "Durable", "Lightweight", "Classic", "Eco-friendly", "Best-selling",
]  # fmt: skip

FIRST_NAMES = [
    "Olivia", "Liam", "Emma", "Noah", "Ava", "Elijah", "Sophia", "James", "Isabella", "Lucas", "Mia", "Mateo",
    "Amelia", "Benjamin", "Harper", "Henry", "Evelyn", "Theodore", "Aisha", "Daniel", "Chloe", "Samuel", "Grace",
    "Jamal", "Priya", "Wei", "Sofia", "Diego", "Hannah", "Omar", "Leah", "Kenji", "Nora", "Ethan", "Zoe", "Gabriel",
    "Maya", "Ravi", "Clara", "Marcus",
]  # fmt: skip
LAST_NAMES = [
    "Smith", "Johnson", "Williams", "Brown", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez", "Lopez",
    "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin", "Lee", "Thompson", "White", "Harris",
    "Clark", "Lewis", "Walker", "Hall", "Young", "Allen", "King", "Wright", "Scott", "Nguyen", "Patel", "Kim",
    "Chen", "Okafor", "Novak", "Fischer", "Rossi", "Silva", "Sato",
]  # fmt: skip
EMAIL_DOMAINS = ["example.com", "mailbox.net", "inbox.org", "postmail.com"]
STREETS = [
    "Maple", "Oak", "Cedar", "Pine", "Elm", "Willow", "Lakeview", "Hillcrest", "Sunset", "River", "Park",
    "Highland", "Meadow", "Chestnut", "Birch", "Harbor",
]  # fmt: skip
STREET_SUFFIXES = ["St", "Ave", "Rd", "Blvd", "Ln", "Dr", "Way", "Ct"]
CITIES = [
    ("Portland", "OR"), ("Austin", "TX"), ("Denver", "CO"), ("Madison", "WI"), ("Raleigh", "NC"),
    ("Columbus", "OH"), ("Boise", "ID"), ("Tucson", "AZ"), ("Albany", "NY"), ("Savannah", "GA"),
    ("Burlington", "VT"), ("Omaha", "NE"), ("Sacramento", "CA"), ("Richmond", "VA"),
]  # fmt: skip
RETURN_REASONS = [
    "Item arrived damaged",
    "Wrong size",
    "Not as described",
    "Changed my mind",
    "Better price elsewhere",
    "Arrived too late",
    "Defective on arrival",
]

# Seeded order statuses: (kind, how many). "delivered_recent" is inside the return window,
# "delivered_old" outside it.
ORDER_MIX = [
    ("placed", 10),
    ("paid", 12),
    ("shipped", 14),
    ("delivered_recent", 24),
    ("delivered_old", 26),
    ("cancelled", 14),
]


COUPON_FIELDS = ("code", "description", "percent_off", "amount_off_cents", "min_subtotal_cents", "expires_on", "active")
"""The `Coupon` fields, in the order of a `COUPONS` row."""

COUPONS = [
    ("WELCOME10", "10% off any order", 10, None, 0, date(2026, 12, 31), True),
    ("SAVE20", "20% off orders of $100 or more", 20, None, 10000, date(2026, 3, 31), True),
    ("FIVEOFF", "$5 off orders of $25 or more", None, 500, 2500, date(2026, 6, 30), True),
    ("HOLIDAY25", "25% off holiday orders", 25, None, 0, date(2025, 12, 31), True),
    ("FALL15", "15% off fall orders of $50 or more", 15, None, 5000, date(2025, 11, 30), True),
    ("VIP30", "30% off for VIP members", 30, None, 0, date(2026, 12, 31), False),
]
"""The store's coupons: valid ones, expired ones and a disabled one."""


def _coupons() -> list[Coupon]:
    """The coupons of `COUPONS` as rows."""
    return [Coupon(**dict(zip(COUPON_FIELDS, row, strict=True))) for row in COUPONS]


def _price_cents(rng: random.Random, low: int, high: int) -> int:
    """A shelf price ending in .99 between ``low`` and ``high`` dollars."""
    return rng.randint(low, high) * 100 - 1


def _products(db: Session, rng: random.Random) -> list[Product]:
    """Create the categories and the catalog."""
    products: list[Product] = []
    number = 1001
    for cat_id, (cat_name, (brands, items)) in enumerate(CATALOG.items(), start=1):
        category = Category(id=cat_id, name=cat_name)
        db.add(category)
        for item, low, high in rng.sample(items, PRODUCTS_PER_CATEGORY):
            brand = rng.choice(brands)
            if cat_name == "Books":
                name = item
                description = f"{rng.choice(['Paperback', 'Hardcover'])} by {brand}."
            else:
                name = f"{brand} {item}"
                description = f"{rng.choice(ADJECTIVES)} {item} from {brand}."
            roll = rng.random()
            stock = rng.randint(1, 4) if roll < 0.12 else rng.randint(5, 80)
            product = Product(
                id=f"PRD-{number}",
                name=name,
                brand=brand,
                category=category,
                description=description,
                price_cents=_price_cents(rng, low, high),
                stock=stock,
                rating=rng.randint(31, 49),
            )
            products.append(product)
            db.add(product)
            number += 1
    for product in rng.sample(products, 9):
        product.stock = 0
    return products


def _customers(db: Session, rng: random.Random) -> list[Customer]:
    """Create customers with unique names and emails."""
    pairs = rng.sample([(f, last) for f in FIRST_NAMES for last in LAST_NAMES], N_CUSTOMERS)
    customers = []
    for number, (first, last) in enumerate(pairs, start=1001):
        city, state = rng.choice(CITIES)
        address = (
            f"{rng.randint(10, 9899)} {rng.choice(STREETS)} {rng.choice(STREET_SUFFIXES)}, "
            f"{city}, {state} {rng.randint(10000, 99899)}"
        )
        customer = Customer(
            id=f"CUS-{number}",
            name=f"{first} {last}",
            email=f"{first}.{last}@{rng.choice(EMAIL_DOMAINS)}".lower(),
            phone=f"+1-555-{rng.randint(100, 999)}-{rng.randint(1000, 9999)}",
            address=address,
            member_since=REFERENCE_DATE - timedelta(days=rng.randint(30, 1500)),
        )
        customers.append(customer)
        db.add(customer)
    return customers


def _order_dates(rng: random.Random, kind: str) -> tuple[str, date, date | None, date | None, date | None]:
    """(status, placed_on, shipped_on, delivered_on, cancelled_on) of one seeded order."""
    today = REFERENCE_DATE
    day = timedelta(days=1)
    if kind in ("placed", "paid"):
        placed = today - rng.randint(0, 2 if kind == "placed" else 4) * day
        return kind, placed, None, None, None
    if kind == "shipped":
        shipped = today - rng.randint(1, 4) * day
        return kind, shipped - rng.randint(1, 3) * day, shipped, None, None
    if kind == "cancelled":
        placed = today - rng.randint(2, 90) * day
        return kind, placed, None, None, placed + rng.randint(0, 1) * day
    recent = kind == "delivered_recent"
    delivered = today - (rng.randint(1, RETURN_WINDOW_DAYS - 2) if recent else rng.randint(35, 180)) * day
    shipped = delivered - rng.randint(2, 5) * day
    return "delivered", shipped - rng.randint(1, 2) * day, shipped, delivered, None


def _orders(
    db: Session, rng: random.Random, customers: list[Customer], products: list[Product], coupons: list[Coupon]
) -> list[Order]:
    """Create orders in every status, numbered in the order they were placed."""
    kinds = [kind for kind, count in ORDER_MIX for _ in range(count)]
    rng.shuffle(kinds)
    welcome = coupons[0]
    drafts = []
    for index, kind in enumerate(kinds):
        customer = rng.choice(customers)
        status, placed, shipped, delivered, cancelled = _order_dates(rng, kind)
        lines = [
            (product, rng.choice([1, 1, 1, 2, 2, 3]))
            for product in rng.sample(products, rng.choice([1, 1, 2, 2, 2, 3, 3, 4]))
        ]
        subtotal = sum(p.price_cents * q for p, q in lines)
        coupon = welcome if rng.random() < 0.15 else None
        discount = coupon_discount_cents(coupon, subtotal) if coupon else 0
        order = Order(
            customer_id=customer.id,
            status=status,
            shipping_address=customer.address,
            coupon_code=coupon.code if coupon else None,
            subtotal_cents=subtotal,
            discount_cents=discount,
            total_cents=subtotal - discount,
            placed_on=placed,
            shipped_on=shipped,
            delivered_on=delivered,
            cancelled_on=cancelled,
        )
        order.items = [OrderItem(product_id=p.id, quantity=q, unit_price_cents=p.price_cents) for p, q in lines]
        drafts.append((placed, index, order))
    drafts.sort(key=lambda d: (d[0], d[1]))
    orders = []
    for number, (_, _, order) in enumerate(drafts, start=1001):
        order.id = f"ORD-{number}"
        db.add(order)
        orders.append(order)
    return orders


def _returns(db: Session, rng: random.Random, orders: list[Order]) -> None:
    """Create a few past return requests on delivered orders."""
    delivered = [o for o in orders if o.status == "delivered"]
    drafts = []
    for order in rng.sample(delivered, 8):
        assert order.delivered_on is not None
        item = rng.choice(order.items)
        quantity = rng.randint(1, item.quantity)
        latest = min(RETURN_WINDOW_DAYS, (REFERENCE_DATE - order.delivered_on).days)
        requested = order.delivered_on + timedelta(days=rng.randint(0, latest))
        age = (REFERENCE_DATE - requested).days
        status = rng.choice(["requested", "approved"] if age < 7 else ["refunded", "refunded", "rejected"])
        drafts.append(
            Return(
                order_id=order.id,
                product_id=item.product_id,
                quantity=quantity,
                reason=rng.choice(RETURN_REASONS),
                status=status,
                requested_on=requested,
                refund_cents=refund_cents(item.unit_price_cents, quantity, order),
            )
        )
    drafts.sort(key=lambda r: (r.requested_on, r.order_id))
    for number, ret in enumerate(drafts, start=1001):
        ret.id = f"RET-{number}"
        db.add(ret)


def _carts(db: Session, rng: random.Random, customers: list[Customer], products: list[Product]) -> None:
    """Give every customer a cart; some hold in-stock items, one has a coupon applied."""
    in_stock = [p for p in products if p.stock > 0]
    filled = {c.id for c in rng.sample(customers, N_CARTS)}
    coupon_holder = min(filled)
    for customer in customers:
        cart = Cart(customer_id=customer.id)
        if customer.id in filled:
            for product in rng.sample(in_stock, rng.randint(1, 3)):
                cart.items.append(CartItem(product_id=product.id, quantity=rng.randint(1, min(3, product.stock))))
            if customer.id == coupon_holder:
                cart.coupon_code = "WELCOME10"
        db.add(cart)


def seed(db: Session, rng: random.Random) -> None:
    """Fill an empty shopping database deterministically from ``rng``.

    Args:
        db: Session on the new database (the caller commits).
        rng: The only source of randomness.
    """
    coupons = _coupons()
    db.add_all(coupons)
    products = _products(db, rng)
    customers = _customers(db, rng)
    orders = _orders(db, rng, customers, products, coupons)
    _returns(db, rng, orders)
    _carts(db, rng, customers, products)
    db.flush()
