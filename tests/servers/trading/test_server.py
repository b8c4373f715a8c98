"""The trading server, driven through a real MCP client on an in-memory database: the server as a whole."""

from __future__ import annotations

from gym_mcp.servers.trading import kit
from gym_mcp.servers.trading.data import SAMPLE_SYMBOLS
from tests.helpers import LiveServer
from tests.servers.helpers import (
    assert_listed_with_kinds,
    dump,
)
from tests.servers.trading.common import CLOSED_EXCHANGES, OPEN_EXCHANGES, TABLES, open_symbol, rich_account


def test_tools_are_listed_with_kinds(ro: LiveServer) -> None:
    writes = {
        "deposit_cash",
        "withdraw_cash",
        "place_market_order",
        "place_limit_order",
        "cancel_order",
        "create_watchlist",
        "add_to_watchlist",
        "remove_from_watchlist",
        "delete_watchlist",
    }
    reads = {
        "list_accounts",
        "get_account",
        "get_market_clock",
        "search_instruments",
        "get_instrument",
        "get_quote",
        "get_order",
        "list_orders",
        "list_trades",
        "list_positions",
        "get_position",
        "list_watchlists",
    }
    assert_listed_with_kinds(ro, kit, writes=writes, reads=reads)
    assert set(kit.tools) == writes | reads
    assert kit.tools["delete_watchlist"].confirm == "always"
    assert kit.tools["place_market_order"].confirm == "quantity >= 100"


def test_sample_symbols_exist_and_trade(ro: LiveServer) -> None:
    rows = ro.query(
        f"SELECT symbol, status, exchange FROM instruments WHERE symbol IN ({', '.join('?' * len(SAMPLE_SYMBOLS))})",
        *SAMPLE_SYMBOLS,
    )
    assert len(rows) == len(SAMPLE_SYMBOLS)
    assert {status for _, status, _ in rows} == {"active"}
    exchanges = {exchange for *_, exchange in rows}
    assert exchanges & set(OPEN_EXCHANGES)
    assert exchanges & set(CLOSED_EXCHANGES)


def test_seed_has_enough_entities(ro: LiveServer) -> None:
    counts = {t: ro.query(f"SELECT count(*) FROM {t}")[0][0] for t in TABLES}
    assert sum(counts.values()) >= 200
    assert counts["instruments"] == counts["quotes"] >= 100
    assert counts["accounts"] >= 40
    assert counts["positions"] >= 80
    assert counts["orders"] >= 200
    assert counts["trades"] >= 150
    assert counts["watchlists"] >= 20
    assert counts["watchlist_items"] >= 60
    # the error paths are reachable
    statuses = dict(ro.query("SELECT status, count(*) FROM orders GROUP BY status"))
    assert statuses["open"] >= 10
    assert statuses["cancelled"] >= 5
    assert statuses["rejected"] >= 5
    assert ro.query("SELECT count(*) FROM orders WHERE status = 'open' AND side = 'sell'")[0][0] >= 3
    assert ro.query("SELECT count(*) FROM instruments WHERE status = 'halted'")[0][0] >= 2
    assert ro.query("SELECT count(*) FROM instruments WHERE lot_size > 1")[0][0] >= 5
    open_symbol(ro)
    rich_account(ro)


def test_seed_is_consistent(ro: LiveServer) -> None:
    # every position is what its trades leave
    positions = ro.query("SELECT account_id, symbol, quantity FROM positions ORDER BY 1, 2")
    from_trades = ro.query(
        "SELECT account_id, symbol, sum(CASE side WHEN 'buy' THEN quantity ELSE -quantity END) AS q FROM trades "
        "GROUP BY 1, 2 HAVING q != 0 ORDER BY 1, 2"
    )
    assert positions == from_trades
    # cash is deposits less withdrawals plus the trades' cash effects, never below what open buys reserve
    mismatched = ro.query(
        """SELECT a.id FROM accounts a WHERE a.cash_cents !=
             (SELECT coalesce(sum(amount_cents), 0) FROM cash_movements m WHERE m.account_id = a.id)
           + (SELECT coalesce(sum(amount_cents), 0) FROM trades t WHERE t.account_id = a.id)"""
    )
    assert mismatched == []
    over = ro.query(
        """SELECT a.id FROM accounts a WHERE a.cash_cents < (SELECT coalesce(sum(quantity * limit_price_cents), 0)
           FROM orders o WHERE o.account_id = a.id AND o.status = 'open' AND o.side = 'buy')"""
    )
    assert over == []
    oversold = ro.query(
        """SELECT p.id FROM positions p WHERE p.quantity < (SELECT coalesce(sum(quantity), 0) FROM orders o
           WHERE o.account_id = p.account_id AND o.symbol = p.symbol AND o.status = 'open' AND o.side = 'sell')"""
    )
    assert oversold == []
    # an open buy waits below the ask, an open sell above the bid; quotes have bid < ask
    assert ro.query(
        "SELECT count(*) FROM orders o JOIN quotes q ON q.symbol = o.symbol WHERE o.status = 'open' AND "
        "((o.side = 'buy' AND o.limit_price_cents >= q.ask_cents) OR (o.side = 'sell' AND o.limit_price_cents <= q.bid_cents))"
    ) == [(0,)]
    assert ro.query("SELECT count(*) FROM quotes WHERE bid_cents >= ask_cents") == [(0,)]
    assert ro.query("SELECT count(*) FROM trades t JOIN orders o ON o.id = t.order_id WHERE o.status != 'filled'") == [
        (0,)
    ]


def test_same_seed_same_data_other_seed_other_data(ro: LiveServer) -> None:
    assert dump(ro) == dump(LiveServer(kit, seed=0))
    other = dump(LiveServer(kit, seed=1))
    assert other != dump(ro)
    assert other["accounts"] != dump(ro)["accounts"]
    assert other["instruments"] != dump(ro)["instruments"]  # other halts


def test_replaying_calls_gives_identical_state() -> None:
    servers = [LiveServer(kit, seed=0), LiveServer(kit, seed=0)]
    results = []
    for server in servers:
        account = rich_account(server)
        symbol, bid, _ = open_symbol(server)
        results.append(
            [
                server.ok("place_market_order", account_id=account, symbol=symbol, side="buy", quantity=3),
                server.ok(
                    "place_limit_order",
                    account_id=account,
                    symbol=symbol,
                    side="buy",
                    quantity=2,
                    limit_price=(bid // 2) / 100,
                ),
                server.ok("deposit_cash", account_id=account, amount=250),
                server.ok("create_watchlist", account_id=account, watchlist_name="Replay"),
            ]
        )
    assert results[0] == results[1]
    assert dump(servers[0]) == dump(servers[1])
