"""Maps tools for traffic: incidents (report, clear) and road closures (close a road, lift a closure)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_between, check_length, check_limit, check_status, next_id
from gym_mcp.servers.maps.models import (
    CLOSURE_STATUSES,
    INCIDENT_DELAYS,
    INCIDENT_KINDS,
    INCIDENT_STATUSES,
    Closure,
    Incident,
)
from gym_mcp.servers.maps.tools.common import (
    check_choice,
    closure_view,
    incident_view,
    kit,
    load_closure,
    load_incident,
    load_road,
    load_user,
    network,
    travel_day,
)


@kit.tool(
    write=False,
    intent="List the[ {status}] traffic incidents[ on road {road_id}][, at most {limit}]",
    samples={"status": INCIDENT_STATUSES},
)
def list_incidents(
    db: Session, status: str | None = None, road_id: str | None = None, limit: int = 20
) -> list[dict[str, Any]]:
    """List traffic incidents, newest first: accidents, construction, congestion and hazards.

    While "active", an incident adds delay_minutes to the travel time of its road (routes and
    ETAs include it); a "cleared" one adds nothing.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        status: Only "active" or only "cleared" incidents.
        road_id: Only incidents on this road, e.g. "RD-1001".
        limit: Maximum number of incidents to return, 1 to 100, e.g. 20.
    """
    check_limit(limit)
    stmt = select(Incident)
    if status is not None:
        stmt = stmt.where(Incident.status == check_choice(status, INCIDENT_STATUSES, "status"))
    if road_id is not None:
        stmt = stmt.where(Incident.road_id == load_road(db, road_id).id)
    rows = db.scalars(stmt.order_by(Incident.reported_on.desc(), Incident.id.desc()).limit(limit))
    return [incident_view(i) for i in rows]


@kit.tool(
    write=True,
    intent="Have user {user_id} report a {kind} on road {road_id}[ causing {delay_minutes} minutes of delay]",
    samples={"kind": INCIDENT_KINDS, "delay_minutes": (5, 10, 15, 20, 30)},
)
def report_incident(
    db: Session, road_id: str, user_id: str, kind: str, delay_minutes: int | None = None
) -> dict[str, Any]:
    """Report a traffic incident on an existing road; it is active at once and delays routes over that road.

    The road must exist (list_roads or get_directions give road ids) and be open today: a closed
    road carries no traffic. A road has at most one active incident of each kind. The delay
    defaults by kind: accident 15, construction 10, congestion 8, hazard 5 minutes.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        road_id: The road where it happened, e.g. "RD-1001".
        user_id: The user reporting it, e.g. "USR-1001".
        kind: One of accident, construction, congestion, hazard.
        delay_minutes: Minutes it adds to driving the road, 1 to 120, e.g. 15.
    """
    road = load_road(db, road_id)
    user = load_user(db, user_id)
    what = check_choice(kind, INCIDENT_KINDS, "kind")
    delay = INCIDENT_DELAYS[what] if delay_minutes is None else check_between(delay_minutes, 1, 120, "delay_minutes")
    closure = network(db, kit.today).closed.get(road.id)
    if closure is not None:
        raise ToolError(
            f"Road {road.id} ({road.name}) is closed today by {closure.id} ({closure.reason}, through "
            f"{closure.ends_on}); a closed road carries no traffic, so no incident can be reported on it."
        )
    same = db.scalar(
        select(Incident).where(Incident.road_id == road.id, Incident.kind == what, Incident.status == "active")
    )
    if same is not None:
        raise ToolError(
            f"Road {road.id} already has an active {what} incident, {same.id} ({same.delay_minutes} min delay, "
            f"reported {same.reported_on}); nothing was added. Clear it first (clear_incident) to report a new one."
        )
    incident = Incident(
        id=next_id(db, Incident.id, "INC"),
        road_id=road.id,
        reporter_id=user.id,
        kind=what,
        delay_minutes=delay,
        status="active",
        reported_on=kit.today,
    )
    db.add(incident)
    db.flush()
    return {**incident_view(incident), "road": road.name}


@kit.tool(write=True, intent="Mark traffic incident {incident_id} as cleared")
def clear_incident(db: Session, incident_id: str) -> dict[str, Any]:
    """Clear an active traffic incident: its delay no longer applies to routes.

    Only an "active" incident can be cleared.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        incident_id: Incident id, e.g. "INC-1001".
    """
    incident = load_incident(db, incident_id)
    check_status(
        incident,
        {"cleared": f"Incident {incident.id} was already cleared on {incident.cleared_on}; nothing changed."},
    )
    incident.status = "cleared"
    incident.cleared_on = kit.today
    return incident_view(incident)


@kit.tool(
    write=False,
    intent="List the[ {status}] road closures[ on road {road_id}]",
    samples={"status": CLOSURE_STATUSES},
)
def list_closures(db: Session, status: str | None = None, road_id: str | None = None) -> list[dict[str, Any]]:
    """List road closures in id order with their status today.

    "active" closes its road today, "scheduled" starts later, "ended" is over and "lifted" was
    called off early. Routing avoids a road on every day from starts_on to ends_on (both
    included) unless the closure was lifted.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        status: Only closures in this status: active, scheduled, ended or lifted.
        road_id: Only closures of this road, e.g. "RD-1001".
    """
    wanted = check_choice(status, CLOSURE_STATUSES, "status") if status is not None else None
    stmt = select(Closure)
    if road_id is not None:
        stmt = stmt.where(Closure.road_id == load_road(db, road_id).id)
    rows = db.scalars(stmt.order_by(Closure.id))
    return [closure_view(c) for c in rows if wanted is None or c.status(kit.today) == wanted]


@kit.tool(
    write=True,
    intent="Close road {road_id} until {until} because of '{reason}'[ starting {starts_on}]",
    samples={
        "until": ("2026-01-20", "2026-01-31", "2026-02-15", "2026-03-01"),
        "reason": ("Water main repair", "Street festival", "Bridge inspection", "Resurfacing", "Parade"),
        "starts_on": ("2026-01-15", "2026-01-16", "2026-01-18"),
    },
)
def close_road(db: Session, road_id: str, until: str, reason: str, starts_on: str | None = None) -> dict[str, Any]:
    """Close a road from a day (default today) through another: routing will not use it on those days.

    The closure may start today or later and end at most 90 days from today, on or after its
    start. A road cannot get a second closure that overlaps one it already has (unless that one
    was lifted); lift_closure calls a closure off. Returns the new closure.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        road_id: The road to close, e.g. "RD-1001".
        until: Last day of the closure, ISO format, e.g. "2026-01-31".
        reason: Why, 3 to 120 characters, e.g. "Water main repair".
        starts_on: First day of the closure, ISO format, today or later, e.g. "2026-01-16"; default today.
    """
    road = load_road(db, road_id)
    start = travel_day(starts_on, "starts_on")
    end = travel_day(until, "until")
    text = check_length(reason.strip(), "reason", 3, 120, ", e.g. 'Water main repair'")
    if end < start:
        raise ToolError(f"until {end} is before starts_on {start}; a closure ends on or after the day it starts.")
    for other in db.scalars(select(Closure).where(Closure.road_id == road.id).order_by(Closure.id)):
        if other.lifted_on is None and other.starts_on <= end and start <= other.ends_on:
            raise ToolError(
                f"Road {road.id} ({road.name}) already has closure {other.id} from {other.starts_on} to "
                f"{other.ends_on} ({other.reason}), which overlaps {start} to {end}; nothing was added. Lift it "
                "first (lift_closure) or pick days outside it."
            )
    closure = Closure(id=next_id(db, Closure.id, "CLS"), road_id=road.id, reason=text, starts_on=start, ends_on=end)
    db.add(closure)
    db.flush()
    return {**closure_view(closure), "road": road.name}


@kit.tool(write=True, intent="Lift road closure {closure_id}")
def lift_closure(db: Session, closure_id: str) -> dict[str, Any]:
    """Call off an active or scheduled road closure today: routing may use the road again at once.

    A closure that already ended, or was already lifted, cannot be lifted.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        closure_id: Closure id, e.g. "CLS-1001".
    """
    closure = load_closure(db, closure_id)
    status = closure.status(kit.today)
    if status == "lifted":
        raise ToolError(f"Closure {closure.id} was already lifted on {closure.lifted_on}; nothing changed.")
    if status == "ended":
        raise ToolError(f"Closure {closure.id} ended on {closure.ends_on}; there is nothing left to lift.")
    closure.lifted_on = kit.today
    return closure_view(closure)
