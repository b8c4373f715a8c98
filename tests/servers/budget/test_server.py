"""The budget server through a real MCP client: the server as a whole."""

from __future__ import annotations

from gym_mcp.servers.budget import kit
from tests.helpers import LiveServer
from tests.servers.budget.common import TABLES
from tests.servers.helpers import (
    assert_every_tool_described,
    assert_listed_with_kinds,
    dump,
    intent_placeholders,
    listed_tools,
    tool_params,
)

WRITES = {
    "transfer_between_accounts",
    "create_category",
    "delete_category",
    "set_budget",
    "add_transaction",
    "recategorize_transaction",
    "delete_transaction",
    "create_goal",
    "contribute_to_goal",
    "add_bill",
    "pay_bill",
    "cancel_bill",
}
READS = {
    "list_accounts",
    "list_categories",
    "get_budget_report",
    "list_transactions",
    "list_goals",
    "list_bills",
}


def test_tools_are_listed_with_kinds(bud: LiveServer) -> None:
    assert_listed_with_kinds(bud, kit, writes=WRITES, reads=READS)
    assert set(kit.tools) == WRITES | READS
    assert {n for n, info in kit.tools.items() if info.write} == WRITES
    metas = {t.name: t.meta for t in listed_tools(bud)}
    for name in ("delete_category", "delete_transaction", "cancel_bill"):
        assert metas[name]["gym_mcp/confirm"] == "always", name
    assert metas["transfer_between_accounts"]["gym_mcp/confirm"] == "amount >= 1000"
    assert metas["get_budget_report"]["gym_mcp/kind"] == "read"


def test_every_tool_and_parameter_is_described(bud: LiveServer) -> None:
    assert_every_tool_described(bud, min_description=20)


def test_intents_and_samples() -> None:
    for name, info in kit.tools.items():
        outside, inside = intent_placeholders(name, info)
        for p in tool_params(info):
            literal = not p.name.endswith("_id") and "bool" not in str(p.annotation)
            if literal and p.name in outside | inside:
                assert len(info.samples.get(p.name, ())) >= 2, f"{name}.{p.name} needs samples"


def test_seed_has_enough_entities(bud: LiveServer) -> None:
    counts = {t: bud.query(f"SELECT count(*) FROM {t}")[0][0] for t in TABLES}
    assert sum(counts.values()) >= 250
    assert counts["transactions"] >= 150
    assert counts["budgets"] >= 40

    def count(sql: str) -> int:
        return bud.query(f"SELECT count(*) FROM {sql}")[0][0]

    for policy in ("flag", "block"):
        assert count(f"budgets WHERE month = '2026-01' AND policy = '{policy}'") >= 3, policy
    assert count("transactions WHERE flagged = 1 AND posted_on >= '2026-01-01'") >= 1
    assert count("categories WHERE id NOT IN (SELECT category_id FROM transactions)") >= 4
    for status in ("active", "completed"):
        assert count(f"goals WHERE status = '{status}'") >= 2, status
    for status in ("active", "cancelled"):
        assert count(f"bills WHERE status = '{status}'") >= 2, status
    assert count("bills WHERE status = 'active' AND next_due < '2026-01-15'") >= 2
    assert count("bills WHERE status = 'active' AND next_due > '2026-02-14'") >= 1
    assert {a["type"] for a in bud.ok("list_accounts")} == {"checking", "savings", "credit"}


def test_seed_is_internally_consistent(bud: LiveServer) -> None:
    # goals hold what their contributions add up to, never more than the target
    assert (
        bud.query(
            """SELECT g.id FROM goals g LEFT JOIN contributions c ON c.goal_id = g.id GROUP BY g.id
           HAVING coalesce(sum(c.amount_cents), 0) != g.saved_cents OR g.saved_cents > g.target_cents
              OR (g.status = 'completed') != (g.saved_cents = g.target_cents)"""
        )
        == []
    )
    # no block-policy budget is over its limit; only expense transactions are flagged
    assert (
        bud.query(
            """SELECT b.id FROM budgets b WHERE b.policy = 'block' AND b.limit_cents < (SELECT coalesce(sum(t.amount_cents), 0)
           FROM transactions t WHERE t.category_id = b.category_id AND substr(t.posted_on, 1, 7) = b.month)"""
        )
        == []
    )
    assert (
        bud.query(
            "SELECT t.id FROM transactions t JOIN categories c ON c.id = t.category_id WHERE t.flagged = 1 AND c.kind != 'expense'"
        )
        == []
    )
    # bill payments are in the bill's category and amount; budgets only on expense categories; no future dates
    assert (
        bud.query(
            """SELECT t.id FROM transactions t JOIN bills b ON b.id = t.bill_id
           WHERE t.category_id != b.category_id OR t.amount_cents != b.amount_cents OR t.account_id != b.account_id"""
        )
        == []
    )
    assert (
        bud.query("SELECT b.id FROM budgets b JOIN categories c ON c.id = b.category_id WHERE c.kind != 'expense'")
        == []
    )
    assert bud.query("SELECT id FROM transactions WHERE posted_on > '2026-01-15'") == []
    assert bud.query("SELECT id FROM accounts WHERE type = 'credit' AND balance_cents + credit_limit_cents < 0") == []


def test_same_seed_same_data_other_seed_other_data(bud: LiveServer) -> None:
    assert dump(bud) == dump(LiveServer(kit, seed=0))
    other = dump(LiveServer(kit, seed=1))
    assert other != dump(bud)
    assert other["transactions"] != dump(bud)["transactions"]
    assert other["categories"] == dump(bud)["categories"]  # the category list is fixed


def test_replaying_calls_gives_identical_state() -> None:
    servers = [LiveServer(kit, seed=0), LiveServer(kit, seed=0)]
    results = []
    for server in servers:
        results.append(
            [
                server.ok(
                    "add_transaction", account_id="ACC-1001", category_id="CAT-1001", amount=20, payee="FreshMart"
                ),
                server.ok("pay_bill", bill_id="BIL-1003"),
                server.ok("create_goal", name="Ski trip", target=900, target_date="2026-12-01"),
            ]
        )
    assert results[0] == results[1]
    assert dump(servers[0]) == dump(servers[1])
