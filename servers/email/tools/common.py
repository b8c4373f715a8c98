"""What the email tools share: the kit, id lookups, addresses, the quota rule, sending, result shapes.

Folders and labels belong to one mailbox and are named by the tools' callers (``"Archive"``,
``"Work"``, case-insensitive) or by id (``FLD-1004``, ``LBL-1002``). Sizes are bytes inside and
human-readable text (``"310.5 KB"``) in results and messages.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gym_mcp.servers.email.data import seed
from gym_mcp.servers.email.models import (
    DOMAIN,
    NOW,
    Attachment,
    Base,
    Contact,
    Draft,
    Folder,
    Label,
    Mailbox,
    Message,
    MessageLabel,
    Thread,
    content_size,
)
from gym_mcp.servers.kit import Finder, ServerKit, ToolError, next_id, norm_id, pick

__all__ = [
    "MAX_RECIPIENTS",
    "attachment_view",
    "check_quota",
    "check_recipient_count",
    "contact_view",
    "draft_view",
    "folder_by_name",
    "free_bytes",
    "human_size",
    "kit",
    "label_by_name",
    "label_names",
    "load_contact",
    "load_draft",
    "load_mailbox",
    "load_message",
    "load_thread",
    "mailbox_usage",
    "message_detail",
    "message_summary",
    "parse_addresses",
    "record_sent",
    "split_addresses",
]

INSTRUCTIONS = f"""\
Company email of Northwind Labs ({DOMAIN}). Each user has a mailbox ("MBX-1001") with a storage
quota and folders ("FLD-1001": Inbox, Sent, Drafts, Archive, Trash and custom ones), threads
("THR-1001"), messages ("MSG-1001"), drafts ("DRF-1001"), labels ("LBL-1001"), attachments
("ATT-1001") and an address book of contacts ("CON-1001"). Start with list_mailboxes to get a
mailbox id, then list_messages / search_messages / list_drafts. Folders and labels are named by
name ("Archive", "Work") or id. Recipients must be valid email addresses (find_contact looks them
up). Deleting moves mail to Trash; empty_trash deletes it for good. Labels must be created
(create_label) before they are applied. Everything a mailbox stores, the trash included, counts
against its quota. Now is {NOW.isoformat(timespec="minutes")}."""

kit = ServerKit(
    "email",
    base=Base,
    seed=seed,
    instructions=INSTRUCTIONS,
    today=NOW.date(),
    samples={"limit": (3, 5, 10, 20)},
    inline=True,
)

MAX_RECIPIENTS = 20
"""Most addresses one message may go to (to and cc together)."""

# -- lookups ------------------------------------------------------------------------------------

_MISSING = "No {noun} with id {id!r}. {Noun} ids look like '{example}'; {hint}."
load_mailbox = Finder(
    Mailbox, "mailbox", "MBX-1001", "use list_mailboxes to see valid ones and their addresses", message=_MISSING
)
load_message = Finder(
    Message,
    "message",
    "MSG-1001",
    "use list_messages or search_messages with the mailbox id to see valid ones",
    message=_MISSING,
)
load_thread = Finder(Thread, "thread", "THR-1001", "get_message shows a message's thread_id", message=_MISSING)
load_draft = Finder(
    Draft, "draft", "DRF-1001", "use list_drafts with the mailbox id to see valid ones", message=_MISSING
)
load_contact = Finder(
    Contact, "contact", "CON-1001", "use list_contacts or find_contact with the mailbox id", message=_MISSING
)


def folder_by_name(db: Session, mailbox: Mailbox, folder: str, field: str = "folder") -> Folder:
    """A folder of the mailbox by name (case-insensitive) or id, or a `ToolError` naming its folders."""
    text = folder.strip()
    found = db.scalar(
        select(Folder).where(
            Folder.mailbox_id == mailbox.id,
            (func.lower(Folder.name) == text.lower()) | (Folder.id == norm_id(text)),
        )
    )
    if found is None:
        names = ", ".join(db.scalars(select(Folder.name).where(Folder.mailbox_id == mailbox.id).order_by(Folder.id)))
        raise ToolError(
            f"Mailbox {mailbox.id} has no folder {folder!r} ({field}). Its folders are: {names}. "
            "Use one of them, or create_folder to add a new one."
        )
    return found


def label_names(db: Session, mailbox: Mailbox) -> list[str]:
    """The names of a mailbox's labels, by name."""
    return list(db.scalars(select(Label.name).where(Label.mailbox_id == mailbox.id).order_by(Label.name)))


def label_by_name(db: Session, mailbox: Mailbox, label: str) -> Label:
    """A label of the mailbox by name (case-insensitive) or id; a missing one must be created first."""
    text = label.strip()
    found = db.scalar(
        select(Label).where(
            Label.mailbox_id == mailbox.id,
            (func.lower(Label.name) == text.lower()) | (Label.id == norm_id(text)),
        )
    )
    if found is None:
        names = ", ".join(label_names(db, mailbox)) or "none yet"
        raise ToolError(
            f"Mailbox {mailbox.id} has no label {label!r}; a label must exist before it is applied. "
            f"Create it with create_label first, or use an existing one: {names}."
        )
    return found


# -- addresses ----------------------------------------------------------------------------------

_ADDRESS = re.compile(r"^[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$")


def parse_addresses(values: Sequence[str] | None, field: str) -> list[str]:
    """Validate a list of email addresses; return them trimmed, lower case, without repeats.

    Raises:
        ToolError: An entry is not a valid address (the message names it and how to find one).
    """
    out: list[str] = []
    for value in values or ():
        address = str(value).strip().lower()
        if not _ADDRESS.match(address):
            raise ToolError(
                f"{field} holds {value!r}, which is not a valid email address (like 'name@example.com'). "
                "Use find_contact to look up someone's address by name."
            )
        if address not in out:
            out.append(address)
    return out


def split_addresses(text: str) -> list[str]:
    """The addresses of a stored, comma-joined address field."""
    return [a for a in (p.strip() for p in text.split(",")) if a]


def check_recipient_count(to: Sequence[str], cc: Sequence[str]) -> None:
    """At least one recipient in ``to`` and at most `MAX_RECIPIENTS` in all."""
    if not to:
        raise ToolError("A message needs at least one recipient in 'to'; pass one or more email addresses.")
    if len(to) + len(cc) > MAX_RECIPIENTS:
        raise ToolError(f"A message may go to at most {MAX_RECIPIENTS} addresses (to and cc together).")


# -- quota --------------------------------------------------------------------------------------


def human_size(size: int) -> str:
    """Bytes as text: ``"512 B"``, ``"310.5 KB"``, ``"2.4 MB"``."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def mailbox_usage(db: Session, mailbox_id: str) -> int:
    """Bytes a mailbox stores: its messages, its unsent drafts and the attachments of both."""
    messages = db.scalar(select(func.coalesce(func.sum(Message.size_bytes), 0)).where(Message.mailbox_id == mailbox_id))
    drafts = db.scalar(
        select(func.coalesce(func.sum(Draft.size_bytes), 0)).where(
            Draft.mailbox_id == mailbox_id, Draft.status == "draft"
        )
    )
    on_messages = db.scalar(
        select(func.coalesce(func.sum(Attachment.size_bytes), 0))
        .join(Message, Attachment.message_id == Message.id)
        .where(Message.mailbox_id == mailbox_id)
    )
    on_drafts = db.scalar(
        select(func.coalesce(func.sum(Attachment.size_bytes), 0))
        .join(Draft, Attachment.draft_id == Draft.id)
        .where(Draft.mailbox_id == mailbox_id, Draft.status == "draft")
    )
    return int(messages or 0) + int(drafts or 0) + int(on_messages or 0) + int(on_drafts or 0)


def free_bytes(db: Session, mailbox: Mailbox) -> int:
    """Bytes left under the mailbox's quota (never below 0)."""
    return max(mailbox.quota_bytes - mailbox_usage(db, mailbox.id), 0)


def check_quota(db: Session, mailbox: Mailbox, extra: int, what: str) -> None:
    """Refuse to store ``extra`` more bytes in a mailbox when they would exceed its quota.

    Args:
        db: The session of the call.
        mailbox: The mailbox that would store them.
        extra: Bytes added (0 or less always passes).
        what: What would be stored, for the message, e.g. ``"the attachment report.pdf"``.

    Raises:
        ToolError: Over quota; the message says how much is free and how to make room.
    """
    if extra <= 0:
        return
    free = free_bytes(db, mailbox)
    if extra > free:
        raise ToolError(
            f"Mailbox {mailbox.id} is nearly full: {what} needs {human_size(extra)} but only {human_size(free)} "
            f"of its {human_size(mailbox.quota_bytes)} quota is free. Make room first (delete_message then "
            "empty_trash), or send something smaller."
        )


# -- sending ------------------------------------------------------------------------------------


def record_sent(
    db: Session,
    mailbox: Mailbox,
    *,
    to: Sequence[str],
    cc: Sequence[str],
    subject: str,
    body: str,
    thread: Thread | None = None,
    in_reply_to: str | None = None,
    forwarded_from: str | None = None,
) -> Message:
    """Store a message the mailbox sends, in its Sent folder (a new thread unless one is given)."""
    if thread is None:
        thread = Thread(id=next_id(db, Thread.id, "THR"), mailbox_id=mailbox.id, subject=subject)
        db.add(thread)
        db.flush()
    sent = db.scalar(select(Folder).where(Folder.mailbox_id == mailbox.id, Folder.name == "Sent"))
    assert sent is not None  # every mailbox has its system folders
    to_text, cc_text = ", ".join(to), ", ".join(cc)
    msg = Message(
        id=next_id(db, Message.id, "MSG"),
        mailbox_id=mailbox.id,
        folder_id=sent.id,
        thread_id=thread.id,
        direction="sent",
        sender=mailbox.address,
        sender_name=mailbox.display_name,
        to_addrs=to_text,
        cc_addrs=cc_text,
        subject=subject,
        body=body,
        sent_at=NOW,
        is_read=True,
        size_bytes=content_size(subject, body, to_text, cc_text),
        in_reply_to=in_reply_to,
        forwarded_from=forwarded_from,
    )
    db.add(msg)
    db.flush()
    return msg


# -- result shapes ------------------------------------------------------------------------------


def _attachments(db: Session, *, message_id: str | None = None, draft_id: str | None = None) -> list[Attachment]:
    stmt = select(Attachment).order_by(Attachment.id)
    if message_id is not None:
        stmt = stmt.where(Attachment.message_id == message_id)
    else:
        stmt = stmt.where(Attachment.draft_id == draft_id)
    return list(db.scalars(stmt))


def attachment_view(att: Attachment) -> dict[str, Any]:
    """The fields of an attachment a model needs."""
    return {
        "attachment_id": att.id,
        "filename": att.filename,
        "mime_type": att.mime_type,
        "size": human_size(att.size_bytes),
    }


def _labels_of(db: Session, message_id: str) -> list[str]:
    return list(
        db.scalars(
            select(Label.name)
            .join(MessageLabel, MessageLabel.label_id == Label.id)
            .where(MessageLabel.message_id == message_id)
            .order_by(Label.name)
        )
    )


def message_summary(db: Session, msg: Message) -> dict[str, Any]:
    """One line of a message list: who, what, when, read or not, labels and attachment count."""
    attachments = db.scalar(select(func.count()).select_from(Attachment).where(Attachment.message_id == msg.id))
    out: dict[str, Any] = {
        "message_id": msg.id,
        "thread_id": msg.thread_id,
        "from": msg.sender,
        "to": split_addresses(msg.to_addrs),
        "subject": msg.subject,
        "date": msg.sent_at.isoformat(timespec="minutes"),
        "unread": not msg.is_read,
    }
    labels = _labels_of(db, msg.id)
    if labels:
        out["labels"] = labels
    if attachments:
        out["attachments"] = attachments
    return out


def message_detail(db: Session, msg: Message) -> dict[str, Any]:
    """A whole message: headers, body, folder, labels, attachments and its size."""
    folder = db.get(Folder, msg.folder_id)
    out: dict[str, Any] = {
        "message_id": msg.id,
        "mailbox_id": msg.mailbox_id,
        "thread_id": msg.thread_id,
        "folder": folder.name if folder else None,
        "direction": msg.direction,
        "from": msg.sender,
        "from_name": msg.sender_name,
        "to": split_addresses(msg.to_addrs),
        "cc": split_addresses(msg.cc_addrs),
        "subject": msg.subject,
        "date": msg.sent_at.isoformat(timespec="minutes"),
        "unread": not msg.is_read,
        "labels": _labels_of(db, msg.id),
        "body": msg.body,
        "attachments": [attachment_view(a) for a in _attachments(db, message_id=msg.id)],
        "size": human_size(msg.size_bytes),
    }
    if msg.in_reply_to:
        out["in_reply_to"] = msg.in_reply_to
    if msg.forwarded_from:
        out["forwarded_from"] = msg.forwarded_from
    return out


def draft_view(db: Session, draft: Draft, *, body: bool = True) -> dict[str, Any]:
    """A draft: recipients, subject, body, attachments and status."""
    out: dict[str, Any] = {
        "draft_id": draft.id,
        "mailbox_id": draft.mailbox_id,
        "status": draft.status,
        "to": split_addresses(draft.to_addrs),
        "cc": split_addresses(draft.cc_addrs),
        "subject": draft.subject,
        "updated": draft.updated_at.isoformat(timespec="minutes"),
        "attachments": [attachment_view(a) for a in _attachments(db, draft_id=draft.id)],
    }
    if body:
        out["body"] = draft.body
    if draft.in_reply_to:
        out["in_reply_to"] = draft.in_reply_to
    if draft.sent_message_id:
        out["sent_message_id"] = draft.sent_message_id
    return out


def contact_view(contact: Contact) -> dict[str, Any]:
    """The fields of a contact a model needs."""
    return {"contact_id": contact.id, **pick(contact, "name", "email", "company")}
