"""Data model of the team chat server: workspaces, users, channels, messages, reactions, pins and DMs.

Ids are stable, human-readable strings (``WKS-1001``, ``USR-1001``, ``CHN-1001``, ``MSG-10001``,
``RXN-1001``, ``PIN-1001``, ``DM-1001``, ``MEM-1001``); new ones take the next number after the
largest in the table, so replaying the same calls yields the same ids.

A thread reply is a message whose ``parent_id`` is the top-level message it answers; top-level
messages have no parent. Times come from the server's fixed clock (`NOW`), never the wall clock.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Boolean, Date, DateTime, ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from gym_mcp.servers.kit import string_id, volatile_timestamp

__all__ = [
    "NOW",
    "PRESENCES",
    "TODAY",
    "Base",
    "Channel",
    "DirectMessage",
    "Membership",
    "Message",
    "Pin",
    "Reaction",
    "User",
    "Workspace",
]

TODAY = date(2026, 1, 15)
"""The server's fixed reference date (the kit's ``today``)."""

NOW = datetime(2026, 1, 15, 10, 0)
"""The server's fixed "now": the time stamped on every message, edit, pin and reaction a tool makes."""

PRESENCES = ("active", "away", "dnd")
"""A user's presence: online, away, or do-not-disturb."""


class Base(DeclarativeBase):
    """Declarative base of the team chat tables."""


class _Record:
    """What every row has: a string id (first) and a volatile creation time (last)."""

    id: Mapped[str] = string_id(sort_order=-1)
    created_at: Mapped[datetime] = volatile_timestamp()


class Workspace(_Record, Base):
    """A company's chat workspace; its users and channels belong to it alone."""

    __tablename__ = "workspaces"

    name: Mapped[str] = mapped_column(String(80))
    domain: Mapped[str] = mapped_column(String(80), unique=True)


class User(_Record, Base):
    """A person in one workspace, with a display name and a status."""

    __tablename__ = "users"

    workspace_id: Mapped[str] = mapped_column(ForeignKey("workspaces.id"), index=True)
    full_name: Mapped[str] = mapped_column(String(80))
    display_name: Mapped[str] = mapped_column(String(40))
    email: Mapped[str] = mapped_column(String(120), unique=True)
    title: Mapped[str] = mapped_column(String(80))
    presence: Mapped[str] = mapped_column(String(8), default="active")
    status_text: Mapped[str] = mapped_column(String(100), default="")
    status_emoji: Mapped[str] = mapped_column(String(40), default="")
    deactivated: Mapped[bool] = mapped_column(Boolean, default=False)


class Channel(_Record, Base):
    """A public or private channel of a workspace; an archived one is read-only."""

    __tablename__ = "channels"
    __table_args__ = (UniqueConstraint("workspace_id", "name"),)

    workspace_id: Mapped[str] = mapped_column(ForeignKey("workspaces.id"), index=True)
    name: Mapped[str] = mapped_column(String(40))
    is_private: Mapped[bool] = mapped_column(Boolean, default=False)
    archived: Mapped[bool] = mapped_column(Boolean, default=False)
    topic: Mapped[str] = mapped_column(String(250), default="")
    creator_id: Mapped[str] = mapped_column(ForeignKey("users.id"))
    created_on: Mapped[date] = mapped_column(Date)


class Membership(_Record, Base):
    """A user's membership of a channel."""

    __tablename__ = "memberships"
    __table_args__ = (UniqueConstraint("channel_id", "user_id"),)

    channel_id: Mapped[str] = mapped_column(ForeignKey("channels.id"), index=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    joined_on: Mapped[date] = mapped_column(Date)


class Message(_Record, Base):
    """A message in a channel: top-level, or a thread reply (``parent_id`` set)."""

    __tablename__ = "messages"

    channel_id: Mapped[str] = mapped_column(ForeignKey("channels.id"), index=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    parent_id: Mapped[str | None] = mapped_column(ForeignKey("messages.id"), nullable=True, default=None, index=True)
    text: Mapped[str] = mapped_column(Text)
    posted_at: Mapped[datetime] = mapped_column(DateTime, index=True)
    edited: Mapped[bool] = mapped_column(Boolean, default=False)
    edited_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True, default=None)


class Reaction(_Record, Base):
    """One user's emoji on one message (a user adds each emoji once per message)."""

    __tablename__ = "reactions"
    __table_args__ = (UniqueConstraint("message_id", "user_id", "emoji"),)

    message_id: Mapped[str] = mapped_column(ForeignKey("messages.id"), index=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    emoji: Mapped[str] = mapped_column(String(40))


class Pin(_Record, Base):
    """A message pinned to its channel (once per message)."""

    __tablename__ = "pins"

    message_id: Mapped[str] = mapped_column(ForeignKey("messages.id"), unique=True)
    channel_id: Mapped[str] = mapped_column(ForeignKey("channels.id"), index=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id"))
    pinned_at: Mapped[datetime] = mapped_column(DateTime)


class DirectMessage(_Record, Base):
    """A direct message from one user (``user_id``) to another of the same workspace (``to_user_id``)."""

    __tablename__ = "direct_messages"

    workspace_id: Mapped[str] = mapped_column(ForeignKey("workspaces.id"), index=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    to_user_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    text: Mapped[str] = mapped_column(Text)
    sent_at: Mapped[datetime] = mapped_column(DateTime)
