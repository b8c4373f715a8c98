"""Deterministic seed data of the trading server.

The instrument universe (exchanges, symbols, names, sectors, lot sizes) is the same for every seed,
so synthesis samples can name symbols; `seed` draws everything else from a `random.Random` alone:
quotes, trading halts, accounts, their history of deposits, orders and fills, the positions and
cash that history leaves, open limit orders and watchlists. The same seed always gives the same
data. Every seed has halted instruments, open buy and sell orders, cancelled and rejected orders,
and instruments on exchanges that are closed at the kit's clock, so every tool's error paths are
reachable.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from functools import cache

from sqlalchemy.orm import Session

from gym_mcp.servers.kit import NamePool, unique_email
from gym_mcp.servers.trading.models import (
    CLOCK,
    TODAY,
    Account,
    CashMovement,
    Exchange,
    Instrument,
    Order,
    Position,
    Quote,
    Trade,
    Watchlist,
    WatchlistItem,
)

__all__ = ["EXCHANGES", "SAMPLE_SYMBOLS", "UniverseEntry", "seed", "universe"]

EXCHANGES = (
    # code, name, city, UTC offset in January (minutes), opens, closes (local time)
    ("NYSE", "New York Stock Exchange", "New York", -300, "09:30", "16:00"),
    ("NASDAQ", "Nasdaq Stock Market", "New York", -300, "09:30", "16:00"),
    ("ARCA", "NYSE Arca", "New York", -300, "09:30", "16:00"),
    ("TSX", "Toronto Stock Exchange", "Toronto", -300, "09:30", "16:00"),
    ("LSE", "London Stock Exchange", "London", 0, "08:00", "16:30"),
    ("XETRA", "Xetra", "Frankfurt", 60, "09:00", "17:30"),
    ("TSE", "Tokyo Stock Exchange", "Tokyo", 540, "09:00", "15:00"),
)
"""The exchanges: at the clock (17:00 UTC) the first four are open, the last three closed."""

PREFIXES = (
    "Northwind", "Bluewater", "Cedar", "Summit", "Granite", "Helix", "Aurora", "Pioneer", "Redwood", "Silverline",
    "Crescent", "Beacon", "Ironclad", "Meridian", "Harbor", "Vantage", "Atlas", "Lumen", "Orion", "Sterling",
    "Evergreen", "Keystone", "Polaris", "Quantum", "Riverbend", "Sable", "Titan", "Westfield", "Zenith", "Falcon",
    "Copperleaf", "Driftwood", "Eastgate", "Foxglove", "Goldcrest", "Highland", "Ivory", "Juniper", "Kestrel",
    "Lakeshore", "Magnolia", "Nimbus", "Oakridge", "Pinnacle", "Quarry", "Rosewood", "Stonebridge", "Tidewater",
    "Upland", "Verdant", "Willow", "Yarrow", "Alder", "Birchwood", "Cobalt", "Delphi", "Ember", "Fjord", "Glacier",
    "Hawthorn", "Indigo", "Jasper", "Kingsley", "Larkspur", "Mistral", "Nova", "Osprey", "Prairie", "Radiant",
    "Saffron", "Thornbury", "Umber", "Valiant", "Windward", "Azure", "Bramble", "Castle", "Dune", "Elm",
    "Fairhaven", "Greystone", "Heron", "Inlet", "Jetstream", "Kingfisher", "Lodestar", "Marlin", "Northgate",
    "Obsidian", "Palisade", "Quill", "Ridgeline", "Seabright", "Timberline", "Unity", "Vireo", "Wexford",
    "Yellowstone", "Anchor", "Bayside", "Clearwater", "Dovetail", "Everest", "Fernhill",
)  # fmt: skip
SECTORS = {
    "Technology": ("Semiconductor", "Software", "Systems", "Networks", "Microdevices", "Data"),
    "Healthcare": ("Therapeutics", "Biosciences", "Medical", "Health", "Pharma"),
    "Financials": ("Bancorp", "Financial", "Capital", "Insurance"),
    "Energy": ("Energy", "Petroleum", "Renewables", "Pipeline"),
    "Consumer": ("Foods", "Apparel", "Brands", "Restaurants", "Retail"),
    "Industrials": ("Aerospace", "Logistics", "Industries", "Rail", "Machinery"),
    "Utilities": ("Power", "Water", "Utilities"),
    "Materials": ("Mining", "Chemicals", "Steel", "Materials"),
    "Communication": ("Media", "Telecom", "Interactive"),
    "Real Estate": ("Realty", "Properties"),
}
STOCKS_PER_EXCHANGE = {"NYSE": 30, "NASDAQ": 30, "TSX": 10, "LSE": 12, "XETRA": 10, "TSE": 10}
LEGAL_FORMS = {
    "NYSE": ("Inc.", "Corp.", "Holdings", "Group"),
    "NASDAQ": ("Inc.", "Corp.", "Holdings"),
    "TSX": ("Ltd.", "Inc."),
    "LSE": ("plc", "Group plc"),
    "XETRA": ("AG", "SE"),
    "TSE": ("Co., Ltd.", "Holdings"),
}
ETFS = (
    ("KTM", "Keel Total Market ETF", "Diversified"),
    ("KLC", "Keel Large Cap ETF", "Diversified"),
    ("KSC", "Keel Small Cap ETF", "Diversified"),
    ("KINT", "Keel International Equity ETF", "Diversified"),
    ("KEMG", "Keel Emerging Markets ETF", "Diversified"),
    ("KAGG", "Keel Aggregate Bond ETF", "Fixed Income"),
    ("KTRS", "Keel Treasury 1-3 Year ETF", "Fixed Income"),
    ("KDIV", "Keel Dividend Growth ETF", "Diversified"),
    ("KTEC", "Keel Technology Sector ETF", "Technology"),
    ("KHLT", "Keel Healthcare Sector ETF", "Healthcare"),
    ("KENR", "Keel Energy Sector ETF", "Energy"),
    ("KFIN", "Keel Financials Sector ETF", "Financials"),
    ("KREE", "Keel Real Estate ETF", "Real Estate"),
    ("KCLN", "Keel Clean Energy ETF", "Energy"),
    ("KGLD", "Keel Gold Trust", "Commodities"),
)
LOT_SIZES = {"TSE": 100}
"""Shares per trading lot where it is not 1: orders must be a whole number of lots."""

FIRST_NAMES = (
    "Olivia", "Liam", "Emma", "Noah", "Ava", "Elijah", "Sophia", "James", "Isabella", "Lucas", "Mia", "Mateo",
    "Amelia", "Ethan", "Harper", "Benjamin", "Evelyn", "Daniel", "Abigail", "Henry", "Emily", "Jackson", "Ella",
    "Samuel", "Grace", "David", "Chloe", "Priya", "Arjun", "Mei", "Wei", "Fatima", "Omar", "Sofia", "Diego",
    "Aisha", "Kwame", "Hana", "Kenji", "Ingrid", "Lars", "Camila", "Rafael", "Zoe", "Nora", "Leo",
)  # fmt: skip
LAST_NAMES = (
    "Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez",
    "Lopez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Martin", "Lee", "Perez", "Thompson", "White",
    "Harris", "Clark", "Lewis", "Walker", "Young", "Allen", "King", "Wright", "Scott", "Nguyen", "Patel", "Kim",
    "Chen", "Okafor", "Mensah", "Nakamura", "Larsen", "Novak", "Rossi", "Schmidt", "Dubois",
)  # fmt: skip
PEOPLE = NamePool(FIRST_NAMES, LAST_NAMES)
"""The names people of the seed data are drawn from."""
EMAIL_DOMAINS = ("gmail.com", "outlook.com", "yahoo.com", "icloud.com", "proton.me", "fastmail.com")
WATCHLIST_NAMES = (
    "Tech Watch",
    "Dividend Ideas",
    "Long Term",
    "Energy Plays",
    "ETF Core",
    "Europe",
    "Japan",
    "Speculative",
    "Healthcare",
    "Earnings Season",
)
HALT_REASONS = ("News pending", "Volatility pause", "Regulatory review")
REJECT_REASONS = (
    "Price outside the exchange's daily price band",
    "Rejected by the exchange: order size over the single-order maximum",
    "Rejected by the exchange: symbol was halted",
)


@dataclass(frozen=True)
class UniverseEntry:
    """One instrument of the fixed universe."""

    symbol: str
    name: str
    kind: str
    sector: str
    exchange: str
    lot_size: int


@cache
def universe() -> tuple[UniverseEntry, ...]:
    """The instruments, the same for every seed: 102 stocks on six exchanges and 15 ETFs on ARCA."""
    rng = random.Random("harborview-universe")
    prefixes = list(PREFIXES)
    rng.shuffle(prefixes)
    taken: set[str] = {e[0] for e in ETFS}
    out: list[UniverseEntry] = []
    for exchange, count in STOCKS_PER_EXCHANGE.items():
        for _ in range(count):
            prefix = prefixes.pop()
            sector = rng.choice(sorted(SECTORS))
            suffix = rng.choice(SECTORS[sector])
            name = f"{prefix} {suffix} {rng.choice(LEGAL_FORMS[exchange])}"
            out.append(
                UniverseEntry(
                    _symbol(rng, exchange, prefix, suffix, taken),
                    name,
                    "stock",
                    sector,
                    exchange,
                    LOT_SIZES.get(exchange, 1),
                )
            )
    out.extend(UniverseEntry(sym, name, "etf", sector, "ARCA", 1) for sym, name, sector in ETFS)
    return tuple(out)


def _symbol(rng: random.Random, exchange: str, prefix: str, suffix: str, taken: set[str]) -> str:
    """A unique ticker: four digits in Tokyo, letters from the name elsewhere."""
    while True:
        if exchange == "TSE":
            symbol = str(rng.randint(1301, 9984))
        else:
            letters = 4 if exchange == "NASDAQ" else 3
            head = prefix[: letters - 1].upper()
            symbol = head + suffix[0].upper()
            if symbol in taken:
                symbol = head[:-1] + rng.choice("ABCDEFGHKLMNPRSTVWXZ") + suffix[0].upper()
        if symbol not in taken:
            taken.add(symbol)
            return symbol


def _sample_symbols() -> tuple[str, ...]:
    """Symbols for synthesis: mostly open-exchange stocks and ETFs, a few on closed exchanges."""
    by_exchange: dict[str, list[str]] = {}
    for entry in universe():
        by_exchange.setdefault(entry.exchange, []).append(entry.symbol)
    wanted = {"NYSE": 6, "NASDAQ": 6, "ARCA": 3, "TSX": 2, "LSE": 1, "XETRA": 1, "TSE": 1}
    return tuple(s for code, k in wanted.items() for s in by_exchange[code][:k])


SAMPLE_SYMBOLS = _sample_symbols()
"""Symbols that synthesis samples; seed data never halts them and favours them in holdings."""


# -- prices ----------------------------------------------------------------------------------------


def _price_cents(rng: random.Random, entry: UniverseEntry) -> int:
    """A plausible last price in cents: log-uniform, lower for Tokyo lots of 100."""
    low, high = (5, 90) if entry.lot_size > 1 else (20, 450) if entry.kind == "etf" else (8, 650)
    return round(low * (high / low) ** rng.random() * 100)


def _quote(rng: random.Random, entry: UniverseEntry) -> Quote:
    last = _price_cents(rng, entry)
    spread = max(1, round(last * rng.uniform(0.0002, 0.0015)))
    bid = last - spread // 2 - rng.randint(0, 1)
    ask = bid + spread + 1
    return Quote(
        symbol=entry.symbol,
        bid_cents=bid,
        ask_cents=ask,
        last_cents=last,
        prev_close_cents=round(last * (1 + rng.gauss(0, 0.015))),
        volume=rng.randint(20, 9000) * 1000,
    )


# -- history ---------------------------------------------------------------------------------------


@dataclass
class _Book:
    """One account while its history is simulated."""

    account: Account
    cash: int
    holdings: dict[str, list[int]] = field(default_factory=dict)  # symbol -> [quantity, cost basis]
    first_bought: dict[str, date] = field(default_factory=dict)
    reserved: int = 0  # cash held by open buy orders
    selling: dict[str, int] = field(default_factory=dict)  # shares held by open sell orders


@dataclass
class _Event:
    """An order, a fill or a cash movement before it gets its id (ids follow the global time order)."""

    at: datetime
    account: str
    kind: str  # "order" or "cash"
    seq: int
    order: Order | None = None
    trade: Trade | None = None
    cash: CashMovement | None = None


def _session_time(rng: random.Random, day: date, exchange: tuple[str, str, str, int, str, str]) -> datetime:
    """A random minute, in UTC, inside an exchange's session on a day."""
    _, _, _, offset, opens, closes = exchange
    start = datetime.combine(day, time.fromisoformat(opens)) - timedelta(minutes=offset)
    end = datetime.combine(day, time.fromisoformat(closes)) - timedelta(minutes=offset)
    minutes = int((end - start).total_seconds() // 60)
    return start + timedelta(minutes=rng.randint(5, minutes - 5))


def _trading_days(rng: random.Random, first: date, last: date, count: int) -> list[date]:
    """Up to ``count`` distinct weekdays strictly after ``first`` and up to ``last``, in order."""
    span = (last - first).days
    if span < 1:
        return []
    offsets = rng.sample(range(1, span + 1), min(span, count * 2))
    days = [first + timedelta(days=o) for o in offsets]
    return sorted(d for d in days if d.weekday() < 5)[:count]


def _history(
    rng: random.Random,
    book: _Book,
    entries: dict[str, UniverseEntry],
    quotes: dict[str, Quote],
    halted: set[str],
) -> list[_Event]:
    """Deposits, withdrawals and orders of one account, in time order, applied to its book."""
    acc = book.account
    exchanges = {e[0]: e for e in EXCHANGES}
    events: list[_Event] = []
    seq = 0

    def add(event: _Event) -> None:
        nonlocal seq
        event.seq = seq
        seq += 1
        events.append(event)

    def cash_move(at: datetime, kind: str, cents: int) -> None:
        book.cash += cents
        add(
            _Event(
                at,
                acc.id,
                "cash",
                0,
                cash=CashMovement(
                    account_id=acc.id, kind=kind, amount_cents=cents, cash_after_cents=book.cash, posted_at=at
                ),
            )
        )

    first_day = acc.opened_on
    while first_day.weekday() >= 5:
        first_day += timedelta(days=1)
    opening = round(2000 * 75 ** rng.random()) * 100  # $2,000 to $150,000
    cash_move(datetime.combine(first_day, time(14, 5)), "deposit", opening)
    tradable = [e.symbol for e in entries.values() if e.symbol not in halted]
    favourites = [s for s in SAMPLE_SYMBOLS if s in tradable]
    picks = _trading_days(rng, first_day, TODAY - timedelta(days=1), rng.randint(4, 12))
    for day in picks:
        roll = rng.random()
        if roll < 0.55 or not book.holdings:
            symbol = rng.choice(favourites) if rng.random() < 0.5 else rng.choice(tradable)
            entry = entries[symbol]
            at = _session_time(rng, day, exchanges[entry.exchange])
            price = round(quotes[symbol].last_cents * rng.uniform(0.7, 1.12))
            budget = book.cash * rng.uniform(0.1, 0.45)
            lots = int(budget // (price * entry.lot_size))
            if lots < 1:
                continue
            qty = rng.randint(1, min(lots, 40 if entry.lot_size == 1 else 5)) * entry.lot_size
            if rng.random() < 0.12:  # a refused order: no cash changes
                order = _order(acc.id, symbol, "buy", "limit", qty, at, "rejected", limit=price)
                order.reject_reason = rng.choice(REJECT_REASONS)
                add(_Event(at, acc.id, "order", 0, order=order))
                continue
            if rng.random() < 0.12:  # a limit order the customer cancelled before it filled
                order = _order(acc.id, symbol, "buy", "limit", qty, at, "cancelled", limit=round(price * 0.95))
                order.closed_at = at + timedelta(minutes=rng.randint(10, 200))
                add(_Event(at, acc.id, "order", 0, order=order))
                continue
            kind = rng.choice(("market", "limit"))
            order = _order(acc.id, symbol, "buy", kind, qty, at, "filled", limit=price if kind == "limit" else None)
            order.fill_price_cents, order.closed_at = price, at
            amount = -price * qty
            trade = Trade(
                account_id=acc.id,
                symbol=symbol,
                side="buy",
                quantity=qty,
                price_cents=price,
                amount_cents=amount,
                executed_at=at,
            )
            book.cash += amount
            held = book.holdings.setdefault(symbol, [0, 0])
            if held[0] == 0:
                book.first_bought[symbol] = day
            held[0] += qty
            held[1] += -amount
            add(_Event(at, acc.id, "order", 0, order=order, trade=trade))
        elif roll < 0.75:
            symbol = rng.choice(sorted(book.holdings))
            qty_held, basis = book.holdings[symbol]
            entry = entries[symbol]
            lots = qty_held // entry.lot_size
            qty = (lots if rng.random() < 0.35 else rng.randint(1, lots)) * entry.lot_size
            at = _session_time(rng, day, exchanges[entry.exchange])
            price = round(quotes[symbol].last_cents * rng.uniform(0.8, 1.15))
            kind = rng.choice(("market", "limit"))
            order = _order(acc.id, symbol, "sell", kind, qty, at, "filled", limit=price if kind == "limit" else None)
            order.fill_price_cents, order.closed_at = price, at
            released = round(basis * qty / qty_held)
            trade = Trade(
                account_id=acc.id,
                symbol=symbol,
                side="sell",
                quantity=qty,
                price_cents=price,
                amount_cents=price * qty,
                realized_pnl_cents=price * qty - released,
                executed_at=at,
            )
            book.cash += price * qty
            if qty == qty_held:
                del book.holdings[symbol]
            else:
                book.holdings[symbol] = [qty_held - qty, basis - released]
            add(_Event(at, acc.id, "order", 0, order=order, trade=trade))
        elif roll < 0.9:
            at = datetime.combine(day, time(rng.randint(13, 21), rng.randint(0, 59)))
            cash_move(at, "deposit", rng.randint(5, 200) * 10_000)
        elif book.cash > 50_000:
            at = datetime.combine(day, time(rng.randint(13, 21), rng.randint(0, 59)))
            cash_move(at, "withdrawal", -rng.randint(1, max(1, book.cash * 3 // 10 // 10_000)) * 10_000)
    events.extend(_open_orders(rng, book, entries, quotes, halted, seq))
    return events


def _order(
    account: str, symbol: str, side: str, kind: str, qty: int, at: datetime, status: str, *, limit: int | None
) -> Order:
    return Order(
        account_id=account,
        symbol=symbol,
        side=side,
        type=kind,
        quantity=qty,
        limit_price_cents=limit,
        status=status,
        placed_at=at,
    )


def _open_orders(
    rng: random.Random,
    book: _Book,
    entries: dict[str, UniverseEntry],
    quotes: dict[str, Quote],
    halted: set[str],
    seq: int,
) -> list[_Event]:
    """Good-till-cancelled limit orders still waiting: buys below the ask, sells above the bid."""
    acc = book.account
    out: list[_Event] = []
    if rng.random() > 0.45:
        return out
    for _ in range(rng.randint(1, 3)):
        day = TODAY - timedelta(days=rng.randint(0, 6))
        while day.weekday() >= 5:
            day -= timedelta(days=1)
        at = datetime.combine(day, time(rng.randint(12, 16), rng.randint(0, 59)))
        if at >= CLOCK:
            at = CLOCK - timedelta(hours=rng.randint(2, 5))
        free = {s: q - book.selling.get(s, 0) for s, (q, _) in book.holdings.items()}
        sellable = [s for s, q in free.items() if q >= entries[s].lot_size and s not in halted]
        if sellable and rng.random() < 0.4:
            symbol = rng.choice(sorted(sellable))
            entry = entries[symbol]
            qty = rng.randint(1, free[symbol] // entry.lot_size) * entry.lot_size
            book.selling[symbol] = book.selling.get(symbol, 0) + qty
            limit = round(quotes[symbol].ask_cents * rng.uniform(1.03, 1.15))
            order = _order(acc.id, symbol, "sell", "limit", qty, at, "open", limit=limit)
            out.append(_Event(at, acc.id, "order", seq, order=order))
        else:
            symbol = rng.choice([s for s in SAMPLE_SYMBOLS if s not in halted])
            entry = entries[symbol]
            limit = round(quotes[symbol].bid_cents * rng.uniform(0.85, 0.97))
            room = (book.cash - book.reserved) * 2 // 5
            lots = room // (limit * entry.lot_size)
            if lots < 1:
                continue
            qty = rng.randint(1, min(lots, 30 if entry.lot_size == 1 else 3)) * entry.lot_size
            book.reserved += qty * limit
            order = _order(acc.id, symbol, "buy", "limit", qty, at, "open", limit=limit)
            out.append(_Event(at, acc.id, "order", seq, order=order))
        seq += 1
    return out


# -- accounts and watchlists ------------------------------------------------------------------------


def _accounts(rng: random.Random) -> list[Account]:
    """Forty accounts with unique emails, opened 100 days to 7 years ago."""
    accounts: list[Account] = []
    emails: set[str] = set()
    for i in range(40):
        first, last = PEOPLE.draw(rng)
        kind = rng.choices(("individual", "joint", "ira"), weights=(6, 2, 2))[0]
        owner = f"{first} {last}"
        if kind == "joint":
            owner = f"{first} & {rng.choice(FIRST_NAMES)} {last}"
        domain = rng.choice(EMAIL_DOMAINS)
        email = unique_email(first, last, domain, emails)
        accounts.append(
            Account(
                id=f"ACC-{1001 + i}",
                owner=owner,
                email=email,
                type=kind,
                cash_cents=0,
                opened_on=TODAY - timedelta(days=rng.randint(100, 2500)),
            )
        )
    return accounts


def _watchlists(
    rng: random.Random, accounts: list[Account], symbols: list[str]
) -> tuple[list[Watchlist], list[WatchlistItem]]:
    """One or two named watchlists for most accounts, three to seven symbols each."""
    lists: list[Watchlist] = []
    items: list[WatchlistItem] = []
    for acc in accounts:
        count = rng.choices((0, 1, 2), weights=(3, 5, 3))[0]
        for name in rng.sample(WATCHLIST_NAMES, count):
            wl = Watchlist(id=f"WL-{1001 + len(lists)}", account_id=acc.id, name=name)
            lists.append(wl)
            pool = SAMPLE_SYMBOLS if rng.random() < 0.5 else symbols
            for rank, symbol in enumerate(rng.sample(sorted(set(pool)), rng.randint(3, 7)), start=1):
                items.append(WatchlistItem(watchlist_id=wl.id, symbol=symbol, rank=rank))
    return lists, items


def seed(db: Session, rng: random.Random) -> None:
    """Fill an empty trading database deterministically.

    Args:
        db: Session on the freshly created schema.
        rng: The only source of randomness.
    """
    entries = {e.symbol: e for e in universe()}
    exchanges = [
        Exchange(code=c, name=n, city=city, utc_offset_minutes=off, opens=o, closes=cl)
        for c, n, city, off, o, cl in EXCHANGES
    ]
    instruments = [
        Instrument(symbol=e.symbol, name=e.name, kind=e.kind, sector=e.sector, exchange=e.exchange, lot_size=e.lot_size)
        for e in entries.values()
    ]
    quotes = {e.symbol: _quote(rng, e) for e in entries.values()}
    haltable = [i for i in instruments if i.kind == "stock" and i.symbol not in SAMPLE_SYMBOLS]
    halted: set[str] = set()
    for inst in rng.sample(haltable, 3):
        inst.status = "halted"
        inst.halt_reason = rng.choice(HALT_REASONS)
        halted.add(inst.symbol)

    accounts = _accounts(rng)
    books = [_Book(acc, 0) for acc in accounts]
    events = [e for book in books for e in _history(rng, book, entries, quotes, halted)]
    events.sort(key=lambda e: (e.at, e.account, e.seq))
    orders: list[Order] = []
    trades: list[Trade] = []
    moves: list[CashMovement] = []
    for event in events:
        if event.order is not None:
            event.order.id = f"ORD-{10001 + len(orders)}"
            orders.append(event.order)
        if event.trade is not None and event.order is not None:
            event.trade.id = f"TRD-{10001 + len(trades)}"
            event.trade.order_id = event.order.id
            trades.append(event.trade)
        if event.cash is not None:
            event.cash.id = f"CSH-{1001 + len(moves)}"
            moves.append(event.cash)

    positions: list[Position] = []
    for book in books:
        book.account.cash_cents = book.cash
        for symbol in sorted(book.holdings, key=lambda s: (book.first_bought[s], s)):
            qty, basis = book.holdings[symbol]
            positions.append(
                Position(
                    id=f"POS-{1001 + len(positions)}",
                    account_id=book.account.id,
                    symbol=symbol,
                    quantity=qty,
                    cost_basis_cents=basis,
                    opened_on=book.first_bought[symbol],
                )
            )
    watchlists, items = _watchlists(rng, accounts, sorted(entries))

    db.add_all(exchanges)
    db.flush()
    db.add_all(instruments)
    db.flush()
    db.add_all(quotes.values())
    db.add_all(accounts)
    db.flush()
    db.add_all(orders)
    db.flush()
    db.add_all(trades)
    db.add_all(moves)
    db.add_all(positions)
    db.add_all(watchlists)
    db.flush()
    db.add_all(items)
    db.flush()
