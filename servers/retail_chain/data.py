"""Deterministic seed data of the retail chain server.

`seed` fills an empty database from a `random.Random` alone: the same seed always gives the same
stores, products, price histories, stock, transfers, loyalty members and sales, and another seed
gives others. Every seed has closed stores (one with a transfer still on its way to it), empty
shelves, prices changed in the past and scheduled for the future, transfers in each status and
members with few points, so every rule of the tools can refuse a call.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from sqlalchemy.orm import Session

from gym_mcp.servers.kit import NamePool, unique_email
from gym_mcp.servers.retail_chain.models import (
    POINT_VALUE_CENTS,
    TODAY,
    Member,
    PriceChange,
    Product,
    Sale,
    SaleItem,
    StockLevel,
    Store,
    Transfer,
)

__all__ = ["FIRST_PRICE_ON", "seed"]

FIRST_PRICE_ON = date(2025, 3, 1)
"""Every product has a price from this day on."""

CITIES = (
    "Springfield", "Riverton", "Lakeside", "Fairview", "Oak Ridge", "Millbrook", "Cedar Falls", "Brookhaven",
    "Westport", "Hillcrest", "Maplewood", "Northgate",
)  # fmt: skip
STORE_KINDS = ("Market", "Express", "Superstore")
PRODUCTS = {
    "produce": (("Bananas", "lb", 59), ("Gala apples", "lb", 149), ("Baby spinach", "5 oz bag", 349),
                ("Avocados", "each", 125), ("Red onions", "lb", 99), ("Strawberries", "1 lb box", 399),
                ("Carrots", "2 lb bag", 179)),
    "dairy": (("Whole milk", "gallon", 389), ("Greek yogurt", "32 oz tub", 549), ("Cheddar cheese", "8 oz block", 399),
              ("Salted butter", "1 lb", 479), ("Large eggs", "dozen", 329), ("Oat milk", "half gallon", 449)),
    "bakery": (("Sourdough loaf", "each", 499), ("Bagels", "6 pack", 399), ("Croissants", "4 pack", 549),
               ("Whole wheat bread", "loaf", 349), ("Blueberry muffins", "4 pack", 499)),
    "pantry": (("Basmati rice", "2 lb bag", 429), ("Spaghetti", "1 lb box", 169), ("Olive oil", "500 ml", 899),
               ("Peanut butter", "16 oz jar", 379), ("Canned tomatoes", "28 oz can", 219),
               ("Rolled oats", "42 oz", 549), ("Honey", "12 oz jar", 649)),
    "beverages": (("Ground coffee", "12 oz bag", 899), ("Green tea", "20 bags", 399), ("Orange juice", "52 oz", 479),
                  ("Sparkling water", "8 pack", 549), ("Cola", "12 pack", 699)),
    "snacks": (("Tortilla chips", "13 oz bag", 449), ("Dark chocolate bar", "3.5 oz", 299),
               ("Mixed nuts", "10 oz can", 799), ("Pretzels", "16 oz bag", 349), ("Granola bars", "6 pack", 399)),
    "frozen": (("Frozen pizza", "each", 699), ("Vanilla ice cream", "1.5 qt", 549), ("Frozen peas", "12 oz bag", 199),
               ("Fish fillets", "1 lb", 999), ("Veggie burgers", "4 pack", 599)),
    "household": (("Paper towels", "6 rolls", 1099), ("Dish soap", "24 oz", 349),
                  ("Laundry detergent", "64 loads", 1399), ("Trash bags", "40 count", 1199),
                  ("Sponges", "6 pack", 449), ("Light bulbs", "4 pack", 899)),
}  # fmt: skip
CHANGE_REASONS = ("Supplier cost increase", "Promotion", "Seasonal price", "Competitor match", "Clearance")
FIRST_NAMES = (
    "Olivia", "Liam", "Emma", "Noah", "Ava", "Elijah", "Sophia", "James", "Isabella", "Lucas", "Mia", "Mateo",
    "Amelia", "Ethan", "Harper", "Daniel", "Chloe", "Henry", "Priya", "Arjun", "Mei", "Wei", "Fatima", "Omar",
)  # fmt: skip
LAST_NAMES = (
    "Smith", "Johnson", "Brown", "Garcia", "Miller", "Davis", "Martinez", "Wilson", "Anderson", "Taylor", "Moore",
    "Lee", "Thompson", "Walker", "Young", "King", "Nguyen", "Patel", "Kim", "Chen", "Okafor", "Rossi", "Novak",
)  # fmt: skip
PEOPLE = NamePool(FIRST_NAMES, LAST_NAMES)
"""The names people of the seed data are drawn from."""


def _day(rng: random.Random, start: date, end: date) -> date:
    """A day between two dates (inclusive); ``start`` when the range is empty."""
    return start + timedelta(days=rng.randint(0, max(0, (end - start).days)))


def _stores(rng: random.Random) -> list[Store]:
    """Twelve stores, two of them closed some weeks ago."""
    stores = []
    for i, city in enumerate(rng.sample(CITIES, 12)):
        stores.append(
            Store(
                id=f"STO-{1001 + i}",
                name=f"Northfield {rng.choice(STORE_KINDS)} {city}",
                city=city,
                status="open",
                opened_on=TODAY - timedelta(days=rng.randint(700, 4000)),
            )
        )
    for store in rng.sample(stores, 2):
        store.status, store.closed_on = "closed", TODAY - timedelta(days=rng.randint(5, 40))
    return stores


def _products(rng: random.Random) -> tuple[list[Product], list[PriceChange]]:
    """Every product with its price history: a first price, past changes and some scheduled ones."""
    products: list[Product] = []
    changes: list[PriceChange] = []
    for category, items in PRODUCTS.items():
        for name, unit, cents in items:
            product = Product(id=f"PRD-{1001 + len(products)}", name=name, category=category, unit=unit)
            products.append(product)
            day = FIRST_PRICE_ON - timedelta(days=rng.randint(0, 200))
            price = cents
            history = [(day, price, "Opening price")]
            for _ in range(rng.choices((0, 1, 2, 3), weights=(15, 35, 35, 15))[0]):
                day = _day(rng, day + timedelta(days=20), day + timedelta(days=120))
                if day > TODAY:
                    break
                price = max(49, price + rng.choice((-1, 1, 1, 2)) * rng.randint(10, 60))
                history.append((day, price, rng.choice(CHANGE_REASONS)))
            if rng.random() < 0.3:
                later = TODAY + timedelta(days=rng.randint(3, 60))
                history.append((later, max(49, price + rng.choice((-40, -20, 30, 50))), rng.choice(CHANGE_REASONS)))
            for effective, cents_then, reason in history:
                changes.append(
                    PriceChange(
                        id=f"PRC-{1001 + len(changes)}",
                        product_id=product.id,
                        price_cents=cents_then,
                        effective_on=effective,
                        reason=reason,
                        cancelled=False,
                    )
                )
    return products, changes


def seed(db: Session, rng: random.Random) -> None:
    """Fill an empty retail chain database; the same ``rng`` state always gives the same rows."""
    stores = _stores(rng)
    products, changes = _products(rng)
    history: dict[str, list[PriceChange]] = {}
    for change in changes:
        history.setdefault(change.product_id, []).append(change)

    def price_on(product: Product, day: date) -> int:
        return [c for c in history[product.id] if c.effective_on <= day][-1].price_cents

    stock: dict[tuple[str, str], StockLevel] = {}
    for store in stores:
        for product in rng.sample(products, k=rng.randint(30, 40)):
            quantity = 0 if rng.random() < 0.07 else rng.randint(4, 120)
            stock[store.id, product.id] = StockLevel(store_id=store.id, product_id=product.id, quantity=quantity)

    transfers: list[Transfer] = []
    rows = sorted(stock.values(), key=lambda s: (s.store_id, s.product_id))
    open_ids = [s.id for s in stores if s.status == "open"]
    closed = [s for s in stores if s.status == "closed"]
    for k in range(60):
        source = rng.choice([r for r in rows if r.quantity >= 10])
        to = closed[0].id if k == 0 else rng.choice([i for i in open_ids if i != source.store_id])
        status = (
            "in_transit" if k == 0 else rng.choices(("in_transit", "received", "cancelled"), weights=(25, 60, 15))[0]
        )
        sent = TODAY - timedelta(days=rng.randint(0, 3) if status == "in_transit" else rng.randint(4, 60))
        if k == 0 and closed[0].closed_on is not None:
            sent = closed[0].closed_on - timedelta(days=1)  # sent the day before the store closed
        transfers.append(
            Transfer(
                id=f"TRF-{1001 + k}",
                product_id=source.product_id,
                from_store_id=source.store_id,
                to_store_id=to,
                quantity=rng.choice((5, 6, 8, 10, 12, 20, 24)),
                status=status,
                sent_on=sent,
                settled_on=None if status == "in_transit" else _day(rng, sent, min(TODAY, sent + timedelta(days=4))),
            )
        )
    for k, transfer in enumerate(sorted(transfers, key=lambda t: (t.sent_on, t.from_store_id, t.product_id))):
        transfer.id = f"TRF-{1001 + k}"

    members: list[Member] = []
    emails: set[str] = set()
    for i in range(80):
        first, last = PEOPLE.draw(rng)
        email = unique_email(first, last, "inbox.example", emails)
        members.append(
            Member(
                id=f"MEM-{1001 + i}",
                name=f"{first} {last}",
                email=email,
                home_store_id=rng.choice(stores).id,
                points=rng.randint(0, 90) if rng.random() < 0.15 else rng.randint(200, 4000),
                joined_on=TODAY - timedelta(days=rng.randint(20, 1500)),
            )
        )

    sales: list[Sale] = []
    items: list[SaleItem] = []
    for _ in range(160):
        store = rng.choice(stores)
        last_day = (store.closed_on - timedelta(days=1)) if store.closed_on else TODAY
        day = _day(rng, TODAY - timedelta(days=45), last_day)
        member = rng.choice(members) if rng.random() < 0.6 else None
        sale_id = f"SAL-{1001 + len(sales)}"
        lines = rng.sample(products, rng.randint(1, 3))
        subtotal = 0
        for product in lines:
            quantity = rng.randint(1, 4)
            unit = price_on(product, day)
            subtotal += quantity * unit
            items.append(SaleItem(sale_id=sale_id, product_id=product.id, quantity=quantity, unit_price_cents=unit))
        redeemed = 0
        if member is not None and rng.random() < 0.25:
            redeemed = min(subtotal // POINT_VALUE_CENTS, rng.choice((100, 200, 500)))
        total = subtotal - redeemed * POINT_VALUE_CENTS
        sales.append(
            Sale(
                id=sale_id,
                store_id=store.id,
                member_id=member.id if member else None,
                sold_on=day,
                subtotal_cents=subtotal,
                points_redeemed=redeemed,
                total_cents=total,
                points_earned=total // 100 if member else 0,
            )
        )

    db.add_all(stores)
    db.add_all(products)
    db.flush()
    db.add_all(changes)
    db.add_all(rows)
    db.add_all(transfers)
    db.add_all(members)
    db.flush()
    db.add_all(sales)
    db.flush()
    db.add_all(items)
    db.flush()
