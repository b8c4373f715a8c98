"""The banking server, driven through a real MCP client on an in-memory database: cards."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import one, scalar


def test_list_cards(bank: LiveServer) -> None:
    customer = scalar(
        bank,
        "SELECT customer_id FROM cards WHERE status = 'cancelled' AND replaced_by IS NOT NULL ORDER BY id",
    )
    live = bank.ok("list_cards", customer_id=customer)
    assert all(c["status"] != "cancelled" for c in live)
    every = bank.ok("list_cards", customer_id=customer, include_cancelled=True)
    assert len(every) == bank.query("SELECT count(*) FROM cards WHERE customer_id = ?", customer)[0][0]
    assert any(c.get("replaced_by") for c in every)
    assert "find_customer" in bank.error("list_cards", customer_id="CUS-X")


def test_lock_and_unlock_card(bank: LiveServer) -> None:
    card = scalar(
        bank,
        "SELECT c.id FROM cards c JOIN accounts a ON a.id = c.account_id "
        "WHERE c.status = 'active' AND a.status = 'active' ORDER BY c.id",
    )
    assert bank.ok("lock_card", card_id=card)["status"] == "locked"
    assert bank.query("SELECT status FROM cards WHERE id = ?", card) == [("locked",)]
    assert "already locked" in bank.error("lock_card", card_id=card)
    assert bank.ok("unlock_card", card_id=card)["status"] == "active"
    assert bank.query("SELECT status FROM cards WHERE id = ?", card) == [("active",)]
    assert "already active" in bank.error("unlock_card", card_id=card)
    cancelled, replacement = one(
        bank,
        "SELECT id, replaced_by FROM cards WHERE status = 'cancelled' AND replaced_by IS NOT NULL ORDER BY id",
    )
    err = bank.error("unlock_card", card_id=cancelled)
    assert "cancelled" in err
    assert replacement in err
    assert "cancelled" in bank.error("lock_card", card_id=cancelled)
    on_frozen = scalar(
        bank,
        "SELECT c.id FROM cards c JOIN accounts a ON a.id = c.account_id "
        "WHERE c.status = 'locked' AND a.status = 'frozen' ORDER BY c.id",
    )
    assert "unfreeze_account" in bank.error("unlock_card", card_id=on_frozen)
    assert bank.query("SELECT status FROM cards WHERE id = ?", on_frozen) == [("locked",)]
    assert "CRD-0001" in bank.error("lock_card", card_id="CRD-0001")


def test_report_card_lost(bank: LiveServer) -> None:
    card, account, limit = one(
        bank,
        "SELECT c.id, c.account_id, c.daily_limit_cents FROM cards c "
        "JOIN accounts a ON a.id = c.account_id WHERE c.status = 'locked' "
        "AND a.status = 'active' ORDER BY c.id",
    )
    top = bank.query("SELECT max(id) FROM cards")[0][0]
    out = bank.ok("report_card_lost", card_id=card)
    new_id = f"CRD-{int(top[4:]) + 1}"
    assert out["cancelled"]["card_id"] == card
    assert out["replacement"]["card_id"] == new_id
    assert bank.query("SELECT status, replaced_by FROM cards WHERE id = ?", card) == [("cancelled", new_id)]
    assert bank.query("SELECT account_id, status, daily_limit_cents, issued_on FROM cards WHERE id = ?", new_id) == [
        (account, "active", limit, "2026-01-15")
    ]
    err = bank.error("report_card_lost", card_id=card)
    assert "already cancelled" in err
    assert new_id in err


def test_set_card_limit(bank: LiveServer) -> None:
    debit = scalar(
        bank, "SELECT id, daily_limit_cents FROM cards WHERE type = 'debit' AND status = 'active' ORDER BY id"
    )
    out = bank.ok("set_card_limit", card_id=debit, daily_limit=1234.5)
    assert out["daily_limit"] == 1234.5
    assert bank.query("SELECT daily_limit_cents FROM cards WHERE id = ?", debit) == [(123450,)]
    err = bank.error("set_card_limit", card_id=debit, daily_limit=5000.01)
    assert "$50.00 to $5,000.00" in err
    assert "$50.00 to $5,000.00" in bank.error("set_card_limit", card_id=debit, daily_limit=20)
    assert "greater than 0" in bank.error("set_card_limit", card_id=debit, daily_limit=0)
    credit, credit_limit = one(
        bank,
        "SELECT c.id, a.credit_limit_cents FROM cards c JOIN accounts a "
        "ON a.id = c.account_id WHERE c.type = 'credit' AND c.status = 'active' ORDER BY c.id",
    )
    err = bank.error("set_card_limit", card_id=credit, daily_limit=(credit_limit + 100) / 100)
    assert f"${credit_limit / 100:,.2f}" in err
    bank.ok("set_card_limit", card_id=credit, daily_limit=credit_limit / 100)
    cancelled = scalar(bank, "SELECT id FROM cards WHERE status = 'cancelled' ORDER BY id")
    assert "cancelled" in bank.error("set_card_limit", card_id=cancelled, daily_limit=100)
    assert bank.query("SELECT daily_limit_cents FROM cards WHERE id = ?", debit) == [(123450,)]
