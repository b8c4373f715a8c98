"""What the shopping server's tests share: seed-data queries and small helpers."""

from __future__ import annotations

from typing import Any

from tests.helpers import LiveServer
from tests.servers.helpers import scalar

TODAY = "2026-01-15"


WINDOW_START = "2025-12-16"  # deliveries on or after this day are inside the 30-day return window


def stock(s: LiveServer, product_id: str) -> int:
    return scalar(s, "SELECT stock FROM products WHERE id = ?", product_id)


def cart_rows(s: LiveServer, customer_id: str) -> list[tuple[Any, ...]]:
    return s.query("SELECT product_id, quantity FROM cart_items WHERE customer_id = ? ORDER BY id", customer_id)


def empty_cart_customer(s: LiveServer) -> str:
    return scalar(s, "SELECT id FROM customers WHERE id NOT IN (SELECT customer_id FROM cart_items) ORDER BY id")


def in_stock_product(s: LiveServer, min_stock: int = 10, min_price_cents: int = 0) -> str:
    return scalar(
        s,
        "SELECT id FROM products WHERE stock >= ? AND price_cents >= ? ORDER BY id",
        min_stock,
        min_price_cents,
    )
