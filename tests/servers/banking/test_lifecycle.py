"""The banking server, driven through a real MCP client on an in-memory database: account lifecycle."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.banking.common import account_with, balance, credit_owing, own_pair
from tests.servers.helpers import scalar


def test_freeze_and_unfreeze(bank: LiveServer) -> None:
    _, checking, savings = own_pair(bank)
    out = bank.ok("freeze_account", account_id=checking, reason="Suspected fraud")
    assert out == {"account_id": checking, "status": "frozen", "freeze_reason": "Suspected fraud"}
    assert bank.query("SELECT status, freeze_reason FROM accounts WHERE id = ?", checking) == [
        ("frozen", "Suspected fraud")
    ]
    err = bank.error("transfer_funds", from_account_id=checking, to_account_id=savings, amount=1)
    assert "frozen (Suspected fraud)" in err
    assert "already frozen" in bank.error("freeze_account", account_id=checking, reason="again")
    assert bank.ok("unfreeze_account", account_id=checking)["status"] == "active"
    assert "not frozen" in bank.error("unfreeze_account", account_id=checking)
    bank.ok("transfer_funds", from_account_id=checking, to_account_id=savings, amount=1)
    assert "3 to 200" in bank.error("freeze_account", account_id=checking, reason="x")
    assert "closed" in bank.error("freeze_account", account_id=account_with(bank, "closed"), reason="Fraud")


def test_close_account(bank: LiveServer) -> None:
    _, checking, savings = own_pair(bank)
    cents = balance(bank, checking)
    err = bank.error("close_account", account_id=checking)
    assert f"${cents / 100:,.2f}" in err
    assert "exactly $0.00" in err
    assert bank.query("SELECT status FROM accounts WHERE id = ?", checking) == [("active",)]
    bank.ok("transfer_funds", from_account_id=checking, to_account_id=savings, amount=cents / 100)
    out = bank.ok("close_account", account_id=checking)
    assert out["status"] == "closed"
    assert out["closed_on"] == "2026-01-15"
    assert bank.query("SELECT status, closed_on FROM accounts WHERE id = ?", checking) == [("closed", "2026-01-15")]
    statuses = bank.query("SELECT DISTINCT status FROM cards WHERE account_id = ?", checking)
    assert statuses in ([], [("cancelled",)])
    assert sorted(out["cards_cancelled"]) == [
        r[0]
        for r in bank.query("SELECT id FROM cards WHERE account_id = ? AND replaced_by IS NULL ORDER BY id", checking)
    ]
    assert "already closed" in bank.error("close_account", account_id=checking)
    assert "unfreeze" in bank.error("close_account", account_id=account_with(bank, "frozen"))
    credit, _, owed = credit_owing(bank)
    assert f"${-owed / 100:,.2f}" in bank.error("close_account", account_id=credit)


def test_open_account(bank: LiveServer) -> None:
    customer = scalar(
        bank,
        "SELECT customer_id FROM accounts GROUP BY customer_id "
        "HAVING sum(type = 'credit' AND status != 'closed') = 0 ORDER BY 1",
    )
    top_acc = bank.query("SELECT max(id) FROM accounts")[0][0]
    top_card = bank.query("SELECT max(id) FROM cards")[0][0]
    out = bank.ok("open_account", customer_id=customer, account_type="Checking", nickname="Travel money")
    new_id = f"ACC-{int(top_acc[4:]) + 1}"
    assert out["account_id"] == new_id
    assert out["balance"] == 0
    assert out["nickname"] == "Travel money"
    assert out["card"]["card_id"] == f"CRD-{int(top_card[4:]) + 1}"
    assert out["card"]["type"] == "debit"
    assert bank.query(
        "SELECT customer_id, type, status, balance_cents, opened_on FROM accounts WHERE id = ?", new_id
    ) == [(customer, "checking", "active", 0, "2026-01-15")]
    credit = bank.ok("open_account", customer_id=customer, account_type="credit")
    assert credit["credit_limit"] == 2000
    assert credit["card"]["type"] == "credit"
    err = bank.error("open_account", customer_id=customer, account_type="credit")
    assert "already has an open credit account" in err
    assert credit["account_id"] in err
    assert "must be one of" in bank.error("open_account", customer_id=customer, account_type="brokerage")
    while len(bank.ok("list_accounts", customer_id=customer)) < 6:
        assert "card" not in bank.ok("open_account", customer_id=customer, account_type="savings")
    assert "maximum is 6" in bank.error("open_account", customer_id=customer, account_type="savings")
    assert "find_customer" in bank.error("open_account", customer_id="CUS-1", account_type="savings")
