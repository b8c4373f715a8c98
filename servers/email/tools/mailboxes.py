"""Email tools for mailboxes and their folders: find a mailbox, see its quota, list and create folders."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.email.models import Draft, Folder, Mailbox, Message
from gym_mcp.servers.email.tools.common import free_bytes, human_size, kit, load_mailbox, mailbox_usage
from gym_mcp.servers.kit import ToolError, check_length, check_limit, next_id

MAX_FOLDERS = 20
"""Most folders (system ones included) one mailbox may have."""


@kit.tool(
    write=False,
    intent="List the mailboxes[ matching '{query}'][, at most {limit} of them]",
    samples={"query": ("Sales", "Engineering", "Finance", "Marketing", "Support", "Legal")},
)
def list_mailboxes(db: Session, query: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
    """List the hosted mailboxes: id, address, owner's name, department and free space.

    Use this first to get a mailbox id (e.g. "MBX-1001") from a person's name or address. The
    optional query matches part of the address, the name or the department (case-insensitive).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        query: Part of a name, address or department, e.g. "garcia" or "Sales"; omit to list all.
        limit: Maximum number of mailboxes to return, 1 to 100.
    """
    check_limit(limit)
    stmt = select(Mailbox)
    if query is not None and query.strip():
        text = query.strip().lower()
        stmt = stmt.where(
            or_(
                func.lower(Mailbox.address).contains(text, autoescape=True),
                func.lower(Mailbox.display_name).contains(text, autoescape=True),
                func.lower(Mailbox.department).contains(text, autoescape=True),
            )
        )
    rows = db.scalars(stmt.order_by(Mailbox.id).limit(limit))
    return [
        {
            "mailbox_id": m.id,
            "address": m.address,
            "name": m.display_name,
            "department": m.department,
            "free": human_size(free_bytes(db, m)),
        }
        for m in rows
    ]


@kit.tool(write=False, intent="Show mailbox {mailbox_id} with its quota and folders")
def get_mailbox(db: Session, mailbox_id: str) -> dict[str, Any]:
    """Get one mailbox: owner, quota (used and free), unread count and the folders with their counts.

    Check free space here before sending large attachments: anything that would exceed the
    quota is refused.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        mailbox_id: Mailbox id, e.g. "MBX-1001".
    """
    box = load_mailbox(db, mailbox_id)
    used = mailbox_usage(db, box.id)
    unread = db.scalar(
        select(func.count())
        .select_from(Message)
        .join(Folder, Folder.id == Message.folder_id)
        .where(Message.mailbox_id == box.id, Message.is_read.is_(False), Folder.name != "Trash")
    )
    return {
        "mailbox_id": box.id,
        "address": box.address,
        "name": box.display_name,
        "department": box.department,
        "quota": human_size(box.quota_bytes),
        "used": human_size(used),
        "free": human_size(max(box.quota_bytes - used, 0)),
        "used_percent": round(100 * used / box.quota_bytes, 1),
        "unread": unread,
        "folders": _folder_rows(db, box),
    }


def _folder_rows(db: Session, box: Mailbox) -> list[dict[str, Any]]:
    out = []
    for folder in db.scalars(select(Folder).where(Folder.mailbox_id == box.id).order_by(Folder.id)):
        if folder.name == "Drafts":
            total = db.scalar(
                select(func.count()).select_from(Draft).where(Draft.mailbox_id == box.id, Draft.status == "draft")
            )
            unread: int | None = 0
        else:
            total = db.scalar(select(func.count()).select_from(Message).where(Message.folder_id == folder.id))
            unread = db.scalar(
                select(func.count())
                .select_from(Message)
                .where(Message.folder_id == folder.id, Message.is_read.is_(False))
            )
        out.append(
            {"folder_id": folder.id, "name": folder.name, "system": folder.system, "messages": total, "unread": unread}
        )
    return out


@kit.tool(write=False, intent="List the folders of mailbox {mailbox_id}")
def list_folders(db: Session, mailbox_id: str) -> list[dict[str, Any]]:
    """List a mailbox's folders with how many messages and unread messages each holds.

    Every mailbox has the system folders Inbox, Sent, Drafts, Archive and Trash; others are
    custom folders made with create_folder. Drafts counts the unsent drafts (see list_drafts).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        mailbox_id: Mailbox id, e.g. "MBX-1001".
    """
    return _folder_rows(db, load_mailbox(db, mailbox_id))


@kit.tool(
    write=True,
    intent="Create a folder named '{folder_name}' in mailbox {mailbox_id}",
    samples={
        "folder_name": ("Projects", "Receipts", "Clients", "Travel", "Q1 Reports", "Vendors", "Board", "Conferences")
    },
)
def create_folder(db: Session, mailbox_id: str, folder_name: str) -> dict[str, Any]:
    """Create a custom folder in a mailbox; move mail into it with move_message.

    Folder names are unique per mailbox (case-insensitive), so a name that exists (including the
    system folders Inbox, Sent, Drafts, Archive, Trash) is refused.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        mailbox_id: Mailbox id, e.g. "MBX-1001".
        folder_name: The new folder's name, 1 to 40 characters, e.g. "Receipts".
    """
    box = load_mailbox(db, mailbox_id)
    name = check_length(" ".join(folder_name.split()), "folder_name", 1, 40, ", e.g. 'Receipts'")
    if "/" in name:
        raise ToolError("folder_name cannot contain '/'; folders are not nested, e.g. use 'Clients 2026'")
    existing = db.scalar(select(Folder).where(Folder.mailbox_id == box.id, func.lower(Folder.name) == name.lower()))
    if existing is not None:
        kind = "a system folder" if existing.system else "a folder"
        raise ToolError(
            f"Mailbox {box.id} already has {kind} named {existing.name!r} ({existing.id}); folder names are unique "
            "per mailbox. Use that folder, or choose another name."
        )
    count = db.scalar(select(func.count()).select_from(Folder).where(Folder.mailbox_id == box.id)) or 0
    if count >= MAX_FOLDERS:
        raise ToolError(f"Mailbox {box.id} already has {count} folders, the maximum is {MAX_FOLDERS}.")
    folder = Folder(id=next_id(db, Folder.id, "FLD"), mailbox_id=box.id, name=name, system=False)
    db.add(folder)
    db.flush()
    return {"folder_id": folder.id, "mailbox_id": box.id, "name": folder.name, "system": False}
