"""The budget server through a real MCP client: categories and monthly budgets."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.budget.common import budget, spent
from tests.servers.helpers import dump, one, scalar


def test_list_categories(bud: LiveServer) -> None:
    everything = bud.ok("list_categories")
    assert len(everything) == bud.query("SELECT count(*) FROM categories")[0][0]
    income = bud.ok("list_categories", kind="income")
    assert income
    assert {c["kind"] for c in income} == {"income"}
    assert all(c["spent_this_month"] is None for c in income)
    groceries = next(c for c in everything if c["name"] == "Groceries")
    assert groceries["spent_this_month"] == spent(bud, groceries["category_id"]) / 100
    assert (
        groceries["transactions"]
        == bud.query("SELECT count(*) FROM transactions WHERE category_id = ?", groceries["category_id"])[0][0]
    )
    assert "kind must be one of" in bud.error("list_categories", kind="savings")


def test_create_category(bud: LiveServer) -> None:
    out = bud.ok("create_category", name="  Home office ")
    assert out == {"category_id": out["category_id"], "name": "Home office", "kind": "expense"}
    assert one(bud, "SELECT name, kind FROM categories WHERE id = ?", out["category_id"]) == ("Home office", "expense")
    assert bud.ok("create_category", name="Side gigs", kind="Income")["kind"] == "income"
    state = dump(bud)
    assert out["category_id"] in bud.error("create_category", name="home OFFICE")
    assert "kind must be one of" in bud.error("create_category", name="Misc", kind="asset")
    assert "2 to 40" in bud.error("create_category", name="x")
    assert dump(bud) == state


def test_delete_category(bud: LiveServer) -> None:
    used = scalar(bud, "SELECT category_id FROM transactions ORDER BY category_id")
    free = scalar(
        bud,
        "SELECT id FROM categories WHERE id NOT IN (SELECT category_id FROM transactions) AND id NOT IN (SELECT category_id FROM bills) ORDER BY id",
    )
    state = dump(bud)
    err = bud.error("delete_category", category_id=used)
    assert "still used by" in err
    assert "recategorize_transaction" in err
    assert free in err  # names the categories that can go
    billed = scalar(bud, "SELECT category_id FROM bills WHERE status = 'active' ORDER BY category_id")
    assert "cancel_bill" in bud.error("delete_category", category_id=billed)
    assert dump(bud) == state
    bud.ok("set_budget", category_id=free, amount=50)
    out = bud.ok("delete_category", category_id=free)
    assert out["deleted_category_id"] == free
    assert len(out["deleted_budget_ids"]) == 1
    assert bud.query("SELECT id FROM categories WHERE id = ?", free) == []
    assert bud.query("SELECT id FROM budgets WHERE category_id = ?", free) == []


def test_get_budget_report(bud: LiveServer) -> None:
    report = bud.ok("get_budget_report")
    assert report["month"] == "2026-01"
    assert len(report["budgets"]) == bud.query("SELECT count(*) FROM budgets WHERE month = '2026-01'")[0][0]
    for row in report["budgets"]:
        assert row["spent"] == spent(bud, row["category_id"]) / 100
        assert row["status"] == (
            "over" if row["spent"] > row["limit"] else "near" if row["spent"] >= 0.9 * row["limit"] else "ok"
        )
    assert {r["status"] for r in report["budgets"]} >= {"ok", "over"}
    assert report["income"] > 0
    assert bud.ok("get_budget_report", month="2025-11")["budgets"]
    assert "YYYY-MM" in bud.error("get_budget_report", month="January")


def test_set_budget(bud: LiveServer) -> None:
    category, budget_id, _, _ = budget(bud, "flag")
    out = bud.ok("set_budget", category_id=category, amount=900, policy="block")
    assert (out["budget_id"], out["limit"], out["policy"]) == (budget_id, 900, "block")
    assert one(bud, "SELECT limit_cents, policy FROM budgets WHERE id = ?", budget_id) == (90000, "block")
    new = bud.ok("set_budget", category_id=category, amount=400, month="2026-02")
    assert (new["month"], new["policy"], new["spent"]) == ("2026-02", "flag", 0)
    state = dump(bud)
    assert "already $900.00" in bud.error("set_budget", category_id=category, amount=900)
    assert "closed" in bud.error("set_budget", category_id=category, amount=100, month="2025-12")
    assert "latest is 2027-01" in bud.error("set_budget", category_id=category, amount=100, month="2027-02")
    salary = scalar(bud, "SELECT id FROM categories WHERE kind = 'income' ORDER BY id")
    assert "income category" in bud.error("set_budget", category_id=salary, amount=100)
    assert "policy must be one of" in bud.error("set_budget", category_id=category, amount=100, policy="warn")
    assert dump(bud) == state
