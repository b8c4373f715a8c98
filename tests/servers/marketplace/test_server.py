"""The marketplace server, driven through a real MCP client on an in-memory database: the server as a whole."""

from __future__ import annotations

from gym_mcp.servers.marketplace import kit
from tests.helpers import LiveServer
from tests.servers.helpers import (
    assert_listed_with_kinds,
    dump,
    listed_tools,
)
from tests.servers.marketplace.common import TABLES

WRITES = {
    "add_funds",
    "create_listing",
    "update_listing_price",
    "withdraw_listing",
    "make_offer",
    "accept_offer",
    "decline_offer",
    "buy_now",
    "mark_shipped",
    "confirm_delivery",
    "cancel_order",
    "rate_order",
}
READS = {"list_sellers", "get_seller", "list_buyers", "search_listings", "get_listing", "list_orders", "get_order"}


def test_tools_are_listed_with_kinds(mkt: LiveServer) -> None:
    assert_listed_with_kinds(mkt, kit, writes=WRITES, reads=READS)
    assert set(kit.tools) == WRITES | READS
    assert {n for n, info in kit.tools.items() if info.write} == WRITES
    metas = {t.name: t.meta for t in listed_tools(mkt)}
    confirmed = {n for n, m in metas.items() if m.get("gym_mcp/confirm") == "always"}
    assert confirmed == {"withdraw_listing", "accept_offer", "buy_now", "confirm_delivery", "cancel_order"}
    assert metas["get_order"]["gym_mcp/kind"] == "read"


def test_seed_has_enough_entities(mkt: LiveServer) -> None:
    counts = {t: mkt.query(f"SELECT count(*) FROM {t}")[0][0] for t in TABLES}
    assert sum(counts.values()) >= 250
    assert counts["sellers"] >= 25
    assert counts["buyers"] >= 60
    assert counts["listings"] >= 150
    assert counts["offers"] >= 100
    assert counts["orders"] >= 60
    for table, statuses in {
        "sellers": ("active", "suspended"),
        "listings": ("active", "sold", "withdrawn"),
        "offers": ("pending", "accepted", "declined"),
        "orders": ("paid", "shipped", "completed", "cancelled"),
        "escrows": ("held", "released", "refunded"),
    }.items():
        found = dict(mkt.query(f"SELECT status, count(*) FROM {table} GROUP BY status"))
        assert set(found) == set(statuses), table
        assert min(found.values()) >= 3, table
    # the error paths are reachable: own shops, thin balances, unrated completed orders
    assert mkt.query("SELECT count(*) FROM buyers WHERE seller_id IS NOT NULL")[0][0] >= 5
    assert mkt.query("SELECT count(*) FROM buyers WHERE balance_cents < 2000")[0][0] >= 3
    rated = mkt.query("SELECT count(*) FROM ratings")[0][0]
    assert 5 <= rated < counts["orders"]


def test_seed_is_internally_consistent(mkt: LiveServer) -> None:
    # offers are never below the floor; pending offers only on listings still on sale
    assert (
        mkt.query(
            "SELECT o.id FROM offers o JOIN listings l ON l.id = o.listing_id WHERE o.amount_cents < l.floor_cents"
        )
        == []
    )
    assert (
        mkt.query(
            "SELECT o.id FROM offers o JOIN listings l ON l.id = o.listing_id WHERE o.status = 'pending' AND l.status != 'active'"
        )
        == []
    )
    assert mkt.query("SELECT id FROM listings WHERE floor_cents > price_cents") == []
    # nobody buys from their own shop; every sold listing has exactly one live order
    assert (
        mkt.query("SELECT o.id FROM orders o JOIN buyers b ON b.id = o.buyer_id WHERE b.seller_id = o.seller_id") == []
    )
    assert (
        mkt.query(
            """SELECT l.id FROM listings l WHERE l.status = 'sold' AND
           (SELECT count(*) FROM orders o WHERE o.listing_id = l.id AND o.status != 'cancelled') != 1"""
        )
        == []
    )
    # escrow matches its order; sellers hold exactly the released escrow; ratings only on completed orders
    assert (
        mkt.query(
            """SELECT o.id FROM orders o JOIN escrows e ON e.order_id = o.id WHERE e.amount_cents != o.amount_cents
           OR e.status != CASE o.status WHEN 'completed' THEN 'released' WHEN 'cancelled' THEN 'refunded' ELSE 'held' END"""
        )
        == []
    )
    assert (
        mkt.query(
            """SELECT s.id FROM sellers s WHERE s.balance_cents != (SELECT coalesce(sum(e.amount_cents), 0) FROM escrows e
           JOIN orders o ON o.id = e.order_id WHERE o.seller_id = s.id AND e.status = 'released')"""
        )
        == []
    )
    assert (
        mkt.query("SELECT r.id FROM ratings r JOIN orders o ON o.id = r.order_id WHERE o.status != 'completed'") == []
    )
    assert mkt.query("SELECT id FROM orders WHERE ordered_on > '2026-01-15' OR shipped_on < ordered_on") == []


def test_same_seed_same_data_other_seed_other_data(mkt: LiveServer) -> None:
    assert dump(mkt) == dump(LiveServer(kit, seed=0))
    other = dump(LiveServer(kit, seed=1))
    assert other["sellers"] != dump(mkt)["sellers"]
    assert other["listings"] != dump(mkt)["listings"]
