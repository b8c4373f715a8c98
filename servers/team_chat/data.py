"""Deterministic seed data of the team chat server.

`seed` fills an empty database from a `random.Random` alone: the same seed always gives the same
workspaces, people, channels, conversations, reactions, pins and direct messages, and a different
seed gives different ones. Every seed has private and archived channels, threads, pinned messages
and deactivated users, so the error paths of the tools are reachable.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from gym_mcp.servers.kit import NamePool, unique_name
from gym_mcp.servers.team_chat.models import (
    NOW,
    TODAY,
    Channel,
    DirectMessage,
    Membership,
    Message,
    Pin,
    Reaction,
    User,
    Workspace,
)

__all__ = ["EMOJIS", "seed"]

WORKSPACES = (("Northwind Labs", "northwind-labs", 26), ("Bluebird Studio", "bluebird-studio", 18))
"""(name, domain, number of users) of each workspace."""

FIRST_NAMES = (
    "Olivia", "Liam", "Emma", "Noah", "Ava", "Elijah", "Sophia", "James", "Isabella", "Lucas", "Mia", "Mateo",
    "Amelia", "Ethan", "Harper", "Benjamin", "Evelyn", "Daniel", "Abigail", "Henry", "Emily", "Jackson", "Ella",
    "Samuel", "Scarlett", "Sebastian", "Grace", "David", "Chloe", "Joseph", "Priya", "Arjun", "Mei", "Wei",
    "Fatima", "Omar", "Sofia", "Diego", "Aisha", "Kwame", "Hana", "Kenji", "Ingrid", "Lars", "Camila", "Rafael",
    "Zoe", "Gabriel", "Nora", "Leo",
)  # fmt: skip
LAST_NAMES = (
    "Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez",
    "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin", "Lee",
    "Perez", "Thompson", "White", "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson", "Walker", "Young",
    "Allen", "King", "Wright", "Scott", "Nguyen", "Patel", "Kim", "Chen", "Okafor", "Mensah", "Nakamura", "Larsen",
    "Novak", "Rossi", "Schmidt", "Dubois",
)  # fmt: skip
PEOPLE = NamePool(FIRST_NAMES, LAST_NAMES)
"""The names people of the seed data are drawn from."""
TITLES = (
    "Software Engineer", "Senior Software Engineer", "Product Manager", "Product Designer", "Data Scientist",
    "Engineering Manager", "Marketing Lead", "Account Executive", "Support Specialist", "Recruiter",
    "QA Engineer", "DevOps Engineer", "Content Strategist", "Finance Analyst", "Head of Operations",
)  # fmt: skip
STATUSES = (
    ("In a meeting", "calendar"),
    ("Out sick", "face_with_thermometer"),
    ("On vacation", "palm_tree"),
    ("Commuting", "bus"),
    ("Focusing", "headphones"),
    ("Working remotely", "house"),
    ("Lunch", "sandwich"),
)
EMOJIS = ("thumbsup", "tada", "eyes", "heart", "white_check_mark", "joy", "rocket", "pray", "100", "fire")
"""Emoji names the seed reacts with (names without colons, as the tools store them)."""


@dataclass(frozen=True)
class _ChannelPlan:
    """A channel the seed creates in a workspace, with what its people talk about."""

    name: str
    topic: str
    private: bool = False
    archived: bool = False
    everyone: bool = False
    lines: tuple[str, ...] = field(default=())


GENERAL_LINES = (
    "Good morning everyone! Coffee machine on the 3rd floor is fixed.",
    "Reminder: all-hands is Thursday at 4pm, questions in the doc please.",
    "Welcome to the team, glad to have you here!",
    "The office will close early on Friday for the building maintenance.",
    "Has anyone seen the charger I left in the big meeting room?",
    "Thanks all for a great quarter, really proud of this team.",
    "Please fill in the engagement survey by end of week.",
    "Heads up: the Wi-Fi password changes on Monday.",
)
REPLY_LINES = (
    "Thanks for the heads up!",
    "Agreed, let's do that.",
    "I can take a look this afternoon.",
    "Good point, adding it to the agenda.",
    "Done, let me know if anything else is needed.",
    "+1 from me.",
    "Can we sync on this tomorrow?",
    "Looks good to me.",
    "I'll follow up with the details.",
    "Nice work!",
)
CHANNELS = (
    _ChannelPlan("general", "Company-wide announcements and chatter", everyone=True, lines=GENERAL_LINES),
    _ChannelPlan(
        "random",
        "Non-work banter and water-cooler talk",
        everyone=True,
        lines=(
            "Who's up for lunch at the new ramen place?",
            "Photo of my dog wearing a raincoat, you're welcome.",
            "Any podcast recommendations for a long drive?",
            "The cake in the kitchen is free for all, happy birthday Mia!",
            "Board game night next Wednesday, who's in?",
        ),
    ),
    _ChannelPlan(
        "engineering",
        "Engineering discussion, code reviews and deploys",
        lines=(
            "Deploy of the billing service is done, monitoring dashboards look green.",
            "Can someone review my pull request for the login refactor?",
            "The staging database will be down for maintenance at 6pm.",
            "We're upgrading to Python 3.12 next sprint, please check your services.",
            "Flaky test in the payments suite again, investigating.",
            "Reminder to rotate your API keys before the end of the month.",
        ),
    ),
    _ChannelPlan(
        "design",
        "Design critiques, mockups and the design system",
        lines=(
            "New onboarding mockups are in Figma, feedback welcome.",
            "We're updating the button styles in the design system this week.",
            "Design critique moved to Tuesday at 2pm.",
            "Does anyone have the latest brand color palette?",
        ),
    ),
    _ChannelPlan(
        "marketing",
        "Campaigns, launches and the content calendar",
        lines=(
            "The spring campaign brief is ready for review.",
            "Newsletter goes out Tuesday, last call for content.",
            "Webinar signups passed 400, great job everyone!",
            "Can someone proofread the launch blog post?",
        ),
    ),
    _ChannelPlan(
        "sales",
        "Deals, pipeline and customer calls",
        lines=(
            "Closed the Acme renewal, three year term!",
            "Pipeline review moved to Friday morning.",
            "Anyone have a case study for the healthcare vertical?",
            "Demo with Globex went well, they want a pilot.",
        ),
    ),
    _ChannelPlan(
        "support",
        "Customer support escalations and handoffs",
        lines=(
            "Ticket volume is up after the release, mostly password resets.",
            "Escalating a billing issue for a customer on the enterprise plan.",
            "The help center article on exports is out of date.",
            "Handing over the on-call queue for the night, two open tickets.",
        ),
    ),
    _ChannelPlan(
        "product",
        "Roadmap, specs and release planning",
        lines=(
            "Roadmap review for Q1 is in the shared drive.",
            "The spec for saved searches is ready for comments.",
            "Release notes for version 4.2 are drafted.",
            "User interviews next week, sign up if you want to listen in.",
        ),
    ),
    _ChannelPlan(
        "incidents",
        "Production incidents and postmortems",
        lines=(
            "Investigating elevated error rates on the API gateway.",
            "Incident resolved, postmortem to follow tomorrow.",
            "Postmortem for last week's outage is published.",
        ),
    ),
    _ChannelPlan(
        "leadership",
        "Leadership team only",
        private=True,
        lines=(
            "Budget planning for next year starts Monday.",
            "Draft of the org changes is in the leadership folder.",
            "Board meeting prep: slides due Wednesday.",
        ),
    ),
    _ChannelPlan(
        "hiring",
        "Open roles, candidates and interview loops",
        private=True,
        lines=(
            "Two strong candidates for the backend role, debrief at 3pm.",
            "Offer accepted for the designer position!",
            "Please submit interview feedback within 24 hours.",
        ),
    ),
    _ChannelPlan(
        "finance-team",
        "Finance, invoices and expense reports",
        private=True,
        lines=(
            "Month-end close is on track.",
            "Expense reports for December are due Friday.",
            "Vendor invoice from the cloud provider looks higher than usual.",
        ),
    ),
    _ChannelPlan(
        "offsite-2025",
        "Planning the 2025 team offsite (done!)",
        archived=True,
        lines=(
            "Offsite venue is booked, details to follow.",
            "Thanks everyone for a great offsite!",
            "Photos from the offsite are in the shared album.",
        ),
    ),
    _ChannelPlan(
        "website-redesign",
        "The 2024 website redesign project",
        archived=True,
        lines=(
            "The new homepage is live!",
            "Final round of QA on the pricing page.",
        ),
    ),
)
DM_LINES = (
    "Hey, do you have a minute to chat about the project?",
    "Thanks for your help yesterday!",
    "Can you send me the link to that doc?",
    "Running five minutes late to our 1:1.",
    "Did you get a chance to look at my comments?",
    "Lunch today?",
    "I'll be out tomorrow, ping me if anything urgent comes up.",
    "Great presentation this morning!",
)


@dataclass
class _Draft:
    """A message before it gets its id (ids follow the posting order)."""

    channel: Channel
    user: User
    text: str
    posted_at: datetime
    parent: _Draft | None = None
    edited: bool = False
    row: Message | None = None


def _users(rng: random.Random, workspaces: list[Workspace]) -> dict[str, list[User]]:
    """The people of each workspace, with unique emails and display names; two deactivated per workspace."""
    by_ws: dict[str, list[User]] = {}
    count = 0
    for ws, (_, domain, size) in zip(workspaces, WORKSPACES, strict=True):
        people: list[User] = []
        handles: set[str] = set()
        for _ in range(size):
            first, last = PEOPLE.draw(rng)
            handle = unique_name(f"{first}.{last}", handles)
            status_text, status_emoji = rng.choice(STATUSES) if rng.random() < 0.35 else ("", "")
            count += 1
            people.append(
                User(
                    id=f"USR-{1000 + count}",
                    workspace_id=ws.id,
                    full_name=f"{first} {last}",
                    display_name=handle.replace(".", "")[:40] if rng.random() < 0.3 else handle,
                    email=f"{handle}@{domain}.com",
                    title=rng.choice(TITLES),
                    presence=rng.choices(("active", "away", "dnd"), weights=(6, 3, 1))[0],
                    status_text=status_text,
                    status_emoji=status_emoji,
                    deactivated=False,
                )
            )
        for user in rng.sample(people[2:], 2):
            user.deactivated = True
            user.presence = "away"
            user.status_text, user.status_emoji = "", ""
        by_ws[ws.id] = people
    return by_ws


def _channels(
    rng: random.Random, workspaces: list[Workspace], people: dict[str, list[User]]
) -> tuple[list[Channel], list[Membership], dict[str, _ChannelPlan]]:
    """Each workspace's channels and their members (a random share of the workspace)."""
    channels: list[Channel] = []
    memberships: list[Membership] = []
    plans: dict[str, _ChannelPlan] = {}
    for ws in workspaces:
        users = people[ws.id]
        chosen = [p for p in CHANNELS if p.everyone or rng.random() < 0.85]
        for plan in chosen:
            if plan.everyone:
                members = list(users)
            else:
                share = rng.uniform(0.2, 0.35) if plan.private else rng.uniform(0.3, 0.6)
                members = rng.sample(users, max(3, round(len(users) * share)))
            members.sort(key=lambda u: u.id)
            creator = rng.choice([u for u in members if not u.deactivated])
            created = TODAY - timedelta(days=rng.randint(200, 900))
            channel = Channel(
                id=f"CHN-{1001 + len(channels)}",
                workspace_id=ws.id,
                name=plan.name,
                is_private=plan.private,
                archived=plan.archived,
                topic=plan.topic,
                creator_id=creator.id,
                created_on=created,
            )
            channels.append(channel)
            plans[channel.id] = plan
            for user in members:
                memberships.append(
                    Membership(
                        id=f"MEM-{1001 + len(memberships)}",
                        channel_id=channel.id,
                        user_id=user.id,
                        joined_on=created + timedelta(days=rng.randint(0, 150)),
                    )
                )
    return channels, memberships, plans


def _conversations(
    rng: random.Random,
    channels: list[Channel],
    plans: dict[str, _ChannelPlan],
    members: dict[str, list[User]],
) -> list[_Draft]:
    """Top-level messages in every channel and thread replies under some of them."""
    drafts: list[_Draft] = []
    for channel in channels:
        plan = plans[channel.id]
        talkers = members[channel.id]
        window = 400 if plan.archived else 30  # days back; archived channels went quiet long ago
        quiet = 200 if plan.archived else 0
        lines = list(plan.lines)
        rng.shuffle(lines)
        count = rng.randint(len(lines), len(lines) + 3)
        for i in range(count):
            day = TODAY - timedelta(days=quiet + rng.randint(1, window))
            posted = datetime(day.year, day.month, day.day, 8) + timedelta(minutes=rng.randint(0, 10 * 60))
            text = lines[i] if i < len(lines) else rng.choice(plan.lines)
            top = _Draft(channel, rng.choice(talkers), text, posted, edited=rng.random() < 0.08)
            drafts.append(top)
            if rng.random() < 0.4:
                at = posted
                for _ in range(rng.randint(1, 4)):
                    at = at + timedelta(minutes=rng.randint(2, 240))
                    if at >= NOW:
                        break
                    drafts.append(_Draft(channel, rng.choice(talkers), rng.choice(REPLY_LINES), at, parent=top))
    drafts.sort(key=lambda d: (d.posted_at, d.channel.id))
    return drafts


def seed(db: Session, rng: random.Random) -> None:
    """Fill an empty team chat database deterministically.

    Args:
        db: Session on the freshly created schema.
        rng: The only source of randomness.
    """
    workspaces = [
        Workspace(id=f"WKS-{1001 + i}", name=name, domain=domain) for i, (name, domain, _) in enumerate(WORKSPACES)
    ]
    people = _users(rng, workspaces)
    channels, memberships, plans = _channels(rng, workspaces, people)
    users = {u.id: u for group in people.values() for u in group}
    members: dict[str, list[User]] = {c.id: [] for c in channels}
    for m in memberships:
        members[m.channel_id].append(users[m.user_id])
    talkers = {cid: [u for u in group if not u.deactivated] or group for cid, group in members.items()}
    drafts = _conversations(rng, channels, plans, talkers)

    messages: list[Message] = []
    for i, draft in enumerate(drafts):
        draft.row = Message(
            id=f"MSG-{10001 + i}",
            channel_id=draft.channel.id,
            user_id=draft.user.id,
            parent_id=draft.parent.row.id if draft.parent and draft.parent.row else None,
            text=draft.text,
            posted_at=draft.posted_at,
            edited=draft.edited,
            edited_at=draft.posted_at + timedelta(minutes=rng.randint(1, 30)) if draft.edited else None,
        )
        messages.append(draft.row)

    reactions: list[Reaction] = []
    for draft in drafts:
        if rng.random() < 0.45:
            pool = talkers[draft.channel.id]
            for reactor in rng.sample(pool, min(len(pool), rng.randint(1, 3))):
                for emoji in rng.sample(EMOJIS, rng.choice((1, 1, 2))):
                    assert draft.row is not None
                    reactions.append(
                        Reaction(
                            id=f"RXN-{1001 + len(reactions)}", message_id=draft.row.id, user_id=reactor.id, emoji=emoji
                        )
                    )

    pins: list[Pin] = []
    for channel in channels:
        tops = [d for d in drafts if d.channel is channel and d.parent is None]
        for draft in rng.sample(tops, min(len(tops), rng.choice((0, 1, 1, 2)))):
            assert draft.row is not None
            pins.append(
                Pin(
                    id=f"PIN-{1001 + len(pins)}",
                    message_id=draft.row.id,
                    channel_id=channel.id,
                    user_id=rng.choice(talkers[channel.id]).id,
                    pinned_at=min(NOW, draft.posted_at + timedelta(hours=rng.randint(1, 48))),
                )
            )
    pins.sort(key=lambda p: p.pinned_at)
    for i, pin in enumerate(pins):
        pin.id = f"PIN-{1001 + i}"

    dms: list[tuple[datetime, DirectMessage]] = []
    for ws in workspaces:
        active = [u for u in people[ws.id] if not u.deactivated]
        for _ in range(len(active) * 2):
            sender, recipient = rng.sample(active, 2)
            sent = NOW - timedelta(minutes=rng.randint(5, 14 * 24 * 60))
            dms.append(
                (
                    sent,
                    DirectMessage(
                        id="",
                        workspace_id=ws.id,
                        user_id=sender.id,
                        to_user_id=recipient.id,
                        text=rng.choice(DM_LINES),
                        sent_at=sent,
                    ),
                )
            )
    dms.sort(key=lambda pair: (pair[0], pair[1].user_id))
    for i, (_, dm) in enumerate(dms):
        dm.id = f"DM-{1001 + i}"

    db.add_all(workspaces)
    db.flush()
    db.add_all(users.values())
    db.flush()
    db.add_all(channels)
    db.flush()
    db.add_all(memberships)
    db.add_all(messages)
    db.flush()
    db.add_all(reactions)
    db.add_all(pins)
    db.add_all(dm for _, dm in dms)
    db.flush()
