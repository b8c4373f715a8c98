"""Data model of the trading server: exchanges, instruments, quotes, accounts, orders, trades, watchlists.

Money is stored as integer cents, and every price is in US dollars (the broker quotes its foreign
listings in dollars too). Ids are stable, human-readable strings (``ACC-1001``, ``ORD-10001``,
``TRD-10001``, ``POS-1001``, ``WL-1001``, ``CSH-1001``); an instrument is keyed by its symbol
(``FJS``, ``7604``). New ids take the next number after the largest in the table, so replaying the
same calls yields the same ids.

Time is the kit's fixed clock: `CLOCK` (a Thursday, 17:00 UTC). It is inside the trading session of
the North American exchanges and outside those of London, Frankfurt and Tokyo, so market orders are
accepted on some instruments and refused on others. Quotes are fixed for the episode.
"""

from __future__ import annotations

from datetime import date, datetime, time

from sqlalchemy import Date, DateTime, ForeignKey, Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from gym_mcp.servers.kit import string_id, volatile_timestamp

__all__ = [
    "ACCOUNT_TYPES",
    "BROKER_NAME",
    "CLOCK",
    "INSTRUMENT_KINDS",
    "ORDER_SIDES",
    "ORDER_STATUSES",
    "ORDER_TYPES",
    "TODAY",
    "Account",
    "Base",
    "CashMovement",
    "Exchange",
    "Instrument",
    "Order",
    "Position",
    "Quote",
    "Trade",
    "Watchlist",
    "WatchlistItem",
]

TODAY = date(2026, 1, 15)
"""The server's fixed reference date (the kit's ``today``), a Thursday."""

CLOCK_TIME_UTC = time(17, 0)
"""The fixed time of day of the clock, in UTC (12:00 in New York, 17:00 in London)."""

CLOCK = datetime.combine(TODAY, CLOCK_TIME_UTC)
"""The fixed clock, naive UTC: every "now" rule (market hours, order and trade times) uses it."""

BROKER_NAME = "Harborview Securities"
"""The broker this server runs."""

ACCOUNT_TYPES = ("individual", "joint", "ira")
INSTRUMENT_KINDS = ("stock", "etf")
ORDER_SIDES = ("buy", "sell")
ORDER_TYPES = ("market", "limit")
ORDER_STATUSES = ("open", "filled", "cancelled", "rejected")


class Base(DeclarativeBase):
    """Declarative base of the trading tables."""


class _Record:
    """What most trading rows have: a string id (first) and a volatile creation time (last)."""

    id: Mapped[str] = string_id(sort_order=-1)
    created_at: Mapped[datetime] = volatile_timestamp()


class Exchange(Base):
    """A stock exchange with its regular trading session in local time (Monday to Friday)."""

    __tablename__ = "exchanges"

    code: Mapped[str] = string_id(8)
    name: Mapped[str] = mapped_column(String(60))
    city: Mapped[str] = mapped_column(String(40))
    utc_offset_minutes: Mapped[int] = mapped_column(Integer)
    opens: Mapped[str] = mapped_column(String(5))  # "09:30", local time
    closes: Mapped[str] = mapped_column(String(5))  # "16:00", local time


class Instrument(Base):
    """A tradable stock or ETF, keyed by its ticker symbol."""

    __tablename__ = "instruments"

    symbol: Mapped[str] = string_id(12)
    name: Mapped[str] = mapped_column(String(80))
    kind: Mapped[str] = mapped_column(String(8))
    sector: Mapped[str] = mapped_column(String(40))
    exchange: Mapped[str] = mapped_column(ForeignKey("exchanges.code"), index=True)
    lot_size: Mapped[int] = mapped_column(Integer, default=1)
    status: Mapped[str] = mapped_column(String(12), default="active")  # "active" or "halted"
    halt_reason: Mapped[str | None] = mapped_column(String(80), nullable=True, default=None)


class Quote(Base):
    """The fixed quote of an instrument for the episode: bid, ask, last trade and previous close."""

    __tablename__ = "quotes"

    symbol: Mapped[str] = mapped_column(ForeignKey("instruments.symbol"), primary_key=True)
    bid_cents: Mapped[int] = mapped_column(Integer)
    ask_cents: Mapped[int] = mapped_column(Integer)
    last_cents: Mapped[int] = mapped_column(Integer)
    prev_close_cents: Mapped[int] = mapped_column(Integer)
    volume: Mapped[int] = mapped_column(Integer)


class Account(_Record, Base):
    """A brokerage account: cash in US dollars; buying power is cash less what open buy orders reserve."""

    __tablename__ = "accounts"

    owner: Mapped[str] = mapped_column(String(80))
    email: Mapped[str] = mapped_column(String(120), unique=True)
    type: Mapped[str] = mapped_column(String(12))
    cash_cents: Mapped[int] = mapped_column(Integer, default=0)
    opened_on: Mapped[date] = mapped_column(Date)


class Position(_Record, Base):
    """Shares of one instrument held in an account; ``cost_basis_cents`` is what they cost in all."""

    __tablename__ = "positions"

    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"), index=True)
    symbol: Mapped[str] = mapped_column(ForeignKey("instruments.symbol"), index=True)
    quantity: Mapped[int] = mapped_column(Integer)
    cost_basis_cents: Mapped[int] = mapped_column(Integer)
    opened_on: Mapped[date] = mapped_column(Date)


class Order(_Record, Base):
    """A market or limit order; an open buy reserves quantity x limit price of cash, an open sell its shares."""

    __tablename__ = "orders"

    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"), index=True)
    symbol: Mapped[str] = mapped_column(ForeignKey("instruments.symbol"), index=True)
    side: Mapped[str] = mapped_column(String(4))
    type: Mapped[str] = mapped_column(String(8))
    quantity: Mapped[int] = mapped_column(Integer)
    limit_price_cents: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
    status: Mapped[str] = mapped_column(String(12), index=True)
    fill_price_cents: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
    placed_at: Mapped[datetime] = mapped_column(DateTime)
    closed_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True, default=None)
    reject_reason: Mapped[str | None] = mapped_column(String(120), nullable=True, default=None)


class Trade(_Record, Base):
    """One execution (fill) of an order; a sell records the profit or loss it realised."""

    __tablename__ = "trades"

    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), index=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"), index=True)
    symbol: Mapped[str] = mapped_column(ForeignKey("instruments.symbol"), index=True)
    side: Mapped[str] = mapped_column(String(4))
    quantity: Mapped[int] = mapped_column(Integer)
    price_cents: Mapped[int] = mapped_column(Integer)
    amount_cents: Mapped[int] = mapped_column(Integer)  # signed cash effect: negative for a buy
    realized_pnl_cents: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
    executed_at: Mapped[datetime] = mapped_column(DateTime, index=True)


class CashMovement(_Record, Base):
    """A deposit into or a withdrawal from an account's cash (``amount_cents`` negative for a withdrawal)."""

    __tablename__ = "cash_movements"

    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"), index=True)
    kind: Mapped[str] = mapped_column(String(12))
    amount_cents: Mapped[int] = mapped_column(Integer)
    cash_after_cents: Mapped[int] = mapped_column(Integer)
    posted_at: Mapped[datetime] = mapped_column(DateTime)


class Watchlist(_Record, Base):
    """A named list of symbols an account follows; names are unique per account (ignoring case)."""

    __tablename__ = "watchlists"

    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"), index=True)
    name: Mapped[str] = mapped_column(String(40))


class WatchlistItem(Base):
    """One symbol on a watchlist (a symbol appears at most once per watchlist)."""

    __tablename__ = "watchlist_items"

    watchlist_id: Mapped[str] = mapped_column(ForeignKey("watchlists.id"), primary_key=True)
    symbol: Mapped[str] = mapped_column(ForeignKey("instruments.symbol"), primary_key=True)
    rank: Mapped[int] = mapped_column(Integer)  # place on the list, 1 first
