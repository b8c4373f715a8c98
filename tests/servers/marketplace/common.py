"""What the marketplace server's tests share: seed-data queries."""

from __future__ import annotations

from typing import Any

from tests.helpers import LiveServer
from tests.servers.helpers import one, scalar

TABLES = ("sellers", "buyers", "listings", "offers", "orders", "escrows", "ratings")
TODAY = "2026-01-15"


def balance(server: LiveServer, table: str, row_id: str) -> int:
    """The balance in cents of a buyer or a seller."""
    return scalar(server, f"SELECT balance_cents FROM {table} WHERE id = ?", row_id)


def rich_buyer(server: LiveServer, listing_id: str, cents: int) -> str:
    """A buyer who can pay ``cents`` and does not own the listing's shop."""
    return scalar(
        server,
        """SELECT b.id FROM buyers b, listings l WHERE l.id = ? AND b.balance_cents >= ?
           AND (b.seller_id IS NULL OR b.seller_id != l.seller_id) ORDER BY b.id""",
        listing_id,
        cents,
    )


def active_listing(server: LiveServer, extra: str = "") -> tuple[str, str, int, int]:
    """(listing, seller, price cents, floor cents) of an active listing of an active shop."""
    return one(
        server,
        f"""SELECT l.id, l.seller_id, l.price_cents, l.floor_cents FROM listings l JOIN sellers s ON s.id = l.seller_id
            WHERE l.status = 'active' AND s.status = 'active' AND l.floor_cents < l.price_cents {extra} ORDER BY l.id""",
    )


def order_in(server: LiveServer, status: str) -> tuple[str, str, str, int]:
    """(order, buyer, seller, amount cents) of an order in a status."""
    return one(server, "SELECT id, buyer_id, seller_id, amount_cents FROM orders WHERE status = ? ORDER BY id", status)


def escrow(server: LiveServer, order_id: str) -> tuple[Any, ...]:
    """(status, amount cents, settled_on) of an order's escrow."""
    return one(server, "SELECT status, amount_cents, settled_on FROM escrows WHERE order_id = ?", order_id)
