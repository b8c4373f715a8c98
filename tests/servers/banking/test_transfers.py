"""The banking server, driven through a real MCP client on an in-memory database: moving money."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.banking.common import (
    account_with,
    balance,
    credit_owing,
    internal_payee,
    low_checking,
    own_pair,
    stranger_account,
    txn_count,
)
from tests.servers.helpers import dump, one


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
