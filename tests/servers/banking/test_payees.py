"""The banking server, driven through a real MCP client on an in-memory database: payees."""

from __future__ import annotations

from gym_mcp.servers.banking.models import BANK_NAME
from tests.helpers import LiveServer
from tests.servers.banking.common import account_with, balance, internal_payee, own_pair, stranger_account, txn_count
from tests.servers.helpers import assert_error, dump, one, scalar


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
