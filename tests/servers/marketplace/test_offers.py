"""The marketplace server, driven through a real MCP client on an in-memory database: offers."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import assert_error, dump, one, scalar
from tests.servers.marketplace.common import TODAY, active_listing, balance, escrow, rich_buyer


def test_make_offer(mkt: LiveServer) -> None:
    lid, _, price, floor = active_listing(mkt)
    buyer = rich_buyer(mkt, lid, 0)
    out = mkt.ok("make_offer", listing_id=lid, buyer_id=buyer, amount=floor / 100, message="Can pick up Friday")
    assert (out["status"], out["amount"], out["buyer_id"]) == ("pending", floor / 100, buyer)
    assert mkt.query(
        "SELECT listing_id, buyer_id, amount_cents, message, status, made_on FROM offers WHERE id = ?", out["offer_id"]
    ) == [(lid, buyer, floor, "Can pick up Friday", "pending", TODAY)]
    assert mkt.ok("make_offer", listing_id=lid, buyer_id=buyer, amount=price / 100)["offer_id"] > out["offer_id"]


def test_make_offer_errors_change_nothing(mkt: LiveServer) -> None:
    lid, seller, price, floor = active_listing(mkt)
    buyer = rich_buyer(mkt, lid, 0)
    state = dump(mkt)
    err = assert_error(
        mkt, "make_offer", "too low", "floor price", listing_id=lid, buyer_id=buyer, amount=(floor - 1) / 100
    )
    assert f"${floor / 100:,.2f}" in err
    assert "buy_now" in err
    own_lid, owner = one(
        mkt,
        "SELECT l.id, b.id FROM listings l JOIN buyers b ON b.seller_id = l.seller_id WHERE l.status = 'active' "
        "ORDER BY l.id",
    )
    assert_error(
        mkt, "make_offer", "cannot buy or make offers on their own", listing_id=own_lid, buyer_id=owner, amount=500
    )
    sold = scalar(mkt, "SELECT listing_id FROM orders WHERE status = 'shipped' ORDER BY id")
    err = assert_error(
        mkt, "make_offer", "already sold", "search_listings", listing_id=sold, buyer_id=buyer, amount=999
    )
    assert "ORD-" in err
    withdrawn = scalar(mkt, "SELECT id FROM listings WHERE status = 'withdrawn' ORDER BY id")
    assert_error(mkt, "make_offer", "withdrawn", listing_id=withdrawn, buyer_id=buyer, amount=999)
    assert_error(mkt, "make_offer", "greater than 0", listing_id=lid, buyer_id=buyer, amount=-5)
    assert_error(mkt, "make_offer", "list_buyers", listing_id=lid, buyer_id="BUY-0", amount=50)
    assert dump(mkt) == state
    assert seller and price


def test_accept_offer_pays_into_escrow(mkt: LiveServer) -> None:
    offer, lid, buyer, cents = one(
        mkt,
        """SELECT o.id, o.listing_id, o.buyer_id, o.amount_cents FROM offers o JOIN buyers b ON b.id = o.buyer_id
           WHERE o.status = 'pending' AND b.balance_cents >= o.amount_cents AND
           (SELECT count(*) FROM offers x WHERE x.listing_id = o.listing_id AND x.status = 'pending') >= 2
           ORDER BY o.id""",
    )
    before = balance(mkt, "buyers", buyer)
    out = mkt.ok("accept_offer", offer_id=offer)
    assert (out["status"], out["offer_id"], out["amount"]) == ("paid", offer, cents / 100)
    assert out["escrow"]["status"] == "held"
    assert balance(mkt, "buyers", buyer) == before - cents
    assert escrow(mkt, out["order_id"]) == ("held", cents, None)
    assert scalar(mkt, "SELECT status FROM listings WHERE id = ?", lid) == "sold"
    statuses = dict(mkt.query("SELECT id, status FROM offers WHERE listing_id = ?", lid))
    assert statuses[offer] == "accepted"
    assert "pending" not in statuses.values()
    assert_error(mkt, "accept_offer", "already accepted", out["order_id"], offer_id=offer)


def test_accept_offer_errors_change_nothing(mkt: LiveServer) -> None:
    poor, buyer, cents, have = one(
        mkt,
        """SELECT o.id, o.buyer_id, o.amount_cents, b.balance_cents FROM offers o JOIN buyers b ON b.id = o.buyer_id
           WHERE o.status = 'pending' AND b.balance_cents < o.amount_cents ORDER BY o.id""",
    )
    state = dump(mkt)
    err = assert_error(mkt, "accept_offer", "add_funds", f"${have / 100:,.2f}", offer_id=poor)
    assert f"${cents / 100:,.2f}" in err
    declined = scalar(mkt, "SELECT id FROM offers WHERE status = 'declined' ORDER BY id")
    assert_error(mkt, "accept_offer", "was declined", "make_offer", offer_id=declined)
    assert_error(mkt, "accept_offer", "get_listing", offer_id="OFR-1")
    assert dump(mkt) == state
    mkt.ok("add_funds", buyer_id=buyer, amount=(cents - have) / 100)
    assert mkt.ok("accept_offer", offer_id=poor)["status"] == "paid"
    assert balance(mkt, "buyers", buyer) == 0


def test_decline_offer(mkt: LiveServer) -> None:
    offer, lid = one(mkt, "SELECT id, listing_id FROM offers WHERE status = 'pending' ORDER BY id")
    out = mkt.ok("decline_offer", offer_id=offer)
    assert (out["status"], out["decided_on"]) == ("declined", TODAY)
    assert scalar(mkt, "SELECT status FROM listings WHERE id = ?", lid) == "active"
    state = dump(mkt)
    assert_error(mkt, "decline_offer", "only a pending offer", offer_id=offer)
    accepted = scalar(mkt, "SELECT id FROM offers WHERE status = 'accepted' ORDER BY id")
    assert_error(mkt, "decline_offer", "already accepted", "ORD-", offer_id=accepted)
    assert dump(mkt) == state
