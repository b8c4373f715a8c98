"""Travel booking tools for loyalty memberships: read points and tiers, redeem points on a booking."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, dollars, format_dollars, next_id
from gym_mcp.servers.travel_booking.models import Membership, PointTransaction
from gym_mcp.servers.travel_booking.tools.common import (
    kit,
    load_booking,
    load_membership,
    load_traveller,
    paid_cents,
)


@kit.tool(write=False, intent="Show the loyalty memberships and points of traveller {traveller_id}")
def get_loyalty(db: Session, traveller_id: str) -> list[dict[str, Any]]:
    """Get a traveller's loyalty memberships: programme, tier, points balance and the latest ledger entries.

    Aurora Miles points pay for flight bookings, Staywell Rewards for hotel bookings and
    DriveClub for car bookings; 1 point is worth $0.01.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        traveller_id: Traveller id, e.g. "TRV-1001".
    """
    traveller = load_traveller(db, traveller_id)
    out = []
    for m in db.scalars(select(Membership).where(Membership.traveller_id == traveller.id).order_by(Membership.id)):
        recent = db.scalars(
            select(PointTransaction)
            .where(PointTransaction.membership_id == m.id)
            .order_by(PointTransaction.id.desc())
            .limit(5)
        )
        out.append(
            {
                "membership_id": m.id,
                "program": m.program,
                "pays_for": f"{m.kind} bookings",
                "member_number": m.member_number,
                "tier": m.tier,
                "points_balance": m.points_balance,
                "worth": dollars(m.points_balance),
                "recent": [
                    {"entry_id": e.id, "date": e.posted_on, "points": e.points, "description": e.description}
                    for e in recent
                ],
            }
        )
    return out


@kit.tool(
    write=True,
    intent="Redeem {points} points from membership {membership_id} on booking {booking_id}",
    samples={"points": (500, 1000, 2500, 4000, 7500)},
)
def redeem_points(db: Session, membership_id: str, booking_id: str, points: int) -> dict[str, Any]:
    """Pay part of a booking with loyalty points (1 point = $0.01); the booking's amount paid goes down.

    The membership and the booking must belong to the same traveller, the programme must pay for
    that kind of booking (see get_loyalty), and the booking must not be cancelled. Points are
    redeemable only up to the membership's balance and up to what is still paid in money.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        membership_id: Membership id, e.g. "LOY-1001".
        booking_id: Booking id, e.g. "BKG-1001".
        points: Whole points to redeem, greater than 0, e.g. 2500.
    """
    m = load_membership(db, membership_id)
    booking = load_booking(db, booking_id)
    if points <= 0:
        raise ToolError(f"points must be a whole number greater than 0, got {points}; e.g. 2500.")
    if booking.traveller_id != m.traveller_id:
        raise ToolError(
            f"Membership {m.id} belongs to {m.traveller_id} but booking {booking.id} to {booking.traveller_id}; "
            "points pay only for the member's own bookings (get_loyalty lists their memberships)."
        )
    if booking.kind != m.kind:
        raise ToolError(
            f"{m.program} points pay for {m.kind} bookings, and {booking.id} is a {booking.kind} booking; use the "
            f"traveller's membership for {booking.kind} bookings (get_loyalty)."
        )
    if booking.status == "cancelled":
        raise ToolError(f"Booking {booking.id} is cancelled; points cannot be redeemed on it.")
    if points > m.points_balance:
        raise ToolError(
            f"Membership {m.id} has only {m.points_balance} points; redeem at most {m.points_balance} "
            f"(worth {format_dollars(m.points_balance)})."
        )
    due = paid_cents(booking)
    if points > due:
        raise ToolError(
            f"Booking {booking.id} has only {format_dollars(due)} left to pay in money; redeem at most {due} points."
        )
    m.points_balance -= points
    booking.points_redeemed += points
    entry = PointTransaction(
        id=next_id(db, PointTransaction.id, "PTS", first=10001),
        membership_id=m.id,
        booking_id=booking.id,
        points=-points,
        description=f"Redeemed on {booking.id}",
        posted_on=kit.today,
    )
    db.add(entry)
    db.flush()
    return {
        "membership_id": m.id,
        "booking_id": booking.id,
        "points_redeemed": points,
        "value": dollars(points),
        "points_balance": m.points_balance,
        "booking_paid": dollars(paid_cents(booking)),
        "entry_id": entry.id,
    }
