"""Deterministic seed data of the budget server.

`seed` fills an empty database from a `random.Random` alone: the same seed always gives the same
household, and a different seed other amounts, payees and balances. Three months of transactions
go through the same budget rule as the tools: a transaction that would take a block-policy budget
over its limit is never made, one over a flag-policy budget is flagged. Every seed has budgets
near and over their limit, flagged transactions, categories no transaction uses, a credit card
near its limit and a nearly empty account, goals active and completed (one near its target), and
bills overdue, due soon, later and cancelled, so that every rule of the tools can be met.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from sqlalchemy.orm import Session

from gym_mcp.servers.budget.models import (
    FREQUENCIES,
    TODAY,
    Account,
    Bill,
    Budget,
    Category,
    Contribution,
    Goal,
    Transaction,
    Transfer,
)

__all__ = ["add_months", "seed"]

START = date(2025, 10, 16)
"""The first day of the transaction history."""
MONTHS = ("2025-11", "2025-12", "2026-01")
"""The months that have budgets."""

ACCOUNTS = (
    # name, type, institution, balance range in dollars, credit limit
    ("Everyday Checking", "checking", "First Harbor Bank", (1800, 4200), None),
    ("High-Yield Savings", "savings", "First Harbor Bank", (9000, 15000), None),
    ("Rewards Visa", "credit", "Summit Card Services", (-1500, -300), 5000),
    ("Joint Checking", "checking", "Cedar Credit Union", (600, 2000), None),
    ("Emergency Fund", "savings", "Cedar Credit Union", (4000, 8000), None),
    ("Store Card", "credit", "MegaMart Financial", (-1450, -1150), 1500),
    ("Travel Savings", "savings", "First Harbor Bank", (20, 80), None),
)
# name, policy, monthly limit in dollars, chance of a purchase per day, amount range, payees
SPENDING = (
    ("Groceries", "flag", 650, 0.45, (18, 140), ("FreshMart", "Green Grocer", "Costwise Wholesale", "Corner Market")),
    ("Dining out", "block", 260, 0.35, (12, 85), ("Luigi's Trattoria", "Sushi Go", "The Burger Joint", "Cafe Aroma")),
    ("Transport", "flag", 160, 0.2, (3, 45), ("Metro Transit", "RideNow", "City Parking")),
    ("Fuel", "flag", 190, 0.1, (35, 75), ("Shell", "BP", "Circle K")),
    ("Shopping", "flag", 280, 0.15, (15, 160), ("Amazon", "Target", "Zara", "IKEA", "Best Buy")),
    ("Entertainment", "block", 130, 0.1, (10, 60), ("Cineplex", "Steam", "Ticketmaster", "Lucky Strike Bowling")),
    ("Health", "flag", 160, 0.05, (15, 120), ("CVS Pharmacy", "Dr. Patel Clinic", "Bright Smile Dental")),
    ("Personal care", "flag", 90, 0.05, (20, 70), ("Hair Studio 21", "Sephora")),
    ("Home maintenance", "flag", 220, 0.04, (25, 250), ("Home Depot", "Ace Hardware")),
    ("Gifts", "block", 160, 0.05, (20, 120), ("Etsy", "Barnes & Noble", "Flower Corner")),
    ("Travel", "block", 450, 0.015, (150, 600), ("Delta Air Lines", "Airbnb", "Marriott")),
    ("Education", "flag", 300, 0.02, (15, 90), ("Coursera", "Udemy", "Campus Bookstore")),
)
BILL_CATEGORIES = (("Rent", 1700), ("Utilities", 320), ("Subscriptions", 80), ("Insurance", 700))
UNUSED = ("Charity", "Pets", "Childcare", "Hobbies")
INCOME = ("Salary", "Freelance", "Interest", "Refunds")
BILLS = (
    # name, payee, account index, category, amount range in dollars, frequency, day, next due
    ("Rent", "Oakview Properties", 0, "Rent", (1650, 1650), "monthly", 1, date(2026, 2, 1)),
    ("Electricity", "Metro Power", 0, "Utilities", (85, 140), "monthly", 18, date(2026, 1, 18)),
    ("Internet", "FiberNet", 2, "Utilities", (65, 65), "monthly", 12, date(2026, 1, 12)),
    ("Mobile phone", "Wavely Mobile", 2, "Utilities", (45, 55), "monthly", 22, date(2026, 1, 22)),
    ("StreamFlix", "StreamFlix", 2, "Subscriptions", (15.49, 15.49), "monthly", 5, date(2026, 2, 5)),
    ("Music streaming", "Tunely", 2, "Subscriptions", (10.99, 10.99), "monthly", 9, date(2026, 2, 9)),
    ("Gym membership", "FitLife Gym", 0, "Health", (39, 49), "monthly", 3, date(2026, 2, 3)),
    ("Car insurance", "SafeDrive Insurance", 0, "Insurance", (290, 340), "quarterly", 20, date(2026, 1, 20)),
    ("Home insurance", "HomeGuard", 0, "Insurance", (600, 680), "yearly", 8, date(2026, 3, 8)),
    ("Water", "City Water", 3, "Utilities", (80, 110), "quarterly", 10, date(2026, 1, 10)),
    ("Cloud storage", "CloudBox", 2, "Subscriptions", (99.99, 99.99), "yearly", 27, date(2026, 1, 27)),
    ("Student loan", "EduLoan Servicing", 0, "Education", (210, 230), "monthly", 25, date(2026, 1, 25)),
    ("Newspaper", "Daily Ledger", 2, "Subscriptions", (12, 12), "monthly", 14, date(2026, 1, 14)),
    ("Magazine", "Outdoor Monthly", 2, "Subscriptions", (8, 8), "monthly", 20, date(2026, 1, 20)),
)
CANCELLED_BILLS = ("Newspaper", "Magazine")
OVERDUE_BILLS = ("Internet", "Water")
GOALS = (
    # name, target dollars, share saved, target date
    ("Japan trip", 4000, 0.3, date(2026, 9, 1)),
    ("New laptop", 1800, 0.99, date(2026, 3, 1)),
    ("Wedding gift for Sam", 500, 1.0, date(2025, 12, 20)),
    ("Car down payment", 8000, 0.28, date(2027, 6, 1)),
    ("Holiday gifts", 600, 1.0, date(2025, 12, 15)),
    ("Home office chair", 600, 0.2, date(2026, 4, 30)),
    ("New bike", 1200, 0.0, date(2026, 6, 1)),
    ("Emergency cushion", 10000, 0.55, date(2026, 12, 31)),
)


def add_months(day: date, months: int, on_day: int | None = None) -> date:
    """A date ``months`` later on ``on_day`` (default: the same day), clipped to the month's end."""
    year, month = divmod(day.month - 1 + months, 12)
    wanted = on_day or day.day
    for last in (31, 30, 29, 28):
        try:
            return date(day.year + year, month + 1, min(wanted, last))
        except ValueError:
            continue
    raise AssertionError("unreachable")


def _cents(rng: random.Random, low: float, high: float) -> int:
    """A random amount in cents between two dollar figures."""
    return round(rng.uniform(low, high) * 100)


def _accounts(rng: random.Random) -> list[Account]:
    """The household's seven accounts; a card near its limit and a nearly empty savings account."""
    return [
        Account(
            id=f"ACC-{1001 + i}",
            name=name,
            type=kind,
            institution=bank,
            balance_cents=_cents(rng, low, high),
            credit_limit_cents=None if limit is None else limit * 100,
        )
        for i, (name, kind, bank, (low, high), limit) in enumerate(ACCOUNTS)
    ]


def _categories() -> dict[str, Category]:
    """Expense categories (some that nothing uses) then income ones, by name."""
    names = [s[0] for s in SPENDING] + [b[0] for b in BILL_CATEGORIES] + list(UNUSED)
    categories = {n: Category(id=f"CAT-{1001 + i}", name=n, kind="expense") for i, n in enumerate(names)}
    for n in INCOME:
        categories[n] = Category(id=f"CAT-{1001 + len(categories)}", name=n, kind="income")
    return categories


def _budgets(rng: random.Random, categories: dict[str, Category]) -> dict[tuple[str, str], Budget]:
    """A budget per spending and bill category for each month; January's often tight."""
    budgets: dict[tuple[str, str], Budget] = {}
    plans = [(s[0], s[1], float(s[2])) for s in SPENDING] + [(n, "flag", float(cap)) for n, cap in BILL_CATEGORIES]
    for month in MONTHS:
        for name, policy, dollars in plans:
            if month == MONTHS[-1]:  # half of January is gone: some budgets are nearly spent
                dollars *= rng.choice((0.45, 0.55, 0.7, 0.9, 1.0))
            cid = categories[name].id
            budgets[(cid, month)] = Budget(
                id=f"BUD-{1001 + len(budgets)}",
                category_id=cid,
                month=month,
                limit_cents=round(dollars * rng.uniform(0.95, 1.05)) * 100,
                policy=policy,
            )
    return budgets


Draft = tuple[date, int, str, str, int, str, str | None]
"""A candidate transaction: day, order in the day, account, category name, cents, payee, bill."""


def _daily(rng: random.Random, accounts: list[Account]) -> list[Draft]:
    """Purchases, pay days, interest, freelance income and refunds, day by day."""
    drafts: list[Draft] = []
    day = START
    while day <= TODAY:
        for name, _, _, chance, (low, high), payees in SPENDING:
            if rng.random() < chance * (1.6 if name == "Gifts" and day.month == 12 else 1):
                account = rng.choices((0, 2, 3, 5), weights=(50, 38, 8, 4))[0]
                drafts.append((day, 1, accounts[account].id, name, _cents(rng, low, high), rng.choice(payees), None))
        if day.day in (1, 15):
            drafts.append((day, 0, accounts[0].id, "Salary", _cents(rng, 2800, 2900), "Acme Corp payroll", None))
        if day.day == 28:
            drafts.append((day, 0, accounts[1].id, "Interest", _cents(rng, 12, 30), "First Harbor Bank", None))
        if rng.random() < 0.05:
            drafts.append((day, 0, accounts[0].id, "Freelance", _cents(rng, 200, 900), "Upwork", None))
        if rng.random() < 0.03:
            drafts.append((day, 0, accounts[2].id, "Refunds", _cents(rng, 10, 80), "Amazon", None))
        day += timedelta(days=1)
    return drafts


def _bills(
    rng: random.Random, accounts: list[Account], categories: dict[str, Category]
) -> tuple[list[Bill], list[Draft]]:
    """The recurring bills and their past payments (the overdue ones miss the period now due)."""
    bills: list[Bill] = []
    drafts: list[Draft] = []
    for i, (name, payee, account, category, (low, high), frequency, on_day, due) in enumerate(BILLS):
        bill = Bill(
            id=f"BIL-{1001 + i}",
            name=name,
            payee=payee,
            account_id=accounts[account].id,
            category_id=categories[category].id,
            amount_cents=_cents(rng, low, high),
            frequency=frequency,
            day_of_month=on_day,
            next_due=due,
            status="cancelled" if name in CANCELLED_BILLS else "active",
        )
        bills.append(bill)
        paid = add_months(due, -FREQUENCIES[frequency])
        if name in OVERDUE_BILLS:
            paid = add_months(paid, -FREQUENCIES[frequency])
        while START <= paid <= TODAY:
            drafts.append((paid, 2, bill.account_id, category, bill.amount_cents, payee, bill.id))
            paid = add_months(paid, -FREQUENCIES[frequency])
    return bills, drafts


def _transactions(
    drafts: list[Draft], categories: dict[str, Category], budgets: dict[tuple[str, str], Budget]
) -> list[Transaction]:
    """The drafts in date order under the budget rule: over a block budget dropped, over a flag one flagged."""
    spent: dict[tuple[str, str], int] = {}
    out: list[Transaction] = []
    for posted, _, account_id, name, cents, payee, bill_id in sorted(
        drafts, key=lambda d: (d[0], d[1], d[3], d[2], d[4])
    ):
        category = categories[name]
        key = (category.id, posted.isoformat()[:7])
        flagged = False
        budget = budgets.get(key)
        if category.kind == "expense" and budget is not None:
            flagged = spent.get(key, 0) + cents > budget.limit_cents
            if flagged and budget.policy == "block":
                continue  # the budget refused it
        if category.kind == "expense":
            spent[key] = spent.get(key, 0) + cents
        out.append(
            Transaction(
                id=f"TXN-{1001 + len(out)}",
                account_id=account_id,
                category_id=category.id,
                posted_on=posted,
                amount_cents=cents,
                payee=payee,
                flagged=flagged,
                bill_id=bill_id,
            )
        )
    return out


def _goals(rng: random.Random, accounts: list[Account]) -> tuple[list[Goal], list[Contribution]]:
    """The goals and the contributions that add up to what each has saved."""
    goals: list[Goal] = []
    entries: list[tuple[date, Contribution]] = []
    savers = [a.id for a in accounts if a.type != "credit" and a.balance_cents > 50_000]
    for i, (name, target, share, due) in enumerate(GOALS):
        goal = Goal(
            id=f"GOL-{1001 + i}",
            name=name,
            target_cents=target * 100,
            saved_cents=round(target * share) * 100,
            target_date=due,
            status="completed" if share >= 1 else "active",
        )
        goals.append(goal)
        left, parts = goal.saved_cents, rng.randint(2, 5)
        for k in range(parts if left else 0):
            cents = left if k == parts - 1 else left // (parts - k) // 100 * 100
            left -= cents
            made = TODAY - timedelta(days=rng.randint(5, 200))
            entries.append((made, Contribution(goal_id=goal.id, account_id=rng.choice(savers), amount_cents=cents)))
    entries.sort(key=lambda e: (e[0], e[1].goal_id))
    contributions = []
    for k, (made, contribution) in enumerate(entries):
        contribution.id = f"CON-{1001 + k}"
        contribution.made_on = made
        contributions.append(contribution)
    return goals, contributions


def _transfers(rng: random.Random, accounts: list[Account]) -> list[Transfer]:
    """Past transfers: to savings, card payments, top-ups of the joint account."""
    transfers = []
    for _ in range(14):
        source, target = rng.choice(((0, 1), (0, 2), (0, 4), (1, 0), (3, 0), (0, 5), (0, 6)))
        transfers.append(
            Transfer(
                from_account_id=accounts[source].id,
                to_account_id=accounts[target].id,
                amount_cents=rng.choice((50, 100, 150, 200, 250, 300, 500)) * 100,
                made_on=START + timedelta(days=rng.randint(0, (TODAY - START).days)),
            )
        )
    transfers.sort(key=lambda t: (t.made_on, t.from_account_id, t.to_account_id))
    for k, transfer in enumerate(transfers):
        transfer.id = f"TRF-{1001 + k}"
    return transfers


def seed(db: Session, rng: random.Random) -> None:
    """Fill an empty budget database deterministically.

    Args:
        db: Session on the freshly created schema.
        rng: The only source of randomness.
    """
    accounts = _accounts(rng)
    categories = _categories()
    budgets = _budgets(rng, categories)
    drafts = _daily(rng, accounts)
    bills, payments = _bills(rng, accounts, categories)
    transactions = _transactions(drafts + payments, categories, budgets)
    goals, contributions = _goals(rng, accounts)
    transfers = _transfers(rng, accounts)
    db.add_all(accounts)
    db.add_all(categories.values())
    db.flush()
    db.add_all(budgets.values())
    db.add_all(bills)
    db.add_all(goals)
    db.flush()
    db.add_all(transactions)
    db.add_all(contributions)
    db.add_all(transfers)
    db.flush()
