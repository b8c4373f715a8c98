"""The travel booking server through a real MCP client: loyalty memberships and points."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import assert_error, one, scalar
from tests.servers.travel_booking.common import booking_row


def test_get_loyalty(travel: LiveServer) -> None:
    traveller = scalar(travel, "SELECT traveller_id FROM memberships GROUP BY 1 ORDER BY count(*) DESC, 1")
    out = travel.ok("get_loyalty", traveller_id=traveller)
    rows = travel.query("SELECT id, points_balance FROM memberships WHERE traveller_id = ? ORDER BY id", traveller)
    assert [(m["membership_id"], m["points_balance"]) for m in out] == rows
    assert all(m["worth"] == m["points_balance"] / 100 for m in out)
    assert all(len(m["recent"]) <= 5 for m in out)
    assert_error(travel, "get_loyalty", "list_travellers", traveller_id="TRV-0")


def _member_booking(travel: LiveServer) -> tuple[str, str, int, int]:
    """(membership, booking of the same traveller and kind, points balance, money still paid)."""
    return one(
        travel,
        """SELECT m.id, b.id, m.points_balance, b.price_cents + b.fees_cents - b.points_redeemed FROM memberships m
           JOIN bookings b ON b.traveller_id = m.traveller_id AND b.kind = m.kind
           WHERE b.status = 'booked' AND m.points_balance > 3000 AND b.price_cents > 5000 ORDER BY m.id, b.id""",
    )


def test_redeem_points(travel: LiveServer) -> None:
    membership, booking, balance, due = _member_booking(travel)
    out = travel.ok("redeem_points", membership_id=membership, booking_id=booking, points=2500)
    assert out["points_balance"] == balance - 2500 and out["value"] == 25 and out["booking_paid"] == (due - 2500) / 100
    assert travel.query("SELECT points_balance FROM memberships WHERE id = ?", membership) == [(balance - 2500,)]
    assert booking_row(travel, booking, "points_redeemed") == (2500,)
    assert travel.query(
        "SELECT membership_id, booking_id, points, posted_on FROM point_transactions WHERE id = ?", out["entry_id"]
    ) == [(membership, booking, -2500, "2026-01-15")]


def test_redeem_points_rules(travel: LiveServer) -> None:
    membership, booking, balance, due = _member_booking(travel)
    args = {"membership_id": membership, "booking_id": booking}
    assert_error(travel, "redeem_points", f"has only {balance} points", points=balance + 1, **args)
    assert_error(travel, "redeem_points", "greater than 0", points=0, **args)
    small = one(
        travel,
        """SELECT m.id, b.id, b.price_cents FROM memberships m JOIN bookings b ON b.traveller_id = m.traveller_id
           AND b.kind = m.kind WHERE b.status = 'booked' AND m.points_balance > b.price_cents ORDER BY b.price_cents""",
    )
    assert_error(
        travel,
        "redeem_points",
        f"redeem at most {small[2]} points",
        membership_id=small[0],
        booking_id=small[1],
        points=small[2] + 1,
    )
    kind, traveller = one(travel, "SELECT kind, traveller_id FROM memberships WHERE id = ?", membership)
    stranger = scalar(
        travel, "SELECT id FROM bookings WHERE traveller_id != ? AND kind = ? ORDER BY id", traveller, kind
    )
    assert_error(travel, "redeem_points", "own bookings", membership_id=membership, booking_id=stranger, points=100)
    other_kind = (
        scalar(travel, "SELECT id FROM bookings WHERE traveller_id = ? AND kind != ? ORDER BY id ", traveller, kind)
        if travel.query("SELECT 1 FROM bookings WHERE traveller_id = ? AND kind != ?", traveller, kind)
        else None
    )
    if other_kind:
        assert_error(
            travel,
            "redeem_points",
            f"pay for {kind} bookings",
            membership_id=membership,
            booking_id=other_kind,
            points=100,
        )
    cancelled = one(
        travel,
        """SELECT m.id, b.id FROM memberships m JOIN bookings b ON b.traveller_id = m.traveller_id AND b.kind = m.kind
           WHERE b.status = 'cancelled' ORDER BY b.id""",
    )
    assert_error(
        travel, "redeem_points", "is cancelled", membership_id=cancelled[0], booking_id=cancelled[1], points=100
    )
    assert travel.query("SELECT points_balance FROM memberships WHERE id = ?", membership) == [(balance,)]
    assert_error(travel, "redeem_points", "get_loyalty", membership_id="LOY-1", booking_id=booking, points=100)
