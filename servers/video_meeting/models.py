"""Data model of the video meeting server: users, rooms, meetings, participants, recordings and the activity log.

A meeting is booked in a virtual room whose capacity caps how many people can be in it at once.
It is scheduled, then started by its host (live), then ended; or cancelled before it starts.
Participants are invited, wait in the waiting room, are admitted by the host, leave, or are
removed. Recordings are made of live meetings only. The clock is fixed: it is always
`TODAY` at `NOW_TIME`. Ids are stable, human-readable strings (``USR-1001``, ``ROOM-1001``,
``MTG-1001``, ``REC-1001``, ``LOG-1001``); new ones take the next number after the largest in
the table, so replaying the same calls yields the same ids.
"""

from __future__ import annotations

from datetime import date, datetime, time

from sqlalchemy import Boolean, Date, DateTime, ForeignKey, Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from gym_mcp.servers.kit import string_id, volatile_timestamp

__all__ = [
    "MEETING_STATUSES",
    "NOW_TIME",
    "PARTICIPANT_STATUSES",
    "TODAY",
    "Base",
    "Meeting",
    "MeetingEvent",
    "Participant",
    "Recording",
    "Room",
    "User",
]

TODAY = date(2026, 1, 15)
"""The server's fixed reference date (the kit's ``today``)."""

NOW_TIME = time(11, 0)
"""The server's fixed time of day: "now" is always today at 11:00."""

MEETING_STATUSES = ("scheduled", "live", "ended", "cancelled")
PARTICIPANT_STATUSES = ("invited", "waiting", "admitted", "left", "removed")


class Base(DeclarativeBase):
    """Declarative base of the video meeting tables."""


class User(Base):
    """A person with an account."""

    __tablename__ = "users"

    id: Mapped[str] = string_id()
    name: Mapped[str] = mapped_column(String(80))
    email: Mapped[str] = mapped_column(String(120), unique=True)
    department: Mapped[str] = mapped_column(String(40))


class Room(Base):
    """A virtual meeting room; its capacity caps the people admitted at once."""

    __tablename__ = "rooms"

    id: Mapped[str] = string_id()
    name: Mapped[str] = mapped_column(String(60))
    capacity: Mapped[int] = mapped_column(Integer)


class Meeting(Base):
    """A meeting booked in a room from start to end, hosted by one user."""

    __tablename__ = "meetings"

    id: Mapped[str] = string_id()
    title: Mapped[str] = mapped_column(String(120))
    host_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id"), index=True)
    start: Mapped[datetime] = mapped_column(DateTime)
    end: Mapped[datetime] = mapped_column(DateTime)
    status: Mapped[str] = mapped_column(String(12))
    waiting_room: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime] = volatile_timestamp()


class Participant(Base):
    """A user's place in a meeting: host or attendee, and where they are now."""

    __tablename__ = "participants"

    meeting_id: Mapped[str] = mapped_column(ForeignKey("meetings.id"), primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id"), primary_key=True, index=True)
    role: Mapped[str] = mapped_column(String(10))
    status: Mapped[str] = mapped_column(String(10))


class Recording(Base):
    """A recording of a live meeting: in progress until stopped, then completed."""

    __tablename__ = "recordings"

    id: Mapped[str] = string_id()
    meeting_id: Mapped[str] = mapped_column(ForeignKey("meetings.id"), index=True)
    started_by: Mapped[str] = mapped_column(ForeignKey("users.id"))
    status: Mapped[str] = mapped_column(String(12))
    recorded_on: Mapped[date] = mapped_column(Date)


class MeetingEvent(Base):
    """One entry of a meeting's activity log: who did what, to whom, when."""

    __tablename__ = "meeting_events"

    id: Mapped[str] = string_id()
    meeting_id: Mapped[str] = mapped_column(ForeignKey("meetings.id"), index=True)
    acting_user_id: Mapped[str] = mapped_column(ForeignKey("users.id"))
    action: Mapped[str] = mapped_column(String(24))
    user_id: Mapped[str | None] = mapped_column(ForeignKey("users.id"), nullable=True, default=None)
    at: Mapped[datetime] = mapped_column(DateTime)
