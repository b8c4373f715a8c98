"""What the banking server's tests share: seed-data queries and small helpers."""

from __future__ import annotations

from gym_mcp.servers.banking.models import BANK_NAME
from tests.helpers import LiveServer
from tests.servers.helpers import one, scalar

TABLES = ("customers", "accounts", "transactions", "payees", "cards")


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
