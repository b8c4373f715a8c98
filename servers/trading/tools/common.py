"""What the trading tools share: the kit, the clock and market hours, lookups, the trading rules, result shapes.

Prices and cash are stored in cents and shown in dollars. An account's buying power is its cash
less what its open buy limit orders reserve (quantity x limit price); an open sell order reserves
its shares, so they cannot be sold twice. Quotes are fixed for the episode, and every "now" is the
kit's fixed clock (`now`), so episodes replay identically.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, time, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import Finder, ServerKit, ToolError, dollars, format_dollars, next_id, pick
from gym_mcp.servers.trading.data import SAMPLE_SYMBOLS, seed
from gym_mcp.servers.trading.models import (
    BROKER_NAME,
    CLOCK_TIME_UTC,
    TODAY,
    Account,
    Base,
    Exchange,
    Instrument,
    Order,
    Position,
    Quote,
    Trade,
    Watchlist,
)

__all__ = [
    "account_summary",
    "check_buying_power",
    "check_quantity",
    "check_sellable",
    "check_side",
    "check_tradable",
    "execute",
    "is_open",
    "kit",
    "load_account",
    "load_instrument",
    "load_order",
    "load_watchlist",
    "new_order",
    "now",
    "order_view",
    "position_view",
    "quote_of",
    "quote_view",
    "reserved_cash",
    "reserved_shares",
    "session",
    "trade_view",
]

INSTRUCTIONS = f"""\
Brokerage back office of {BROKER_NAME}. Accounts ("ACC-1001") hold cash in US dollars, positions
("POS-1001") in stocks and ETFs, orders ("ORD-10001"), their fills ("TRD-10001") and watchlists
("WL-1001"). Instruments are keyed by ticker symbol ("FJS"; Tokyo listings use four digits, "7604")
and every price is in US dollars. Quotes (bid/ask/last) are fixed. The clock is fixed at
{TODAY.isoformat()} {CLOCK_TIME_UTC.strftime("%H:%M")} UTC: get_market_clock shows which exchanges are
open. Market orders are accepted only while the instrument's exchange is open; limit orders are
accepted any time and fill at once only when the exchange is open and the quote is at the limit
or better (buy: ask <= limit, sell: bid >= limit), otherwise they stay open until cancelled.
A buy cannot cost more than the buying power (cash less what open buy orders reserve); short
selling is not allowed. Find an account with list_accounts and a symbol with search_instruments."""

kit = ServerKit(
    "trading",
    base=Base,
    seed=seed,
    instructions=INSTRUCTIONS,
    today=TODAY,
    samples={"limit": (3, 5, 10, 20), "symbol": SAMPLE_SYMBOLS},
    inline=True,
)


def now() -> datetime:
    """The fixed clock: the kit's ``today`` at 17:00 UTC (naive UTC)."""
    return datetime.combine(kit.today, CLOCK_TIME_UTC)


# -- lookups ------------------------------------------------------------------------------------

_MISSING = "No {noun} with id {id!r}. {Noun} ids look like '{example}'; {hint}."
load_account = Finder(
    Account,
    "account",
    "ACC-1001",
    "use list_accounts (optionally with the owner's name) to see valid ones",
    message=_MISSING,
)
load_order = Finder(
    Order, "order", "ORD-10001", "use list_orders with the account id to see its orders", message=_MISSING
)
load_watchlist = Finder(
    Watchlist, "watchlist", "WL-1001", "use list_watchlists with the account id to see its watchlists", message=_MISSING
)
load_instrument = Finder(
    Instrument,
    "symbol",
    "FJS",
    "",
    message="Unknown symbol {id!r}. Use search_instruments with part of the company name to find its ticker.",
)


def quote_of(db: Session, instrument: Instrument) -> Quote:
    """The fixed quote of an instrument (every instrument has one)."""
    quote = db.get(Quote, instrument.symbol)
    if quote is None:  # pragma: no cover - the seed gives every instrument a quote
        raise ToolError(f"No quote is available for {instrument.symbol}; try another symbol.")
    return quote


# -- market hours -------------------------------------------------------------------------------


def session(exchange: Exchange) -> dict[str, Any]:
    """Whether an exchange is open at the clock, with its local time and the next open or close.

    Sessions run Monday to Friday between ``opens`` and ``closes`` local time (UTC plus the
    exchange's offset); there are no holidays in this market.
    """
    offset = timedelta(minutes=exchange.utc_offset_minutes)
    local = now() + offset
    opens, closes = time.fromisoformat(exchange.opens), time.fromisoformat(exchange.closes)
    is_open = local.weekday() < 5 and opens <= local.time() < closes
    out: dict[str, Any] = {
        "exchange": exchange.code,
        "name": exchange.name,
        "city": exchange.city,
        "local_time": local.strftime("%Y-%m-%dT%H:%M"),
        "session": f"{exchange.opens}-{exchange.closes} local time, Monday-Friday",
        "status": "open" if is_open else "closed",
    }
    if is_open:
        out["closes_at"] = datetime.combine(local.date(), closes).strftime("%Y-%m-%dT%H:%M")
    else:
        day = local.date() if local.time() < opens else local.date() + timedelta(days=1)
        while day.weekday() >= 5:
            day += timedelta(days=1)
        out["next_open"] = datetime.combine(day, opens).strftime("%Y-%m-%dT%H:%M")
    return out


def is_open(db: Session, instrument: Instrument) -> tuple[bool, dict[str, Any]]:
    """Whether the instrument's exchange is open at the clock, and its session."""
    exchange = db.get(Exchange, instrument.exchange)
    assert exchange is not None
    state = session(exchange)
    return state["status"] == "open", state


# -- the trading rules --------------------------------------------------------------------------


def check_side(side: str) -> str:
    """``"buy"`` or ``"sell"`` (any case), or a `ToolError`."""
    value = side.strip().lower()
    if value not in ("buy", "sell"):
        raise ToolError(f"side must be 'buy' or 'sell', got {side!r}")
    return value


def check_quantity(quantity: int, instrument: Instrument) -> int:
    """A positive whole number of shares, a multiple of the instrument's lot size."""
    if quantity < 1:
        raise ToolError(f"quantity must be a whole number of shares of at least 1, got {quantity}")
    if quantity > 1_000_000:
        raise ToolError(f"quantity {quantity:,} is over the 1,000,000-share maximum per order; split the order")
    lot = instrument.lot_size
    if quantity % lot:
        low = quantity // lot * lot
        options = f"{low} or {low + lot}" if low else str(lot)
        raise ToolError(
            f"{instrument.symbol} trades in lots of {lot} shares, so quantity must be a multiple of {lot} "
            f"(got {quantity}); use {options}."
        )
    return quantity


def check_tradable(instrument: Instrument) -> None:
    """Orders are refused while trading in an instrument is halted."""
    if instrument.status == "halted":
        raise ToolError(
            f"Trading in {instrument.symbol} is halted ({instrument.halt_reason}); no orders are accepted until "
            "it resumes. Choose another instrument (search_instruments)."
        )


def reserved_cash(db: Session, account: Account) -> int:
    """Cash held by the account's open buy orders: the sum of quantity x limit price, in cents."""
    total = db.scalar(
        select(func.coalesce(func.sum(Order.quantity * Order.limit_price_cents), 0)).where(
            Order.account_id == account.id, Order.status == "open", Order.side == "buy"
        )
    )
    return int(total or 0)


def reserved_shares(db: Session, account: Account, symbol: str) -> int:
    """Shares of a symbol held by the account's open sell orders."""
    total = db.scalar(
        select(func.coalesce(func.sum(Order.quantity), 0)).where(
            Order.account_id == account.id, Order.status == "open", Order.side == "sell", Order.symbol == symbol
        )
    )
    return int(total or 0)


def check_buying_power(
    db: Session, account: Account, instrument: Instrument, quantity: int, price: int, what: str
) -> None:
    """A buy may not cost more than the account's buying power (cash less open buy reservations).

    Args:
        db: The session of the call.
        account: The buying account.
        instrument: What it buys.
        quantity: Shares.
        price: Price per share the cost is counted at, in cents (the ask, or the limit price).
        what: The price's name for the message, e.g. ``"the ask"``.
    """
    cost = quantity * price
    reserved = reserved_cash(db, account)
    power = account.cash_cents - reserved
    if cost <= power:
        return
    held = f" (cash {format_dollars(account.cash_cents)} less {format_dollars(reserved)} reserved by open buy orders)"
    afford = max(power, 0) // (price * instrument.lot_size) * instrument.lot_size
    raise ToolError(
        f"Insufficient buying power in {account.id}: buying power is {format_dollars(max(power, 0))}"
        f"{held if reserved else ''}, but {quantity} {instrument.symbol} at {what} {format_dollars(price)} costs "
        f"{format_dollars(cost)}. Buy at most {afford} shares, deposit cash (deposit_cash), or cancel open buy "
        "orders (cancel_order) to release reserved cash."
    )


def check_sellable(db: Session, account: Account, instrument: Instrument, quantity: int) -> Position:
    """A sell may not exceed the shares held that open sell orders do not already reserve (no short selling)."""
    position = db.scalar(
        select(Position).where(Position.account_id == account.id, Position.symbol == instrument.symbol)
    )
    if position is None:
        raise ToolError(
            f"{account.id} holds no {instrument.symbol} shares, so it cannot sell {quantity}; short selling is not "
            "allowed. list_positions shows what the account holds."
        )
    reserved = reserved_shares(db, account, instrument.symbol)
    free = position.quantity - reserved
    if quantity > free:
        detail = f" ({reserved} of them reserved by open sell orders)" if reserved else ""
        raise ToolError(
            f"{account.id} holds {position.quantity} {instrument.symbol}{detail}, so at most {max(free, 0)} can be "
            f"sold, not {quantity}; short selling is not allowed."
        )
    return position


def new_order(
    db: Session,
    account: Account,
    instrument: Instrument,
    side: str,
    kind: str,
    quantity: int,
    limit_cents: int | None = None,
) -> Order:
    """Record a new open order placed at the clock."""
    order = Order(
        id=next_id(db, Order.id, "ORD", first=10001),
        account_id=account.id,
        symbol=instrument.symbol,
        side=side,
        type=kind,
        quantity=quantity,
        limit_price_cents=limit_cents,
        status="open",
        placed_at=now(),
    )
    db.add(order)
    db.flush()
    return order


def execute(db: Session, account: Account, order: Order, price: int) -> Trade:
    """Fill an order in full at a price: move the cash, update the position, record the trade."""
    qty = order.quantity
    position = db.scalar(select(Position).where(Position.account_id == account.id, Position.symbol == order.symbol))
    pnl: int | None = None
    if order.side == "buy":
        amount = -qty * price
        if position is None:
            position = Position(
                id=next_id(db, Position.id, "POS"),
                account_id=account.id,
                symbol=order.symbol,
                quantity=0,
                cost_basis_cents=0,
                opened_on=kit.today,
            )
            db.add(position)
        position.quantity += qty
        position.cost_basis_cents += qty * price
    else:
        assert position is not None
        amount = qty * price
        released = round(position.cost_basis_cents * qty / position.quantity)
        pnl = amount - released
        position.quantity -= qty
        position.cost_basis_cents -= released
        if position.quantity == 0:
            db.delete(position)
    account.cash_cents += amount
    order.status = "filled"
    order.fill_price_cents = price
    order.closed_at = now()
    trade = Trade(
        id=next_id(db, Trade.id, "TRD", first=10001),
        order_id=order.id,
        account_id=account.id,
        symbol=order.symbol,
        side=order.side,
        quantity=qty,
        price_cents=price,
        amount_cents=amount,
        realized_pnl_cents=pnl,
        executed_at=now(),
    )
    db.add(trade)
    db.flush()
    return trade


# -- result shapes ------------------------------------------------------------------------------


def _minute(value: datetime | None) -> str | None:
    return value.strftime("%Y-%m-%dT%H:%M") if value else None


def quote_view(quote: Quote) -> dict[str, Any]:
    """The prices of a quote, in dollars."""
    change = quote.last_cents - quote.prev_close_cents
    return {
        "bid": dollars(quote.bid_cents),
        "ask": dollars(quote.ask_cents),
        "last": dollars(quote.last_cents),
        "prev_close": dollars(quote.prev_close_cents),
        "change": dollars(change),
        "change_pct": round(change / quote.prev_close_cents * 100, 2),
        "volume": quote.volume,
    }


def order_view(order: Order) -> dict[str, Any]:
    """The fields of an order a model needs."""
    out: dict[str, Any] = {
        "order_id": order.id,
        **pick(order, "account_id", "symbol", "side", "type", "quantity"),
        "limit_price": dollars(order.limit_price_cents) if order.limit_price_cents is not None else None,
        "status": order.status,
        "placed_at": _minute(order.placed_at),
    }
    if order.status == "filled" and order.fill_price_cents is not None:
        out["fill_price"] = dollars(order.fill_price_cents)
        out["filled_at"] = _minute(order.closed_at)
    elif order.status == "cancelled":
        out["cancelled_at"] = _minute(order.closed_at)
    elif order.status == "rejected":
        out["reject_reason"] = order.reject_reason
    elif order.side == "buy" and order.limit_price_cents is not None:
        out["reserved_cash"] = dollars(order.quantity * order.limit_price_cents)
    return out


def trade_view(trade: Trade) -> dict[str, Any]:
    """The fields of a trade (fill) a model needs."""
    out: dict[str, Any] = {
        "trade_id": trade.id,
        **pick(trade, "order_id", "symbol", "side", "quantity"),
        "price": dollars(trade.price_cents),
        "amount": dollars(trade.amount_cents),
        "executed_at": _minute(trade.executed_at),
    }
    if trade.realized_pnl_cents is not None:
        out["realized_pnl"] = dollars(trade.realized_pnl_cents)
    return out


def position_view(db: Session, position: Position) -> dict[str, Any]:
    """A position valued at the last price, with what open sell orders leave free to sell."""
    quote = db.get(Quote, position.symbol)
    last = quote.last_cents if quote else 0
    value = position.quantity * last
    account = db.get(Account, position.account_id)
    reserved = reserved_shares(db, account, position.symbol) if account else 0
    return {
        "position_id": position.id,
        "symbol": position.symbol,
        "quantity": position.quantity,
        "available_to_sell": position.quantity - reserved,
        "average_cost": round(position.cost_basis_cents / position.quantity / 100, 4),
        "cost_basis": dollars(position.cost_basis_cents),
        "last": dollars(last),
        "market_value": dollars(value),
        "unrealized_pnl": dollars(value - position.cost_basis_cents),
    }


def account_summary(db: Session, account: Account, positions: Sequence[Position]) -> dict[str, Any]:
    """Cash, reservations, buying power and value of an account."""
    reserved = reserved_cash(db, account)
    value = 0
    for position in positions:
        quote = db.get(Quote, position.symbol)
        value += position.quantity * (quote.last_cents if quote else 0)
    return {
        "account_id": account.id,
        **pick(account, "owner", "type"),
        "cash": dollars(account.cash_cents),
        "reserved_for_open_orders": dollars(reserved),
        "buying_power": dollars(account.cash_cents - reserved),
        "positions_value": dollars(value),
        "total_value": dollars(account.cash_cents + value),
    }
