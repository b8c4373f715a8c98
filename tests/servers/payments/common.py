"""What the payments server's tests share: seed-data queries and small helpers."""

from __future__ import annotations

from typing import Any

from tests.helpers import LiveServer
from tests.servers.helpers import one, scalar

TABLES = (
    "currencies",
    "customers",
    "wallets",
    "payment_methods",
    "payments",
    "refunds",
    "disputes",
    "payment_requests",
    "transfers",
)
EXPIRED_METHOD = "exp_year * 100 + exp_month < 202601"
"""SQL condition of a card that expired before the kit's today (2026-01-15)."""


def balance(server: LiveServer, wallet_id: str) -> int:
    """A wallet's balance in its minor unit."""
    return server.query("SELECT balance_minor FROM wallets WHERE id = ?", wallet_id)[0][0]


def payment_row(server: LiveServer, payment_id: str) -> tuple[Any, ...]:
    """(status, authorized, captured, refunded, captured_on) of a payment."""
    return one(
        server,
        "SELECT status, authorized_minor, captured_minor, refunded_minor, captured_on FROM payments WHERE id = ?",
        payment_id,
    )


def payment_with(server: LiveServer, status: str, currency: str = "USD", extra: str = "") -> str:
    """A payment in a status and currency (and an extra SQL condition)."""
    return scalar(
        server,
        f"SELECT id FROM payments WHERE status = ? AND currency = ? {extra} ORDER BY id",
        status,
        currency,
    )


def wallet_pair(server: LiveServer, src: str, dst: str) -> tuple[str, str, str]:
    """(customer, wallet in ``src`` with 100+ units, wallet in ``dst``) of one customer."""
    return one(
        server,
        """SELECT a.customer_id, a.id, b.id FROM wallets a JOIN wallets b ON b.customer_id = a.customer_id
           WHERE a.currency = ? AND b.currency = ? AND a.balance_minor > 10000 ORDER BY a.id""",
        src,
        dst,
    )


def pending_request(server: LiveServer) -> tuple[str, str, str, str, int]:
    """(request, requester, payer, currency, amount) of a pending request the payer can pay from a same-currency wallet."""
    return one(
        server,
        """SELECT r.id, r.requester_id, r.payer_id, r.currency, r.amount_minor FROM payment_requests r
           JOIN wallets w ON w.customer_id = r.payer_id AND w.currency = r.currency
           WHERE r.status = 'pending' AND w.balance_minor > r.amount_minor ORDER BY r.id""",
    )
