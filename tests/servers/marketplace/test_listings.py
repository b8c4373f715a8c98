"""The marketplace server, driven through a real MCP client on an in-memory database: listings."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import assert_error, dump, one, scalar
from tests.servers.marketplace.common import TODAY, active_listing


def test_search_listings(mkt: LiveServer) -> None:
    active = mkt.ok("search_listings", limit=100)
    assert active
    assert {x["status"] for x in active} == {"active"}
    prices = [x["price"] for x in active]
    assert prices == sorted(prices)
    music = mkt.ok("search_listings", category="Music", max_price=200, limit=100)
    assert all(x["category"] == "music" and x["price"] <= 200 for x in music)
    expected = scalar(
        mkt, "SELECT count(*) FROM listings WHERE status = 'active' AND category = 'music' AND price_cents <= 20000"
    )
    assert len(music) == expected
    sold = mkt.ok("search_listings", status="sold", query="GUITAR", limit=100)
    assert all(x["status"] == "sold" and "guitar" in x["title"].lower() for x in sold)
    seller = scalar(mkt, "SELECT seller_id FROM listings WHERE status = 'withdrawn' ORDER BY id")
    mine = mkt.ok("search_listings", status="withdrawn", seller_id=seller)
    assert mine
    assert {x["seller_id"] for x in mine} == {seller}
    assert_error(mkt, "search_listings", "status must be one of active, sold, withdrawn", status="open")
    assert_error(mkt, "search_listings", "category must be one of", category="cars")
    assert_error(mkt, "search_listings", "list_sellers", seller_id="SEL-0")


def test_get_listing(mkt: LiveServer) -> None:
    lid = scalar(mkt, "SELECT listing_id FROM offers GROUP BY listing_id HAVING count(*) >= 2 ORDER BY listing_id")
    out = mkt.ok("get_listing", listing_id=lid.lower())
    price, floor, seller = one(mkt, "SELECT price_cents, floor_cents, seller_id FROM listings WHERE id = ?", lid)
    assert (out["price"], out["floor_price"]) == (price / 100, floor / 100)
    assert out["seller"]["seller_id"] == seller
    offers = [o["offer_id"] for o in out["offers"]]
    assert offers == sorted(offers, reverse=True)
    assert len(offers) == scalar(mkt, "SELECT count(*) FROM offers WHERE listing_id = ?", lid)
    assert_error(mkt, "get_listing", "LST-42", "search_listings", listing_id="LST-42")


def test_create_listing(mkt: LiveServer) -> None:
    seller = scalar(mkt, "SELECT id FROM sellers WHERE status = 'active' ORDER BY id")
    out = mkt.ok("create_listing", seller_id=seller, title=" Vintage desk lamp ", category="Home", price=75)
    assert out["status"] == "active"
    assert out["floor_price"] == 75  # no floor given: no offers below the price
    row = mkt.query(
        "SELECT seller_id, title, category, condition, price_cents, floor_cents, status, listed_on FROM listings "
        "WHERE id = ?",
        out["listing_id"],
    )
    assert row == [(seller, "Vintage desk lamp", "home", "good", 7500, 7500, "active", TODAY)]
    second = mkt.ok(
        "create_listing", seller_id=seller, title="Tent", category="sports", price=120, floor_price=90, condition="fair"
    )
    assert second["listing_id"] == f"LST-{int(out['listing_id'][4:]) + 1}"
    assert (second["floor_price"], second["condition"]) == (90, "fair")


def test_create_listing_errors_change_nothing(mkt: LiveServer) -> None:
    suspended, shop = one(mkt, "SELECT id, shop_name FROM sellers WHERE status = 'suspended' ORDER BY id")
    active = scalar(mkt, "SELECT id FROM sellers WHERE status = 'active' ORDER BY id")
    state = dump(mkt)
    assert_error(
        mkt, "create_listing", "is suspended", shop, seller_id=suspended, title="Lamp", category="home", price=40
    )
    assert_error(
        mkt, "create_listing", "above the asking price", seller_id=active, title="Lamp", category="home", price=40,
        floor_price=41,
    )  # fmt: skip
    assert_error(mkt, "create_listing", "title must be 3 to 80", seller_id=active, title="x", category="home", price=4)
    assert_error(
        mkt, "create_listing", "category must be one of", seller_id=active, title="Lamp", category="x", price=4
    )
    assert_error(
        mkt, "create_listing", "condition must be one of", seller_id=active, title="Lamp", category="home", price=4,
        condition="broken",
    )  # fmt: skip
    assert_error(mkt, "create_listing", "maximum", seller_id=active, title="Lamp", category="home", price=20000)
    assert_error(mkt, "create_listing", "list_sellers", seller_id="SEL-1", title="Lamp", category="home", price=4)
    assert dump(mkt) == state


def test_update_listing_price(mkt: LiveServer) -> None:
    lid, _, price, floor = active_listing(mkt)
    state = dump(mkt)
    below = (floor - 100) / 100
    err = assert_error(
        mkt, "update_listing_price", "below the floor price", "pass floor_price", listing_id=lid, price=below
    )
    assert f"${floor / 100:,.2f}" in err
    assert_error(mkt, "update_listing_price", "above the asking price", listing_id=lid, price=50, floor_price=60)
    sold = scalar(mkt, "SELECT id FROM listings WHERE status = 'sold' ORDER BY id")
    assert_error(mkt, "update_listing_price", "already sold", listing_id=sold, price=50)
    assert dump(mkt) == state
    out = mkt.ok("update_listing_price", listing_id=lid, price=(price + 1000) / 100)
    assert (out["previous_price"], out["price"], out["floor_price"]) == (price / 100, (price + 1000) / 100, floor / 100)
    out = mkt.ok("update_listing_price", listing_id=lid, price=below, floor_price=below - 5)
    assert mkt.query("SELECT price_cents, floor_cents FROM listings WHERE id = ?", lid) == [(floor - 100, floor - 600)]


def test_withdraw_listing(mkt: LiveServer) -> None:
    lid = scalar(
        mkt,
        "SELECT listing_id FROM offers WHERE status = 'pending' GROUP BY listing_id HAVING count(*) >= 2 ORDER BY 1",
    )
    pending = [r[0] for r in mkt.query("SELECT id FROM offers WHERE listing_id = ? AND status = 'pending'", lid)]
    out = mkt.ok("withdraw_listing", listing_id=lid)
    assert out["status"] == "withdrawn"
    assert out["declined_offer_ids"] == sorted(pending)
    assert mkt.query("SELECT DISTINCT status, decided_on FROM offers WHERE id IN (?, ?)", *pending[:2]) == [
        ("declined", TODAY)
    ]
    state = dump(mkt)
    assert_error(mkt, "withdraw_listing", "only an active listing", listing_id=lid)
    sold = scalar(mkt, "SELECT id FROM listings WHERE status = 'sold' ORDER BY id")
    assert_error(mkt, "withdraw_listing", "already sold", listing_id=sold)
    assert dump(mkt) == state
