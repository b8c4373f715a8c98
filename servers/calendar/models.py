"""Data model of the calendar server: people, rooms, events and invitations.

Ids are stable, human-readable strings (``PER-1001``, ``ROOM-101``, ``EVT-1001``, ``INV-1001``).
Times are naive (timezone-free) local datetimes; working hours are ``"HH:MM"`` strings.

Who is *busy* when: a person is busy during every confirmed event they organise and every
confirmed event whose invitation they accepted. A room is busy during every confirmed event
booked in it. Cancelled events keep their data but block nothing.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from gym_mcp.servers.kit import string_id, volatile_timestamp

__all__ = [
    "EVENT_STATUSES",
    "RESPONSES",
    "Base",
    "Event",
    "Invitation",
    "Person",
    "Room",
]

RESPONSES = ("pending", "accepted", "declined", "tentative")
"""Possible answers to an invitation (``pending`` until the invitee responds)."""

EVENT_STATUSES = ("confirmed", "cancelled")
"""Possible event statuses."""


class Base(DeclarativeBase):
    """Declarative base of the calendar tables."""


class Person(Base):
    """Someone in the organisation, with timezone-free daily working hours (Monday-Friday)."""

    __tablename__ = "people"

    id: Mapped[str] = string_id()
    name: Mapped[str] = mapped_column(String(100))
    email: Mapped[str] = mapped_column(String(200), unique=True)
    department: Mapped[str] = mapped_column(String(50))
    work_start: Mapped[str] = mapped_column(String(5), default="09:00")
    work_end: Mapped[str] = mapped_column(String(5), default="17:00")


class Room(Base):
    """A bookable meeting room."""

    __tablename__ = "rooms"

    id: Mapped[str] = string_id()
    name: Mapped[str] = mapped_column(String(100), unique=True)
    floor: Mapped[int] = mapped_column(Integer)
    capacity: Mapped[int] = mapped_column(Integer)
    features: Mapped[str] = mapped_column(String(200), default="")


class Event(Base):
    """A meeting: organiser, time span, optional room, and its invitations."""

    __tablename__ = "events"

    id: Mapped[str] = string_id()
    title: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text, default="")
    start: Mapped[datetime] = mapped_column(DateTime, index=True)
    end: Mapped[datetime] = mapped_column(DateTime)
    organizer_id: Mapped[str] = mapped_column(ForeignKey("people.id"), index=True)
    room_id: Mapped[str | None] = mapped_column(ForeignKey("rooms.id"), nullable=True, index=True)
    status: Mapped[str] = mapped_column(String(16), default="confirmed")
    cancel_reason: Mapped[str] = mapped_column(String(500), default="")
    created_at: Mapped[datetime] = volatile_timestamp()

    organizer: Mapped[Person] = relationship()
    room: Mapped[Room | None] = relationship()
    invitations: Mapped[list[Invitation]] = relationship(
        back_populates="event", order_by="Invitation.id", cascade="all, delete-orphan"
    )


class Invitation(Base):
    """One invitee of one event and their response."""

    __tablename__ = "invitations"
    __table_args__ = (UniqueConstraint("event_id", "person_id", name="uq_invitation_event_person"),)

    id: Mapped[str] = string_id()
    event_id: Mapped[str] = mapped_column(ForeignKey("events.id"), index=True)
    person_id: Mapped[str] = mapped_column(ForeignKey("people.id"), index=True)
    response: Mapped[str] = mapped_column(String(16), default="pending")

    event: Mapped[Event] = relationship(back_populates="invitations")
    person: Mapped[Person] = relationship()
