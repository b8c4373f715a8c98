"""The retail chain server, driven through a real MCP client on an in-memory database: products and dated prices."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import assert_error, dump, one, scalar
from tests.servers.retail_chain.common import PRICE_TODAY, TODAY


def test_find_products(rc: LiveServer) -> None:
    milk = rc.ok("find_products", query="MILK")
    assert milk
    assert all("milk" in p["name"].lower() for p in milk)
    product = milk[0]
    assert product["price"] == scalar(rc, f"SELECT {PRICE_TODAY.format(p='?')}", product["product_id"]) / 100
    units = scalar(rc, "SELECT sum(quantity) FROM stock_levels WHERE product_id = ?", product["product_id"])
    assert product["units_chainwide"] == units
    frozen = rc.ok("find_products", category="frozen", limit=100)
    assert len(frozen) == scalar(rc, "SELECT count(*) FROM products WHERE category = 'frozen'")
    assert len(rc.ok("find_products", limit=3)) == 3
    assert_error(rc, "find_products", "category must be one of", category="toys")


def test_get_price_is_the_latest_change_on_or_before_the_day(rc: LiveServer) -> None:
    product = scalar(
        rc,
        "SELECT product_id FROM price_changes WHERE effective_on > '2026-01-15' AND product_id IN "
        "(SELECT product_id FROM price_changes GROUP BY product_id HAVING count(*) >= 3) ORDER BY 1",
    )
    changes = rc.query(
        "SELECT id, price_cents, effective_on FROM price_changes WHERE product_id = ? ORDER BY effective_on", product
    )
    today = rc.ok("get_price", product_id=product)
    past = [c for c in changes if c[2] <= TODAY]
    assert (today["price"], today["set_by"]["price_change_id"]) == (past[-1][1] / 100, past[-1][0])
    assert [u["price_change_id"] for u in today["upcoming"]] == [c[0] for c in changes if c[2] > TODAY]
    first_id, first_cents, first_day = changes[0]
    on_first = rc.ok("get_price", product_id=product, on_date=first_day)
    assert (on_first["price"], on_first["set_by"]["price_change_id"]) == (first_cents / 100, first_id)
    future = rc.ok("get_price", product_id=product, on_date=changes[-1][2])
    assert future["price"] == changes[-1][1] / 100
    assert future["upcoming"] == []
    assert_error(
        rc,
        "get_price",
        "had no price on 2020-01-01",
        "first price took effect",
        product_id=product,
        on_date="2020-01-01",
    )
    assert_error(rc, "get_price", "not a valid date", product_id=product, on_date="next week")


def test_schedule_price_change(rc: LiveServer) -> None:
    product = scalar(
        rc,
        "SELECT id FROM products WHERE id NOT IN (SELECT product_id FROM price_changes WHERE effective_on > ?)",
        TODAY,
    )
    before = rc.ok("get_price", product_id=product)["price"]
    later = rc.ok(
        "schedule_price_change", product_id=product, price=4.99, effective_on="2026-04-01", reason="Promotion"
    )
    assert (later["price"], later["effective_on"], later["price_today"]) == (4.99, "2026-04-01", before)
    assert rc.ok("get_price", product_id=product, on_date="2026-04-01")["price"] == 4.99
    assert rc.ok("get_price", product_id=product, on_date="2026-03-31")["price"] == before
    now = rc.ok("schedule_price_change", product_id=product, price=2.25, effective_on=TODAY)
    assert now["price_today"] == 2.25
    assert rc.query(
        "SELECT price_cents, reason, cancelled FROM price_changes WHERE id = ?", now["price_change_id"]
    ) == [(225, "", 0)]


def test_schedule_price_change_errors_change_nothing(rc: LiveServer) -> None:
    product, day = one(
        rc, "SELECT product_id, effective_on FROM price_changes WHERE effective_on > '2026-01-15' ORDER BY id"
    )
    state = dump(rc)
    err = assert_error(
        rc,
        "schedule_price_change",
        "in the past",
        "today is 2026-01-15",
        product_id=product,
        price=3,
        effective_on="2026-01-14",
    )
    assert "2026-01-15" in err
    assert_error(
        rc,
        "schedule_price_change",
        "already has price change",
        "cancel_price_change",
        product_id=product,
        price=3,
        effective_on=day,
    )
    assert_error(
        rc, "schedule_price_change", "not a valid date", product_id=product, price=3, effective_on="31/01/2026"
    )
    assert_error(rc, "schedule_price_change", "greater than 0", product_id=product, price=0, effective_on="2026-03-01")
    assert_error(rc, "schedule_price_change", "maximum", product_id=product, price=5000, effective_on="2026-03-01")
    assert_error(rc, "schedule_price_change", "find_products", product_id="PRD-1", price=3, effective_on="2026-03-01")
    assert dump(rc) == state


def test_cancel_price_change(rc: LiveServer) -> None:
    change, product, day = one(
        rc, "SELECT id, product_id, effective_on FROM price_changes WHERE effective_on > '2026-01-15' ORDER BY id"
    )
    out = rc.ok("cancel_price_change", price_change_id=change)
    assert out["cancelled"] is True
    assert rc.query("SELECT cancelled FROM price_changes WHERE id = ?", change) == [(1,)]
    on_day = rc.ok("get_price", product_id=product, on_date=day)
    assert on_day["set_by"]["price_change_id"] != change
    assert out["price_on_that_day"] == on_day["price"]
    rc.ok("schedule_price_change", product_id=product, price=3.33, effective_on=day)  # the day is free again
    state = dump(rc)
    assert_error(rc, "cancel_price_change", "already cancelled", price_change_id=change)
    past = scalar(rc, "SELECT id FROM price_changes WHERE effective_on <= '2026-01-15' ORDER BY id")
    assert_error(rc, "cancel_price_change", "cannot be cancelled", "schedule_price_change", price_change_id=past)
    assert_error(rc, "cancel_price_change", "get_price", price_change_id="PRC-1")
    assert dump(rc) == state
