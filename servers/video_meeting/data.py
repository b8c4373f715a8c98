"""Deterministic seed data of the video meeting server.

`seed` fills an empty database from a `random.Random` alone: the same seed always gives the same
users, rooms, meetings with their participants, recordings and activity log, and a different
seed gives different ones. Meetings run from a week before today to twelve days after; today
(at the fixed 11:00) some are live, some later today, some over. Every seed has live meetings
with people in the waiting room, live meetings whose room is full, meetings being recorded and
cancelled ones, so the error paths of the tools are reachable.
"""

from __future__ import annotations

import random
from datetime import datetime, time, timedelta

from sqlalchemy.orm import Session

from gym_mcp.servers.kit import NamePool
from gym_mcp.servers.video_meeting.models import (
    NOW_TIME,
    TODAY,
    Meeting,
    MeetingEvent,
    Participant,
    Recording,
    Room,
    User,
)

__all__ = ["FIRST_DAY", "LAST_DAY", "seed"]

FIRST_DAY = TODAY - timedelta(days=7)
LAST_DAY = TODAY + timedelta(days=12)
"""Seeded meetings fall between these days; later days are free in every room."""

FIRST_NAMES = (
    "Ava", "Liam", "Noah", "Emma", "Mia", "Lucas", "Zoe", "Ethan", "Nora", "Omar", "Priya", "Kenji", "Lena",
    "Diego", "Amara", "Felix", "Ines", "Tariq", "Hana", "Marco", "Sara", "Jonas", "Yara", "Leo", "Chloe", "Ravi",
)  # fmt: skip
LAST_NAMES = (
    "Kim", "Patel", "Garcia", "Okafor", "Novak", "Rossi", "Tanaka", "Larsen", "Haddad", "Mensah", "Schmidt",
    "Dubois", "Silva", "Nguyen", "Cohen", "Walsh", "Ibrahim", "Moreau", "Berg", "Costa",
)  # fmt: skip
PEOPLE = NamePool(FIRST_NAMES, LAST_NAMES)
"""The names people of the seed data are drawn from."""
DEPARTMENTS = ("Engineering", "Sales", "Marketing", "Design", "Finance", "People", "Support", "Legal", "Product")
ROOMS = (
    ("Huddle", 3), ("Focus", 4), ("Cedar", 5), ("Maple", 6), ("Birch", 8), ("Aurora", 10), ("Summit", 12),
    ("Harbor", 15), ("Atlas", 20), ("Horizon", 25), ("Town Hall", 50), ("Auditorium", 100),
)  # fmt: skip
TITLES = (
    "Weekly sync", "Sprint planning", "Design review", "Customer call", "Quarterly review", "Standup",
    "Candidate interview", "All hands", "Retrospective", "Roadmap review", "Budget review", "Onboarding",
    "Product demo", "Incident review", "Partner check-in",
)  # fmt: skip
STARTS = tuple(time(h, m) for h in range(9, 17) for m in (0, 30))
LENGTHS = (30, 45, 60, 60, 90)
NOW = datetime.combine(TODAY, NOW_TIME)
LIVE_TODAY = (
    (time(10, 0), 90), (time(10, 30), 60), (time(10, 0), 120), (time(10, 30), 90), (time(9, 30), 120),
    (time(10, 45), 45), (time(10, 0), 75), (time(10, 15), 90), (time(9, 45), 90), (time(10, 30), 45),
    (time(10, 0), 60),
)  # fmt: skip
"""Start and length of the meetings live now (today at 11:00); the first three fill a small room."""


def _users(rng: random.Random) -> list[User]:
    """Sixty users with unique emails."""
    users: list[User] = []
    # Names are single words, no two alike but for case: a new pair is a new address.
    seen: set[tuple[str, str]] = set()
    while len(users) < 60:
        first, last = PEOPLE.draw_new(rng, seen)
        email = f"{first}.{last}@lumen.io".lower()
        users.append(
            User(id=f"USR-{1001 + len(users)}", name=f"{first} {last}", email=email, department=rng.choice(DEPARTMENTS))
        )
    return users


class _Planner:
    """Places meetings in rooms without double booking and builds their participants and log."""

    def __init__(self, rng: random.Random, users: list[User], rooms: list[Room]) -> None:
        self.rng, self.users, self.rooms = rng, users, rooms
        self.booked: dict[str, list[tuple[datetime, datetime]]] = {r.id: [] for r in rooms}
        self.meetings: list[Meeting] = []
        self.participants: list[Participant] = []
        self.recordings: list[Recording] = []
        self.events: list[tuple[datetime, MeetingEvent]] = []

    def free_room(self, start: datetime, end: datetime, rooms: list[Room]) -> Room | None:
        """A room of the list that is free from start to end, if any."""
        free = [r for r in rooms if all(end <= s or e <= start for s, e in self.booked[r.id])]
        return self.rng.choice(free) if free else None

    def log(self, meeting: Meeting, at: datetime, actor: str, action: str, user: str | None = None) -> None:
        """Add an activity-log entry (numbered once every meeting is placed)."""
        event = MeetingEvent(meeting_id=meeting.id, acting_user_id=actor, action=action, user_id=user, at=at)
        self.events.append((at, event))

    def add(self, start: datetime, minutes: int, status: str, room: Room, **options: bool) -> Meeting:
        """One meeting with its participants, recordings and log, consistent with its status."""
        rng = self.rng
        end = start + timedelta(minutes=minutes)
        self.booked[room.id].append((start, end))
        host = rng.choice(self.users[:40])
        meeting = Meeting(
            id=f"MTG-{1001 + len(self.meetings)}",
            title=rng.choice(TITLES),
            host_id=host.id,
            room_id=room.id,
            start=start,
            end=end,
            status=status,
            waiting_room=options.get("waiting_room", rng.random() < 0.6),
        )
        self.meetings.append(meeting)
        full = options.get("full", False)
        most = min(room.capacity - 1, 10 if start.date() == TODAY else 5)
        size = room.capacity - 1 if full else rng.randint(min(3, most), most)
        invitees = rng.sample([u for u in self.users if u.id != host.id], size)
        created = min(start, NOW) - timedelta(days=rng.randint(1, 20), hours=rng.randint(0, 3))
        self.log(meeting, created, host.id, "scheduled")
        started = status in ("live", "ended")
        host_status = {"live": "admitted", "ended": "left"}.get(status, "invited")
        self.participants.append(Participant(meeting_id=meeting.id, user_id=host.id, role="host", status=host_status))
        if status == "cancelled":
            self.log(meeting, created + timedelta(days=rng.randint(0, 1), hours=1), host.id, "cancelled")
        if started:
            self.log(meeting, start, host.id, "started")
        for k, user in enumerate(invitees):
            self.log(meeting, created, host.id, "invited", user.id)
            where = self.attendee_status(meeting, status, full)
            self.participants.append(Participant(meeting_id=meeting.id, user_id=user.id, role="attendee", status=where))
            if where == "invited":
                continue
            joined = start + timedelta(minutes=1 + k % 5)
            self.log(meeting, joined, user.id, "joined", user.id)
            if meeting.waiting_room and where != "waiting":
                self.log(meeting, joined + timedelta(minutes=1), host.id, "admitted", user.id)
            if where == "removed":
                self.log(meeting, joined + timedelta(minutes=9), host.id, "removed", user.id)
        if full and meeting.waiting_room:  # uninvited people knocking at a full room
            taken = {host.id, *(u.id for u in invitees)}
            for k, user in enumerate(rng.sample([u for u in self.users if u.id not in taken], rng.randint(1, 2))):
                self.participants.append(
                    Participant(meeting_id=meeting.id, user_id=user.id, role="attendee", status="waiting")
                )
                self.log(meeting, start + timedelta(minutes=20 + k), user.id, "joined", user.id)
        if started:
            self.record(meeting, host, status)
        if status == "ended":
            self.log(meeting, end, host.id, "ended")
        return meeting

    def attendee_status(self, meeting: Meeting, status: str, full: bool) -> str:
        """Where an invitee is now, given the meeting's status."""
        rng = self.rng
        if status in ("scheduled", "cancelled"):
            return "invited"
        if status == "ended":
            return "left" if rng.random() < 0.8 else "invited"
        if full:
            return "admitted"
        options = ["admitted", "admitted", "invited", "left", "removed"]
        if meeting.waiting_room:
            options += ["waiting", "waiting", "waiting"]
        return rng.choice(options)

    def record(self, meeting: Meeting, host: User, status: str) -> None:
        """Recordings of a started meeting: a completed one sometimes, one in progress in some live ones."""
        rng = self.rng
        parts = []
        if rng.random() < 0.35:
            parts.append("completed")
        if status == "live" and rng.random() < 0.35:
            parts.append("recording")
        for i, state in enumerate(parts):
            at = meeting.start + timedelta(minutes=3 + 10 * i)
            self.recordings.append(
                Recording(
                    id="",
                    meeting_id=meeting.id,
                    started_by=host.id,
                    status=state,
                    recorded_on=meeting.start.date(),
                )
            )
            self.log(meeting, at, host.id, "recording_started")
            if state == "completed":
                self.log(meeting, at + timedelta(minutes=8), host.id, "recording_stopped")


def seed(db: Session, rng: random.Random) -> None:
    """Fill an empty video meeting database deterministically.

    Args:
        db: Session on the freshly created schema.
        rng: The only source of randomness.
    """
    users = _users(rng)
    rooms = [Room(id=f"ROOM-{1001 + i}", name=name, capacity=cap) for i, (name, cap) in enumerate(ROOMS)]
    plan = _Planner(rng, users, rooms)
    today: list[tuple[datetime, int, str, dict[str, bool]]] = []
    # today: live meetings (two of them full, one full without a waiting room), later ones, earlier ones
    for i, (hm, minutes) in enumerate(LIVE_TODAY):
        options = {"full": i < 3, "waiting_room": i != 2} if i < 3 else {"waiting_room": i % 3 != 0}
        today.append((datetime.combine(TODAY, hm), minutes, "live", options))
    for hm in (
        time(12, 30),
        time(13, 0),
        time(13, 30),
        time(14, 0),
        time(14, 30),
        time(15, 0),
        time(15, 30),
        time(16, 0),
    ):
        today.append((datetime.combine(TODAY, hm), rng.choice(LENGTHS), "scheduled", {}))
    today.append((datetime.combine(TODAY, time(9, 0)), 60, "ended", {}))
    small = sorted(rooms, key=lambda r: r.capacity)[:6]
    for start, minutes, status, options in today:
        pool = small[:3] if options.get("full") else rooms
        room = plan.free_room(start, start + timedelta(minutes=minutes), pool)
        if room is not None:
            plan.add(start, minutes, status, room, **options)
    day = FIRST_DAY
    while day <= LAST_DAY:
        if day.weekday() < 5 and day != TODAY:
            for _ in range(rng.randint(1, 3)):
                start = datetime.combine(day, rng.choice(STARTS))
                minutes = rng.choice(LENGTHS)
                room = plan.free_room(start, start + timedelta(minutes=minutes), rooms)
                if room is None:
                    continue
                if start < NOW:
                    status = "ended" if rng.random() < 0.8 else "cancelled"
                else:
                    status = "scheduled" if rng.random() < 0.85 else "cancelled"
                plan.add(start, minutes, status, room)
        day += timedelta(days=1)
    _number(plan)
    for batch in (users, rooms, plan.meetings, plan.participants, plan.recordings, [e for _, e in plan.events]):
        db.add_all(batch)
        db.flush()


def _number(plan: _Planner) -> None:
    """Number meetings, recordings and log entries in time order, so ids follow the calendar."""
    order = sorted(plan.meetings, key=lambda m: (m.start, m.room_id))
    new_ids = {m.id: f"MTG-{1001 + i}" for i, m in enumerate(order)}
    for meeting in plan.meetings:
        meeting.id = new_ids[meeting.id]
    plan.meetings.sort(key=lambda m: m.id)
    rows: list[Participant | Recording | MeetingEvent] = [*plan.participants, *plan.recordings]
    rows.extend(e for _, e in plan.events)
    for row in rows:
        row.meeting_id = new_ids[row.meeting_id]
    plan.recordings.sort(key=lambda r: (r.recorded_on, r.meeting_id, r.status))
    for i, recording in enumerate(plan.recordings):
        recording.id = f"REC-{1001 + i}"
    plan.events.sort(key=lambda e: (e[0], e[1].meeting_id, e[1].action, e[1].user_id or ""))
    for i, (_, event) in enumerate(plan.events):
        event.id = f"LOG-{1001 + i}"
