"""The budget server through a real MCP client: accounts and transfers."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.budget.common import balance
from tests.servers.helpers import dump, one


def test_list_accounts(bud: LiveServer) -> None:
    accounts = bud.ok("list_accounts")
    rows = bud.query("SELECT id, type, balance_cents, credit_limit_cents FROM accounts ORDER BY id")
    assert [a["account_id"] for a in accounts] == [r[0] for r in rows]
    for account, (_, kind, cents, limit) in zip(accounts, rows, strict=True):
        assert account["balance"] == cents / 100
        assert account["available"] == ((limit + cents) if kind == "credit" else cents) / 100


def test_transfer_between_accounts(bud: LiveServer) -> None:
    a, b = balance(bud, "ACC-1001"), balance(bud, "ACC-1002")
    out = bud.ok("transfer_between_accounts", from_account_id="ACC-1001", to_account_id="acc-1002", amount=250)
    assert (out["from"]["balance"], out["to"]["balance"]) == ((a - 25000) / 100, (b + 25000) / 100)
    assert (balance(bud, "ACC-1001"), balance(bud, "ACC-1002")) == (a - 25000, b + 25000)
    assert one(
        bud,
        "SELECT from_account_id, to_account_id, amount_cents, made_on FROM transfers WHERE id = ?",
        out["transfer_id"],
    ) == ("ACC-1001", "ACC-1002", 25000, "2026-01-15")
    owed = -balance(bud, "ACC-1003")
    paid = bud.ok("transfer_between_accounts", from_account_id="ACC-1002", to_account_id="ACC-1003", amount=owed / 100)
    assert paid["to"]["balance"] == 0


def test_transfer_errors_change_nothing(bud: LiveServer) -> None:
    state = dump(bud)
    assert "credit card and cannot send" in bud.error(
        "transfer_between_accounts", from_account_id="ACC-1003", to_account_id="ACC-1001", amount=5
    )
    low = balance(bud, "ACC-1007")
    err = bud.error(
        "transfer_between_accounts", from_account_id="ACC-1007", to_account_id="ACC-1001", amount=(low + 1) / 100
    )
    assert "Not enough money" in err
    assert f"${low / 100:,.2f}" in err
    assert "more than it owes" in bud.error(
        "transfer_between_accounts", from_account_id="ACC-1002", to_account_id="ACC-1003", amount=9999
    )
    assert "two different" in bud.error(
        "transfer_between_accounts", from_account_id="ACC-1001", to_account_id="ACC-1001", amount=5
    )
    assert "list_accounts" in bud.error(
        "transfer_between_accounts", from_account_id="ACC-1", to_account_id="ACC-1001", amount=5
    )
    assert "greater than 0" in bud.error(
        "transfer_between_accounts", from_account_id="ACC-1001", to_account_id="ACC-1002", amount=-5
    )
    assert dump(bud) == state
