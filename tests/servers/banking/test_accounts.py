"""The banking server, driven through a real MCP client on an in-memory database: customers and accounts."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.banking.common import account_with, balance, credit_owing, own_pair
from tests.servers.helpers import one, scalar


def test_find_customer(bank: LiveServer) -> None:
    cid, first, last, email = one(bank, "SELECT id, first_name, last_name, email FROM customers ORDER BY id")
    by_name = bank.ok("find_customer", query=f"{first} {last}".upper())
    assert cid in [c["customer_id"] for c in by_name]
    by_email = bank.ok("find_customer", query=email)
    assert by_email == [{"customer_id": cid, "name": f"{first} {last}", "email": email, "city": by_email[0]["city"]}]
    assert len(bank.ok("find_customer", query="an", limit=3)) == 3
    assert bank.ok("find_customer", query="zzzz-nobody") == []
    assert "at least 2 characters" in bank.error("find_customer", query=" x ")
    assert "limit must be between 1 and 100" in bank.error("find_customer", query="smith", limit=0)


def test_get_customer(bank: LiveServer) -> None:
    customer, checking, _ = own_pair(bank)
    out = bank.ok("get_customer", customer_id=customer.lower())
    assert out["customer_id"] == customer
    assert checking in [a["account_id"] for a in out["accounts"]]
    assert {"name", "email", "phone", "city", "customer_since", "payee_count", "card_count"} <= set(out)
    err = bank.error("get_customer", customer_id="CUS-9999")
    assert "CUS-9999" in err
    assert "find_customer" in err


def test_list_accounts(bank: LiveServer) -> None:
    closed = account_with(bank, "closed", "savings")
    customer = bank.query("SELECT customer_id FROM accounts WHERE id = ?", closed)[0][0]
    visible = [a["account_id"] for a in bank.ok("list_accounts", customer_id=customer)]
    assert closed not in visible
    everything = bank.ok("list_accounts", customer_id=customer, include_closed=True)
    assert closed in [a["account_id"] for a in everything]
    expected = bank.query("SELECT count(*) FROM accounts WHERE customer_id = ?", customer)[0][0]
    assert len(everything) == expected
    credit, owner, cents = credit_owing(bank)
    row = next(a for a in bank.ok("list_accounts", customer_id=owner) if a["account_id"] == credit)
    assert row["balance"] == round(cents / 100, 2)
    assert row["available_credit"] < row["credit_limit"]
    assert "find_customer" in bank.error("list_accounts", customer_id="nobody")


def test_get_account_and_balance(bank: LiveServer) -> None:
    acc, withdrawn = one(
        bank,
        "SELECT account_id, -sum(amount_cents) FROM transactions WHERE kind = 'withdrawal' "
        "AND posted_on = '2026-01-15' GROUP BY account_id ORDER BY account_id",
    )
    out = bank.ok("get_account", account_id=acc)
    assert out["withdrawn_today"] == withdrawn / 100
    assert out["withdrawal_remaining_today"] == out["daily_withdrawal_limit"] - withdrawn / 100
    assert out["balance"] == balance(bank, acc) / 100
    frozen = account_with(bank, "frozen")
    assert bank.ok("get_account", account_id=frozen)["freeze_reason"]
    assert bank.ok("get_balance", account_id=frozen)["available"] == 0
    credit, _, cents = credit_owing(bank)
    bal = bank.ok("get_balance", account_id=credit)
    assert bal["amount_owed"] == -cents / 100
    assert bal["balance"] == cents / 100
    err = bank.error("get_balance", account_id="ACC-0001")
    assert "ACC-0001" in err
    assert "list_accounts" in err


def test_list_transactions_filters(bank: LiveServer) -> None:
    acc = scalar(bank, "SELECT account_id FROM transactions GROUP BY account_id HAVING count(*) >= 5 ORDER BY 1")
    out = bank.ok("list_transactions", account_id=acc, limit=2)
    assert len(out["transactions"]) == 2
    assert out["more"] is True
    dates = [t["date"] for t in bank.ok("list_transactions", account_id=acc, limit=100)["transactions"]]
    assert dates == sorted(dates, reverse=True)
    kind = bank.query("SELECT kind FROM transactions WHERE account_id = ? LIMIT 1", acc)[0][0]
    by_kind = bank.ok("list_transactions", account_id=acc, kind=kind)["transactions"]
    assert by_kind
    assert {t["kind"] for t in by_kind} == {kind}
    window = bank.ok("list_transactions", account_id=acc, start_date="2025-12-01", end_date="2025-12-31")
    assert all("2025-12-01" <= t["date"] <= "2025-12-31" for t in window["transactions"])
    assert "kind must be one of" in bank.error("list_transactions", account_id=acc, kind="refund")
    assert "date like 2026-01-15" in bank.error("list_transactions", account_id=acc, start_date="12/01/2025")
    assert "swap" in bank.error("list_transactions", account_id=acc, start_date="2026-01-10", end_date="2026-01-01")
    assert "limit must be" in bank.error("list_transactions", account_id=acc, limit=500)
