"""Deterministic seed data of the calendar server.

`seed` builds an organisation of 40 people and 12 rooms, then about 120 meetings on the working
days from two weeks before `TODAY` to four weeks after it, with about 300 invitations in mixed
states. Everything is drawn from the given `random.Random`, so one seed always gives the same
database. The data respects the server's own rules: nobody is busy twice at once (organiser or
accepted invitee of overlapping confirmed events), no room is double-booked and no room holds
more people than its capacity.
"""

from __future__ import annotations

import random
from datetime import date, datetime, time, timedelta

from sqlalchemy.orm import Session

from gym_mcp.servers.calendar.models import Event, Invitation, Person, Room

__all__ = ["TODAY", "seed"]

TODAY = date(2026, 1, 15)
"""The server's fixed reference date (a Thursday); the kit's ``today``."""

_FIRST_NAMES = [
    "Olivia", "Liam", "Emma", "Noah", "Ava", "Mateo", "Sophia", "Lucas", "Isabella", "Ethan",
    "Mia", "Aarav", "Amelia", "Hiroshi", "Harper", "Kwame", "Evelyn", "Diego", "Abigail", "Omar",
    "Priya", "Jonas", "Chloe", "Rafael", "Zara", "Mikhail", "Grace", "Tomasz", "Leila", "Samuel",
    "Ingrid", "Chen", "Nadia", "Felix", "Aisha", "Marco", "Yuki", "Daniel", "Fatima", "Oscar",
    "Elena", "Kofi", "Sara", "Arjun", "Lucia", "Benjamin", "Maya", "Ibrahim",
]  # fmt: skip
_LAST_NAMES = [
    "Smith", "Garcia", "Nguyen", "Okafor", "Müller", "Rossi", "Kowalski", "Tanaka", "Patel", "Johansson",
    "Haddad", "Silva", "Kim", "O'Brien", "Dubois", "Novak", "Mensah", "Fernandez", "Larsen", "Cohen",
    "Ivanova", "Santos", "Schmidt", "Ahmed", "Walker", "Moreau", "Rahman", "Bianchi", "Yilmaz", "Lindqvist",
    "Chowdhury", "Petrov", "Reyes", "Andersen", "Osei", "Sato", "Murphy", "Costa", "Weber", "Hughes",
    "Kaur", "Alvarez", "Fischer", "Brennan", "Mwangi", "Park",
]  # fmt: skip
_DEPARTMENTS = [
    "Engineering",
    "Product",
    "Design",
    "Sales",
    "Marketing",
    "Finance",
    "People",
    "Legal",
    "Support",
]
_WORKING_HOURS = [("09:00", "17:00"), ("08:00", "16:00"), ("10:00", "18:00"), ("08:30", "16:30")]
_WORKING_HOURS_WEIGHTS = [70, 12, 12, 6]

_ROOM_NAMES = [
    "Aurora", "Baltic", "Cedar", "Dune", "Everest", "Fjord",
    "Glacier", "Harbor", "Iris", "Juniper", "Kilimanjaro", "Lagoon",
]  # fmt: skip
_ROOM_CAPACITIES = [4, 4, 6, 6, 8, 8, 10, 12, 12, 16, 20, 30]
_ROOM_FEATURES = ["video", "whiteboard", "projector", "phone"]

_PROJECTS = [
    "Atlas",
    "Beacon",
    "Horizon",
    "Phoenix",
    "Nimbus",
    "Orion",
    "Summit",
    "Falcon",
    "Mercury",
    "Cascade",
]
_CUSTOMERS = ["Acme Corp", "Globex", "Initech", "Umbrella Health", "Stark Logistics", "Wayne Retail", "Hooli"]
_ROLES = ["Backend Engineer", "Product Designer", "Account Executive", "Data Analyst", "Support Lead"]
_TOPICS = ["Intro to SQL", "Negotiation basics", "Accessibility", "Writing good RFCs", "Time management"]
_TEMPLATES = [
    ("{project} sync", "Weekly status: progress, risks, next steps."),
    ("{project} design review", "Walk through the current design and collect feedback."),
    ("{project} kickoff", "Goals, scope, owners and timeline."),
    ("{project} retrospective", "What went well, what did not, what we change."),
    ("Sprint planning", "Pick and size the stories for the next sprint."),
    ("{department} team meeting", "Team updates and announcements."),
    ("Quarterly business review", "Q1 numbers, targets and forecast."),
    ("Budget review", "Review spend against the Q1 budget."),
    ("Customer call: {customer}", "Account check-in with {customer}."),
    ("Hiring debrief: {role}", "Share interview feedback and decide."),
    ("Interview: {role} candidate", "Structured interview, 45 minutes plus questions."),
    ("Lunch & learn: {topic}", "Informal session, everyone welcome."),
    ("Roadmap planning", "Prioritise the roadmap for next quarter."),
    ("Incident postmortem", "Timeline, root cause and follow-up actions."),
]
_CANCEL_REASONS = ["Organizer unavailable.", "Superseded by another meeting.", "No longer needed."]
_DURATIONS = [30, 30, 45, 60, 60, 60, 90, 120]
_PAST_RESPONSES = (["accepted", "declined", "tentative", "pending"], [60, 15, 10, 15])
_FUTURE_RESPONSES = (["pending", "accepted", "declined", "tentative"], [35, 40, 12, 13])

Span = tuple[datetime, datetime]


def _hm(value: str) -> time:
    """Parse an ``"HH:MM"`` string."""
    return time.fromisoformat(value)


def _overlaps(spans: list[Span], start: datetime, end: datetime) -> bool:
    """Whether [start, end) overlaps any of the spans."""
    return any(s < end and start < e for s, e in spans)


def seed(db: Session, rng: random.Random) -> None:
    """Fill an empty calendar database deterministically.

    Args:
        db: Session on the empty database (the caller commits).
        rng: The only source of randomness; same state in, same data out.
    """
    people = _seed_people(db, rng)
    rooms = _seed_rooms(db, rng)
    _seed_events(db, rng, people, rooms)


def _seed_people(db: Session, rng: random.Random) -> list[Person]:
    """Create 40 people with unique names and emails."""
    firsts = rng.sample(_FIRST_NAMES, 40)
    lasts = rng.sample(_LAST_NAMES, 40)
    people = []
    for i, (first, last) in enumerate(zip(firsts, lasts, strict=True)):
        local = f"{first}.{last}".lower().replace("'", "").replace("ü", "u")
        work_start, work_end = rng.choices(_WORKING_HOURS, weights=_WORKING_HOURS_WEIGHTS)[0]
        person = Person(
            id=f"PER-{1001 + i}",
            name=f"{first} {last}",
            email=f"{local}@northwind.example",
            department=rng.choice(_DEPARTMENTS),
            work_start=work_start,
            work_end=work_end,
        )
        people.append(person)
        db.add(person)
    return people


def _seed_rooms(db: Session, rng: random.Random) -> list[Room]:
    """Create 12 rooms on three floors (ROOM-101..104, 201..204, 301..304)."""
    names = rng.sample(_ROOM_NAMES, len(_ROOM_NAMES))
    capacities = rng.sample(_ROOM_CAPACITIES, len(_ROOM_CAPACITIES))
    rooms = []
    for i, (name, capacity) in enumerate(zip(names, capacities, strict=True)):
        floor = i // 4 + 1
        features = [f for f in _ROOM_FEATURES if rng.random() < 0.5]
        if capacity >= 12 and "video" not in features:
            features.insert(0, "video")
        room = Room(
            id=f"ROOM-{floor}{i % 4 + 1:02d}",
            name=name,
            floor=floor,
            capacity=capacity,
            features=",".join(features),
        )
        rooms.append(room)
        db.add(room)
    return rooms


def _title(rng: random.Random, organizer: Person) -> tuple[str, str]:
    """A realistic meeting title and description."""
    template, description = rng.choice(_TEMPLATES)
    values = {
        "project": rng.choice(_PROJECTS),
        "customer": rng.choice(_CUSTOMERS),
        "role": rng.choice(_ROLES),
        "topic": rng.choice(_TOPICS),
        "department": organizer.department,
    }
    return template.format(**values), description.format(**values)


def _seed_events(db: Session, rng: random.Random, people: list[Person], rooms: list[Room]) -> None:
    """Create meetings and invitations that respect the double-booking and capacity rules."""
    busy: dict[str, list[Span]] = {p.id: [] for p in people}
    room_busy: dict[str, list[Span]] = {r.id: [] for r in rooms}
    planned: list[tuple[Event, list[tuple[Person, str]]]] = []
    day = TODAY - timedelta(days=14)
    last = TODAY + timedelta(days=27)
    while day <= last:
        if day.weekday() < 5:
            past = day < TODAY
            count = rng.randint(2, 4) if past else rng.randint(3, 6)
            for _ in range(count):
                planned_event = _plan_event(rng, day, past, people, rooms, busy, room_busy)
                if planned_event is not None:
                    planned.append(planned_event)
        day += timedelta(days=1)

    planned.sort(key=lambda item: (item[0].start, item[0].end))
    invitation_number = 1001
    for number, (event, invitees) in enumerate(planned, start=1001):
        event.id = f"EVT-{number}"
        db.add(event)
        for person, response in invitees:
            db.add(Invitation(id=f"INV-{invitation_number}", event_id=event.id, person_id=person.id, response=response))
            invitation_number += 1


def _plan_event(
    rng: random.Random,
    day: date,
    past: bool,
    people: list[Person],
    rooms: list[Room],
    busy: dict[str, list[Span]],
    room_busy: dict[str, list[Span]],
) -> tuple[Event, list[tuple[Person, str]]] | None:
    """Draw one meeting on `day`, or None when the organiser has no free time for it."""
    organizer = rng.choice(people)
    duration = timedelta(minutes=rng.choice(_DURATIONS))
    day_start = datetime.combine(day, _hm(organizer.work_start))
    day_end = datetime.combine(day, _hm(organizer.work_end))
    slots = int((day_end - duration - day_start) / timedelta(minutes=30)) + 1
    cancelled = rng.random() < 0.08
    for _ in range(8):
        start = day_start + timedelta(minutes=30 * rng.randrange(slots))
        end = start + duration
        if cancelled or not _overlaps(busy[organizer.id], start, end):
            break
    else:
        return None

    title, description = _title(rng, organizer)
    size = rng.choices([1, 2, 3, 4, 5, 6, 9], weights=[30, 28, 18, 11, 6, 4, 3])[0]
    others = [p for p in people if p.id != organizer.id]
    names, weights = _PAST_RESPONSES if past else _FUTURE_RESPONSES
    invitees: list[tuple[Person, str]] = []
    for person in rng.sample(others, size):
        response = rng.choices(names, weights=weights)[0]
        if response == "accepted" and not cancelled and _overlaps(busy[person.id], start, end):
            response = rng.choice(["declined", "tentative"])
        invitees.append((person, response))
    if size == 1 and rng.random() < 0.5:
        title = f"1:1 {organizer.name.split()[0]} / {invitees[0][0].name.split()[0]}"
        description = "Regular one-on-one."

    room_id = None
    headcount = 1 + sum(1 for _, r in invitees if r != "declined")
    if rng.random() < 0.85:
        fitting = [
            r for r in rooms if r.capacity >= headcount and (cancelled or not _overlaps(room_busy[r.id], start, end))
        ]
        fitting.sort(key=lambda r: (r.capacity, r.id))
        if fitting:
            room = rng.choice(fitting[:3])
            room_id = room.id
            if not cancelled:
                room_busy[room.id].append((start, end))

    if not cancelled:
        busy[organizer.id].append((start, end))
        for person, response in invitees:
            if response == "accepted":
                busy[person.id].append((start, end))

    event = Event(
        title=title,
        description=description,
        start=start,
        end=end,
        organizer_id=organizer.id,
        room_id=room_id,
        status="cancelled" if cancelled else "confirmed",
        cancel_reason=rng.choice(_CANCEL_REASONS) if cancelled else "",
    )
    return event, invitees
