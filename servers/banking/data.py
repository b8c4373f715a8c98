"""Deterministic seed data of the banking server.

`seed` fills an empty database from a `random.Random` alone: the same seed always gives the
same customers, accounts, payees, cards and transaction history, and a different seed gives
different ones. Every seed has some low-balance, frozen and closed accounts and some locked and
cancelled cards, so the error paths of the tools are reachable.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy.orm import Session

from gym_mcp.servers.banking.models import (
    BANK_NAME,
    TODAY,
    Account,
    Card,
    Customer,
    Payee,
    Transaction,
)
from gym_mcp.servers.kit import NamePool, unique_email

__all__ = ["seed"]

FIRST_NAMES = (
    "Olivia", "Liam", "Emma", "Noah", "Ava", "Elijah", "Sophia", "James", "Isabella", "Lucas", "Mia", "Mateo",
    "Amelia", "Ethan", "Harper", "Benjamin", "Evelyn", "Daniel", "Abigail", "Henry", "Emily", "Jackson", "Ella",
    "Samuel", "Scarlett", "Sebastian", "Grace", "David", "Chloe", "Joseph", "Priya", "Arjun", "Mei", "Wei",
    "Fatima", "Omar", "Sofia", "Diego", "Aisha", "Kwame", "Hana", "Kenji", "Ingrid", "Lars", "Camila", "Rafael",
    "Zoe", "Gabriel", "Nora", "Leo",
)  # fmt: skip
LAST_NAMES = (
    "Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez",
    "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin", "Lee",
    "Perez", "Thompson", "White", "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson", "Walker", "Young",
    "Allen", "King", "Wright", "Scott", "Nguyen", "Patel", "Kim", "Chen", "Okafor", "Mensah", "Nakamura", "Larsen",
    "Novak", "Rossi", "Schmidt", "Dubois",
)  # fmt: skip
PEOPLE = NamePool(FIRST_NAMES, LAST_NAMES)
"""The names people of the seed data are drawn from."""
EMAIL_DOMAINS = ("gmail.com", "outlook.com", "yahoo.com", "icloud.com", "proton.me", "fastmail.com")
CITIES = (
    "Portland", "Seattle", "Austin", "Denver", "Boston", "Chicago", "Atlanta", "Phoenix", "San Diego",
    "Minneapolis", "Raleigh", "Nashville", "Pittsburgh", "Sacramento", "Madison", "Tucson",
)  # fmt: skip
EMPLOYERS = (
    "Acme Logistics",
    "Bluebird Health",
    "Cedar Schools",
    "Delta Robotics",
    "Evergreen Foods",
    "Fairview Hospital",
    "Granite Builders",
    "Helix Software",
    "City of Riverton",
    "Summit Retail",
)
MERCHANTS = (
    "Whole Harvest Market",
    "Corner Coffee Co.",
    "FuelStop",
    "Bookbarn",
    "PixelPlay Games",
    "Riverside Pharmacy",
    "Urban Outfitters Supply",
    "Golden Dragon Kitchen",
    "MegaMart",
    "CineMax Theaters",
    "Trailhead Outdoor",
    "Streamly Subscription",
    "QuickRide",
    "Home & Hearth Hardware",
    "Blue Plate Diner",
)
BILLERS = (
    ("City Power & Light", "First National Bank"),
    ("Metro Water Utility", "Pacific Credit Union"),
    ("Northwind Telecom", "Union Commerce Bank"),
    ("Skyline Apartments", "First National Bank"),
    ("Evergreen Insurance", "Granite State Bank"),
    ("Bright Horizons Daycare", "Pacific Credit Union"),
    ("Summit Auto Loans", "Union Commerce Bank"),
    ("Lakeside Dental", "Granite State Bank"),
    ("FiberNet Internet", "Coastal Savings Bank"),
    ("Oakwood HOA", "Coastal Savings Bank"),
)
FREEZE_REASONS = ("Suspected fraud", "Court order", "Customer request", "Identity review")
CHECKING_NICKNAMES = ("Everyday Checking", "Main Checking", "Bills Account", "Household Checking")
SAVINGS_NICKNAMES = ("Rainy Day Savings", "Emergency Fund", "Vacation Fund", "House Deposit", "Savings")
CREDIT_NICKNAMES = ("Rewards Visa", "Cashback Mastercard", "Travel Card", "Platinum Credit")


@dataclass
class _Entry:
    """A transaction before it gets its id (ids follow the global posting order)."""

    account: Account
    seq: int
    kind: str
    amount: int
    balance_after: int
    description: str
    posted_on: date


def _cents(rng: random.Random, low: float, high: float) -> int:
    """A random amount in cents between two dollar amounts."""
    return rng.randint(round(low * 100), round(high * 100))


def _shop(rng: random.Random) -> str:
    """Statement text of a card purchase at a random merchant."""
    return f"Card purchase - {rng.choice(MERCHANTS)}"


def _customers(rng: random.Random) -> list[Customer]:
    """Sixty customers with unique emails."""
    customers: list[Customer] = []
    emails: set[str] = set()
    for i in range(60):
        first, last = PEOPLE.draw(rng)
        domain = rng.choice(EMAIL_DOMAINS)
        email = unique_email(first, last, domain, emails)
        customers.append(
            Customer(
                id=f"CUS-{1001 + i}",
                first_name=first,
                last_name=last,
                email=email,
                phone=f"+1-{rng.randint(201, 989)}-555-{rng.randint(0, 9999):04d}",
                city=rng.choice(CITIES),
                customer_since=TODAY - timedelta(days=rng.randint(120, 3650)),
            )
        )
    return customers


def _accounts(rng: random.Random, customers: list[Customer]) -> list[Account]:
    """About two accounts per customer; some frozen, some closed, some nearly empty."""
    accounts: list[Account] = []

    def add(customer: Customer, kind: str) -> None:
        span = (TODAY - customer.customer_since).days
        opened = customer.customer_since + timedelta(days=rng.randint(0, max(0, span - 100)))
        acc = Account(
            id=f"ACC-{1001 + len(accounts)}",
            customer_id=customer.id,
            type=kind,
            status="active",
            opened_on=opened,
            credit_limit_cents=0,
            daily_withdrawal_limit_cents=0,
        )
        if kind == "checking":
            acc.nickname = rng.choice(CHECKING_NICKNAMES)
            acc.balance_cents = _cents(rng, 150, 9000)
            acc.daily_withdrawal_limit_cents = rng.choice((100_000, 100_000, 200_000))
        elif kind == "savings":
            acc.nickname = rng.choice(SAVINGS_NICKNAMES)
            acc.balance_cents = _cents(rng, 500, 40000)
            acc.daily_withdrawal_limit_cents = 50_000
        else:
            acc.nickname = rng.choice(CREDIT_NICKNAMES)
            acc.credit_limit_cents = rng.choice((100_000, 250_000, 500_000, 1_000_000))
            acc.balance_cents = -rng.randint(0, acc.credit_limit_cents * 8 // 10)
        accounts.append(acc)

    for customer in customers:
        kinds = []
        if rng.random() < 0.95:
            kinds.append("checking")
        if rng.random() < 0.6 or not kinds:
            kinds.append("savings")
        if rng.random() < 0.35:
            kinds.append("credit")
        if rng.random() < 0.1:
            kinds.append("checking")
        for kind in kinds:
            add(customer, kind)

    def untouched(kind: str | None = None) -> list[Account]:
        return [
            a
            for a in accounts
            if a.type != "credit" and a.type == (kind or a.type) and a.status == "active" and a not in low
        ]

    low: list[Account] = []
    for acc in rng.sample(untouched(), 4):
        acc.status = "closed"
        acc.balance_cents = 0
        acc.closed_on = TODAY - timedelta(days=rng.randint(5, 60))
    for acc in rng.sample(untouched("checking"), 3) + rng.sample(untouched("savings"), 3):
        acc.status = "frozen"
        acc.freeze_reason = rng.choice(FREEZE_REASONS)
    for acc in rng.sample(untouched("checking"), 5) + rng.sample(untouched("savings"), 2):
        low.append(acc)
        acc.balance_cents = _cents(rng, 1, 60)
    return accounts


def _history(rng: random.Random, acc: Account) -> list[_Entry]:
    """Past transactions of one account, generated backwards from its current balance."""
    last_day = acc.closed_on or TODAY - timedelta(days=1)
    first_day = max(acc.opened_on, TODAY - timedelta(days=90))
    count = rng.randint(3, 8)
    days = sorted(rng.randint(0, max(0, (last_day - first_day).days)) for _ in range(count))
    dates = [first_day + timedelta(days=d) for d in days]
    busy = acc.type == "checking" and acc.status == "active" and acc.balance_cents > 30_000
    if busy and rng.random() < 0.3:
        dates.append(TODAY)  # an ATM withdrawal today already uses part of the daily limit

    entries: list[_Entry] = []
    after = acc.balance_cents
    for posted_on in reversed(dates):
        if posted_on == TODAY:
            kind, amount, text = "withdrawal", -rng.choice((4_000, 10_000, 20_000, 30_000)), "ATM withdrawal"
        elif acc.type == "credit":
            owed, room = -after, acc.credit_limit_cents + after
            purchase = rng.random() < 0.7
            size = _cents(rng, 5, 400) if purchase else _cents(rng, 50, 1500)
            if purchase and size > owed:  # the purchase would have started from a positive balance
                purchase, size = False, min(size, room)
            elif not purchase and size > room:  # the balance before would have been over the limit
                purchase, size = True, min(size, owed)
            if size <= 0:
                break
            if purchase:
                kind, amount, text = "purchase", -size, _shop(rng)
            else:
                kind, amount, text = "deposit", size, "Payment received - thank you"
        else:
            roll = rng.random()
            if acc.type == "savings":
                if roll < 0.45:
                    kind, amount, text = "deposit", _cents(rng, 50, 2000), "Transfer from checking"
                elif roll < 0.7:
                    kind, amount, text = "interest", _cents(rng, 0.5, 25), "Monthly interest"
                else:
                    kind, amount, text = "withdrawal", -_cents(rng, 50, 800), "Branch withdrawal"
            elif roll < 0.3:
                employer = rng.choice(EMPLOYERS)
                kind, amount, text = "deposit", _cents(rng, 800, 3500), f"Payroll - {employer}"
            elif roll < 0.65:
                kind, amount, text = "purchase", -_cents(rng, 4, 250), _shop(rng)
            elif roll < 0.8:
                biller = rng.choice(BILLERS)[0]
                kind, amount, text = "payment", -_cents(rng, 40, 900), f"Bill payment - {biller}"
            elif roll < 0.93:
                kind, amount, text = "withdrawal", -rng.choice((2_000, 4_000, 6_000)), "ATM withdrawal"
            else:
                kind, amount, text = "fee", -rng.choice((500, 1_000, 1_200)), "Monthly maintenance fee"
            if after - amount < 0:  # a credit cannot start from a negative balance: make it a debit
                kind, amount, text = "purchase", -_cents(rng, 4, 120), _shop(rng)
        entries.append(_Entry(acc, 0, kind, amount, after, text, posted_on))
        after -= amount
    entries.reverse()
    for i, entry in enumerate(entries):
        entry.seq = i
    return entries


def _payees(rng: random.Random, customers: list[Customer], accounts: list[Account]) -> list[Payee]:
    """About one payee per customer: billers at other banks, and people banking here."""
    payees: list[Payee] = []
    internal = [a for a in accounts if a.type == "checking" and a.status == "active"]
    names = {c.id: c.name for c in customers}
    for customer in customers:
        taken: set[str] = set()
        for _ in range(rng.choices((0, 1, 2), weights=(2, 4, 3))[0]):
            if rng.random() < 0.35:
                target = rng.choice(internal)
                if target.customer_id == customer.id or target.id in taken:
                    continue
                name, bank, number = names[target.customer_id], BANK_NAME, target.id
            else:
                name, bank = rng.choice(BILLERS)
                number = str(rng.randint(10**8, 10**12 - 1))
            taken.add(number)
            payees.append(
                Payee(
                    id=f"PAY-{1001 + len(payees)}",
                    customer_id=customer.id,
                    name=name,
                    bank_name=bank,
                    account_number=number,
                )
            )
    return payees


def _cards(rng: random.Random, accounts: list[Account]) -> list[Card]:
    """A debit card per checking account and a credit card per credit account; some replaced."""
    cards: list[Card] = []

    def add(acc: Account, status: str, issued: date) -> Card:
        kind = "debit" if acc.type == "checking" else "credit"
        if kind == "debit":
            limit = rng.choice((50_000, 100_000, 150_000, 250_000))
        else:
            limit = min(acc.credit_limit_cents, rng.choice((100_000, 250_000, 500_000)))
        card = Card(
            id=f"CRD-{1001 + len(cards)}",
            customer_id=acc.customer_id,
            account_id=acc.id,
            type=kind,
            last4=f"{rng.randint(0, 9999):04d}",
            status=status,
            daily_limit_cents=limit,
            issued_on=issued,
            expires=f"{issued.month:02d}/{issued.year + 4}",
        )
        cards.append(card)
        return card

    for acc in accounts:
        if acc.type == "savings":
            continue
        issued = acc.opened_on + timedelta(days=rng.randint(3, 14))
        if acc.status == "closed":
            add(acc, "cancelled", issued)
            continue
        status = "locked" if acc.status == "frozen" else "active"
        if rng.random() < 0.12:  # reported lost earlier: a cancelled card and its replacement
            old = add(acc, "cancelled", issued)
            issued = min(TODAY - timedelta(days=3), issued + timedelta(days=rng.randint(30, 400)))
            old.replaced_by = add(acc, status, issued).id
        else:
            add(acc, status, issued)

    active = [c for c in cards if c.status == "active"]
    for card in rng.sample(active, 6):
        card.status = "locked"
    return cards


def seed(db: Session, rng: random.Random) -> None:
    """Fill an empty banking database deterministically.

    Args:
        db: Session on the freshly created schema.
        rng: The only source of randomness.
    """
    customers = _customers(rng)
    accounts = _accounts(rng, customers)
    entries = [e for acc in accounts for e in _history(rng, acc)]
    entries.sort(key=lambda e: (e.posted_on, e.account.id, e.seq))
    transactions = [
        Transaction(
            id=f"TXN-{10001 + i}",
            account_id=e.account.id,
            kind=e.kind,
            amount_cents=e.amount,
            balance_after_cents=e.balance_after,
            description=e.description,
            posted_on=e.posted_on,
        )
        for i, e in enumerate(entries)
    ]
    payees = _payees(rng, customers, accounts)
    cards = _cards(rng, accounts)
    db.add_all(customers)
    db.flush()
    db.add_all(accounts)
    db.flush()
    db.add_all(payees)
    db.add_all(cards)
    db.add_all(transactions)
    db.flush()
