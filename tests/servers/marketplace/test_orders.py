"""The marketplace server, driven through a real MCP client on an in-memory database: orders, escrow, ratings."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import assert_error, dump, one, scalar
from tests.servers.marketplace.common import TODAY, active_listing, balance, escrow, order_in, rich_buyer


def test_buy_now(mkt: LiveServer) -> None:
    lid, seller, price, _ = active_listing(mkt, "AND EXISTS (SELECT 1 FROM offers o WHERE o.listing_id = l.id "
                                                 "AND o.status = 'pending')")  # fmt: skip
    buyer = rich_buyer(mkt, lid, price)
    before = balance(mkt, "buyers", buyer)
    out = mkt.ok("buy_now", listing_id=lid, buyer_id=buyer)
    assert (out["amount"], out["seller_id"], out["offer_id"], out["status"]) == (price / 100, seller, None, "paid")
    assert out["buyer_balance"] == (before - price) / 100
    assert escrow(mkt, out["order_id"]) == ("held", price, None)
    assert scalar(mkt, "SELECT count(*) FROM offers WHERE listing_id = ? AND status = 'pending'", lid) == 0
    assert_error(mkt, "buy_now", "already sold", out["order_id"], listing_id=lid, buyer_id=buyer)


def test_buy_now_errors_change_nothing(mkt: LiveServer) -> None:
    lid, _, price, _ = active_listing(mkt)
    poor = scalar(mkt, "SELECT id FROM buyers WHERE balance_cents < ? AND seller_id IS NULL ORDER BY id", price)
    own_lid, owner = one(
        mkt,
        "SELECT l.id, b.id FROM listings l JOIN buyers b ON b.seller_id = l.seller_id WHERE l.status = 'active' "
        "ORDER BY l.id",
    )
    state = dump(mkt)
    assert_error(mkt, "buy_now", "add_funds", "Nothing was charged", listing_id=lid, buyer_id=poor)
    assert_error(mkt, "buy_now", "own listing", listing_id=own_lid, buyer_id=owner)
    withdrawn = scalar(mkt, "SELECT id FROM listings WHERE status = 'withdrawn' ORDER BY id")
    assert_error(mkt, "buy_now", "withdrawn", listing_id=withdrawn, buyer_id=poor)
    assert dump(mkt) == state


def test_list_and_get_orders(mkt: LiveServer) -> None:
    buyer = scalar(mkt, "SELECT buyer_id FROM orders GROUP BY buyer_id HAVING count(*) >= 2 ORDER BY 1")
    mine = mkt.ok("list_orders", buyer_id=buyer)
    assert len(mine) == scalar(mkt, "SELECT count(*) FROM orders WHERE buyer_id = ?", buyer)
    dates = [o["ordered_on"] for o in mine]
    assert dates == sorted(dates, reverse=True)
    seller = scalar(mkt, "SELECT seller_id FROM orders WHERE status = 'completed' ORDER BY id")
    done = mkt.ok("list_orders", seller_id=seller, status="Completed")
    assert done
    assert all(o["seller_id"] == seller and o["escrow"]["status"] == "released" for o in done)
    assert len(mkt.ok("list_orders", limit=5)) == 5
    assert_error(mkt, "list_orders", "status must be one of paid, shipped, completed, cancelled", status="lost")
    assert_error(mkt, "list_orders", "list_buyers", buyer_id="BUY-0")
    rated = scalar(mkt, "SELECT order_id FROM ratings ORDER BY id")
    out = mkt.ok("get_order", order_id=rated)
    assert out["rating"]["stars"] == scalar(mkt, "SELECT stars FROM ratings WHERE order_id = ?", rated)
    assert out["title"]
    assert "tracking_number" in out
    assert "completed_on" in out
    cancelled = mkt.ok("get_order", order_id=order_in(mkt, "cancelled")[0])
    assert cancelled["escrow"]["status"] == "refunded"
    assert cancelled["cancel_reason"]
    assert_error(mkt, "get_order", "list_orders", order_id="ORD-1")


def test_ship_then_confirm_releases_escrow(mkt: LiveServer) -> None:
    order, _, seller, cents = order_in(mkt, "paid")
    state = dump(mkt)
    assert_error(mkt, "confirm_delivery", "not shipped yet", "mark_shipped", order_id=order)
    assert_error(mkt, "rate_order", "is paid", "confirm_delivery", order_id=order, stars=5)
    assert_error(mkt, "mark_shipped", "tracking_number must be 6 to 40", order_id=order, tracking_number="1Z")
    assert dump(mkt) == state
    shipped = mkt.ok("mark_shipped", order_id=order, tracking_number="1Z999AA10123456784")
    assert (shipped["status"], shipped["shipped_on"], shipped["escrow"]["status"]) == ("shipped", TODAY, "held")
    assert_error(mkt, "mark_shipped", "already shipped", order_id=order, tracking_number="1Z999AA10123456784")
    before = balance(mkt, "sellers", seller)
    done = mkt.ok("confirm_delivery", order_id=order)
    assert (done["status"], done["completed_on"]) == ("completed", TODAY)
    assert done["seller_balance"] == (before + cents) / 100
    assert balance(mkt, "sellers", seller) == before + cents
    assert escrow(mkt, order) == ("released", cents, TODAY)
    assert_error(mkt, "confirm_delivery", "already confirmed", order_id=order)
    assert_error(mkt, "cancel_order", "can no longer be cancelled", order_id=order, reason="Changed my mind")
    assert_error(mkt, "mark_shipped", "is completed", order_id=order, tracking_number="1Z999AA10123456784")


def test_cancel_order_refunds_escrow(mkt: LiveServer) -> None:
    order, buyer, _, cents = order_in(mkt, "paid")
    lid = scalar(mkt, "SELECT listing_id FROM orders WHERE id = ?", order)
    before = balance(mkt, "buyers", buyer)
    out = mkt.ok("cancel_order", order_id=order, reason="Item no longer available")
    assert (out["status"], out["cancel_reason"], out["escrow"]["status"]) == (
        "cancelled",
        "Item no longer available",
        "refunded",
    )
    assert balance(mkt, "buyers", buyer) == before + cents
    assert scalar(mkt, "SELECT status FROM listings WHERE id = ?", lid) == "active"
    state = dump(mkt)
    assert_error(mkt, "cancel_order", "already cancelled", order_id=order, reason="Again")
    assert_error(mkt, "confirm_delivery", "was cancelled", order_id=order)
    assert_error(mkt, "mark_shipped", "was cancelled", order_id=order, tracking_number="1Z999AA10123456784")
    shipped = order_in(mkt, "shipped")[0]
    assert_error(mkt, "cancel_order", "shipped order can no longer be cancelled", order_id=shipped, reason="Late")
    assert_error(mkt, "cancel_order", "reason must be 3 to 200", order_id=shipped, reason="")
    assert dump(mkt) == state
    buyer2 = rich_buyer(mkt, lid, scalar(mkt, "SELECT price_cents FROM listings WHERE id = ?", lid))
    assert mkt.ok("buy_now", listing_id=lid, buyer_id=buyer2)["status"] == "paid"  # back on sale


def test_rate_order_once_per_completed_order(mkt: LiveServer) -> None:
    order, buyer, seller = one(
        mkt,
        "SELECT id, buyer_id, seller_id FROM orders WHERE status = 'completed' "
        "AND id NOT IN (SELECT order_id FROM ratings) ORDER BY id",
    )
    count = scalar(mkt, "SELECT count(*) FROM ratings WHERE seller_id = ?", seller)
    out = mkt.ok("rate_order", order_id=order, stars=4, comment="Well packed")
    assert (out["stars"], out["seller_ratings_count"]) == (4, count + 1)
    assert mkt.query(
        "SELECT order_id, seller_id, buyer_id, stars, comment, rated_on FROM ratings WHERE id = ?", out["rating_id"]
    ) == [(order, seller, buyer, 4, "Well packed", TODAY)]
    state = dump(mkt)
    assert_error(mkt, "rate_order", "already rated", out["rating_id"], order_id=order, stars=5)
    unrated = scalar(
        mkt,
        "SELECT id FROM orders WHERE status = 'completed' AND id NOT IN (SELECT order_id FROM ratings) ORDER BY id",
    )
    assert_error(mkt, "rate_order", "stars must be between 1 and 5", order_id=unrated, stars=6)
    assert_error(mkt, "rate_order", "is cancelled", order_id=order_in(mkt, "cancelled")[0], stars=3)
    assert_error(mkt, "rate_order", "is shipped", order_id=order_in(mkt, "shipped")[0], stars=3)
    assert dump(mkt) == state
