"""Trading tools for orders and fills: place market and limit orders, cancel them, list orders and trades."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_limit, check_status, dollars, format_dollars, to_cents
from gym_mcp.servers.trading.models import ORDER_STATUSES, Account, Order, Trade
from gym_mcp.servers.trading.tools.common import (
    check_buying_power,
    check_quantity,
    check_sellable,
    check_side,
    check_tradable,
    execute,
    is_open,
    kit,
    load_account,
    load_instrument,
    load_order,
    new_order,
    now,
    order_view,
    quote_of,
    reserved_cash,
    trade_view,
)

SIDE_SAMPLES = ("buy", "buy", "sell")
"""Sides for synthesis, buys twice as often: a sell needs shares the account holds."""

QUANTITY_SAMPLES = (1, 2, 5, 10, 20, 100)


def _filled(db: Session, account: Account, order: Order, trade: Trade) -> dict[str, Any]:
    return {
        **order_view(order),
        "trade_id": trade.id,
        "amount": dollars(trade.amount_cents),
        **({"realized_pnl": dollars(trade.realized_pnl_cents)} if trade.realized_pnl_cents is not None else {}),
        "cash": dollars(account.cash_cents),
        "buying_power": dollars(account.cash_cents - reserved_cash(db, account)),
    }


@kit.tool(
    write=True,
    intent="Place a market order in account {account_id} to {side} {quantity} shares of {symbol}",
    samples={"side": SIDE_SAMPLES, "quantity": QUANTITY_SAMPLES},
    confirm="quantity >= 100",
)
def place_market_order(db: Session, account_id: str, symbol: str, side: str, quantity: int) -> dict[str, Any]:
    """Buy or sell shares at once at the current quote: a buy fills at the ask, a sell at the bid.

    Only while the instrument's exchange is open (get_market_clock); when it is closed, use
    place_limit_order, which waits for the open. A buy cannot cost more than the buying power
    (get_account); a sell cannot exceed the shares held and not already reserved by open sell
    orders (no short selling). The quantity must be a whole number of lots (get_instrument).
    Returns the filled order with its trade id, fill price and the new cash.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account to trade in, e.g. "ACC-1001".
        symbol: Ticker symbol, e.g. "FJS".
        side: "buy" or "sell".
        quantity: Number of shares, a whole multiple of the lot size, e.g. 10.
    """
    account = load_account(db, account_id)
    inst = load_instrument(db, symbol)
    side = check_side(side)
    check_quantity(quantity, inst)
    check_tradable(inst)
    open_now, market = is_open(db, inst)
    if not open_now:
        raise ToolError(
            f"{inst.exchange} is closed now (local time {market['local_time']}; session {market['session']}; next open "
            f"{market['next_open']} local time). Market orders are accepted only while the exchange is open: place a "
            "limit order instead (place_limit_order, it waits for the open) or wait for the session."
        )
    quote = quote_of(db, inst)
    if side == "buy":
        check_buying_power(db, account, inst, quantity, quote.ask_cents, "the ask")
        price = quote.ask_cents
    else:
        check_sellable(db, account, inst, quantity)
        price = quote.bid_cents
    order = new_order(db, account, inst, side, "market", quantity)
    trade = execute(db, account, order, price)
    return _filled(db, account, order, trade)


@kit.tool(
    write=True,
    intent=("Place a limit order in account {account_id} to {side} {quantity} shares of {symbol} at ${limit_price}"),
    samples={"side": SIDE_SAMPLES, "quantity": QUANTITY_SAMPLES, "limit_price": (12.5, 25, 40, 75, 120, 200, 350)},
)
def place_limit_order(
    db: Session, account_id: str, symbol: str, side: str, quantity: int, limit_price: float
) -> dict[str, Any]:
    """Place an order that fills only at the limit price or better; accepted whether the exchange is open or not.

    If the exchange is open and the quote already meets the limit (buy: ask <= limit_price; sell:
    bid >= limit_price) it fills at once at the quote. Otherwise it stays open (good till
    cancelled) and reserves what it needs: a buy holds quantity x limit_price of buying power, a
    sell holds its shares. A buy cannot reserve more than the buying power, a sell cannot exceed
    the shares held and not already reserved (no short selling). Cancel with cancel_order.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account to trade in, e.g. "ACC-1001".
        symbol: Ticker symbol, e.g. "FJS".
        side: "buy" or "sell".
        quantity: Number of shares, a whole multiple of the lot size, e.g. 10.
        limit_price: Worst price per share accepted, in dollars with at most 2 decimals, e.g. 152.25.
    """
    account = load_account(db, account_id)
    inst = load_instrument(db, symbol)
    side = check_side(side)
    check_quantity(quantity, inst)
    limit_cents = to_cents(limit_price, "limit_price", maximum=10_000_000)
    check_tradable(inst)
    if side == "buy":
        check_buying_power(db, account, inst, quantity, limit_cents, "the limit price")
    else:
        check_sellable(db, account, inst, quantity)
    quote = quote_of(db, inst)
    open_now, market = is_open(db, inst)
    order = new_order(db, account, inst, side, "limit", quantity, limit_cents)
    marketable = quote.ask_cents <= limit_cents if side == "buy" else quote.bid_cents >= limit_cents
    if open_now and marketable:
        trade = execute(db, account, order, quote.ask_cents if side == "buy" else quote.bid_cents)
        return _filled(db, account, order, trade)
    out = order_view(order)
    if not open_now:
        out["note"] = (
            f"{inst.exchange} is closed; the order waits for its next open at {market['next_open']} local time."
        )
    else:
        best = quote.ask_cents if side == "buy" else quote.bid_cents
        out["note"] = (
            f"The {'ask' if side == 'buy' else 'bid'} is {format_dollars(best)}, not at the limit yet; "
            "the order stays open until the price reaches it or it is cancelled."
        )
    out["buying_power"] = dollars(account.cash_cents - reserved_cash(db, account))
    return out


@kit.tool(write=True, intent="Cancel order {order_id}")
def cancel_order(db: Session, order_id: str) -> dict[str, Any]:
    """Cancel an open order; what it reserved (cash of a buy, shares of a sell) is released at once.

    Only open orders can be cancelled: filled, cancelled and rejected orders are final.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        order_id: Order id, e.g. "ORD-10001".
    """
    order = load_order(db, order_id)
    fill = format_dollars(order.fill_price_cents) if order.fill_price_cents is not None else ""
    check_status(
        order,
        {
            "filled": f"Order {order.id} is already filled ({order.quantity} {order.symbol} at {fill}); only open "
            "orders can be cancelled. To undo it, place an order on the other side.",
            "cancelled": f"Order {order.id} is already cancelled; nothing changed.",
            "rejected": f"Order {order.id} was rejected ({order.reject_reason}); only open orders can be cancelled.",
        },
    )
    released = order.quantity * order.limit_price_cents if order.side == "buy" and order.limit_price_cents else 0
    order.status = "cancelled"
    order.closed_at = now()
    account = load_account(db, order.account_id)
    out = order_view(order)
    if order.side == "buy":
        out["released_cash"] = dollars(released)
        out["buying_power"] = dollars(account.cash_cents - reserved_cash(db, account))
    else:
        out["released_shares"] = order.quantity
    return out


@kit.tool(write=False, intent="Show the status of order {order_id}")
def get_order(db: Session, order_id: str) -> dict[str, Any]:
    """Get one order: its side, type, quantity, limit price, status and, once filled, the fill and its trade.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        order_id: Order id, e.g. "ORD-10001".
    """
    order = load_order(db, order_id)
    out = order_view(order)
    trade = db.scalar(select(Trade).where(Trade.order_id == order.id))
    if trade is not None:
        out["trade"] = trade_view(trade)
    return out


@kit.tool(
    write=False,
    intent="List the[ {status}] orders of account {account_id}[ for {symbol}][, showing at most {limit}]",
    samples={"status": ORDER_STATUSES},
)
def list_orders(
    db: Session, account_id: str, status: str | None = None, symbol: str | None = None, limit: int = 20
) -> dict[str, Any]:
    """List an account's orders, newest first, optionally only one status or one symbol.

    Returns {account_id, orders, more}; more is true when further matching orders exist beyond the
    limit. Open orders show the cash they reserve.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account id, e.g. "ACC-1001".
        status: Only this status: "open", "filled", "cancelled" or "rejected".
        symbol: Only orders for this ticker symbol, e.g. "FJS".
        limit: Maximum number of orders to return, 1 to 100.
    """
    check_limit(limit)
    account = load_account(db, account_id)
    stmt = select(Order).where(Order.account_id == account.id)
    if status is not None:
        value = status.strip().lower()
        if value not in ORDER_STATUSES:
            raise ToolError(f"status must be one of {', '.join(ORDER_STATUSES)}; got {status!r}")
        stmt = stmt.where(Order.status == value)
    if symbol is not None:
        stmt = stmt.where(Order.symbol == load_instrument(db, symbol).symbol)
    rows = list(db.scalars(stmt.order_by(Order.placed_at.desc(), Order.id.desc()).limit(limit + 1)))
    return {"account_id": account.id, "orders": [order_view(o) for o in rows[:limit]], "more": len(rows) > limit}


@kit.tool(
    write=False,
    intent="Show the[ {side}] trades of account {account_id}[ in {symbol}][, showing at most {limit}]",
    samples={"side": ("buy", "sell", "sell")},
)
def list_trades(
    db: Session, account_id: str, symbol: str | None = None, side: str | None = None, limit: int = 20
) -> dict[str, Any]:
    """List an account's trade history (fills), newest first; sells show the profit or loss they realised.

    amount is the cash effect: negative for a buy, positive for a sell. Returns {account_id,
    trades, more}; more is true when further matching trades exist beyond the limit.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account id, e.g. "ACC-1001".
        symbol: Only trades in this ticker symbol, e.g. "FJS".
        side: Only "buy" or "sell" trades.
        limit: Maximum number of trades to return, 1 to 100.
    """
    check_limit(limit)
    account = load_account(db, account_id)
    stmt = select(Trade).where(Trade.account_id == account.id)
    if symbol is not None:
        stmt = stmt.where(Trade.symbol == load_instrument(db, symbol).symbol)
    if side is not None:
        stmt = stmt.where(Trade.side == check_side(side))
    rows = list(db.scalars(stmt.order_by(Trade.executed_at.desc(), Trade.id.desc()).limit(limit + 1)))
    return {"account_id": account.id, "trades": [trade_view(t) for t in rows[:limit]], "more": len(rows) > limit}
