"""The trading server, driven through a real MCP client on an in-memory database: orders and trades."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump, one, scalar
from tests.servers.trading.common import (
    cash,
    closed_symbol,
    held,
    open_symbol,
    order_with,
    reserved,
    rich_account,
    sellable_position,
)


def test_market_buy_fills_at_the_ask(trade: LiveServer) -> None:
    acc = rich_account(trade)
    symbol, _, ask = open_symbol(trade)
    before, position = cash(trade, acc), held(trade, acc, symbol)
    top_order = scalar(trade, "SELECT max(id) FROM orders")
    out = trade.ok("place_market_order", account_id=acc, symbol=symbol.lower(), side="BUY", quantity=3)
    assert out["order_id"] == f"ORD-{int(top_order[4:]) + 1}"
    assert (out["status"], out["fill_price"], out["amount"]) == ("filled", ask / 100, -3 * ask / 100)
    assert cash(trade, acc) == before - 3 * ask
    qty, basis = position or (0, 0)
    assert held(trade, acc, symbol) == (qty + 3, basis + 3 * ask)
    assert trade.query(
        "SELECT order_id, account_id, symbol, side, quantity, price_cents, amount_cents, executed_at FROM trades "
        "WHERE id = ?",
        out["trade_id"],
    ) == [(out["order_id"], acc, symbol, "buy", 3, ask, -3 * ask, "2026-01-15 17:00:00.000000")]
    assert trade.query("SELECT type, status, fill_price_cents FROM orders WHERE id = ?", out["order_id"]) == [
        ("market", "filled", ask)
    ]


def test_market_sell_fills_at_the_bid_and_realises_pnl(trade: LiveServer) -> None:
    acc, symbol, qty, _ = sellable_position(trade)
    bid = one(trade, "SELECT bid_cents FROM quotes WHERE symbol = ?", symbol)[0]
    before = cash(trade, acc)
    _, basis = held(trade, acc, symbol) or (0, 0)
    out = trade.ok("place_market_order", account_id=acc, symbol=symbol, side="sell", quantity=1)
    released = round(basis / qty)
    assert out["fill_price"] == bid / 100
    assert out["realized_pnl"] == (bid - released) / 100
    assert cash(trade, acc) == before + bid
    assert held(trade, acc, symbol) == (qty - 1, basis - released)
    # selling everything that is left closes the position
    trade.ok("place_market_order", account_id=acc, symbol=symbol, side="sell", quantity=qty - 1)
    assert held(trade, acc, symbol) is None


def test_market_order_refusals_change_nothing(trade: LiveServer) -> None:
    acc = rich_account(trade)
    symbol, _, ask = open_symbol(trade)
    state = dump(trade)
    power = cash(trade, acc) - reserved(trade, acc)
    too_many = power // ask + 1
    err = trade.error("place_market_order", account_id=acc, symbol=symbol, side="buy", quantity=too_many)
    assert "Insufficient buying power" in err
    assert f"buying power is ${power / 100:,.2f}" in err
    assert f"Buy at most {power // ask} shares" in err
    not_held = scalar(
        trade,
        "SELECT symbol FROM instruments WHERE status = 'active' AND exchange = 'NYSE' AND symbol NOT IN "
        "(SELECT symbol FROM positions WHERE account_id = ?) ORDER BY symbol",
        acc,
    )
    err = trade.error("place_market_order", account_id=acc, symbol=not_held, side="sell", quantity=1)
    assert f"holds no {not_held} shares" in err
    assert "short selling is not allowed" in err
    owner, mine, qty, _ = sellable_position(trade)
    err = trade.error("place_market_order", account_id=owner, symbol=mine, side="sell", quantity=qty + 1)
    assert f"holds {qty} {mine}" in err
    assert f"at most {qty} can be sold" in err
    lse, _, _ = closed_symbol(trade, "LSE")
    err = trade.error("place_market_order", account_id=acc, symbol=lse, side="buy", quantity=1)
    assert "LSE is closed now" in err
    assert "place_limit_order" in err
    assert "2026-01-16T08:00" in err
    tokyo, _, _ = closed_symbol(trade, "TSE")
    err = trade.error("place_market_order", account_id=acc, symbol=tokyo, side="buy", quantity=150)
    assert "lots of 100" in err
    assert "use 100 or 200" in err
    halted = scalar(trade, "SELECT symbol FROM instruments WHERE status = 'halted' ORDER BY symbol")
    assert "is halted" in trade.error("place_market_order", account_id=acc, symbol=halted, side="buy", quantity=1)
    assert "'buy' or 'sell'" in trade.error(
        "place_market_order", account_id=acc, symbol=symbol, side="short", quantity=1
    )
    assert "at least 1" in trade.error("place_market_order", account_id=acc, symbol=symbol, side="buy", quantity=0)
    assert "search_instruments" in trade.error(
        "place_market_order", account_id=acc, symbol="QQQQQ", side="buy", quantity=1
    )
    assert dump(trade) == state


def test_limit_buy_fills_at_once_when_marketable(trade: LiveServer) -> None:
    acc = rich_account(trade)
    symbol, _, ask = open_symbol(trade)
    before = cash(trade, acc)
    out = trade.ok(
        "place_limit_order", account_id=acc, symbol=symbol, side="buy", quantity=2, limit_price=(ask + 50) / 100
    )
    assert out["status"] == "filled"
    assert out["fill_price"] == ask / 100  # the price or better
    assert out["limit_price"] == (ask + 50) / 100
    assert cash(trade, acc) == before - 2 * ask


def test_limit_orders_that_wait_reserve_and_cancel_releases(trade: LiveServer) -> None:
    acc = rich_account(trade)
    symbol, bid, ask = open_symbol(trade)
    before, held_before = cash(trade, acc), reserved(trade, acc)
    limit = ask - 10
    out = trade.ok("place_limit_order", account_id=acc, symbol=symbol, side="buy", quantity=4, limit_price=limit / 100)
    assert out["status"] == "open"
    assert out["reserved_cash"] == 4 * limit / 100
    assert "not at the limit yet" in out["note"]
    assert cash(trade, acc) == before  # nothing spent, only reserved
    assert reserved(trade, acc) == held_before + 4 * limit
    assert trade.ok("get_account", account_id=acc)["buying_power"] == (before - held_before - 4 * limit) / 100
    # a closed exchange: accepted, waits for the open even at a marketable price
    tokyo, _, tokyo_ask = closed_symbol(trade, "TSE")
    waiting = trade.ok(
        "place_limit_order", account_id=acc, symbol=tokyo, side="buy", quantity=100, limit_price=(tokyo_ask + 100) / 100
    )
    assert waiting["status"] == "open"
    assert "TSE is closed" in waiting["note"]
    cancelled = trade.ok("cancel_order", order_id=out["order_id"])
    assert cancelled["status"] == "cancelled"
    assert cancelled["released_cash"] == 4 * limit / 100
    assert trade.query("SELECT status, closed_at FROM orders WHERE id = ?", out["order_id"]) == [
        ("cancelled", "2026-01-15 17:00:00.000000")
    ]
    assert reserved(trade, acc) == held_before + 100 * (tokyo_ask + 100)
    # reserving counts the limit price: more than the buying power is refused
    power = cash(trade, acc) - reserved(trade, acc)
    err = trade.error(
        "place_limit_order", account_id=acc, symbol=symbol, side="buy", quantity=power // bid + 1, limit_price=bid / 100
    )
    assert "Insufficient buying power" in err
    assert "reserved by open buy orders" in err


def test_limit_sell_reserves_shares(trade: LiveServer) -> None:
    acc, symbol, qty, _ = sellable_position(trade)
    bid, ask = one(trade, "SELECT bid_cents, ask_cents FROM quotes WHERE symbol = ?", symbol)
    out = trade.ok(
        "place_limit_order", account_id=acc, symbol=symbol, side="sell", quantity=qty - 1, limit_price=(ask * 2) / 100
    )
    assert out["status"] == "open"
    assert trade.ok("get_position", account_id=acc, symbol=symbol)["available_to_sell"] == 1
    err = trade.error("place_market_order", account_id=acc, symbol=symbol, side="sell", quantity=2)
    assert f"({qty - 1} of them reserved by open sell orders)" in err
    assert "at most 1 can be sold" in err
    assert trade.ok("cancel_order", order_id=out["order_id"])["released_shares"] == qty - 1
    filled = trade.ok(
        "place_limit_order", account_id=acc, symbol=symbol, side="sell", quantity=1, limit_price=(bid - 5) / 100
    )
    assert (filled["status"], filled["fill_price"]) == ("filled", bid / 100)
    assert "greater than 0" in trade.error(
        "place_limit_order", account_id=acc, symbol=symbol, side="sell", quantity=1, limit_price=0
    )
    assert "2 decimals" in trade.error(
        "place_limit_order", account_id=acc, symbol=symbol, side="sell", quantity=1, limit_price=1.234
    )


def test_cancel_order_only_open(trade: LiveServer) -> None:
    order = order_with(trade, "open", "sell")
    out = trade.ok("cancel_order", order_id=order.lower())
    assert (out["order_id"], out["status"]) == (order, "cancelled")
    assert "already cancelled" in trade.error("cancel_order", order_id=order)
    filled = order_with(trade, "filled")
    err = trade.error("cancel_order", order_id=filled)
    assert "already filled" in err
    assert "only open orders can be cancelled" in err
    rejected, reason = one(trade, "SELECT id, reject_reason FROM orders WHERE status = 'rejected' ORDER BY id")
    assert reason in trade.error("cancel_order", order_id=rejected)
    assert trade.query("SELECT status FROM orders WHERE id IN (?, ?) ORDER BY id", filled, rejected) == [
        ("filled",),
        ("rejected",),
    ] or trade.query("SELECT status FROM orders WHERE id IN (?, ?) ORDER BY id", filled, rejected) == [
        ("rejected",),
        ("filled",),
    ]
    err = trade.error("cancel_order", order_id="ORD-1")
    assert "ORD-1" in err
    assert "list_orders" in err


def test_get_order(ro: LiveServer) -> None:
    filled, trade_id = one(ro, "SELECT order_id, id FROM trades ORDER BY id")
    out = ro.ok("get_order", order_id=filled)
    assert out["status"] == "filled"
    assert out["trade"]["trade_id"] == trade_id
    waiting = ro.ok("get_order", order_id=order_with(ro, "open", "buy"))
    assert waiting["reserved_cash"] > 0
    assert "trade" not in waiting
    assert ro.ok("get_order", order_id=order_with(ro, "rejected"))["reject_reason"]
    assert "list_orders" in ro.error("get_order", order_id="ORD-99999")


def test_list_orders(ro: LiveServer) -> None:
    acc = scalar(ro, "SELECT account_id FROM orders GROUP BY account_id HAVING count(*) >= 6 ORDER BY 1")
    out = ro.ok("list_orders", account_id=acc, limit=2)
    assert len(out["orders"]) == 2
    assert out["more"] is True
    every = ro.ok("list_orders", account_id=acc, limit=100)["orders"]
    assert len(every) == scalar(ro, "SELECT count(*) FROM orders WHERE account_id = ?", acc)
    times = [o["placed_at"] for o in every]
    assert times == sorted(times, reverse=True)
    filled = ro.ok("list_orders", account_id=acc, status="FILLED", limit=100)["orders"]
    assert filled
    assert {o["status"] for o in filled} == {"filled"}
    symbol = every[0]["symbol"]
    assert {o["symbol"] for o in ro.ok("list_orders", account_id=acc, symbol=symbol)["orders"]} == {symbol}
    assert "status must be one of" in ro.error("list_orders", account_id=acc, status="pending")
    assert "Unknown symbol" in ro.error("list_orders", account_id=acc, symbol="NOPE9")
    assert "limit must be" in ro.error("list_orders", account_id=acc, limit=0)
    assert "list_accounts" in ro.error("list_orders", account_id="ACC-77")


def test_list_trades(ro: LiveServer) -> None:
    acc = scalar(
        ro, "SELECT account_id FROM trades WHERE side = 'sell' GROUP BY account_id HAVING count(*) >= 2 ORDER BY 1"
    )
    out = ro.ok("list_trades", account_id=acc, limit=100)
    assert len(out["trades"]) == scalar(ro, "SELECT count(*) FROM trades WHERE account_id = ?", acc)
    assert out["more"] is False
    sells = ro.ok("list_trades", account_id=acc, side="sell")["trades"]
    assert sells
    assert all(t["side"] == "sell" and "realized_pnl" in t and t["amount"] > 0 for t in sells)
    buys = ro.ok("list_trades", account_id=acc, side="buy")["trades"]
    assert all(t["amount"] < 0 and "realized_pnl" not in t for t in buys)
    symbol = sells[0]["symbol"]
    assert {t["symbol"] for t in ro.ok("list_trades", account_id=acc, symbol=symbol)["trades"]} == {symbol}
    assert "'buy' or 'sell'" in ro.error("list_trades", account_id=acc, side="both")
    assert "limit must be" in ro.error("list_trades", account_id=acc, limit=1000)
