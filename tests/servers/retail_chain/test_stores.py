"""The retail chain server, driven through a real MCP client on an in-memory database: stores and stock."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import assert_error, dump, one, scalar
from tests.servers.retail_chain.common import PRICE_TODAY, TODAY, closed_store, open_store, quantity, stocked


def test_list_stores(rc: LiveServer) -> None:
    stores = rc.ok("list_stores")
    assert len(stores) == 12
    closed = rc.ok("list_stores", status="Closed")
    assert closed
    assert all(s["status"] == "closed" and s["closed_on"] < TODAY for s in closed)
    first = stores[0]
    units = scalar(rc, "SELECT sum(quantity) FROM stock_levels WHERE store_id = ?", first["store_id"])
    assert first["units_on_hand"] == units
    assert [s["store_id"] for s in rc.ok("list_stores", city=first["city"].upper())] == [first["store_id"]]
    assert_error(rc, "list_stores", "status must be one of open, closed", status="shut")


def test_get_store_stock(rc: LiveServer) -> None:
    store = open_store(rc)
    out = rc.ok("get_store_stock", store_id=store.lower())
    assert len(out["items"]) == scalar(rc, "SELECT count(*) FROM stock_levels WHERE store_id = ?", store)
    item = out["items"][0]
    price = scalar(rc, f"SELECT {PRICE_TODAY.format(p='?')}", item["product_id"])
    assert item["price"] == price / 100
    empty = scalar(rc, "SELECT store_id FROM stock_levels WHERE quantity = 0 ORDER BY 1")
    shelves = rc.ok("get_store_stock", store_id=empty, max_quantity=0)["items"]
    assert shelves
    assert {i["quantity"] for i in shelves} == {0}
    dairy = rc.ok("get_store_stock", store_id=store, category="dairy")["items"]
    assert {i["category"] for i in dairy} <= {"dairy"}
    assert_error(rc, "get_store_stock", "category must be one of", store_id=store, category="toys")
    assert_error(rc, "get_store_stock", "list_stores", store_id="STO-1")


def test_restock(rc: LiveServer) -> None:
    store, product, qty = stocked(rc)
    out = rc.ok("restock", store_id=store, product_id=product, quantity=24)
    assert out == {"store_id": store, "product_id": product, "added": 24, "quantity": qty + 24}
    assert quantity(rc, store, product) == qty + 24
    new = scalar(
        rc, "SELECT id FROM products WHERE id NOT IN (SELECT product_id FROM stock_levels WHERE store_id = ?)", store
    )
    assert rc.ok("restock", store_id=store, product_id=new, quantity=6)["quantity"] == 6
    state = dump(rc)
    err = assert_error(
        rc, "restock", "closed on", "cannot be restocked", store_id=closed_store(rc), product_id=product, quantity=5
    )
    assert "list_stores" in err
    assert_error(rc, "restock", "quantity must be between 1 and 500", store_id=store, product_id=product, quantity=0)
    assert_error(rc, "restock", "find_products", store_id=store, product_id="PRD-0", quantity=5)
    assert dump(rc) == state


def test_close_store(rc: LiveServer) -> None:
    inbound, store = one(
        rc,
        "SELECT t.id, t.to_store_id FROM transfers t JOIN stores s ON s.id = t.to_store_id "
        "WHERE t.status = 'in_transit' AND s.status = 'open' ORDER BY t.id",
    )
    out = rc.ok("close_store", store_id=store)
    assert (out["status"], out["closed_on"]) == ("closed", TODAY)
    assert inbound in [t["transfer_id"] for t in out["inbound_transfers_to_cancel"]]
    assert rc.query("SELECT status, closed_on FROM stores WHERE id = ?", store) == [("closed", TODAY)]
    state = dump(rc)
    assert_error(rc, "close_store", "already closed", store_id=store)
    assert_error(rc, "receive_transfer", "cannot receive", "cancel_transfer", transfer_id=inbound)
    assert dump(rc) == state
