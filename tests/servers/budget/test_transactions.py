"""The budget server through a real MCP client: transactions and the overspend rule."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.budget.common import balance, budget, spent
from tests.servers.helpers import dump, one, scalar


def test_list_transactions(bud: LiveServer) -> None:
    out = bud.ok("list_transactions", limit=5)
    assert len(out["transactions"]) == 5
    assert out["more"] is True
    dates = [t["posted_on"] for t in out["transactions"]]
    assert dates == sorted(dates, reverse=True)
    flagged = bud.ok("list_transactions", month="2025-12", flagged_only=True, limit=100)["transactions"]
    assert (
        len(flagged)
        == bud.query("SELECT count(*) FROM transactions WHERE flagged = 1 AND posted_on LIKE '2025-12-%'")[0][0]
    )
    mine = bud.ok("list_transactions", account_id="ACC-1003", category_id="CAT-1001", limit=100)["transactions"]
    assert {(t["account_id"], t["category_id"]) for t in mine} == {("ACC-1003", "CAT-1001")}
    assert "YYYY-MM" in bud.error("list_transactions", month="2025/12")
    assert "list_categories" in bud.error("list_transactions", category_id="CAT-9")


def test_add_expense_within_budget(bud: LiveServer) -> None:
    category, _, limit, used = budget(bud, "block", "b.limit_cents - spent > 2000")
    before = balance(bud, "ACC-1001")
    out = bud.ok("add_transaction", account_id="ACC-1001", category_id=category, amount=12.5, payee="Cafe Aroma")
    assert (out["direction"], out["flagged"], out["posted_on"]) == ("out", False, "2026-01-15")
    assert out["budget"]["spent"] == (used + 1250) / 100
    assert balance(bud, "ACC-1001") == before - 1250
    assert spent(bud, category) == used + 1250
    income = scalar(bud, "SELECT id FROM categories WHERE name = 'Freelance'")
    got = bud.ok(
        "add_transaction", account_id="ACC-1001", category_id=income, amount=300, payee="Upwork", posted_on="2026-01-02"
    )
    assert got["direction"] == "in"
    assert balance(bud, "ACC-1001") == before - 1250 + 30000


def test_overspending_is_flagged_or_blocked(bud: LiveServer) -> None:
    category, _, limit, used = budget(bud, "flag")
    over = (limit - used) / 100 + 5 if limit > used else 5
    out = bud.ok("add_transaction", account_id="ACC-1002", category_id=category, amount=over, payee="FreshMart")
    assert out["flagged"] is True
    assert "flagged" in out["warning"]
    assert one(bud, "SELECT flagged FROM transactions WHERE id = ?", out["transaction_id"]) == (1,)
    category, _, limit, used = budget(bud, "block")
    state = dump(bud)
    err = bud.error(
        "add_transaction",
        account_id="ACC-1002",
        category_id=category,
        amount=(limit - used) / 100 + 0.01,
        payee="Sushi Go",
    )
    assert "blocks overspending" in err
    assert f"At most ${(limit - used) / 100:,.2f} fits" in err
    assert "set_budget" in err
    assert dump(bud) == state


def test_add_transaction_errors_change_nothing(bud: LiveServer) -> None:
    state = dump(bud)
    groceries = scalar(bud, "SELECT id FROM categories WHERE name = 'Groceries'")
    low = balance(bud, "ACC-1007")
    assert "Not enough money" in bud.error(
        "add_transaction", account_id="ACC-1007", category_id=groceries, amount=(low + 100) / 100, payee="FreshMart"
    )
    card = balance(bud, "ACC-1006")
    assert "credit left" in bud.error(
        "add_transaction",
        account_id="ACC-1006",
        category_id=groceries,
        amount=(150000 + card + 100) / 100,
        payee="FreshMart",
    )
    for day in ("2026-01-16", "2025-11-15"):
        assert "out of range" in bud.error(
            "add_transaction", account_id="ACC-1001", category_id=groceries, amount=5, payee="FreshMart", posted_on=day
        )
    assert "2 to 80" in bud.error("add_transaction", account_id="ACC-1001", category_id=groceries, amount=5, payee=" ")
    assert dump(bud) == state


def test_recategorize_transaction(bud: LiveServer) -> None:
    txn, old = one(
        bud,
        "SELECT t.id, t.category_id FROM transactions t JOIN categories c ON c.id = t.category_id WHERE c.name = 'Groceries' AND t.posted_on >= '2026-01-01' AND t.flagged = 1 ORDER BY t.id",
    )
    unbudgeted = scalar(bud, "SELECT id FROM categories WHERE name = 'Pets'")
    out = bud.ok("recategorize_transaction", transaction_id=txn, category_id=unbudgeted)
    assert (out["category_id"], out["moved_from_category_id"], out["flagged"]) == (unbudgeted, old, False)
    assert one(bud, "SELECT category_id, flagged FROM transactions WHERE id = ?", txn) == (unbudgeted, 0)
    state = dump(bud)
    assert "already in" in bud.error("recategorize_transaction", transaction_id=txn, category_id=unbudgeted)
    salary = scalar(bud, "SELECT id FROM categories WHERE name = 'Salary'")
    assert "same kind" in bud.error("recategorize_transaction", transaction_id=txn, category_id=salary)
    blocked, _, limit, used = budget(bud, "block")
    big = scalar(
        bud,
        "SELECT t.id FROM transactions t JOIN categories c ON c.id = t.category_id WHERE c.kind = 'expense' AND t.amount_cents > ? AND t.posted_on >= '2026-01-01' AND t.category_id != ? ORDER BY t.id",
        limit - used,
        blocked,
    )
    assert "blocks overspending" in bud.error("recategorize_transaction", transaction_id=big, category_id=blocked)
    assert dump(bud) == state


def test_delete_transaction(bud: LiveServer) -> None:
    txn, account, cents = one(
        bud,
        "SELECT t.id, t.account_id, t.amount_cents FROM transactions t JOIN categories c ON c.id = t.category_id WHERE c.kind = 'expense' AND t.posted_on >= '2025-12-01' ORDER BY t.id",
    )
    before = balance(bud, account)
    out = bud.ok("delete_transaction", transaction_id=txn)
    assert out["deleted"]["transaction_id"] == txn
    assert balance(bud, account) == before + cents
    assert bud.query("SELECT id FROM transactions WHERE id = ?", txn) == []
    state = dump(bud)
    old = scalar(bud, "SELECT id FROM transactions WHERE posted_on < '2025-12-01' ORDER BY id")
    assert "closed month" in bud.error("delete_transaction", transaction_id=old)
    assert "list_transactions" in bud.error("delete_transaction", transaction_id=txn)
    assert dump(bud) == state
    salary, cents = one(
        bud,
        "SELECT t.id, t.amount_cents FROM transactions t JOIN categories c ON c.id = t.category_id WHERE c.name = 'Salary' AND t.posted_on >= '2026-01-01' ORDER BY t.id",
    )
    bud.ok(
        "transfer_between_accounts",
        from_account_id="ACC-1001",
        to_account_id="ACC-1002",
        amount=(balance(bud, "ACC-1001") - cents + 100) / 100,
    )
    assert "cannot be undone" in bud.error("delete_transaction", transaction_id=salary)
