"""The trading server, driven through a real MCP client on an in-memory database: positions."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import one, scalar
from tests.servers.trading.common import cash


def test_list_positions(ro: LiveServer) -> None:
    acc = scalar(ro, "SELECT account_id FROM positions GROUP BY account_id HAVING count(*) >= 3 ORDER BY 1")
    out = ro.ok("list_positions", account_id=acc)
    rows = ro.query(
        "SELECT p.symbol, p.quantity, p.cost_basis_cents, q.last_cents FROM positions p "
        "JOIN quotes q ON q.symbol = p.symbol WHERE p.account_id = ? ORDER BY p.symbol",
        acc,
    )
    assert [(p["symbol"], p["quantity"]) for p in out["positions"]] == [(r[0], r[1]) for r in rows]
    first = out["positions"][0]
    _, qty, basis, last = rows[0]
    assert first["average_cost"] == round(basis / qty / 100, 4)
    assert first["market_value"] == qty * last / 100
    assert first["unrealized_pnl"] == (qty * last - basis) / 100
    assert out["cash"] == cash(ro, acc) / 100
    assert out["positions_value"] == sum(r[1] * r[3] for r in rows) / 100
    assert "list_accounts" in ro.error("list_positions", account_id="ACC-X")


def test_get_position(ro: LiveServer) -> None:
    acc, symbol, qty, reserved = one(
        ro,
        """SELECT o.account_id, o.symbol, p.quantity, sum(o.quantity) FROM orders o JOIN positions p
           ON p.account_id = o.account_id AND p.symbol = o.symbol
           WHERE o.status = 'open' AND o.side = 'sell' GROUP BY 1, 2 ORDER BY 1, 2""",
    )
    out = ro.ok("get_position", account_id=acc, symbol=symbol.lower())
    assert out["held"] is True
    assert (out["quantity"], out["available_to_sell"]) == (qty, qty - reserved)
    none = scalar(
        ro,
        "SELECT symbol FROM instruments WHERE symbol NOT IN (SELECT symbol FROM positions WHERE account_id = ?) "
        "ORDER BY symbol",
        acc,
    )
    empty = ro.ok("get_position", account_id=acc, symbol=none)
    assert (empty["held"], empty["quantity"]) == (False, 0)
    assert "search_instruments" in ro.error("get_position", account_id=acc, symbol="XXXXX")
    assert "list_accounts" in ro.error("get_position", account_id="ACC-5", symbol=symbol)
