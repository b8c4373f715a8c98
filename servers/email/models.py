"""Data model of the email server: mailboxes, folders, threads, messages, drafts, labels, attachments, contacts.

Ids are stable, human-readable strings (``MBX-1001``, ``FLD-1001``, ``THR-1001``, ``MSG-1001``,
``DRF-1001``, ``LBL-1001``, ``ATT-1001``, ``CON-1001``); new ones take the next number after
the largest in the table, so replaying the same calls yields the same ids.

Every mailbox holds its own copy of what it sent and received: a message belongs to one
mailbox, one folder of that mailbox and one thread of that mailbox. A draft is not a message
yet: sending it creates a message in Sent and marks the draft ``sent``. Sizes are bytes;
everything a mailbox stores (messages, unsent drafts and their attachments, the trash
included) counts against its quota until the trash is emptied.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from gym_mcp.servers.kit import string_id, volatile_timestamp

__all__ = [
    "DOMAIN",
    "DRAFT_STATUSES",
    "HEADER_BYTES",
    "NOW",
    "SYSTEM_FOLDERS",
    "Attachment",
    "Base",
    "Contact",
    "Draft",
    "Folder",
    "Label",
    "Mailbox",
    "Message",
    "MessageLabel",
    "Thread",
    "content_size",
]

NOW = datetime(2026, 1, 15, 9, 30)
"""The server's fixed "now": every message sent through the tools is dated at this minute."""

DOMAIN = "northwind.example"
"""The mail domain this server hosts (every mailbox's address ends with it)."""

SYSTEM_FOLDERS = ("Inbox", "Sent", "Drafts", "Archive", "Trash")
"""The folders every mailbox has; they cannot be created again under the same name."""

DRAFT_STATUSES = ("draft", "sent")


class Base(DeclarativeBase):
    """Declarative base of the email tables."""


class _Record:
    """What most email rows have: a string id (first) and a volatile creation time (last)."""

    id: Mapped[str] = string_id(sort_order=-1)
    created_at: Mapped[datetime] = volatile_timestamp()


class Mailbox(_Record, Base):
    """A hosted mailbox (one user's address) with its storage quota."""

    __tablename__ = "mailboxes"

    address: Mapped[str] = mapped_column(String(120), unique=True)
    display_name: Mapped[str] = mapped_column(String(80))
    department: Mapped[str] = mapped_column(String(40))
    quota_bytes: Mapped[int] = mapped_column(Integer)
    signature: Mapped[str] = mapped_column(String(200), default="")


class Folder(_Record, Base):
    """A folder of one mailbox: a system folder (Inbox, Sent, Drafts, Archive, Trash) or a custom one."""

    __tablename__ = "folders"
    __table_args__ = (UniqueConstraint("mailbox_id", "name"),)

    mailbox_id: Mapped[str] = mapped_column(ForeignKey("mailboxes.id"), index=True)
    name: Mapped[str] = mapped_column(String(40))
    system: Mapped[bool] = mapped_column(Boolean, default=False)


class Thread(_Record, Base):
    """A conversation of one mailbox: a message and its replies share it."""

    __tablename__ = "threads"

    mailbox_id: Mapped[str] = mapped_column(ForeignKey("mailboxes.id"), index=True)
    subject: Mapped[str] = mapped_column(String(200))


class Message(_Record, Base):
    """A received or sent message as one mailbox stores it."""

    __tablename__ = "messages"

    mailbox_id: Mapped[str] = mapped_column(ForeignKey("mailboxes.id"), index=True)
    folder_id: Mapped[str] = mapped_column(ForeignKey("folders.id"), index=True)
    thread_id: Mapped[str] = mapped_column(ForeignKey("threads.id"), index=True)
    direction: Mapped[str] = mapped_column(String(10))
    sender: Mapped[str] = mapped_column(String(120))
    sender_name: Mapped[str] = mapped_column(String(80))
    to_addrs: Mapped[str] = mapped_column(Text)
    cc_addrs: Mapped[str] = mapped_column(Text, default="")
    subject: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text)
    sent_at: Mapped[datetime] = mapped_column(DateTime, index=True)
    is_read: Mapped[bool] = mapped_column(Boolean, default=False)
    size_bytes: Mapped[int] = mapped_column(Integer)
    in_reply_to: Mapped[str | None] = mapped_column(String(16), nullable=True, default=None)
    forwarded_from: Mapped[str | None] = mapped_column(String(16), nullable=True, default=None)


class Draft(_Record, Base):
    """An unsent message being written; ``status`` becomes ``sent`` once send_draft sends it."""

    __tablename__ = "drafts"

    mailbox_id: Mapped[str] = mapped_column(ForeignKey("mailboxes.id"), index=True)
    to_addrs: Mapped[str] = mapped_column(Text, default="")
    cc_addrs: Mapped[str] = mapped_column(Text, default="")
    subject: Mapped[str] = mapped_column(String(200), default="")
    body: Mapped[str] = mapped_column(Text, default="")
    status: Mapped[str] = mapped_column(String(10), default="draft")
    size_bytes: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(DateTime)
    in_reply_to: Mapped[str | None] = mapped_column(String(16), nullable=True, default=None)
    sent_message_id: Mapped[str | None] = mapped_column(String(16), nullable=True, default=None)


class Label(_Record, Base):
    """A label of one mailbox; it must exist before it is applied to a message."""

    __tablename__ = "labels"
    __table_args__ = (UniqueConstraint("mailbox_id", "name"),)

    mailbox_id: Mapped[str] = mapped_column(ForeignKey("mailboxes.id"), index=True)
    name: Mapped[str] = mapped_column(String(40))
    color: Mapped[str] = mapped_column(String(16))


class MessageLabel(Base):
    """A label applied to a message."""

    __tablename__ = "message_labels"

    message_id: Mapped[str] = mapped_column(ForeignKey("messages.id"), primary_key=True)
    label_id: Mapped[str] = mapped_column(ForeignKey("labels.id"), primary_key=True)


class Attachment(_Record, Base):
    """A file attached to a message or to a draft (metadata only: name, size, type)."""

    __tablename__ = "attachments"

    message_id: Mapped[str | None] = mapped_column(ForeignKey("messages.id"), nullable=True, index=True)
    draft_id: Mapped[str | None] = mapped_column(ForeignKey("drafts.id"), nullable=True, index=True)
    filename: Mapped[str] = mapped_column(String(120))
    mime_type: Mapped[str] = mapped_column(String(80))
    size_bytes: Mapped[int] = mapped_column(Integer)


class Contact(_Record, Base):
    """An entry of one mailbox's address book."""

    __tablename__ = "contacts"
    __table_args__ = (UniqueConstraint("mailbox_id", "email"),)

    mailbox_id: Mapped[str] = mapped_column(ForeignKey("mailboxes.id"), index=True)
    name: Mapped[str] = mapped_column(String(80))
    email: Mapped[str] = mapped_column(String(120))
    company: Mapped[str] = mapped_column(String(80), default="")


HEADER_BYTES = 480
"""Bytes every message or draft takes besides its subject, body and addresses (headers)."""


def content_size(subject: str, body: str, *addresses: str) -> int:
    """Stored size of a message or draft in bytes: headers, addresses, subject and body (UTF-8).

    Args:
        subject: The subject line.
        body: The body text.
        *addresses: The comma-joined address fields (to, cc).

    Returns:
        The size in bytes, e.g. ``612``.
    """
    return HEADER_BYTES + sum(len(a.encode()) for a in addresses) + len(subject.encode()) + len(body.encode())
