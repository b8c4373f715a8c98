"""Deterministic seed data of the payments server.

`seed` fills an empty database from a `random.Random` alone: the same seed always gives the same
customers, wallets, payment methods, payments (with their refunds and disputes), payment requests
and wallet transfers, and a different seed gives different ones. The currencies and their rates
are fixed. Every seed has expired cards, payments in each status, captures both inside and
outside the dispute window, nearly empty wallets and requests in each status, so the error paths
of the tools are reachable.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from sqlalchemy.orm import Session

from gym_mcp.servers.kit import NamePool, unique_email
from gym_mcp.servers.payments.models import (
    CURRENCIES,
    DISPUTE_REASONS,
    DISPUTE_WINDOW_DAYS,
    REQUEST_TTL_DAYS,
    TODAY,
    Currency,
    CurrencyInfo,
    Customer,
    Dispute,
    Payment,
    PaymentMethod,
    PaymentRequest,
    Refund,
    Transfer,
    Wallet,
    convert_minor,
    quoted_rate,
)

__all__ = ["seed"]

FIRST_NAMES = (
    "Olivia", "Liam", "Emma", "Noah", "Ava", "Elijah", "Sophia", "James", "Isabella", "Lucas", "Mia", "Mateo",
    "Amelia", "Ethan", "Harper", "Benjamin", "Evelyn", "Daniel", "Chloe", "Henry", "Priya", "Arjun", "Mei", "Wei",
    "Fatima", "Omar", "Sofia", "Diego", "Aisha", "Kwame", "Hana", "Kenji", "Ingrid", "Lars", "Camila", "Rafael",
    "Yuki", "Haruto", "Charlotte", "Oliver", "Lena", "Jonas", "Chiara", "Marco", "Elodie", "Hugo", "Ruby", "Jack",
)  # fmt: skip
LAST_NAMES = (
    "Smith", "Johnson", "Brown", "Garcia", "Miller", "Davis", "Martinez", "Wilson", "Anderson", "Taylor", "Moore",
    "Lee", "Thompson", "Walker", "Young", "King", "Wright", "Nguyen", "Patel", "Kim", "Chen", "Okafor", "Mensah",
    "Nakamura", "Tanaka", "Larsen", "Novak", "Rossi", "Schmidt", "Dubois", "Muller", "Bianchi", "Fischer",
    "Evans", "Hughes", "Campbell", "Tremblay", "Roy", "Keller", "Weber",
)  # fmt: skip
PEOPLE = NamePool(FIRST_NAMES, LAST_NAMES)
"""The names people of the seed data are drawn from."""
EMAIL_DOMAINS = ("gmail.com", "outlook.com", "yahoo.com", "icloud.com", "proton.me", "fastmail.com")
COUNTRIES = (
    # country, home currency, weight
    ("US", "USD", 30),
    ("DE", "EUR", 8),
    ("FR", "EUR", 6),
    ("ES", "EUR", 4),
    ("GB", "GBP", 12),
    ("JP", "JPY", 8),
    ("CA", "CAD", 7),
    ("AU", "AUD", 6),
    ("CH", "CHF", 4),
)
BANKS = {
    "USD": ("Chase", "Wells Fargo", "Bank of America"),
    "EUR": ("Deutsche Bank", "BNP Paribas", "Santander"),
    "GBP": ("Barclays", "HSBC UK", "Lloyds"),
    "JPY": ("MUFG Bank", "Mizuho", "SMBC"),
    "CAD": ("RBC", "TD Canada Trust"),
    "AUD": ("Commonwealth Bank", "Westpac"),
    "CHF": ("UBS", "PostFinance"),
}
CARD_BRANDS = ("Visa", "Visa", "Mastercard", "Mastercard", "Amex")
MERCHANTS = (
    ("Skyline Airways", "Flight booking", 120, 900),
    ("Harbor Hotels", "Hotel stay", 90, 700),
    ("Northwind Electronics", "Headphones", 40, 400),
    ("Corner Coffee Co.", "Coffee beans subscription", 8, 40),
    ("Streamly", "Monthly streaming plan", 6, 20),
    ("MegaMart", "Groceries", 15, 180),
    ("Trailhead Outdoor", "Hiking boots", 60, 250),
    ("PixelPlay Games", "Game purchase", 10, 70),
    ("QuickRide", "Ride", 6, 60),
    ("Bookbarn", "Books", 8, 60),
    ("FitLife Gym", "Gym membership", 25, 90),
    ("Golden Dragon Kitchen", "Dinner", 20, 120),
    ("CloudDrive", "Storage plan, annual", 20, 120),
    ("Urban Threads", "Clothing", 25, 220),
    ("Riverside Pharmacy", "Pharmacy", 5, 80),
)
REFUND_REASONS = ("Item returned", "Duplicate charge", "Order cancelled", "Damaged on arrival", "Price adjustment")
DISPUTE_DETAILS = {
    "fraudulent": "Customer does not recognise this charge.",
    "duplicate": "Charged twice for the same order.",
    "product_not_received": "Order never arrived.",
    "product_unacceptable": "Item arrived broken.",
    "subscription_canceled": "Charged after cancelling the plan.",
    "general": "Customer disagrees with the amount.",
}
REQUEST_MEMOS = (
    "Dinner split",
    "Concert tickets",
    "Rent share",
    "Taxi to the airport",
    "Birthday gift pool",
    "Groceries",
    "Ski trip deposit",
    "Utilities for December",
    "Book club snacks",
    "Football match tickets",
)
DECLINE_REASONS = ("Already paid in cash", "Wrong amount", "I don't know this person", "Paid another way")


def _to_minor(usd: float, info: CurrencyInfo) -> int:
    """A US-dollar figure as a round-looking amount in another currency's minor unit."""
    usd_info = CURRENCIES[0]
    minor = convert_minor(round(usd * 100), usd_info, info)
    if info.minor_units == 0:
        return max(10, round(minor, -1))  # yen prices end in 0
    return max(100, minor - minor % 5)


def _customers(rng: random.Random) -> list[Customer]:
    """Sixty customers with unique emails, spread over the supported countries."""
    customers: list[Customer] = []
    emails: set[str] = set()
    countries = [c for c in COUNTRIES for _ in range(c[2])]
    for i in range(60):
        first, last = PEOPLE.draw(rng)
        domain = rng.choice(EMAIL_DOMAINS)
        email = unique_email(first, last, domain, emails)
        country, currency, _ = rng.choice(countries)
        customers.append(
            Customer(
                id=f"CUS-{1001 + i}",
                first_name=first,
                last_name=last,
                email=email,
                country=country,
                home_currency=currency,
                joined_on=TODAY - timedelta(days=rng.randint(200, 2500)),
            )
        )
    return customers


def _wallets(rng: random.Random, customers: list[Customer], infos: dict[str, CurrencyInfo]) -> list[Wallet]:
    """A wallet in each customer's home currency, some in one or two more; a few nearly empty."""
    wallets: list[Wallet] = []
    for customer in customers:
        currencies = [customer.home_currency]
        for extra in ("USD", "EUR", "GBP", "JPY"):
            if extra not in currencies and rng.random() < 0.22:
                currencies.append(extra)
        for code in currencies:
            opened = customer.joined_on + timedelta(days=rng.randint(0, 120))
            wallets.append(
                Wallet(
                    id=f"WAL-{1001 + len(wallets)}",
                    customer_id=customer.id,
                    currency=code,
                    balance_minor=_to_minor(rng.uniform(150, 4000), infos[code]),
                    opened_on=min(opened, TODAY - timedelta(days=30)),
                )
            )
    for wallet in rng.sample(wallets, 8):
        wallet.balance_minor = _to_minor(rng.uniform(1, 8), infos[wallet.currency])
    return wallets


def _methods(rng: random.Random, customers: list[Customer]) -> list[PaymentMethod]:
    """One to three cards or bank accounts per customer; some cards have expired."""
    methods: list[PaymentMethod] = []
    for customer in customers:
        for k in range(rng.choices((1, 2, 3), weights=(3, 5, 2))[0]):
            added = customer.joined_on + timedelta(days=rng.randint(0, 150))
            method = PaymentMethod(
                id=f"PM-{1001 + len(methods)}",
                customer_id=customer.id,
                last4=f"{rng.randint(0, 9999):04d}",
                added_on=added,
            )
            if k > 0 and rng.random() < 0.3:
                method.type = "bank_account"
                method.brand = rng.choice(BANKS[customer.home_currency])
            else:
                method.type = "card"
                method.brand = rng.choice(CARD_BRANDS)
                # an expired card in about one case of six: its expiry month is before today's
                if rng.random() < 0.17:
                    expiry = TODAY - timedelta(days=rng.randint(20, 400))
                else:
                    expiry = TODAY + timedelta(days=rng.randint(60, 1500))
                method.exp_month, method.exp_year = expiry.month, expiry.year
            methods.append(method)
    return methods


def _payments(
    rng: random.Random,
    customers: list[Customer],
    methods: list[PaymentMethod],
    infos: dict[str, CurrencyInfo],
) -> tuple[list[Payment], list[Refund], list[Dispute]]:
    """Two to five payments per customer, in every status, with the refunds and disputes they imply."""
    payments: list[Payment] = []
    refunds: list[Refund] = []
    disputes: list[Dispute] = []
    by_customer: dict[str, list[PaymentMethod]] = {}
    for method in methods:
        by_customer.setdefault(method.customer_id, []).append(method)
    statuses = ("authorized", "captured", "partially_refunded", "refunded", "disputed")
    for customer in customers:
        for _ in range(rng.randint(2, 5)):
            method = rng.choice(by_customer[customer.id])
            status = rng.choices(statuses, weights=(16, 46, 14, 12, 12))[0]
            end = method.last_valid_day
            latest = min(TODAY, end) if end else TODAY
            if status == "authorized":
                if latest < TODAY - timedelta(days=6):
                    status = "captured"  # an expired card holds no fresh authorization
                else:
                    authorized_on = TODAY - timedelta(days=rng.randint(0, 6))
            if status == "disputed" and latest < TODAY - timedelta(days=DISPUTE_WINDOW_DAYS - 5):
                status = "captured"  # disputes open within the window, so the capture must be recent
            if status != "authorized":
                span = max(2, (latest - method.added_on).days)
                authorized_on = latest - timedelta(days=rng.randint(2, min(150, span)))
                if status == "disputed":
                    authorized_on = max(authorized_on, TODAY - timedelta(days=DISPUTE_WINDOW_DAYS - 5))
            merchant, description, low, high = rng.choice(MERCHANTS)
            currency = customer.home_currency if rng.random() < 0.8 else rng.choice(("USD", "EUR", "GBP"))
            amount = _to_minor(rng.uniform(low, high), infos[currency])
            payment = Payment(
                id=f"PAY-{1001 + len(payments)}",
                customer_id=customer.id,
                payment_method_id=method.id,
                merchant=merchant,
                description=description,
                currency=currency,
                status=status,
                authorized_minor=amount,
                captured_minor=0,
                refunded_minor=0,
                authorized_on=authorized_on,
            )
            payments.append(payment)
            if status == "authorized":
                continue
            payment.captured_on = min(TODAY - timedelta(days=1), authorized_on + timedelta(days=rng.randint(0, 2)))
            payment.captured_on = max(payment.captured_on, authorized_on)
            captured = amount
            if rng.random() < 0.15:  # captured for less than authorized (e.g. an item out of stock)
                captured = amount * rng.randint(60, 95) // 100
            payment.captured_minor = captured
            days_since = (TODAY - payment.captured_on).days
            if status == "partially_refunded":
                parts = rng.choice((1, 1, 2))
                total = captured * rng.randint(20, 70) // 100
                split = [total] if parts == 1 else [total // 2, total - total // 2]
                for part in split:
                    refunds.append(_refund(rng, refunds, payment, part, days_since))
                payment.refunded_minor = total
            elif status == "refunded":
                first = captured * rng.randint(30, 70) // 100 if rng.random() < 0.3 else captured
                for part in [first, captured - first] if first < captured else [captured]:
                    refunds.append(_refund(rng, refunds, payment, part, days_since))
                payment.refunded_minor = captured
            elif status == "disputed":
                reason = rng.choice(DISPUTE_REASONS)
                disputes.append(
                    Dispute(
                        id=f"DSP-{1001 + len(disputes)}",
                        payment_id=payment.id,
                        reason=reason,
                        amount_minor=captured,
                        status=rng.choice(("open", "open", "under_review")),
                        opened_on=payment.captured_on + timedelta(days=rng.randint(1, max(1, days_since))),
                        details=DISPUTE_DETAILS[reason],
                    )
                )
    return payments, refunds, disputes


def _refund(rng: random.Random, refunds: list[Refund], payment: Payment, cents: int, days_since: int) -> Refund:
    """A refund of part of a captured payment, some days after the capture."""
    assert payment.captured_on is not None
    return Refund(
        id=f"RFD-{1001 + len(refunds)}",
        payment_id=payment.id,
        amount_minor=cents,
        reason=rng.choice(REFUND_REASONS),
        refunded_on=payment.captured_on + timedelta(days=rng.randint(0, max(0, days_since - 1))),
    )


def _requests(
    rng: random.Random, customers: list[Customer], wallets: list[Wallet], infos: dict[str, CurrencyInfo]
) -> list[PaymentRequest]:
    """About ninety requests between customers: pending, paid, declined and expired."""
    requests: list[PaymentRequest] = []
    by_customer: dict[str, list[Wallet]] = {}
    for wallet in wallets:
        by_customer.setdefault(wallet.customer_id, []).append(wallet)
    for _ in range(90):
        requester, payer = rng.sample(customers, 2)
        currency = requester.home_currency
        status = rng.choices(("pending", "paid", "declined", "expired"), weights=(40, 25, 15, 20))[0]
        if status in ("pending", "paid", "declined"):
            requested = TODAY - timedelta(days=rng.randint(0, REQUEST_TTL_DAYS - 1))
        else:
            requested = TODAY - timedelta(days=rng.randint(REQUEST_TTL_DAYS + 1, 90))
        expires = requested + timedelta(days=REQUEST_TTL_DAYS)
        request = PaymentRequest(
            id=f"PRQ-{1001 + len(requests)}",
            requester_id=requester.id,
            payer_id=payer.id,
            currency=currency,
            amount_minor=_to_minor(rng.uniform(5, 250), infos[currency]),
            memo=rng.choice(REQUEST_MEMOS),
            status=status,
            requested_on=requested,
            expires_on=expires,
        )
        if status in ("paid", "declined"):
            request.resolved_on = min(TODAY, requested + timedelta(days=rng.randint(0, 5)))
        if status == "paid":
            request.paid_from_wallet_id = rng.choice(by_customer[payer.id]).id
        if status == "declined":
            request.decline_reason = rng.choice(DECLINE_REASONS)
        requests.append(request)
    return requests


def _transfers(rng: random.Random, wallets: list[Wallet], infos: dict[str, CurrencyInfo]) -> list[Transfer]:
    """Past conversions between two wallets of one customer, at the fixed rates."""
    by_customer: dict[str, list[Wallet]] = {}
    for wallet in wallets:
        by_customer.setdefault(wallet.customer_id, []).append(wallet)
    multi = [ws for _, ws in sorted(by_customer.items()) if len(ws) >= 2]
    entries: list[tuple[date, Transfer]] = []
    for _ in range(45):
        source, target = rng.sample(rng.choice(multi), 2)
        src, dst = infos[source.currency], infos[target.currency]
        debited = _to_minor(rng.uniform(20, 400), src)
        entries.append(
            (
                TODAY - timedelta(days=rng.randint(1, 120)),
                Transfer(
                    customer_id=source.customer_id,
                    from_wallet_id=source.id,
                    to_wallet_id=target.id,
                    debited_minor=debited,
                    credited_minor=convert_minor(debited, src, dst),
                    rate=str(quoted_rate(src, dst)),
                ),
            )
        )
    entries.sort(key=lambda e: (e[0], e[1].from_wallet_id, e[1].to_wallet_id))
    out = []
    for i, (day, transfer) in enumerate(entries):
        transfer.id = f"TRF-{1001 + i}"
        transfer.transferred_on = day
        out.append(transfer)
    return out


def seed(db: Session, rng: random.Random) -> None:
    """Fill an empty payments database deterministically.

    Args:
        db: Session on the freshly created schema.
        rng: The only source of randomness.
    """
    infos = {c.code: c for c in CURRENCIES}
    db.add_all(
        Currency(code=c.code, name=c.name, symbol=c.symbol, minor_units=c.minor_units, per_usd_micros=c.per_usd_micros)
        for c in CURRENCIES
    )
    customers = _customers(rng)
    wallets = _wallets(rng, customers, infos)
    methods = _methods(rng, customers)
    payments, refunds, disputes = _payments(rng, customers, methods, infos)
    requests = _requests(rng, customers, wallets, infos)
    transfers = _transfers(rng, wallets, infos)
    db.flush()
    db.add_all(customers)
    db.flush()
    db.add_all(wallets)
    db.add_all(methods)
    db.flush()
    db.add_all(payments)
    db.flush()
    db.add_all(refunds)
    db.add_all(disputes)
    db.add_all(requests)
    db.add_all(transfers)
    db.flush()
