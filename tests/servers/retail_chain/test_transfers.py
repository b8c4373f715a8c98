"""The retail chain server, driven through a real MCP client on an in-memory database: transfers between stores."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import assert_error, dump, one, scalar
from tests.servers.retail_chain.common import TODAY, closed_store, open_store, quantity, stocked


def test_list_transfers(rc: LiveServer) -> None:
    store = scalar(rc, "SELECT from_store_id FROM transfers GROUP BY 1 ORDER BY count(*) DESC, 1")
    mine = rc.ok("list_transfers", store_id=store, limit=100)
    expected = scalar(rc, "SELECT count(*) FROM transfers WHERE from_store_id = ?1 OR to_store_id = ?1", store)
    assert len(mine) == expected
    dates = [t["sent_on"] for t in mine]
    assert dates == sorted(dates, reverse=True)
    moving = rc.ok("list_transfers", status="in_transit", limit=100)
    assert moving
    assert {t["status"] for t in moving} == {"in_transit"}
    assert all(t["settled_on"] is None for t in moving)
    assert_error(rc, "list_transfers", "status must be one of in_transit, received, cancelled", status="lost")
    assert_error(rc, "list_transfers", "list_stores", store_id="STO-9")


def test_transfer_then_receive(rc: LiveServer) -> None:
    source, product, have = stocked(rc)
    target = open_store(rc, source)
    before = quantity(rc, target, product) or 0
    out = rc.ok("transfer_stock", product_id=product, from_store_id=source, to_store_id=target, quantity=have)
    assert (out["status"], out["quantity"], out["source_quantity_left"]) == ("in_transit", have, 0)
    assert quantity(rc, source, product) == 0
    assert (quantity(rc, target, product) or 0) == before  # not there yet
    got = rc.ok("receive_transfer", transfer_id=out["transfer_id"])
    assert (got["status"], got["settled_on"], got["destination_quantity"]) == ("received", TODAY, before + have)
    assert quantity(rc, target, product) == before + have
    assert_error(rc, "receive_transfer", "already received", transfer_id=out["transfer_id"])
    assert_error(rc, "cancel_transfer", "already received", transfer_id=out["transfer_id"])


def test_transfer_from_a_closed_store_but_never_to_one(rc: LiveServer) -> None:
    source, product, have = stocked(rc, "closed", 2)
    target = open_store(rc)
    out = rc.ok("transfer_stock", product_id=product, from_store_id=source, to_store_id=target, quantity=2)
    assert out["source_quantity_left"] == have - 2
    state = dump(rc)
    err = assert_error(
        rc,
        "transfer_stock",
        "cannot receive transfers",
        product_id=product,
        from_store_id=target,
        to_store_id=source,
        quantity=1,
    )
    assert "list_stores" in err
    assert dump(rc) == state


def test_transfer_errors_change_nothing(rc: LiveServer) -> None:
    source, product, have = stocked(rc)
    target = open_store(rc, source)
    state = dump(rc)
    err = assert_error(
        rc,
        "transfer_stock",
        f"has only {have} units",
        "send at most",
        product_id=product,
        from_store_id=source,
        to_store_id=target,
        quantity=have + 1,
    )
    assert "get_store_stock" in err
    never = scalar(
        rc, "SELECT id FROM products WHERE id NOT IN (SELECT product_id FROM stock_levels WHERE store_id = ?)", source
    )
    assert_error(
        rc, "transfer_stock", "has only 0 units", product_id=never, from_store_id=source, to_store_id=target, quantity=1
    )
    assert_error(
        rc,
        "transfer_stock",
        "two different stores",
        product_id=product,
        from_store_id=source,
        to_store_id=source,
        quantity=1,
    )
    assert_error(
        rc,
        "transfer_stock",
        "quantity must be between 1 and 1000",
        product_id=product,
        from_store_id=source,
        to_store_id=target,
        quantity=0,
    )
    assert_error(
        rc,
        "transfer_stock",
        "STO-0",
        "list_stores",
        product_id=product,
        from_store_id="STO-0",
        to_store_id=target,
        quantity=1,
    )
    assert dump(rc) == state


def test_cancel_transfer_returns_the_stock(rc: LiveServer) -> None:
    transfer, source, product, qty = one(
        rc,
        """SELECT t.id, t.from_store_id, t.product_id, t.quantity FROM transfers t JOIN stores s ON s.id = t.to_store_id
           WHERE t.status = 'in_transit' AND s.status = 'closed' ORDER BY t.id""",
    )
    state = dump(rc)
    assert_error(rc, "receive_transfer", "cannot receive transfer", "cancel_transfer", transfer_id=transfer)
    assert dump(rc) == state
    before = quantity(rc, source, product) or 0
    out = rc.ok("cancel_transfer", transfer_id=transfer)
    assert (out["status"], out["settled_on"], out["source_quantity"]) == ("cancelled", TODAY, before + qty)
    assert quantity(rc, source, product) == before + qty
    assert_error(rc, "cancel_transfer", "was cancelled", transfer_id=transfer)
    assert_error(rc, "receive_transfer", "was cancelled", transfer_id=transfer)
    assert_error(rc, "cancel_transfer", "list_transfers", transfer_id="TRF-1")
    assert closed_store(rc)
