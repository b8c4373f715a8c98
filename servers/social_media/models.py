"""Data model of the social media server: users, posts, comments, likes, follows, blocks, messages, reports.

Times come from the server's fixed clock (`NOW`, noon on the kit's today), never the wall clock,
so the edit window and every new row's time replay identically. Ids are stable, human-readable
strings (``USR-1001``, ``PST-1001``, ``CMT-1001``, ``LIK-1001``, ``FOL-1001``, ``BLK-1001``,
``MSG-1001``, ``RPT-1001``); new ones take the next number after the largest in the table.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from sqlalchemy import Boolean, Date, DateTime, ForeignKey, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from gym_mcp.servers.kit import string_id

__all__ = [
    "CLOCK",
    "EDIT_WINDOW",
    "NOW",
    "REPORT_ACTIONS",
    "REPORT_REASONS",
    "REPORT_STATUSES",
    "TODAY",
    "Base",
    "Block",
    "Comment",
    "Follow",
    "Like",
    "Message",
    "Post",
    "Report",
    "User",
]

TODAY = date(2026, 1, 15)
"""The server's fixed reference date (the kit's ``today``)."""

CLOCK = time(12, 0)
"""The server's fixed time of day: "now" is this time on the kit's today."""

NOW = datetime.combine(TODAY, CLOCK)
"""The fixed "now" of the seed data: noon on `TODAY` (tools take it from the kit, see ``tools.common.now``)."""

EDIT_WINDOW = timedelta(hours=24)
"""A post can be edited by its author until this long after it was posted."""

REPORT_REASONS = ("spam", "harassment", "hate_speech", "misinformation", "violence", "impersonation", "nudity")
REPORT_STATUSES = ("open", "resolved", "dismissed")
REPORT_ACTIONS = ("remove_post", "warn_author", "dismiss")


class Base(DeclarativeBase):
    """Declarative base of the social media tables."""


class User(Base):
    """A profile: a private one shows its posts only to its accepted followers."""

    __tablename__ = "users"

    id: Mapped[str] = string_id()
    handle: Mapped[str] = mapped_column(String(30), unique=True)
    display_name: Mapped[str] = mapped_column(String(60))
    bio: Mapped[str] = mapped_column(String(160), default="")
    is_private: Mapped[bool] = mapped_column(Boolean, default=False)
    joined_on: Mapped[date] = mapped_column(Date)


class Post(Base):
    """A post; its author can edit it within `EDIT_WINDOW` of posting."""

    __tablename__ = "posts"

    id: Mapped[str] = string_id()
    author_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    text: Mapped[str] = mapped_column(String(280))
    posted_at: Mapped[datetime] = mapped_column(DateTime)
    edited_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True, default=None)


class Comment(Base):
    """A comment on a post (deleted with the post)."""

    __tablename__ = "comments"

    id: Mapped[str] = string_id()
    post_id: Mapped[str] = mapped_column(ForeignKey("posts.id"), index=True)
    author_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    text: Mapped[str] = mapped_column(String(280))
    commented_at: Mapped[datetime] = mapped_column(DateTime)


class Like(Base):
    """One user's like of a post (at most one per user and post)."""

    __tablename__ = "likes"

    id: Mapped[str] = string_id()
    post_id: Mapped[str] = mapped_column(ForeignKey("posts.id"), index=True)
    liker_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    liked_at: Mapped[datetime] = mapped_column(DateTime)


class Follow(Base):
    """One user following another: "accepted", or "pending" until a private profile's owner answers."""

    __tablename__ = "follows"

    id: Mapped[str] = string_id()
    follower_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    followee_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    status: Mapped[str] = mapped_column(String(10))
    requested_at: Mapped[datetime] = mapped_column(DateTime)


class Block(Base):
    """One user blocking another: the blocked user cannot see, comment on, like or message the blocker."""

    __tablename__ = "blocks"

    id: Mapped[str] = string_id()
    blocker_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    blocked_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    blocked_at: Mapped[datetime] = mapped_column(DateTime)


class Message(Base):
    """A direct message from one user to another."""

    __tablename__ = "messages"

    id: Mapped[str] = string_id()
    sender_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    recipient_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    text: Mapped[str] = mapped_column(String(1000))
    sent_at: Mapped[datetime] = mapped_column(DateTime)


class Report(Base):
    """A moderation report on a post; it keeps the post's id after the post is removed."""

    __tablename__ = "reports"

    id: Mapped[str] = string_id()
    post_id: Mapped[str] = mapped_column(String(16), index=True)
    reporter_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    reason: Mapped[str] = mapped_column(String(20))
    details: Mapped[str] = mapped_column(String(300), default="")
    status: Mapped[str] = mapped_column(String(10))
    filed_at: Mapped[datetime] = mapped_column(DateTime)
    resolution: Mapped[str | None] = mapped_column(String(200), nullable=True, default=None)
