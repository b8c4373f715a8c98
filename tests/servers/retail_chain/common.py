"""What the retail chain server's tests share: seed-data queries."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import one, scalar

TABLES = (
    "stores",
    "products",
    "stock_levels",
    "price_changes",
    "transfers",
    "members",
    "sales",
    "sale_items",
)
TODAY = "2026-01-15"
PRICE_TODAY = """(SELECT c.price_cents FROM price_changes c WHERE c.product_id = {p} AND c.effective_on <= '2026-01-15'
                  AND NOT c.cancelled ORDER BY c.effective_on DESC LIMIT 1)"""
"""SQL of a product's price today (``{p}`` is the product id column)."""


def quantity(server: LiveServer, store_id: str, product_id: str) -> int | None:
    """Units of a product on hand in a store (None: the store never carried it)."""
    rows = server.query("SELECT quantity FROM stock_levels WHERE store_id = ? AND product_id = ?", store_id, product_id)
    return rows[0][0] if rows else None


def stocked(server: LiveServer, status: str = "open", at_least: int = 10) -> tuple[str, str, int]:
    """(store, product, quantity) of a product a store in a status has at least ``at_least`` units of."""
    return one(
        server,
        """SELECT l.store_id, l.product_id, l.quantity FROM stock_levels l JOIN stores s ON s.id = l.store_id
           WHERE s.status = ? AND l.quantity >= ? ORDER BY l.store_id, l.product_id""",
        status,
        at_least,
    )


def open_store(server: LiveServer, other_than: str = "") -> str:
    """An open store (other than one)."""
    return scalar(server, "SELECT id FROM stores WHERE status = 'open' AND id != ? ORDER BY id", other_than)


def closed_store(server: LiveServer) -> str:
    """A closed store."""
    return scalar(server, "SELECT id FROM stores WHERE status = 'closed' ORDER BY id")
