"""The trading server, driven through a real MCP client on an in-memory database: accounts and cash."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump, one, scalar
from tests.servers.trading.common import cash, reserved, rich_account


def test_list_accounts(ro: LiveServer) -> None:
    everyone = ro.ok("list_accounts", limit=100)
    assert len(everyone) == scalar(ro, "SELECT count(*) FROM accounts")
    acc, owner, email = one(ro, "SELECT id, owner, email FROM accounts ORDER BY id")
    last = owner.split()[-1]
    found = ro.ok("list_accounts", query=last.upper())
    assert acc in [a["account_id"] for a in found]
    assert all(last.lower() in a["owner"].lower() or last.lower() in a["email"] for a in found)
    assert ro.ok("list_accounts", query=email)[0]["account_id"] == acc
    assert len(ro.ok("list_accounts", limit=3)) == 3
    assert ro.ok("list_accounts", query="zzzz-nobody") == []
    assert "at least 2 characters" in ro.error("list_accounts", query=" x ")
    assert "limit must be between 1 and 100" in ro.error("list_accounts", limit=0)


def test_get_account(ro: LiveServer) -> None:
    acc = scalar(ro, "SELECT account_id FROM orders WHERE status = 'open' AND side = 'buy' ORDER BY id")
    out = ro.ok("get_account", account_id=acc.lower())
    held = reserved(ro, acc)
    assert out["account_id"] == acc
    assert out["cash"] == cash(ro, acc) / 100
    assert out["reserved_for_open_orders"] == held / 100
    assert out["buying_power"] == (cash(ro, acc) - held) / 100
    value = scalar(
        ro,
        "SELECT coalesce(sum(p.quantity * q.last_cents), 0) FROM positions p JOIN quotes q ON q.symbol = p.symbol "
        "WHERE p.account_id = ?",
        acc,
    )
    assert out["positions_value"] == value / 100
    assert out["total_value"] == (cash(ro, acc) + value) / 100
    assert out["open_order_count"] == scalar(
        ro, "SELECT count(*) FROM orders WHERE account_id = ? AND status = 'open'", acc
    )
    err = ro.error("get_account", account_id="ACC-0001")
    assert "ACC-0001" in err
    assert "list_accounts" in err


def test_deposit_cash(trade: LiveServer) -> None:
    acc = rich_account(trade)
    before = cash(trade, acc)
    out = trade.ok("deposit_cash", account_id=acc, amount=1234.56)
    assert cash(trade, acc) == before + 123456
    assert out["cash"] == (before + 123456) / 100
    assert out["buying_power"] == (before + 123456 - reserved(trade, acc)) / 100
    assert trade.query(
        "SELECT account_id, kind, amount_cents, cash_after_cents, posted_at FROM cash_movements WHERE id = ?",
        out["movement_id"],
    ) == [(acc, "deposit", 123456, before + 123456, "2026-01-15 17:00:00.000000")]
    state = dump(trade)
    assert "greater than 0" in trade.error("deposit_cash", account_id=acc, amount=-5)
    assert "more than 2 decimals" in trade.error("deposit_cash", account_id=acc, amount=1.005)
    assert "maximum" in trade.error("deposit_cash", account_id=acc, amount=2_000_000)
    assert "list_accounts" in trade.error("deposit_cash", account_id="ACC-9", amount=5)
    assert dump(trade) == state


def test_withdraw_cash_keeps_reserved_cash(trade: LiveServer) -> None:
    acc = scalar(trade, "SELECT account_id FROM orders WHERE status = 'open' AND side = 'buy' ORDER BY id")
    before, held = cash(trade, acc), reserved(trade, acc)
    power = before - held
    err = trade.error("withdraw_cash", account_id=acc, amount=(power + 1) / 100)
    assert "Insufficient buying power" in err
    assert f"${power / 100:,.2f}" in err
    assert f"${held / 100:,.2f} of its cash is reserved" in err
    assert cash(trade, acc) == before
    out = trade.ok("withdraw_cash", account_id=acc, amount=power / 100)
    assert out["buying_power"] == 0
    assert cash(trade, acc) == held
    assert trade.query("SELECT kind, amount_cents FROM cash_movements WHERE id = ?", out["movement_id"]) == [
        ("withdrawal", -power)
    ]
    assert "at most $0.00" in trade.error("withdraw_cash", account_id=acc, amount=1)
    # cancelling the open buys releases their cash for withdrawal
    for (order,) in trade.query("SELECT id FROM orders WHERE account_id = ? AND status = 'open' AND side = 'buy'", acc):
        trade.ok("cancel_order", order_id=order)
    trade.ok("withdraw_cash", account_id=acc, amount=held / 100)
    assert cash(trade, acc) == 0
