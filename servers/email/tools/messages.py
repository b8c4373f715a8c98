"""Email tools that read and file messages: list, search, read, threads, read flags, move, delete, empty trash."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import Any

from sqlalchemy import delete, func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.email.models import Attachment, Draft, Folder, Message, MessageLabel, Thread
from gym_mcp.servers.email.tools.common import (
    draft_view,
    folder_by_name,
    human_size,
    kit,
    label_by_name,
    load_mailbox,
    load_message,
    load_thread,
    message_detail,
    message_summary,
)
from gym_mcp.servers.kit import ToolError, check_limit, parse_date

_DATE_ERROR = "{field} must be a date like 2026-01-10, got {value!r}"
FOLDER_SAMPLES = ("Inbox", "Archive", "Sent", "Trash")


@kit.tool(
    write=False,
    intent=(
        "List the messages of mailbox {mailbox_id}[ in the {folder} folder][ labeled '{label}']"
        "[, at most {limit} of them]"
    ),
    samples={"folder": FOLDER_SAMPLES, "label": ("Work", "Finance", "Travel", "Urgent", "Follow-up", "Clients")},
)
def list_messages(
    db: Session,
    mailbox_id: str,
    folder: str | None = None,
    label: str | None = None,
    unread_only: bool = False,
    limit: int = 20,
) -> dict[str, Any]:
    """List a mailbox's messages, newest first, by folder, label and read state.

    Without folder and label this lists the Inbox; with a label and no folder it lists that
    label's messages in every folder but Trash. The Drafts folder lists the unsent drafts (as
    list_drafts does). Returns {mailbox_id, folder, messages, more}; more is true when further
    messages match beyond the limit.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        mailbox_id: Mailbox id, e.g. "MBX-1001".
        folder: Folder name or id, e.g. "Inbox", "Archive" or "FLD-1004".
        label: Only messages with this label (name or id), e.g. "Work".
        unread_only: Only unread messages.
        limit: Maximum number of messages to return, 1 to 100.
    """
    check_limit(limit)
    box = load_mailbox(db, mailbox_id)
    where = None if folder is None and label is not None else folder_by_name(db, box, folder or "Inbox")
    if where is not None and where.name == "Drafts":
        drafts = list(
            db.scalars(
                select(Draft)
                .where(Draft.mailbox_id == box.id, Draft.status == "draft")
                .order_by(Draft.updated_at.desc(), Draft.id.desc())
                .limit(limit + 1)
            )
        )
        return {
            "mailbox_id": box.id,
            "folder": "Drafts",
            "messages": [draft_view(db, d, body=False) for d in drafts[:limit]],
            "more": len(drafts) > limit,
        }
    stmt = select(Message).where(Message.mailbox_id == box.id)
    if where is not None:
        stmt = stmt.where(Message.folder_id == where.id)
    else:
        trash = folder_by_name(db, box, "Trash")
        stmt = stmt.where(Message.folder_id != trash.id)
    if label is not None:
        tag = label_by_name(db, box, label)
        stmt = stmt.where(Message.id.in_(select(MessageLabel.message_id).where(MessageLabel.label_id == tag.id)))
    if unread_only:
        stmt = stmt.where(Message.is_read.is_(False))
    rows = list(db.scalars(stmt.order_by(Message.sent_at.desc(), Message.id.desc()).limit(limit + 1)))
    return {
        "mailbox_id": box.id,
        "folder": where.name if where is not None else "all but Trash",
        "messages": [message_summary(db, m) for m in rows[:limit]],
        "more": len(rows) > limit,
    }


@kit.tool(
    write=False,
    intent=(
        "Search mailbox {mailbox_id}[ for '{text}'][ for mail from '{sender}'][ sent from {start_date}]"
        "[ up to {end_date}][, at most {limit} results]"
    ),
    samples={
        "text": ("invoice", "offsite", "contract", "ticket", "report", "booking", "expense", "review"),
        "sender": ("contoso.example", "fabrikam.example", "globex.example", "northwind.example", "tailspin"),
        "start_date": ("2025-11-20", "2025-12-01", "2025-12-15", "2026-01-01"),
        "end_date": ("2025-12-31", "2026-01-10", "2026-01-14", "2026-01-15"),
    },
)
def search_messages(
    db: Session,
    mailbox_id: str,
    text: str | None = None,
    sender: str | None = None,
    start_date: str | None = None,
    end_date: str | None = None,
    limit: int = 20,
) -> dict[str, Any]:
    """Search every folder of a mailbox (Trash included) by text, sender and date range, newest first.

    text matches the subject or body, sender the sender's address or name (both partial and
    case-insensitive); dates are inclusive. Each result says which folder the message is in.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        mailbox_id: Mailbox id, e.g. "MBX-1001".
        text: Words in the subject or body, e.g. "invoice".
        sender: Part of the sender's address or name, e.g. "contoso.example" or "Garcia".
        start_date: Earliest date sent, inclusive, e.g. "2025-12-01".
        end_date: Latest date sent, inclusive, e.g. "2026-01-15".
        limit: Maximum number of messages to return, 1 to 100.
    """
    check_limit(limit)
    box = load_mailbox(db, mailbox_id)
    stmt = select(Message, Folder.name).join(Folder, Folder.id == Message.folder_id).where(Message.mailbox_id == box.id)
    if text is not None and text.strip():
        words = text.strip().lower()
        stmt = stmt.where(
            or_(
                func.lower(Message.subject).contains(words, autoescape=True),
                func.lower(Message.body).contains(words, autoescape=True),
            )
        )
    if sender is not None and sender.strip():
        who = sender.strip().lower()
        stmt = stmt.where(
            or_(
                func.lower(Message.sender).contains(who, autoescape=True),
                func.lower(Message.sender_name).contains(who, autoescape=True),
            )
        )
    start = parse_date(start_date, "start_date", _DATE_ERROR) if start_date else None
    end = parse_date(end_date, "end_date", _DATE_ERROR) if end_date else None
    if start and end and start > end:
        raise ToolError(f"start_date {start} is after end_date {end}; swap them")
    if start:
        stmt = stmt.where(Message.sent_at >= datetime.combine(start, time()))
    if end:
        stmt = stmt.where(Message.sent_at < datetime.combine(end + timedelta(days=1), time()))
    rows = list(db.execute(stmt.order_by(Message.sent_at.desc(), Message.id.desc()).limit(limit + 1)))
    return {
        "mailbox_id": box.id,
        "messages": [{**message_summary(db, m), "folder": name} for m, name in rows[:limit]],
        "more": len(rows) > limit,
    }


@kit.tool(write=False, intent="Show message {message_id}")
def get_message(db: Session, message_id: str) -> dict[str, Any]:
    """Read one message in full: sender, recipients, subject, date, body, folder, labels and attachments.

    Reading does not mark it read; use mark_read for that.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        message_id: Message id, e.g. "MSG-1001".
    """
    return message_detail(db, load_message(db, message_id))


@kit.tool(write=False, intent="Show the conversation of thread {thread_id}")
def get_thread(db: Session, thread_id: str) -> dict[str, Any]:
    """Show a whole conversation: every message of the thread, oldest first, with its folder.

    A message and its replies share a thread; get_message shows a message's thread_id.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        thread_id: Thread id, e.g. "THR-1001".
    """
    thread = load_thread(db, thread_id)
    rows = db.execute(
        select(Message, Folder.name)
        .join(Folder, Folder.id == Message.folder_id)
        .where(Message.thread_id == thread.id)
        .order_by(Message.sent_at, Message.id)
    )
    messages = [{**message_summary(db, m), "folder": name, "body": m.body} for m, name in rows]
    return {"thread_id": thread.id, "mailbox_id": thread.mailbox_id, "subject": thread.subject, "messages": messages}


@kit.tool(write=True, intent="Mark message {message_id} as read")
def mark_read(db: Session, message_id: str) -> dict[str, Any]:
    """Mark an unread message as read.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        message_id: Message id, e.g. "MSG-1001".
    """
    msg = load_message(db, message_id)
    if msg.is_read:
        raise ToolError(f"Message {msg.id} is already read; nothing changed.")
    msg.is_read = True
    return {"message_id": msg.id, "unread": False}


@kit.tool(write=True, intent="Mark message {message_id} as unread")
def mark_unread(db: Session, message_id: str) -> dict[str, Any]:
    """Mark a read message as unread again (e.g. to come back to it later).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        message_id: Message id, e.g. "MSG-1001".
    """
    msg = load_message(db, message_id)
    if not msg.is_read:
        raise ToolError(f"Message {msg.id} is already unread; nothing changed.")
    msg.is_read = False
    return {"message_id": msg.id, "unread": True}


@kit.tool(
    write=True,
    intent="Move message {message_id} to the {folder} folder",
    samples={"folder": ("Archive", "Inbox", "Archive", "Projects", "Receipts", "Clients")},
)
def move_message(db: Session, message_id: str, folder: str) -> dict[str, Any]:
    """Move a message to another folder of its mailbox (also restores a message from Trash).

    Nothing can be moved into Drafts (use create_draft), and only sent mail into Sent. To delete
    a message use delete_message, which moves it to Trash.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        message_id: Message id, e.g. "MSG-1001".
        folder: Target folder name or id in the message's mailbox, e.g. "Archive" or "FLD-1004".
    """
    msg = load_message(db, message_id)
    box = load_mailbox(db, msg.mailbox_id)
    target = folder_by_name(db, box, folder)
    current = db.get(Folder, msg.folder_id)
    if target.id == msg.folder_id:
        raise ToolError(f"Message {msg.id} is already in {target.name}; nothing changed.")
    if target.name == "Drafts":
        raise ToolError("Messages cannot be moved into Drafts; start a new draft with create_draft instead.")
    if target.name == "Sent" and msg.direction != "sent":
        raise ToolError(f"Message {msg.id} was received, not sent; only sent mail can be in Sent. Use Archive instead.")
    msg.folder_id = target.id
    return {"message_id": msg.id, "from_folder": current.name if current else None, "folder": target.name}


@kit.tool(write=True, intent="Delete message {message_id}")
def delete_message(db: Session, message_id: str) -> dict[str, Any]:
    """Delete a message by moving it to its mailbox's Trash (move_message can restore it).

    It still counts against the quota until empty_trash deletes it for good.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        message_id: Message id, e.g. "MSG-1001".
    """
    msg = load_message(db, message_id)
    box = load_mailbox(db, msg.mailbox_id)
    trash = folder_by_name(db, box, "Trash")
    if msg.folder_id == trash.id:
        raise ToolError(
            f"Message {msg.id} is already in Trash. To delete it for good, use empty_trash on mailbox {box.id}."
        )
    current = db.get(Folder, msg.folder_id)
    msg.folder_id = trash.id
    return {"message_id": msg.id, "from_folder": current.name if current else None, "folder": "Trash"}


@kit.tool(write=True, intent="Empty the trash of mailbox {mailbox_id}", confirm="always")
def empty_trash(db: Session, mailbox_id: str) -> dict[str, Any]:
    """Delete every message in a mailbox's Trash for good, with its attachments. This cannot be undone.

    Frees the space they took from the quota. Confirm with the user before calling it.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        mailbox_id: Mailbox id, e.g. "MBX-1001".
    """
    box = load_mailbox(db, mailbox_id)
    trash = folder_by_name(db, box, "Trash")
    doomed = list(db.scalars(select(Message).where(Message.folder_id == trash.id).order_by(Message.id)))
    if not doomed:
        raise ToolError(f"The Trash of mailbox {box.id} is already empty; nothing to delete.")
    ids = [m.id for m in doomed]
    files = db.scalar(select(func.coalesce(func.sum(Attachment.size_bytes), 0)).where(Attachment.message_id.in_(ids)))
    freed = sum(m.size_bytes for m in doomed) + int(files or 0)
    threads = {m.thread_id for m in doomed}
    db.execute(delete(MessageLabel).where(MessageLabel.message_id.in_(ids)))
    db.execute(delete(Attachment).where(Attachment.message_id.in_(ids)))
    for msg in doomed:
        db.delete(msg)
    db.flush()
    for thread_id in sorted(threads):
        left = db.scalar(select(func.count()).select_from(Message).where(Message.thread_id == thread_id))
        if not left:
            db.execute(delete(Thread).where(Thread.id == thread_id))
    return {"mailbox_id": box.id, "deleted": len(ids), "message_ids": ids, "freed": human_size(freed)}
