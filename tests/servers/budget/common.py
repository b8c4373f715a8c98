"""What the budget server's tests share: seed-data queries."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import one, scalar

TABLES = ("accounts", "categories", "budgets", "transactions", "goals", "contributions", "bills", "transfers")


def balance(server: LiveServer, account_id: str) -> int:
    """An account's balance in cents."""
    return scalar(server, "SELECT balance_cents FROM accounts WHERE id = ?", account_id)


def spent(server: LiveServer, category_id: str, month: str = "2026-01") -> int:
    """What was spent in a category in a month, in cents."""
    return scalar(
        server,
        "SELECT coalesce(sum(amount_cents), 0) FROM transactions WHERE category_id = ? AND substr(posted_on, 1, 7) = ?",
        category_id,
        month,
    )


def budget(server: LiveServer, policy: str, room: str = "1") -> tuple[str, str, int, int]:
    """(category, budget, limit, spent) of a January budget with a policy whose spending meets ``room``."""
    return one(
        server,
        f"""SELECT b.category_id, b.id, b.limit_cents, coalesce((SELECT sum(t.amount_cents) FROM transactions t
              WHERE t.category_id = b.category_id AND substr(t.posted_on, 1, 7) = b.month), 0) AS spent
            FROM budgets b WHERE b.month = '2026-01' AND b.policy = ? AND {room} ORDER BY b.id""",
        policy,
    )
