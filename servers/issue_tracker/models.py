"""Data model of the issue tracker: users, projects, issues, sprints, comments, labels, links, watchers.

Ids are stable, human-readable strings: users ``USR-1001``, projects a short key (``WEB``),
issues the project key and a number (``WEB-12``), sprints ``SPR-1001``, comments ``CMT-1001``
and links ``LNK-1001``. New ids take the next number after the largest in use, so replaying the
same calls yields the same ids.

Every issue type follows its own workflow (`WORKFLOWS`): the statuses an issue may move to from
each status. Story points are estimates on the Fibonacci scale (`POINT_SCALE`).
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Date, ForeignKey, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from gym_mcp.servers.kit import string_id, volatile_timestamp

__all__ = [
    "ISSUE_TYPES",
    "POINT_SCALE",
    "PRIORITIES",
    "SPRINT_STATUSES",
    "STATUSES",
    "TODAY",
    "WORKFLOWS",
    "Base",
    "Comment",
    "Issue",
    "IssueLabel",
    "Link",
    "Project",
    "ProjectMember",
    "Sprint",
    "User",
    "Watcher",
]

TODAY = date(2026, 2, 9)
"""The server's fixed reference date (the kit's ``today``): a Monday in the middle of a sprint."""

ISSUE_TYPES = ("bug", "story", "task", "epic")
STATUSES = ("open", "in_progress", "in_review", "done")
PRIORITIES = ("low", "medium", "high", "critical")
SPRINT_STATUSES = ("planned", "active", "closed")
POINT_SCALE = (1, 2, 3, 5, 8, 13, 21)
"""The story point values an estimate may take."""

WORKFLOWS: dict[str, dict[str, tuple[str, ...]]] = {
    "bug": {
        "open": ("in_progress",),
        "in_progress": ("in_review", "open"),
        "in_review": ("done", "in_progress"),
        "done": ("open",),
    },
    "story": {
        "open": ("in_progress",),
        "in_progress": ("in_review", "open"),
        "in_review": ("done", "in_progress"),
        "done": ("in_progress",),
    },
    "task": {
        "open": ("in_progress", "done"),
        "in_progress": ("in_review", "done", "open"),
        "in_review": ("done", "in_progress"),
        "done": ("open",),
    },
    "epic": {
        "open": ("in_progress",),
        "in_progress": ("done", "open"),
        "done": ("in_progress",),
    },
}
"""Issue type -> status -> the statuses it may move to next (bugs and stories need review; tasks may skip it)."""


class Base(DeclarativeBase):
    """Declarative base of the issue tracker tables."""


class User(Base):
    """Someone with an account on the tracker."""

    __tablename__ = "users"

    id: Mapped[str] = string_id()
    name: Mapped[str] = mapped_column(String(80))
    email: Mapped[str] = mapped_column(String(120), unique=True)
    title: Mapped[str] = mapped_column(String(60))
    created_at: Mapped[datetime] = volatile_timestamp()


class Project(Base):
    """A project: a key that prefixes its issues (``WEB``), a lead and its members."""

    __tablename__ = "projects"

    key: Mapped[str] = mapped_column(String(10), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    description: Mapped[str] = mapped_column(String(300))
    lead_id: Mapped[str] = mapped_column(ForeignKey("users.id"))
    next_number: Mapped[int] = mapped_column(Integer, default=1)
    """Number of the project's next issue (numbers of deleted issues are not reused)."""
    created_at: Mapped[datetime] = volatile_timestamp()


class ProjectMember(Base):
    """A user's membership of a project (only members can be assigned issues or comment)."""

    __tablename__ = "project_members"

    project_key: Mapped[str] = mapped_column(ForeignKey("projects.key"), primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id"), primary_key=True)
    role: Mapped[str] = mapped_column(String(20), default="developer")


class Sprint(Base):
    """A time box of a project: planned, then active (one per project at a time), then closed."""

    __tablename__ = "sprints"

    id: Mapped[str] = string_id()
    project_key: Mapped[str] = mapped_column(ForeignKey("projects.key"), index=True)
    name: Mapped[str] = mapped_column(String(60))
    goal: Mapped[str] = mapped_column(String(200), default="")
    status: Mapped[str] = mapped_column(String(16), default="planned")
    capacity_points: Mapped[int] = mapped_column(Integer)
    start_date: Mapped[date] = mapped_column(Date)
    end_date: Mapped[date] = mapped_column(Date)
    completed_points: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
    created_at: Mapped[datetime] = volatile_timestamp()


class Issue(Base):
    """A bug, story, task or epic of a project; ``sprint_id`` None means it is in the backlog."""

    __tablename__ = "issues"

    id: Mapped[str] = string_id()
    project_key: Mapped[str] = mapped_column(ForeignKey("projects.key"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    type: Mapped[str] = mapped_column(String(10))
    title: Mapped[str] = mapped_column(String(120))
    description: Mapped[str] = mapped_column(Text, default="")
    status: Mapped[str] = mapped_column(String(16), default="open")
    priority: Mapped[str] = mapped_column(String(10), default="medium")
    assignee_id: Mapped[str | None] = mapped_column(ForeignKey("users.id"), nullable=True, default=None)
    reporter_id: Mapped[str] = mapped_column(ForeignKey("users.id"))
    story_points: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
    epic_id: Mapped[str | None] = mapped_column(ForeignKey("issues.id"), nullable=True, default=None)
    sprint_id: Mapped[str | None] = mapped_column(ForeignKey("sprints.id"), nullable=True, default=None, index=True)
    created_on: Mapped[date] = mapped_column(Date)
    updated_on: Mapped[date] = mapped_column(Date)
    resolved_on: Mapped[date | None] = mapped_column(Date, nullable=True, default=None)
    created_at: Mapped[datetime] = volatile_timestamp()


class Comment(Base):
    """A comment on an issue."""

    __tablename__ = "comments"

    id: Mapped[str] = string_id()
    issue_id: Mapped[str] = mapped_column(ForeignKey("issues.id"), index=True)
    author_id: Mapped[str] = mapped_column(ForeignKey("users.id"))
    body: Mapped[str] = mapped_column(Text)
    posted_on: Mapped[date] = mapped_column(Date)
    created_at: Mapped[datetime] = volatile_timestamp()


class IssueLabel(Base):
    """A label on an issue (lower case, e.g. ``"frontend"``)."""

    __tablename__ = "issue_labels"

    issue_id: Mapped[str] = mapped_column(ForeignKey("issues.id"), primary_key=True)
    label: Mapped[str] = mapped_column(String(30), primary_key=True)


class Link(Base):
    """A dependency: ``blocker_id`` blocks ``blocked_id`` (which is blocked by it)."""

    __tablename__ = "links"

    id: Mapped[str] = string_id()
    blocker_id: Mapped[str] = mapped_column(ForeignKey("issues.id"), index=True)
    blocked_id: Mapped[str] = mapped_column(ForeignKey("issues.id"), index=True)
    created_at: Mapped[datetime] = volatile_timestamp()


class Watcher(Base):
    """A user who follows an issue's changes."""

    __tablename__ = "watchers"

    issue_id: Mapped[str] = mapped_column(ForeignKey("issues.id"), primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id"), primary_key=True)
