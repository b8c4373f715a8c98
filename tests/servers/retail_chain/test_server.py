"""The retail chain server, driven through a real MCP client on an in-memory database: the server as a whole."""

from __future__ import annotations

from gym_mcp.servers.retail_chain import kit
from tests.helpers import LiveServer
from tests.servers.helpers import (
    assert_listed_with_kinds,
    dump,
    listed_tools,
)
from tests.servers.retail_chain.common import TABLES

WRITES = {
    "restock",
    "close_store",
    "schedule_price_change",
    "cancel_price_change",
    "transfer_stock",
    "receive_transfer",
    "cancel_transfer",
    "enroll_member",
    "record_sale",
}
READS = {"list_stores", "get_store_stock", "find_products", "get_price", "list_transfers", "find_members", "list_sales"}


def test_tools_are_listed_with_kinds(rc: LiveServer) -> None:
    assert_listed_with_kinds(rc, kit, writes=WRITES, reads=READS)
    assert set(kit.tools) == WRITES | READS
    assert {n for n, info in kit.tools.items() if info.write} == WRITES
    metas = {t.name: t.meta for t in listed_tools(rc)}
    assert metas["close_store"]["gym_mcp/confirm"] == "always"
    assert metas["transfer_stock"]["gym_mcp/confirm"] == "quantity >= 50"
    assert metas["get_price"]["gym_mcp/kind"] == "read"


def test_seed_has_enough_entities(rc: LiveServer) -> None:
    counts = {t: rc.query(f"SELECT count(*) FROM {t}")[0][0] for t in TABLES}
    assert sum(counts.values()) >= 250
    assert counts["stores"] >= 10
    assert counts["products"] >= 40
    assert counts["stock_levels"] >= 300
    assert counts["members"] >= 60
    assert counts["sales"] >= 100
    assert dict(rc.query("SELECT status, count(*) FROM stores GROUP BY 1")).keys() == {"open", "closed"}
    transfers = dict(rc.query("SELECT status, count(*) FROM transfers GROUP BY 1"))
    assert set(transfers) == {"in_transit", "received", "cancelled"}
    assert min(transfers.values()) >= 5
    # the error paths are reachable: empty shelves, past and future prices, thin balances, a stuck transfer
    assert rc.query("SELECT count(*) FROM stock_levels WHERE quantity = 0")[0][0] >= 5
    assert rc.query("SELECT count(*) FROM price_changes WHERE effective_on > '2026-01-15'")[0][0] >= 5
    assert rc.query("SELECT count(*) FROM price_changes WHERE effective_on <= '2026-01-15'")[0][0] >= 60
    assert rc.query("SELECT count(*) FROM members WHERE points < 100")[0][0] >= 3
    assert rc.query(
        "SELECT count(*) FROM transfers t JOIN stores s ON s.id = t.to_store_id WHERE t.status = 'in_transit' "
        "AND s.status = 'closed'"
    ) == [(1,)]


def test_seed_is_internally_consistent(rc: LiveServer) -> None:
    # every product has a price today and at most one change per day
    assert (
        rc.query(
            "SELECT id FROM products p WHERE NOT EXISTS (SELECT 1 FROM price_changes c WHERE c.product_id = p.id "
            "AND c.effective_on <= '2026-01-15')"
        )
        == []
    )
    assert rc.query("SELECT product_id, effective_on FROM price_changes GROUP BY 1, 2 HAVING count(*) > 1") == []
    # each sale line is at the price in effect on the sale's day; totals add up; points only for members
    assert (
        rc.query(
            """SELECT i.sale_id FROM sale_items i JOIN sales s ON s.id = i.sale_id WHERE i.unit_price_cents !=
           (SELECT c.price_cents FROM price_changes c WHERE c.product_id = i.product_id AND c.effective_on <= s.sold_on
            ORDER BY c.effective_on DESC LIMIT 1)"""
        )
        == []
    )
    assert (
        rc.query(
            """SELECT s.id FROM sales s WHERE s.subtotal_cents != (SELECT sum(quantity * unit_price_cents) FROM sale_items
           WHERE sale_id = s.id) OR s.total_cents != s.subtotal_cents - s.points_redeemed
           OR s.points_earned != CASE WHEN s.member_id IS NULL THEN 0 ELSE s.total_cents / 100 END"""
        )
        == []
    )
    # a closed store sold nothing after it closed, and only in-transit transfers are unsettled
    assert rc.query("SELECT s.id FROM sales s JOIN stores t ON t.id = s.store_id WHERE s.sold_on >= t.closed_on") == []
    assert rc.query("SELECT id FROM transfers WHERE (status = 'in_transit') != (settled_on IS NULL)") == []
    assert rc.query("SELECT count(*) FROM stock_levels WHERE quantity < 0") == [(0,)]


def test_same_seed_same_data_other_seed_other_data(rc: LiveServer) -> None:
    assert dump(rc) == dump(LiveServer(kit, seed=0))
    other = dump(LiveServer(kit, seed=1))
    assert other["stores"] != dump(rc)["stores"]
    assert other["stock_levels"] != dump(rc)["stock_levels"]
