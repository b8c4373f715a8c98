"""The trading server, driven through a real MCP client on an in-memory database: watchlists."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump, one, scalar


def items(server: LiveServer, watchlist: str) -> list[str]:
    return [
        s for (s,) in server.query("SELECT symbol FROM watchlist_items WHERE watchlist_id = ? ORDER BY rank", watchlist)
    ]


def test_list_watchlists(ro: LiveServer) -> None:
    acc = scalar(ro, "SELECT account_id FROM watchlists GROUP BY account_id HAVING count(*) >= 2 ORDER BY 1")
    out = ro.ok("list_watchlists", account_id=acc)
    assert len(out) == 2
    for wl in out:
        assert [s["symbol"] for s in wl["symbols"]] == items(ro, wl["watchlist_id"])
        assert all(s["last"] > 0 for s in wl["symbols"])
    empty = scalar(ro, "SELECT id FROM accounts WHERE id NOT IN (SELECT account_id FROM watchlists) ORDER BY id")
    assert ro.ok("list_watchlists", account_id=empty) == []
    assert "list_accounts" in ro.error("list_watchlists", account_id="ACC-0")


def test_create_watchlist_names_unique_per_account(trade: LiveServer) -> None:
    acc, existing = one(trade, "SELECT account_id, name FROM watchlists ORDER BY id")
    top = scalar(trade, "SELECT max(id) FROM watchlists")
    out = trade.ok("create_watchlist", account_id=acc, watchlist_name="  Swing   Trades ")
    assert out == {"watchlist_id": f"WL-{int(top[3:]) + 1}", "account_id": acc, "name": "Swing Trades", "symbols": []}
    assert trade.query("SELECT account_id, name FROM watchlists WHERE id = ?", out["watchlist_id"]) == [
        (acc, "Swing Trades")
    ]
    err = trade.error("create_watchlist", account_id=acc, watchlist_name=existing.upper())
    assert "already has a watchlist named" in err
    assert "unique per account" in err
    other = scalar(
        trade, "SELECT id FROM accounts WHERE id NOT IN (SELECT account_id FROM watchlists WHERE name = ?)", existing
    )
    trade.ok("create_watchlist", account_id=other, watchlist_name=existing)  # another account may use the name
    assert "1 to 40 characters" in trade.error("create_watchlist", account_id=acc, watchlist_name="   ")
    assert "1 to 40 characters" in trade.error("create_watchlist", account_id=acc, watchlist_name="x" * 41)
    for i in range(10 - scalar(trade, "SELECT count(*) FROM watchlists WHERE account_id = ?", acc)):
        trade.ok("create_watchlist", account_id=acc, watchlist_name=f"List {i}")
    assert "the maximum" in trade.error("create_watchlist", account_id=acc, watchlist_name="One more")


def test_add_and_remove_symbols(trade: LiveServer) -> None:
    wl = scalar(trade, "SELECT id FROM watchlists ORDER BY id")
    before = items(trade, wl)
    new = scalar(
        trade,
        "SELECT symbol FROM instruments WHERE symbol NOT IN (SELECT symbol FROM watchlist_items WHERE watchlist_id = ?) ORDER BY symbol",
        wl,
    )
    out = trade.ok("add_to_watchlist", watchlist_id=wl, symbol=new.lower())
    assert [s["symbol"] for s in out["symbols"]] == [*before, new]
    assert items(trade, wl) == [*before, new]
    err = trade.error("add_to_watchlist", watchlist_id=wl, symbol=new)
    assert f"{new} is already on watchlist {wl}" in err
    assert "search_instruments" in trade.error("add_to_watchlist", watchlist_id=wl, symbol="NOPE7")
    assert "list_watchlists" in trade.error("add_to_watchlist", watchlist_id="WL-1", symbol=new)
    removed = trade.ok("remove_from_watchlist", watchlist_id=wl, symbol=before[0])
    assert [s["symbol"] for s in removed["symbols"]] == [*before[1:], new]
    err = trade.error("remove_from_watchlist", watchlist_id=wl, symbol=before[0])
    assert f"{before[0]} is not on watchlist {wl}" in err
    assert new in err  # says what the list holds
    assert items(trade, wl) == [*before[1:], new]


def test_delete_watchlist(trade: LiveServer) -> None:
    wl, acc, name = one(trade, "SELECT id, account_id, name FROM watchlists ORDER BY id")
    count = len(items(trade, wl))
    orders = dump(trade)["orders"]
    out = trade.ok("delete_watchlist", watchlist_id=wl)
    assert out == {"deleted": wl, "account_id": acc, "name": name, "symbols_removed": count}
    assert trade.query("SELECT count(*) FROM watchlists WHERE id = ?", wl) == [(0,)]
    assert items(trade, wl) == []
    assert dump(trade)["orders"] == orders
    err = trade.error("delete_watchlist", watchlist_id=wl)
    assert wl in err
    assert "list_watchlists" in err
    trade.ok("create_watchlist", account_id=acc, watchlist_name=name)  # the name is free again
