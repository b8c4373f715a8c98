"""The banking server, driven through a real MCP client on an in-memory database: the server as a whole."""

from __future__ import annotations

from gym_mcp.servers.banking import kit
from tests.helpers import LiveServer
from tests.servers.banking.common import TABLES, low_checking, own_pair
from tests.servers.helpers import (
    assert_listed_with_kinds,
    dump,
)


def test_tools_are_listed_with_kinds(bank: LiveServer) -> None:
    writes = {"transfer_funds", "withdraw", "report_card_lost", "close_account"}
    assert_listed_with_kinds(bank, kit, writes=writes, reads={"get_account", "list_transactions", "find_customer"})


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
