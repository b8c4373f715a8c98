"""The retail chain server, driven through a real MCP client on an in-memory database: loyalty members and sales."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import assert_error, dump, one, scalar
from tests.servers.retail_chain.common import PRICE_TODAY, TODAY, closed_store, open_store, quantity, stocked


def test_find_members(rc: LiveServer) -> None:
    member, name, points = one(rc, "SELECT id, name, points FROM members ORDER BY id")
    found = rc.ok("find_members", query=name.split()[1].upper(), limit=100)
    row = next(m for m in found if m["member_id"] == member)
    assert (row["points"], row["points_value"]) == (points, points / 100)
    assert len(rc.ok("find_members", limit=5)) == 5
    assert rc.ok("find_members", query="zzzz") == []
    assert_error(rc, "find_members", "at least 2 characters", query="a")


def test_enroll_member(rc: LiveServer) -> None:
    store = open_store(rc)
    out = rc.ok("enroll_member", name="  Grace   Hopper ", email="Grace.H@NewMail.example", home_store_id=store)
    assert (out["name"], out["email"], out["points"], out["joined_on"]) == (
        "Grace Hopper",
        "grace.h@newmail.example",
        0,
        TODAY,
    )
    assert scalar(rc, "SELECT home_store_id FROM members WHERE id = ?", out["member_id"]) == store
    state = dump(rc)
    assert_error(
        rc,
        "enroll_member",
        "already belongs to member",
        out["member_id"],
        name="G H",
        email="grace.h@newmail.example",
        home_store_id=store,
    )
    assert_error(
        rc,
        "enroll_member",
        "cannot be a member's home store",
        name="Al T",
        email="al@x.example",
        home_store_id=closed_store(rc),
    )
    assert_error(rc, "enroll_member", "not a valid address", name="Al T", email="al-at-x", home_store_id=store)
    assert_error(rc, "enroll_member", "name must be 2 to 80", name="A", email="al@x.example", home_store_id=store)
    assert dump(rc) == state


def test_record_sale_with_points(rc: LiveServer) -> None:
    store, product, have = stocked(rc)
    unit = scalar(rc, f"SELECT {PRICE_TODAY.format(p='?')}", product)
    member, points = one(rc, "SELECT id, points FROM members WHERE points >= 500 ORDER BY id")
    redeem = min(100, unit * 2)
    out = rc.ok("record_sale", store_id=store, product_id=product, quantity=2, member_id=member, redeem_points=redeem)
    total = unit * 2 - redeem
    assert (out["subtotal"], out["total"], out["points_redeemed"]) == (unit * 2 / 100, total / 100, redeem)
    assert out["points_earned"] == total // 100
    assert out["member_points"] == points - redeem + total // 100
    assert scalar(rc, "SELECT points FROM members WHERE id = ?", member) == out["member_points"]
    assert quantity(rc, store, product) == have - 2 == out["stock_left"]
    assert out["lines"] == [
        {"product_id": product, "name": out["lines"][0]["name"], "quantity": 2, "unit_price": unit / 100}
    ]
    assert rc.query("SELECT store_id, member_id, sold_on, total_cents FROM sales WHERE id = ?", out["sale_id"]) == [
        (store, member, TODAY, total)
    ]
    cash = rc.ok("record_sale", store_id=store, product_id=product, quantity=1)
    assert (cash["member_id"], cash["points_earned"], cash["member_points"]) == (None, 0, None)


def test_record_sale_errors_change_nothing(rc: LiveServer) -> None:
    store, product, have = stocked(rc)
    poor, points = one(rc, "SELECT id, points FROM members WHERE points < 100 ORDER BY id")
    closed, closed_product, _ = stocked(rc, "closed", 1)
    state = dump(rc)
    assert_error(
        rc,
        "record_sale",
        f"has only {points} points",
        f"redeem at most {points}",
        store_id=store,
        product_id=product,
        quantity=1,
        member_id=poor,
        redeem_points=points + 1,
    )
    assert_error(rc, "record_sale", "needs member_id", store_id=store, product_id=product, quantity=1, redeem_points=10)
    rich = scalar(rc, "SELECT id FROM members WHERE points >= 3000 ORDER BY id")
    assert_error(
        rc,
        "record_sale",
        "more than the sale's subtotal",
        store_id=store,
        product_id=product,
        quantity=1,
        member_id=rich,
        redeem_points=3000,
    )
    assert_error(
        rc,
        "record_sale",
        f"has only {have} units",
        "transfer_stock",
        store_id=store,
        product_id=product,
        quantity=have + 1,
    )
    assert_error(rc, "record_sale", "cannot sell", store_id=closed, product_id=closed_product, quantity=1)
    assert_error(
        rc, "record_sale", "quantity must be between 1 and 100", store_id=store, product_id=product, quantity=0
    )
    assert_error(rc, "record_sale", "find_members", store_id=store, product_id=product, quantity=1, member_id="MEM-1")
    assert dump(rc) == state


def test_list_sales(rc: LiveServer) -> None:
    member = scalar(rc, "SELECT member_id FROM sales WHERE member_id IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC, 1")
    mine = rc.ok("list_sales", member_id=member)
    assert len(mine) == scalar(rc, "SELECT count(*) FROM sales WHERE member_id = ?", member)
    assert all(s["member_id"] == member for s in mine)
    sale = mine[0]
    assert sale["subtotal"] == round(sum(line["quantity"] * line["unit_price"] for line in sale["lines"]), 2)
    store = scalar(rc, "SELECT store_id FROM sales ORDER BY id")
    at_store = rc.ok("list_sales", store_id=store, limit=3)
    assert len(at_store) <= 3
    assert {s["store_id"] for s in at_store} == {store}
    dates = [s["sold_on"] for s in rc.ok("list_sales", limit=50)]
    assert dates == sorted(dates, reverse=True)
    assert_error(rc, "list_sales", "list_stores", store_id="STO-1")
