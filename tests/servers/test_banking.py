"""The banking server, driven through a real MCP client on an in-memory database."""

from __future__ import annotations

from typing import Any

import pytest

from gym_mcp.servers.banking import kit
from gym_mcp.servers.banking.models import BANK_NAME
from tests.helpers import LiveServer
from tests.servers.helpers import (
    assert_error,
    assert_every_tool_described,
    assert_listed_with_kinds,
    intent_placeholders,
    listed_tools,
    tool_params,
)

TABLES = ("customers", "accounts", "transactions", "payees", "cards")


@pytest.fixture
def bank() -> LiveServer:
    return LiveServer(kit, seed=0)


def dump(server: LiveServer) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows, without the volatile (wall-clock) columns."""
    out = {}
    volatile = kit.volatile_columns
    for table in TABLES:
        cols = [r[1] for r in server.query(f"PRAGMA table_info({table})") if r[1] not in volatile.get(table, ())]
        out[table] = server.query(f"SELECT {', '.join(cols)} FROM {table} ORDER BY id")
    return out


def one(server: LiveServer, sql: str, *params: Any) -> tuple[Any, ...]:
    rows = server.query(sql, *params)
    assert rows, f"seed has no row for: {sql}"
    return rows[0]


def scalar(server: LiveServer, sql: str, *params: Any) -> Any:
    """The first column of the first row of a query the seed must answer."""
    return one(server, sql, *params)[0]


def balance(server: LiveServer, account_id: str) -> int:
    return server.query("SELECT balance_cents FROM accounts WHERE id = ?", account_id)[0][0]


def txn_count(server: LiveServer) -> int:
    return server.query("SELECT count(*) FROM transactions")[0][0]


def own_pair(server: LiveServer) -> tuple[str, str, str]:
    """(customer, rich active checking, active savings) of one customer."""
    return one(
        server,
        """SELECT c.customer_id, c.id, s.id FROM accounts c JOIN accounts s ON s.customer_id = c.customer_id
           WHERE c.type = 'checking' AND c.status = 'active' AND c.balance_cents > 100000
             AND s.type = 'savings' AND s.status = 'active' ORDER BY c.id""",
    )


def low_checking(server: LiveServer) -> tuple[str, int]:
    return one(
        server,
        "SELECT id, balance_cents FROM accounts WHERE type = 'checking' AND status = 'active' "
        "AND balance_cents < 10000 ORDER BY id",
    )


def account_with(server: LiveServer, status: str, kind: str = "checking") -> str:
    return scalar(server, "SELECT id FROM accounts WHERE status = ? AND type = ? ORDER BY id", status, kind)


def credit_owing(server: LiveServer) -> tuple[str, str, int]:
    return one(
        server,
        "SELECT id, customer_id, balance_cents FROM accounts WHERE type = 'credit' AND status = 'active' "
        "AND balance_cents < -10000 ORDER BY id",
    )


def stranger_account(server: LiveServer, customer: str) -> str:
    """An active account of another customer that is not one of ``customer``'s payees."""
    return scalar(
        server,
        "SELECT id FROM accounts WHERE customer_id != ? AND status = 'active' "
        "AND id NOT IN (SELECT account_number FROM payees WHERE customer_id = ?) ORDER BY id",
        customer,
        customer,
    )


def internal_payee(server: LiveServer) -> tuple[str, str, str, str]:
    """(payee, its owner, the active account at this bank it pays, an owner's account with $50+ to pay from)."""
    payee, owner, target = one(
        server,
        f"""SELECT p.id, p.customer_id, p.account_number
            FROM payees p JOIN accounts t ON t.id = p.account_number
            WHERE p.bank_name = '{BANK_NAME}' AND t.status = 'active' ORDER BY p.id""",
    )
    source = scalar(
        server,
        "SELECT id FROM accounts WHERE customer_id = ? AND status = 'active' AND type != 'credit' "
        "AND balance_cents > 5000 ORDER BY id",
        owner,
    )
    return payee, owner, target, source


# -- the server as a whole ----------------------------------------------------------------------


def test_tools_are_listed_with_kinds(bank: LiveServer) -> None:
    writes = {"transfer_funds", "withdraw", "report_card_lost", "close_account"}
    assert_listed_with_kinds(bank, kit, writes=writes, reads={"get_account", "list_transactions", "find_customer"})


def test_every_tool_and_parameter_is_described(bank: LiveServer) -> None:
    assert_every_tool_described(bank, min_description=20)


def test_every_tool_has_a_synthesis_intent_and_samples(bank: LiveServer) -> None:
    metas = {t.name: t.meta for t in listed_tools(bank)}
    for name, info in kit.tools.items():
        intent_placeholders(name, info)
        assert metas[name]["gym_mcp/intent"] == info.intent
        for p in tool_params(info):
            literal = not p.name.endswith("_id") and p.annotation not in (bool, "bool")
            if literal and "{" + p.name + "}" in (info.intent or ""):
                assert len(info.samples.get(p.name, ())) >= 3, f"{name}.{p.name} needs samples"


def test_seed_has_enough_entities(bank: LiveServer) -> None:
    counts = {t: bank.query(f"SELECT count(*) FROM {t}")[0][0] for t in TABLES}
    assert sum(counts.values()) >= 200
    assert counts["customers"] >= 50
    assert counts["accounts"] >= 100
    assert counts["cards"] >= 60
    assert counts["payees"] >= 50
    assert counts["transactions"] >= 300
    # the error paths are reachable
    assert bank.query("SELECT count(*) FROM accounts WHERE status = 'frozen'")[0][0] >= 3
    assert bank.query("SELECT count(*) FROM accounts WHERE status = 'closed'")[0][0] >= 2
    assert bank.query("SELECT count(*) FROM cards WHERE status = 'locked'")[0][0] >= 3
    assert bank.query("SELECT count(*) FROM cards WHERE status = 'cancelled'")[0][0] >= 2
    low_checking(bank)


def test_seed_history_matches_balances(bank: LiveServer) -> None:
    mismatched = bank.query(
        """SELECT a.id FROM accounts a JOIN transactions t ON t.account_id = a.id
           WHERE t.id = (SELECT max(id) FROM transactions WHERE account_id = a.id)
             AND t.balance_after_cents != a.balance_cents"""
    )
    assert mismatched == []
    assert (
        bank.query(
            "SELECT min(balance_after_cents) FROM transactions t JOIN accounts a "
            "ON a.id = t.account_id WHERE a.type != 'credit'"
        )[0][0]
        >= 0
    )


def test_same_seed_same_data_other_seed_other_data(bank: LiveServer) -> None:
    assert dump(bank) == dump(LiveServer(kit, seed=0))
    other = dump(LiveServer(kit, seed=1))
    assert other != dump(bank)
    assert other["customers"] != dump(bank)["customers"]


def test_replaying_calls_gives_identical_state() -> None:
    servers = [LiveServer(kit, seed=0), LiveServer(kit, seed=0)]
    results = []
    for server in servers:
        customer, checking, savings = own_pair(server)
        results.append(
            [
                server.ok("transfer_funds", from_account_id=checking, to_account_id=savings, amount=12.34),
                server.ok("open_account", customer_id=customer, account_type="savings"),
                server.ok(
                    "add_payee",
                    customer_id=customer,
                    payee_name="Metro Gas",
                    account_number="555111222",
                    bank_name="Union Commerce Bank",
                ),
            ]
        )
    assert results[0] == results[1]
    assert dump(servers[0]) == dump(servers[1])


# -- customers and accounts ---------------------------------------------------------------------


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


# -- moving money -------------------------------------------------------------------------------


def test_deposit(bank: LiveServer) -> None:
    _, checking, _ = own_pair(bank)
    before = balance(bank, checking)
    out = bank.ok("deposit", account_id=checking, amount=100.25, description="Paycheck")
    assert balance(bank, checking) == before + 10025
    assert out["new_balance"] == (before + 10025) / 100
    row = bank.query(
        "SELECT account_id, kind, amount_cents, balance_after_cents, description, posted_on "
        "FROM transactions WHERE id = ?",
        out["transaction_id"],
    )
    assert row == [(checking, "deposit", 10025, before + 10025, "Paycheck", "2026-01-15")]
    frozen = account_with(bank, "frozen")
    bank.ok("deposit", account_id=frozen, amount=5)  # frozen accounts still receive money


def test_deposit_errors_change_nothing(bank: LiveServer) -> None:
    _, checking, _ = own_pair(bank)
    state = dump(bank)
    assert "greater than 0" in bank.error("deposit", account_id=checking, amount=0)
    assert "greater than 0" in bank.error("deposit", account_id=checking, amount=-5)
    assert "more than 2 decimals" in bank.error("deposit", account_id=checking, amount=10.005)
    assert "maximum" in bank.error("deposit", account_id=checking, amount=5_000_000)
    assert "closed" in bank.error("deposit", account_id=account_with(bank, "closed"), amount=10)
    credit, _, cents = credit_owing(bank)
    err = bank.error("deposit", account_id=credit, amount=(-cents + 100) / 100)
    assert "cannot exceed the amount owed" in err
    assert f"${-cents / 100:,.2f}" in err
    assert "ACC-7777" in bank.error("deposit", account_id="ACC-7777", amount=1)
    assert dump(bank) == state
    bank.ok("deposit", account_id=credit, amount=-cents / 100)  # paying off exactly is fine
    assert balance(bank, credit) == 0


def test_withdraw(bank: LiveServer) -> None:
    _, checking, _ = own_pair(bank)
    before = balance(bank, checking)
    out = bank.ok("withdraw", account_id=checking, amount=60)
    assert balance(bank, checking) == before - 6000
    assert bank.query("SELECT kind, amount_cents FROM transactions WHERE id = ?", out["transaction_id"]) == [
        ("withdrawal", -6000)
    ]


def test_withdraw_insufficient_funds(bank: LiveServer) -> None:
    acc, cents = low_checking(bank)
    count = txn_count(bank)
    err = bank.error("withdraw", account_id=acc, amount=(cents + 5000) / 100)
    assert "Insufficient funds" in err
    assert f"${cents / 100:,.2f}" in err
    assert f"${(cents + 5000) / 100:,.2f}" in err
    assert balance(bank, acc) == cents
    assert txn_count(bank) == count


def test_withdraw_daily_limit(bank: LiveServer) -> None:
    acc, limit, withdrawn = one(
        bank,
        """SELECT a.id, a.daily_withdrawal_limit_cents, -sum(t.amount_cents) FROM accounts a
           JOIN transactions t ON t.account_id = a.id AND t.kind = 'withdrawal' AND t.posted_on = '2026-01-15'
           WHERE a.balance_cents > a.daily_withdrawal_limit_cents GROUP BY a.id ORDER BY a.id""",
    )
    remaining = (limit - withdrawn) / 100
    err = bank.error("withdraw", account_id=acc, amount=(limit - withdrawn + 1) / 100)
    assert "Daily withdrawal limit" in err
    assert f"${remaining:,.2f}" in err
    out = bank.ok("withdraw", account_id=acc, amount=remaining)
    assert out["withdrawal_remaining_today"] == 0
    assert "at most $0.00" in bank.error("withdraw", account_id=acc, amount=1)


def test_withdraw_blocked_accounts(bank: LiveServer) -> None:
    frozen = account_with(bank, "frozen")
    before = balance(bank, frozen)
    assert "frozen" in bank.error("withdraw", account_id=frozen, amount=1)
    assert balance(bank, frozen) == before
    assert "closed" in bank.error("withdraw", account_id=account_with(bank, "closed"), amount=1)
    credit, _, _ = credit_owing(bank)
    assert "credit account" in bank.error("withdraw", account_id=credit, amount=1)


def test_transfer_between_own_accounts(bank: LiveServer) -> None:
    _, checking, savings = own_pair(bank)
    a, b, count = balance(bank, checking), balance(bank, savings), txn_count(bank)
    out = bank.ok("transfer_funds", from_account_id=checking, to_account_id=savings, amount=250.5, memo="Save")
    assert balance(bank, checking) == a - 25050
    assert balance(bank, savings) == b + 25050
    assert out["from_new_balance"] == (a - 25050) / 100
    assert out["to_new_balance"] == (b + 25050) / 100
    assert txn_count(bank) == count + 2
    rows = bank.query(
        "SELECT id, account_id, kind, amount_cents, counterparty FROM transactions WHERE id IN (?, ?) ORDER BY id",
        *out["transaction_ids"],
    )
    assert [r[1:] for r in rows] == [
        (checking, "transfer_out", -25050, savings),
        (savings, "transfer_in", 25050, checking),
    ]
    # the next new ids follow the largest existing ones
    assert rows[0][0] == f"TXN-{10000 + count + 1}"


def test_transfer_errors_change_nothing(bank: LiveServer) -> None:
    customer, checking, savings = own_pair(bank)
    state = dump(bank)
    assert "two different accounts" in bank.error(
        "transfer_funds", from_account_id=checking, to_account_id=checking, amount=5
    )
    amount = (balance(bank, checking) + 100) / 100
    err = bank.error("transfer_funds", from_account_id=checking, to_account_id=savings, amount=amount)
    assert "Insufficient funds" in err
    assert f"${amount:,.2f}" in err
    stranger = stranger_account(bank, customer)
    assert "add_payee" in bank.error("transfer_funds", from_account_id=checking, to_account_id=stranger, amount=5)
    frozen = account_with(bank, "frozen")
    frozen_owner = bank.query("SELECT customer_id FROM accounts WHERE id = ?", frozen)[0][0]
    sibling = bank.query("SELECT id FROM accounts WHERE customer_id = ? AND id != ?", frozen_owner, frozen)
    target = sibling[0][0] if sibling else savings
    assert "frozen" in bank.error("transfer_funds", from_account_id=frozen, to_account_id=target, amount=1)
    assert "0.001" in bank.error("transfer_funds", from_account_id=checking, to_account_id=savings, amount=0.001)
    assert "ACC-4242" in bank.error("transfer_funds", from_account_id=checking, to_account_id="ACC-4242", amount=1)
    assert dump(bank) == state


def test_transfer_to_payee_account_and_into_credit(bank: LiveServer) -> None:
    _, _, target, source = internal_payee(bank)
    before = balance(bank, target)
    out = bank.ok("transfer_funds", from_account_id=source, to_account_id=target, amount=20)
    assert balance(bank, target) == before + 2000
    assert "to_new_balance" not in out  # another customer's balance stays private
    credit, owner, cents = credit_owing(bank)
    funder = one(
        bank,
        "SELECT id FROM accounts WHERE customer_id = ? AND type != 'credit' AND status = 'active' "
        "AND balance_cents > ? ORDER BY id",
        owner,
        -cents + 100,
    )
    err = bank.error("transfer_funds", from_account_id=funder[0], to_account_id=credit, amount=(-cents + 100) / 100)
    assert "cannot exceed the amount owed" in err
    bank.ok("transfer_funds", from_account_id=funder[0], to_account_id=credit, amount=10)
    assert balance(bank, credit) == cents + 1000


# -- payees -------------------------------------------------------------------------------------


def test_list_payees(bank: LiveServer) -> None:
    customer, count = one(
        bank, "SELECT customer_id, count(*) FROM payees GROUP BY customer_id HAVING count(*) >= 2 ORDER BY 1"
    )
    payees = bank.ok("list_payees", customer_id=customer)
    assert len(payees) == count
    assert set(payees[0]) == {"payee_id", "name", "bank_name", "account_number"}
    assert "find_customer" in bank.error("list_payees", customer_id="CUS-0")


def test_add_and_remove_payee(bank: LiveServer) -> None:
    customer, checking, _ = own_pair(bank)
    top = bank.query("SELECT max(id) FROM payees")[0][0]
    external = {"customer_id": customer, "bank_name": "Union Commerce Bank"}
    out = bank.ok("add_payee", payee_name="Metro Gas", account_number="5551-1122 2", **external)
    assert out["payee_id"] == f"PAY-{int(top[4:]) + 1}"
    assert out["account_number"] == "555111222"
    assert bank.query("SELECT customer_id, name, bank_name FROM payees WHERE id = ?", out["payee_id"]) == [
        (customer, "Metro Gas", "Union Commerce Bank")
    ]
    assert_error(
        bank,
        "add_payee",
        "already has payee",
        out["payee_id"],
        payee_name="Gas again",
        account_number="555111222",
        **external,
    )
    other = stranger_account(bank, customer)
    internal = bank.ok("add_payee", customer_id=customer, payee_name="Friend", account_number=other.lower())
    assert internal["bank_name"] == BANK_NAME
    assert internal["account_number"] == other
    assert "own account" in bank.error("add_payee", customer_id=customer, payee_name="Me", account_number=checking)
    assert "6 to 17 digits" in bank.error(
        "add_payee", customer_id=customer, payee_name="X", account_number="12ab", bank_name="Some Bank"
    )
    assert "bank_name is required" in bank.error(
        "add_payee", customer_id=customer, payee_name="X", account_number="123456789"
    )
    assert "1 to 60" in bank.error(
        "add_payee", customer_id=customer, payee_name=" ", account_number="123456789", bank_name="Some Bank"
    )
    closed = account_with(bank, "closed")
    assert "closed" in bank.error("add_payee", customer_id=customer, payee_name="Old", account_number=closed)

    removed = bank.ok("remove_payee", payee_id=out["payee_id"])
    assert removed["removed"] == out["payee_id"]
    assert bank.query("SELECT count(*) FROM payees WHERE id = ?", out["payee_id"]) == [(0,)]
    err = bank.error("remove_payee", payee_id=out["payee_id"])
    assert out["payee_id"] in err
    assert "list_payees" in err


def test_pay_payee(bank: LiveServer) -> None:
    payee, customer = one(bank, f"SELECT id, customer_id FROM payees WHERE bank_name != '{BANK_NAME}' ORDER BY id")
    source, cents = one(
        bank,
        "SELECT id, balance_cents FROM accounts WHERE customer_id = ? AND status = 'active' "
        "AND type = 'checking' AND balance_cents > 10000 ORDER BY id",
        customer,
    )
    out = bank.ok("pay_payee", from_account_id=source, payee_id=payee, amount=42.1, memo="Jan")
    assert balance(bank, source) == cents - 4210
    assert out["new_balance"] == (cents - 4210) / 100
    assert bank.query(
        "SELECT kind, amount_cents, counterparty FROM transactions WHERE id = ?", out["transaction_id"]
    ) == [("payment", -4210, payee)]
    state = dump(bank)
    err = bank.error("pay_payee", from_account_id=source, payee_id=payee, amount=cents / 100)
    assert "Insufficient funds" in err
    foreign = scalar(bank, "SELECT id FROM payees WHERE customer_id != ? ORDER BY id", customer)
    assert "list_payees" in bank.error("pay_payee", from_account_id=source, payee_id=foreign, amount=1)
    assert "PAY-0000" in bank.error("pay_payee", from_account_id=source, payee_id="PAY-0000", amount=1)
    assert dump(bank) == state


def test_pay_internal_payee_credits_their_account(bank: LiveServer) -> None:
    payee, _, target, source = internal_payee(bank)
    a, b, count = balance(bank, source), balance(bank, target), txn_count(bank)
    bank.ok("pay_payee", from_account_id=source, payee_id=payee, amount=15)
    assert balance(bank, source) == a - 1500
    assert balance(bank, target) == b + 1500
    assert txn_count(bank) == count + 2


# -- cards --------------------------------------------------------------------------------------


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


# -- account lifecycle --------------------------------------------------------------------------


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
