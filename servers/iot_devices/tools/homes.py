"""IoT tools for homes: find them, read one with its rooms, switch its mode."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.iot_devices.models import HOME_MODES, Device, DeviceState, Home, Room
from gym_mcp.servers.iot_devices.tools.common import kit, load_home
from gym_mcp.servers.kit import ToolError, check_limit, pick


@kit.tool(
    write=False,
    intent="List the smart homes[ matching '{query}'][, at most {limit} of them]",
    samples={"query": ("Rossi", "Tanaka", "Portland", "Austin", "House", "Apartment", "Denver")},
)
def list_homes(db: Session, query: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
    """List the homes of the hub, optionally only those whose name, owner or city contains a text.

    Returns {home_id, name, owner, city, mode, devices, offline_devices} per home; an empty list
    means no match.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        query: Part of a home name, owner name or city (case-insensitive), e.g. "Rossi" or "Austin".
        limit: Maximum number of homes to return, 1 to 100, e.g. 20.
    """
    check_limit(limit)
    stmt = select(Home).order_by(Home.id)
    if query is not None and query.strip():
        text = query.strip().lower()
        stmt = stmt.where(
            or_(*(func.lower(col).contains(text, autoescape=True) for col in (Home.name, Home.owner, Home.city)))
        )
    out = []
    for home in db.scalars(stmt.limit(limit)):
        statuses = dict(
            db.execute(
                select(Device.status, func.count()).where(Device.home_id == home.id).group_by(Device.status)
            ).all()
        )
        out.append(
            {
                "home_id": home.id,
                **pick(home, "name", "owner", "city", "mode"),
                "devices": sum(statuses.values()),
                "offline_devices": statuses.get("offline", 0),
            }
        )
    return out


@kit.tool(write=False, intent="Show home {home_id} with its rooms")
def get_home(db: Session, home_id: str) -> dict[str, Any]:
    """Get one home: its mode, its rooms (with how many devices each holds) and its device counts by kind.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        home_id: Home id, e.g. "HOME-1001".
    """
    home = load_home(db, home_id)
    rooms = db.scalars(select(Room).where(Room.home_id == home.id).order_by(Room.id))
    per_room = dict(
        db.execute(select(Device.room_id, func.count()).where(Device.home_id == home.id).group_by(Device.room_id)).all()
    )
    kinds = db.execute(
        select(Device.kind, func.count()).where(Device.home_id == home.id).group_by(Device.kind).order_by(Device.kind)
    ).all()
    offline = db.scalar(select(func.count()).where(Device.home_id == home.id, Device.status == "offline"))
    return {
        "home_id": home.id,
        **pick(home, "name", "owner", "city", "mode"),
        "rooms": [{"room_id": r.id, "name": r.name, "floor": r.floor, "devices": per_room.get(r.id, 0)} for r in rooms],
        "devices_by_kind": {k: n for k, n in kinds},
        "offline_devices": offline,
    }


@kit.tool(
    write=True,
    intent="Switch home {home_id} to {mode} mode",
    samples={"mode": ("away", "night", "home", "vacation")},
)
def set_home_mode(db: Session, home_id: str, mode: str) -> dict[str, Any]:
    """Switch a home's mode: home, away, night or vacation.

    Away and vacation need every online door lock locked: if one is unlocked the switch is
    refused and the message names it (lock it with lock_door first). Returns the home's new and
    previous mode.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        home_id: Home id, e.g. "HOME-1001".
        mode: The new mode: "home", "away", "night" or "vacation".
    """
    home = load_home(db, home_id)
    wanted = mode.strip().lower()
    if wanted not in HOME_MODES:
        raise ToolError(f"mode must be one of {', '.join(HOME_MODES)}; got {mode!r}.")
    if wanted == home.mode:
        raise ToolError(f"Home {home.id} is already in {wanted} mode; nothing changed.")
    if wanted in ("away", "vacation"):
        unlocked = db.scalars(
            select(Device)
            .join(DeviceState, DeviceState.device_id == Device.id)
            .where(
                Device.home_id == home.id,
                Device.status == "online",
                DeviceState.attribute == "lock",
                DeviceState.value == "unlocked",
            )
            .order_by(Device.id)
        ).all()
        if unlocked:
            names = ", ".join(f"{d.id} ({d.name})" for d in unlocked)
            raise ToolError(
                f"Cannot switch {home.id} to {wanted} mode while doors are unlocked: {names}. Lock them with "
                "lock_door first; nothing was changed."
            )
    previous, home.mode = home.mode, wanted
    return {"home_id": home.id, "mode": home.mode, "previous_mode": previous}
