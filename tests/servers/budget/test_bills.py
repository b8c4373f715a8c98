"""The budget server through a real MCP client: recurring bills."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.budget.common import balance
from tests.servers.helpers import dump, one, scalar


def test_list_bills(bud: LiveServer) -> None:
    bills = bud.ok("list_bills")
    assert len(bills) == 14
    assert [b["next_due"] for b in bills] == sorted(b["next_due"] for b in bills)
    overdue = [b["name"] for b in bills if b["overdue"]]
    assert sorted(overdue) == ["Internet", "Water"]
    soon = bud.ok("list_bills", status="active", due_within_days=7)
    assert soon
    assert all(b["days_until_due"] <= 7 and b["status"] == "active" for b in soon)
    assert "status must be one of" in bud.error("list_bills", status="paid")
    assert "between 0 and 366" in bud.error("list_bills", due_within_days=-1)


def test_add_bill_computes_the_first_due_date(bud: LiveServer) -> None:
    category = scalar(bud, "SELECT id FROM categories WHERE name = 'Pets'")
    later = bud.ok(
        "add_bill",
        account_id="ACC-1001",
        category_id=category,
        name="Pet insurance",
        amount=29.99,
        frequency="monthly",
        day_of_month=20,
    )
    assert (later["next_due"], later["days_until_due"]) == ("2026-01-20", 5)
    passed = bud.ok(
        "add_bill",
        account_id="ACC-1001",
        category_id=category,
        name="Dog walker",
        amount=120,
        frequency="Quarterly",
        day_of_month=5,
    )
    assert (passed["next_due"], passed["frequency"]) == ("2026-02-05", "quarterly")
    assert one(bud, "SELECT amount_cents, next_due, status FROM bills WHERE id = ?", later["bill_id"]) == (
        2999,
        "2026-01-20",
        "active",
    )
    state = dump(bud)
    assert later["bill_id"] in bud.error(
        "add_bill",
        account_id="ACC-1001",
        category_id=category,
        name="pet insurance",
        amount=5,
        frequency="monthly",
        day_of_month=1,
    )
    assert "between 1 and 28" in bud.error(
        "add_bill",
        account_id="ACC-1001",
        category_id=category,
        name="Rates",
        amount=5,
        frequency="monthly",
        day_of_month=31,
    )
    assert "frequency must be one of" in bud.error(
        "add_bill",
        account_id="ACC-1001",
        category_id=category,
        name="Rates",
        amount=5,
        frequency="weekly",
        day_of_month=3,
    )
    salary = scalar(bud, "SELECT id FROM categories WHERE name = 'Salary'")
    assert "income category" in bud.error(
        "add_bill",
        account_id="ACC-1001",
        category_id=salary,
        name="Rates",
        amount=5,
        frequency="monthly",
        day_of_month=3,
    )
    assert dump(bud) == state


def test_pay_bill_moves_the_due_date(bud: LiveServer) -> None:
    bill, account, cents = one(bud, "SELECT id, account_id, amount_cents FROM bills WHERE name = 'Internet'")
    before = balance(bud, account)
    out = bud.ok("pay_bill", bill_id=bill)
    assert (out["paid_for_due_date"], out["bill"]["next_due"], out["bill"]["overdue"]) == (
        "2026-01-12",
        "2026-02-12",
        False,
    )
    assert out["transaction"]["bill_id"] == bill
    assert balance(bud, account) == before - cents
    assert one(
        bud, "SELECT amount_cents, posted_on FROM transactions WHERE id = ?", out["transaction"]["transaction_id"]
    ) == (cents, "2026-01-15")
    water = scalar(bud, "SELECT id FROM bills WHERE name = 'Water'")
    assert bud.ok("pay_bill", bill_id=water)["bill"]["next_due"] == "2026-04-10"  # quarterly


def test_pay_bill_errors_change_nothing(bud: LiveServer) -> None:
    state = dump(bud)
    yearly = scalar(bud, "SELECT id FROM bills WHERE name = 'Home insurance'")
    err = bud.error("pay_bill", bill_id=yearly)
    assert "2026-03-08" in err
    assert "at most 30 days before" in err
    cancelled = scalar(bud, "SELECT id FROM bills WHERE status = 'cancelled' ORDER BY id")
    assert "is cancelled" in bud.error("pay_bill", bill_id=cancelled)
    assert "list_bills" in bud.error("pay_bill", bill_id="BIL-9")
    assert dump(bud) == state
    rent = scalar(bud, "SELECT id FROM bills WHERE name = 'Rent'")
    bud.ok(
        "transfer_between_accounts",
        from_account_id="ACC-1001",
        to_account_id="ACC-1002",
        amount=balance(bud, "ACC-1001") / 100,
    )
    state = dump(bud)
    assert "Not enough money" in bud.error("pay_bill", bill_id=rent)
    assert dump(bud) == state


def test_cancel_bill(bud: LiveServer) -> None:
    bill = scalar(bud, "SELECT id FROM bills WHERE status = 'active' ORDER BY id")
    assert bud.ok("cancel_bill", bill_id=bill)["status"] == "cancelled"
    assert one(bud, "SELECT status FROM bills WHERE id = ?", bill) == ("cancelled",)
    state = dump(bud)
    assert "already cancelled" in bud.error("cancel_bill", bill_id=bill)
    assert dump(bud) == state
