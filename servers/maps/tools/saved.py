"""Maps tools for users and their saved lists: find a user, list, create and delete lists, save and remove places."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_length, check_limit, next_id, pick
from gym_mcp.servers.maps.models import MAX_LISTS_PER_USER, MAX_PLACES_PER_LIST, Place, SavedList, SavedPlace, User
from gym_mcp.servers.maps.tools.common import kit, load_list, load_place, load_user


def _entries(db: Session, lst: SavedList) -> list[tuple[SavedPlace, Place]]:
    rows = db.execute(
        select(SavedPlace, Place)
        .join(Place, Place.id == SavedPlace.place_id)
        .where(SavedPlace.list_id == lst.id)
        .order_by(SavedPlace.id)
    )
    return [(s, p) for s, p in rows]


def _list_view(db: Session, lst: SavedList) -> dict[str, Any]:
    entries = _entries(db, lst)
    return {
        "list_id": lst.id,
        **pick(lst, "user_id", "name", "created_on"),
        "place_count": len(entries),
        "places": [
            {"place_id": p.id, "name": p.name, "category": p.category, "note": s.note, "saved_on": s.saved_on}
            for s, p in entries
        ],
    }


@kit.tool(
    write=False,
    intent="Find the user matching '{query}'[, showing at most {limit} results]",
    samples={"query": ("Nguyen", "Patel", "Garcia", "Kim", "Silva", "Rossi", "Tanaka", "Reyes")},
)
def find_user(db: Session, query: str, limit: int = 10) -> list[dict[str, Any]]:
    """Search users by name or email (case-insensitive, partial match), in id order.

    Returns a list of {user_id, name, email, list_count}; an empty list means no match.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        query: Part of a name or email, at least 2 characters, e.g. "nguyen".
        limit: Maximum number of users to return, 1 to 100, e.g. 10.
    """
    check_limit(limit)
    text = query.strip().lower()
    if len(text) < 2:
        raise ToolError("query must have at least 2 characters, e.g. a last name like 'Nguyen'")
    rows = db.scalars(
        select(User)
        .where(or_(func.lower(User.name).contains(text, autoescape=True), User.email.contains(text, autoescape=True)))
        .order_by(User.id)
        .limit(limit)
    )
    out = []
    for user in rows:
        count = db.scalar(select(func.count()).select_from(SavedList).where(SavedList.user_id == user.id))
        out.append({"user_id": user.id, **pick(user, "name", "email"), "list_count": count})
    return out


@kit.tool(write=False, intent="Show the saved lists of user {user_id}")
def list_saved_lists(db: Session, user_id: str) -> list[dict[str, Any]]:
    """List a user's saved lists, each with its places and their notes, in id order.

    A user keeps at most 5 lists of at most 15 places each.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        user_id: User id, e.g. "USR-1001".
    """
    user = load_user(db, user_id)
    rows = db.scalars(select(SavedList).where(SavedList.user_id == user.id).order_by(SavedList.id))
    return [_list_view(db, lst) for lst in rows]


@kit.tool(
    write=True,
    intent="Create a saved list called '{name}' for user {user_id}",
    samples={"name": ("Brunch spots", "Museums to visit", "Quiet parks", "Late-night food", "Gift shopping")},
)
def create_saved_list(db: Session, user_id: str, name: str) -> dict[str, Any]:
    """Create an empty saved list for a user.

    A user keeps at most 5 lists, each with a different name (case-insensitive). Returns the
    new list with its list_id.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        user_id: The list's owner, e.g. "USR-1001".
        name: Name of the list, 2 to 40 characters, e.g. "Brunch spots".
    """
    user = load_user(db, user_id)
    title = check_length(name.strip(), "name", 2, 40, ", e.g. 'Brunch spots'")
    lists = list(db.scalars(select(SavedList).where(SavedList.user_id == user.id).order_by(SavedList.id)))
    same = next((x for x in lists if x.name.lower() == title.lower()), None)
    if same is not None:
        raise ToolError(f"{user.id} already has a list named {same.name!r} ({same.id}); save places there instead.")
    if len(lists) >= MAX_LISTS_PER_USER:
        names = ", ".join(f"{x.id} ({x.name})" for x in lists)
        raise ToolError(
            f"{user.id} already has {len(lists)} saved lists, the most a user can keep ({names}). Delete one "
            "(delete_saved_list) or save the place to an existing list."
        )
    lst = SavedList(id=next_id(db, SavedList.id, "LST"), user_id=user.id, name=title, created_on=kit.today)
    db.add(lst)
    db.flush()
    return _list_view(db, lst)


@kit.tool(
    write=True,
    intent="Save place {place_id} to list {list_id}[ with the note '{note}']",
    samples={"note": ("Try the pastries", "Open late", "Good for groups", "Book ahead")},
)
def save_place(db: Session, list_id: str, place_id: str, note: str | None = None) -> dict[str, Any]:
    """Add a place to a saved list, with an optional note.

    A list holds at most 15 places, each once. Returns the list with its places.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        list_id: Saved list id, e.g. "LST-1001".
        place_id: The place to save, e.g. "PLC-1001".
        note: A note about it, up to 120 characters, e.g. "Open late".
    """
    lst = load_list(db, list_id)
    place = load_place(db, place_id)
    text = (note or "").strip()
    if len(text) > 120:
        raise ToolError("note must be at most 120 characters")
    entries = _entries(db, lst)
    if any(p.id == place.id for _, p in entries):
        raise ToolError(f"{place.id} ({place.name}) is already on list {lst.id} ({lst.name}); nothing changed.")
    if len(entries) >= MAX_PLACES_PER_LIST:
        raise ToolError(
            f"List {lst.id} ({lst.name}) is full: it holds {len(entries)} places, the most a list can. Remove one "
            "(remove_saved_place) or save the place to another list of the user (list_saved_lists)."
        )
    db.add(
        SavedPlace(
            id=next_id(db, SavedPlace.id, "SAV"), list_id=lst.id, place_id=place.id, note=text, saved_on=kit.today
        )
    )
    db.flush()
    return _list_view(db, lst)


@kit.tool(write=True, intent="Remove place {place_id} from list {list_id}")
def remove_saved_place(db: Session, list_id: str, place_id: str) -> dict[str, Any]:
    """Take a place off a saved list. Returns the list with its remaining places.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        list_id: Saved list id, e.g. "LST-1001".
        place_id: The place to remove, e.g. "PLC-1001".
    """
    lst = load_list(db, list_id)
    place = load_place(db, place_id)
    entries = _entries(db, lst)
    entry = next((s for s, p in entries if p.id == place.id), None)
    if entry is None:
        held = ", ".join(p.id for _, p in entries) or "no places"
        raise ToolError(f"{place.id} is not on list {lst.id} ({lst.name}), which holds {held}.")
    db.delete(entry)
    db.flush()
    return _list_view(db, lst)


@kit.tool(write=True, intent="Delete saved list {list_id}", confirm="always")
def delete_saved_list(db: Session, list_id: str) -> dict[str, Any]:
    """Delete a saved list and every place saved on it. Irreversible.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        list_id: Saved list id, e.g. "LST-1001".
    """
    lst = load_list(db, list_id)
    count = len(_entries(db, lst))
    db.execute(delete(SavedPlace).where(SavedPlace.list_id == lst.id))
    db.delete(lst)
    db.flush()
    return {"deleted_list_id": lst.id, "user_id": lst.user_id, "name": lst.name, "places_removed": count}
