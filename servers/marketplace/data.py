"""Deterministic seed data of the marketplace server.

`seed` fills an empty database from a `random.Random` alone: the same seed always gives the same
sellers, buyers, listings, offers, orders (with their escrow) and ratings, and another seed gives
others. Every seed has suspended shops, buyers who also sell, nearly empty balances, listings in
each status, pending and decided offers, orders in each status and completed orders both rated
and unrated, so every rule of the tools can refuse a call.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from sqlalchemy.orm import Session

from gym_mcp.servers.kit import NamePool, unique_email
from gym_mcp.servers.marketplace.models import (
    CONDITIONS,
    TODAY,
    Buyer,
    Escrow,
    Listing,
    Offer,
    Order,
    Rating,
    Seller,
)

__all__ = ["seed"]

FIRST_NAMES = (
    "Olivia", "Liam", "Emma", "Noah", "Ava", "Elijah", "Sophia", "James", "Isabella", "Lucas", "Mia", "Mateo",
    "Amelia", "Ethan", "Harper", "Benjamin", "Evelyn", "Daniel", "Chloe", "Henry", "Priya", "Arjun", "Mei", "Wei",
    "Fatima", "Omar", "Sofia", "Diego", "Aisha", "Kwame", "Hana", "Kenji", "Ingrid", "Lars", "Camila", "Rafael",
)  # fmt: skip
LAST_NAMES = (
    "Smith", "Johnson", "Brown", "Garcia", "Miller", "Davis", "Martinez", "Wilson", "Anderson", "Taylor", "Moore",
    "Lee", "Thompson", "Walker", "Young", "King", "Wright", "Nguyen", "Patel", "Kim", "Chen", "Okafor", "Mensah",
    "Nakamura", "Larsen", "Novak", "Rossi", "Schmidt", "Dubois", "Fischer", "Evans", "Hughes", "Campbell",
)  # fmt: skip
PEOPLE = NamePool(FIRST_NAMES, LAST_NAMES)
"""The names people of the seed data are drawn from."""
CITIES = ("Portland", "Austin", "Denver", "Chicago", "Boston", "Seattle", "Atlanta", "Phoenix", "Madison", "Raleigh")
SHOP_WORDS = (
    ("Maple", "Harbor", "Copper", "Juniper", "Cedar", "Golden", "Willow", "Northside", "Riverbend", "Lantern",
     "Old Town", "Sunset", "Bluebird", "Hillside", "Foxglove", "Granite"),
    ("Finds", "Goods", "Trading Co.", "Vintage", "Treasures", "Resale", "Emporium", "Market", "Swap", "Attic"),
)  # fmt: skip
CATALOG = {
    "electronics": (
        ("Noise-cancelling headphones", 60, 250), ("Mechanical keyboard", 40, 160), ("iPad Air 64GB", 150, 400),
        ("Bluetooth speaker", 25, 120), ("Mirrorless camera body", 180, 480), ("Gaming monitor 27in", 90, 320),
    ),
    "furniture": (
        ("Oak coffee table", 60, 300), ("Mid-century armchair", 120, 450), ("Five-shelf bookcase", 30, 150),
        ("Standing desk", 110, 380), ("Rattan bar stools (pair)", 40, 160),
    ),
    "books": (
        ("Signed first edition novel", 25, 150), ("Fantasy box set", 15, 60), ("Vintage cookbook", 10, 40),
        ("Complete atlas of the world", 20, 70), ("Illustrated field guide to birds", 12, 45),
    ),
    "clothing": (
        ("Leather jacket", 50, 220), ("Wool winter coat", 40, 180), ("Designer sneakers", 60, 300),
        ("Silk scarf", 15, 70), ("Hiking boots", 35, 150),
    ),
    "sports": (
        ("Road bike helmet", 20, 90), ("Yoga mat", 10, 40), ("Tennis racket", 30, 140),
        ("Two-person camping tent", 50, 250), ("Adjustable dumbbells", 60, 260),
    ),
    "toys": (
        ("LEGO castle set", 25, 200), ("Wooden train set", 20, 90), ("Board game bundle", 20, 80),
        ("Remote-control car", 25, 110),
    ),
    "home": (
        ("Espresso machine", 80, 400), ("Cast iron skillet", 15, 60), ("Stand mixer", 120, 350),
        ("Ceramic vase", 12, 55), ("Air purifier", 50, 200),
    ),
    "music": (
        ("Acoustic guitar", 80, 450), ("Vinyl record lot", 30, 200), ("Digital piano", 200, 500),
        ("Ukulele", 25, 90), ("Studio microphone", 45, 220),
    ),
}  # fmt: skip
OFFER_MESSAGES = (
    "Would you take this?",
    "Can pick up this weekend.",
    "Is it still available?",
    "Cash-ready buyer, thanks!",
    "",
    "",
)
COMMENTS = {
    5: ("Exactly as described, fast shipping.", "Great seller, would buy again.", "Perfect condition!"),
    4: ("Good item, slightly slow to ship.", "Happy with it.", "Well packed."),
    3: ("Okay, some wear not in the photos.", "Took a while to arrive."),
    2: ("Item had scratches that were not mentioned.",),
    1: ("Arrived damaged.",),
}
CARRIERS = ("1Z", "94", "TBA")


def _day(rng: random.Random, start: date, end: date) -> date:
    """A day between two dates (inclusive); ``start`` when the range is empty."""
    return start + timedelta(days=rng.randint(0, max(0, (end - start).days)))


def _cents(rng: random.Random, low: int, high: int) -> int:
    """A whole-dollar price between two dollar figures, in cents (some end in .99 less a cent)."""
    dollars = rng.randint(low, high)
    return dollars * 100 - (1 if rng.random() < 0.3 else 0)


def _people(rng: random.Random) -> tuple[list[Seller], list[Buyer]]:
    """Thirty shops (three suspended) and seventy buyers; eight buyers also run one of the shops."""
    sellers: list[Seller] = []
    buyers: list[Buyer] = []
    emails: set[str] = set()

    def person() -> tuple[str, str]:
        first, last = PEOPLE.draw(rng)
        email = unique_email(first, last, "mail.example", emails)
        return f"{first} {last}", email

    shops = rng.sample([f"{a} {b}" for a in SHOP_WORDS[0] for b in SHOP_WORDS[1]], 30)
    suspended = set(rng.sample(range(30), 3))
    for i, shop_name in enumerate(shops):
        name, email = person()
        sellers.append(
            Seller(
                id=f"SEL-{1001 + i}",
                shop_name=shop_name,
                contact_name=name,
                email=email.replace("@mail.", "@shop."),
                city=rng.choice(CITIES),
                status="suspended" if i in suspended else "active",
                joined_on=TODAY - timedelta(days=rng.randint(150, 1500)),
                balance_cents=0,
            )
        )
    owners = rng.sample([s for s in sellers if s.status == "active"], 8)
    for i in range(70):
        own: str | None = None
        if i < len(owners):
            name, email, city, own = owners[i].contact_name, owners[i].email, owners[i].city, owners[i].id
            email = email.replace("@shop.", "@mail.")
        else:
            (name, email), city = person(), rng.choice(CITIES)
        balance = rng.randint(15_000, 250_000) if rng.random() > 0.1 else rng.randint(0, 1_500)
        buyers.append(
            Buyer(
                id=f"BUY-{1001 + i}",
                name=name,
                email=email,
                city=city,
                joined_on=TODAY - timedelta(days=rng.randint(30, 1200)),
                balance_cents=balance,
                seller_id=own,
            )
        )
    rng.shuffle(buyers)  # the sellers' own buyer accounts are spread over the ids
    for i, buyer in enumerate(buyers):
        buyer.id = f"BUY-{1001 + i}"
    return sellers, buyers


def _listings(rng: random.Random, sellers: list[Seller]) -> list[Listing]:
    """Five to seven listings per shop in every category and status (a suspended shop sells no more)."""
    listings: list[Listing] = []
    for seller in sellers:
        for _ in range(rng.randint(5, 7)):
            category = rng.choice(list(CATALOG))
            title, low, high = rng.choice(CATALOG[category])
            price = _cents(rng, low, high)
            if seller.status == "suspended":
                status = rng.choice(("withdrawn", "sold"))
            else:
                status = rng.choices(("active", "sold", "withdrawn"), weights=(55, 35, 10))[0]
            listings.append(
                Listing(
                    id=f"LST-{1001 + len(listings)}",
                    seller_id=seller.id,
                    title=title,
                    category=category,
                    condition=rng.choice(CONDITIONS),
                    price_cents=price,
                    floor_cents=price * rng.randint(65, 90) // 10_000 * 100,
                    status=status,
                    listed_on=_day(rng, max(seller.joined_on, TODAY - timedelta(days=120)), TODAY - timedelta(days=12)),
                )
            )
    return listings


def seed(db: Session, rng: random.Random) -> None:
    """Fill an empty marketplace database; the same ``rng`` state always gives the same rows."""
    sellers, buyers = _people(rng)
    listings = _listings(rng, sellers)
    by_id = {s.id: s for s in sellers}
    offers: list[Offer] = []
    orders: list[Order] = []
    escrows: list[Escrow] = []
    ratings: list[Rating] = []
    statuses = ("paid", "shipped", "completed")

    def other_buyer(listing: Listing, taken: set[str]) -> Buyer:
        while True:
            buyer = rng.choice(buyers)
            if buyer.seller_id != listing.seller_id and buyer.id not in taken:
                return buyer

    def offer(listing: Listing, buyer: Buyer, status: str, cents: int) -> Offer:
        made = _day(rng, listing.listed_on + timedelta(days=1), TODAY - timedelta(days=3))
        row = Offer(
            id=f"OFR-{1001 + len(offers)}",
            listing_id=listing.id,
            buyer_id=buyer.id,
            amount_cents=cents,
            message=rng.choice(OFFER_MESSAGES),
            status=status,
            made_on=made,
            decided_on=None if status == "pending" else _day(rng, made, made + timedelta(days=2)),
        )
        offers.append(row)
        return row

    def order(listing: Listing, buyer: Buyer, cents: int, status: str, via: Offer | None = None) -> None:
        start = listing.listed_on + timedelta(days=1)
        ordered = via.decided_on if via and via.decided_on else _day(rng, start, TODAY - timedelta(days=1))
        row = Order(
            id=f"ORD-{1001 + len(orders)}",
            listing_id=listing.id,
            buyer_id=buyer.id,
            seller_id=listing.seller_id,
            offer_id=via.id if via else None,
            amount_cents=cents,
            status=status,
            ordered_on=ordered,
        )
        orders.append(row)
        escrow = Escrow(
            id=f"ESC-{1001 + len(escrows)}",
            order_id=row.id,
            amount_cents=cents,
            status={"completed": "released", "cancelled": "refunded"}.get(status, "held"),
            held_on=ordered,
        )
        escrows.append(escrow)
        if status in ("shipped", "completed"):
            row.shipped_on = _day(rng, ordered, min(TODAY, ordered + timedelta(days=3)))
            row.tracking_number = f"{rng.choice(CARRIERS)}{rng.randint(10**9, 10**10 - 1)}"
        if status == "completed":
            assert row.shipped_on is not None
            row.completed_on = escrow.settled_on = _day(rng, row.shipped_on, min(TODAY, row.shipped_on + timedelta(5)))
            by_id[listing.seller_id].balance_cents += cents
            if rng.random() < 0.55:
                stars = rng.choices((5, 4, 3, 2, 1), weights=(45, 30, 12, 8, 5))[0]
                ratings.append(
                    Rating(
                        id=f"RAT-{1001 + len(ratings)}",
                        order_id=row.id,
                        seller_id=listing.seller_id,
                        buyer_id=buyer.id,
                        stars=stars,
                        comment=rng.choice(COMMENTS[stars]),
                        rated_on=_day(rng, row.completed_on, TODAY),
                    )
                )
        if status == "cancelled":
            row.cancelled_on = escrow.settled_on = _day(rng, ordered, TODAY)
            row.cancel_reason = rng.choice(("Buyer changed their mind", "Item no longer available", "Duplicate order"))

    for listing in listings:
        taken: set[str] = set()
        low = listing.floor_cents
        if listing.status == "active":
            for _ in range(rng.choices((0, 1, 2, 3), weights=(25, 35, 25, 15))[0]):
                buyer = other_buyer(listing, taken)
                taken.add(buyer.id)
                status = "pending" if rng.random() < 0.7 else "declined"
                offer(listing, buyer, status, rng.randint(low // 100, listing.price_cents // 100) * 100)
            if rng.random() < 0.12:  # an earlier sale that was cancelled put it back on sale
                order(listing, other_buyer(listing, taken), listing.price_cents, "cancelled")
        elif listing.status == "withdrawn":
            for _ in range(rng.randint(0, 2)):
                buyer = other_buyer(listing, taken)
                taken.add(buyer.id)
                offer(listing, buyer, "declined", rng.randint(low // 100, listing.price_cents // 100) * 100)
        else:
            status = rng.choices(statuses, weights=(25, 25, 50))[0]
            if by_id[listing.seller_id].status == "suspended":
                status = "completed"
            buyer = other_buyer(listing, taken)
            taken.add(buyer.id)
            if rng.random() < 0.5:
                accepted = offer(listing, buyer, "accepted", rng.randint(low // 100, listing.price_cents // 100) * 100)
                for _ in range(rng.randint(0, 1)):
                    loser = other_buyer(listing, taken)
                    taken.add(loser.id)
                    offer(listing, loser, "declined", max(low, accepted.amount_cents - 500))
                order(listing, buyer, accepted.amount_cents, status, accepted)
            else:
                order(listing, buyer, listing.price_cents, status)

    db.add_all(sellers)
    db.flush()
    db.add_all(buyers)
    db.add_all(listings)
    db.flush()
    db.add_all(offers)
    db.flush()
    db.add_all(orders)
    db.flush()
    db.add_all(escrows)
    db.add_all(ratings)
    db.flush()
