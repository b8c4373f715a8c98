"""What the CRM server's tests share: seed-data queries and small helpers."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import scalar

TABLES = ("owners", "accounts", "contacts", "leads", "opportunities", "activities", "notes")
OPEN = "('prospecting', 'qualification', 'proposal', 'negotiation')"


def count(server: LiveServer, table: str) -> int:
    return int(server.query(f"SELECT count(*) FROM {table}")[0][0])


def active_owner(server: LiveServer, other_than: str | None = None) -> str:
    return scalar(server, "SELECT id FROM owners WHERE active = 1 AND id != ? ORDER BY id", other_than or "")


def inactive_owner(server: LiveServer) -> str:
    return scalar(server, "SELECT id FROM owners WHERE active = 0 ORDER BY id")


def opp_in(server: LiveServer, stage: str, *, amount: bool | None = None) -> str:
    """An opportunity in ``stage`` (with or without an amount) on an active account owned by an active rep."""
    cond = "" if amount is None else " AND o.amount_cents IS NOT NULL" if amount else " AND o.amount_cents IS NULL"
    return scalar(
        server,
        "SELECT o.id FROM opportunities o JOIN owners w ON w.id = o.owner_id "
        f"WHERE o.stage = ? AND w.active = 1{cond} ORDER BY o.id",
        stage,
    )


def account_without_open_opps(server: LiveServer) -> str:
    return scalar(
        server,
        "SELECT a.id FROM accounts a JOIN owners w ON w.id = a.owner_id WHERE a.status = 'active' AND w.active = 1 "
        f"AND a.id NOT IN (SELECT account_id FROM opportunities WHERE stage IN {OPEN}) ORDER BY a.id",
    )


def account_with_open_opps(server: LiveServer) -> str:
    return scalar(
        server,
        "SELECT a.id FROM accounts a JOIN owners w ON w.id = a.owner_id WHERE a.status = 'active' AND w.active = 1 "
        f"AND a.id IN (SELECT account_id FROM opportunities WHERE stage IN {OPEN}) ORDER BY a.id",
    )


def archived_account(server: LiveServer) -> str:
    return scalar(server, "SELECT id FROM accounts WHERE status = 'archived' ORDER BY id")


def lead_with(server: LiveServer, status: str, *, active_owner: bool = True) -> str:
    return scalar(
        server,
        "SELECT l.id FROM leads l JOIN owners w ON w.id = l.owner_id WHERE l.status = ? AND w.active = ? ORDER BY l.id",
        status,
        1 if active_owner else 0,
    )
