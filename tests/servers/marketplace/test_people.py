"""The marketplace server, driven through a real MCP client on an in-memory database: sellers and buyers."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import assert_error, dump, one, scalar
from tests.servers.marketplace.common import balance


def test_list_sellers(mkt: LiveServer) -> None:
    sid, shop, city = one(mkt, "SELECT id, shop_name, city FROM sellers ORDER BY id")
    found = mkt.ok("list_sellers", query=shop.split()[0].upper())
    assert sid in [s["seller_id"] for s in found]
    in_city = mkt.ok("list_sellers", city=city.lower(), limit=100)
    assert {s["city"] for s in in_city} == {city}
    assert len(in_city) == scalar(mkt, "SELECT count(*) FROM sellers WHERE city = ?", city)
    everyone = mkt.ok("list_sellers", limit=100)
    assert len(everyone) == 30
    rated = next(s for s in everyone if s["ratings_count"])
    avg = scalar(mkt, "SELECT avg(stars) FROM ratings WHERE seller_id = ?", rated["seller_id"])
    assert rated["rating"] == round(avg, 2)
    assert any(s["rating"] is None for s in everyone)
    assert mkt.ok("list_sellers", query="zzzz") == []
    assert_error(mkt, "list_sellers", "at least 2 characters", query="x")
    assert_error(mkt, "list_sellers", "limit must be between 1 and 100", limit=0)


def test_get_seller(mkt: LiveServer) -> None:
    sid = scalar(mkt, "SELECT seller_id FROM ratings GROUP BY seller_id ORDER BY count(*) DESC, seller_id")
    out = mkt.ok("get_seller", seller_id=sid.lower())
    assert out["seller_id"] == sid
    assert out["balance"] == balance(mkt, "sellers", sid) / 100
    assert 1 <= len(out["latest_ratings"]) <= 5
    assert sum(out["listings_by_status"].values()) == scalar(
        mkt, "SELECT count(*) FROM listings WHERE seller_id = ?", sid
    )
    assert_error(mkt, "get_seller", "SEL-0001", "list_sellers", seller_id="SEL-0001")


def test_list_buyers(mkt: LiveServer) -> None:
    bid, name, shop = one(mkt, "SELECT id, name, seller_id FROM buyers WHERE seller_id IS NOT NULL ORDER BY id")
    found = mkt.ok("list_buyers", query=name.split()[1], limit=100)
    row = next(b for b in found if b["buyer_id"] == bid)
    assert row["own_seller_id"] == shop
    assert row["balance"] == balance(mkt, "buyers", bid) / 100
    assert len(mkt.ok("list_buyers", limit=5)) == 5
    assert_error(mkt, "list_buyers", "at least 2 characters", query=" ")


def test_add_funds(mkt: LiveServer) -> None:
    bid = scalar(mkt, "SELECT id FROM buyers ORDER BY balance_cents, id")
    before = balance(mkt, "buyers", bid)
    out = mkt.ok("add_funds", buyer_id=bid, amount=120.5)
    assert out == {"buyer_id": bid, "added": 120.5, "balance": (before + 12050) / 100}
    assert balance(mkt, "buyers", bid) == before + 12050
    state = dump(mkt)
    assert_error(mkt, "add_funds", "greater than 0", buyer_id=bid, amount=0)
    assert_error(mkt, "add_funds", "more than 2 decimals", buyer_id=bid, amount=1.001)
    assert_error(mkt, "add_funds", "$5,000.00 maximum", buyer_id=bid, amount=5000.01)
    assert_error(mkt, "add_funds", "list_buyers", buyer_id="BUY-9", amount=5)
    assert dump(mkt) == state
