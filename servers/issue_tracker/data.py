"""Deterministic seed data of the issue tracker.

`seed` fills an empty database from a `random.Random` alone: the same seed always gives the
same users, projects, sprints, issues, comments, labels, links and watchers, and a different
seed gives different ones. The data is consistent the way the tools keep it: assignees,
reporters and commenters are members of the issue's project, issues in closed sprints are done,
a sprint's issues fit its capacity, an epic is done only when its children are, and a done issue
has no blocker that is not done. Every seed has projects with an active sprint and projects
without one, so every rule of the tools can be reached.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy.orm import Session

from gym_mcp.servers.issue_tracker.models import (
    TODAY,
    Comment,
    Issue,
    IssueLabel,
    Link,
    Project,
    ProjectMember,
    Sprint,
    User,
    Watcher,
)
from gym_mcp.servers.kit import NamePool

__all__ = ["PROJECTS", "seed"]

FIRST_NAMES = (
    "Olivia", "Liam", "Emma", "Noah", "Ava", "Elijah", "Sophia", "James", "Isabella", "Lucas", "Mia", "Mateo",
    "Amelia", "Ethan", "Harper", "Benjamin", "Evelyn", "Daniel", "Priya", "Arjun", "Mei", "Wei", "Fatima", "Omar",
    "Sofia", "Diego", "Aisha", "Kwame", "Hana", "Kenji", "Ingrid", "Lars", "Camila", "Rafael", "Zoe", "Nora",
)  # fmt: skip
LAST_NAMES = (
    "Smith", "Johnson", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez", "Lopez", "Wilson", "Anderson",
    "Taylor", "Moore", "Martin", "Lee", "Perez", "Clark", "Lewis", "Walker", "Young", "King", "Nguyen", "Patel",
    "Kim", "Chen", "Okafor", "Mensah", "Nakamura", "Larsen", "Novak", "Rossi", "Schmidt", "Dubois",
)  # fmt: skip
PEOPLE = NamePool(FIRST_NAMES, LAST_NAMES)
"""The names people of the seed data are drawn from."""
TITLES = (
    "Software Engineer", "Senior Software Engineer", "Frontend Engineer", "Backend Engineer", "QA Engineer",
    "Product Designer", "Data Engineer", "Site Reliability Engineer", "Product Manager", "Engineering Manager",
)  # fmt: skip

PROJECTS: tuple[tuple[str, str, str], ...] = (
    ("WEB", "Storefront Web", "The customer-facing web shop: catalog, cart and checkout pages."),
    ("API", "Platform API", "Public REST API and the services behind it."),
    ("MOB", "Mobile App", "The iOS and Android shopping apps."),
    ("DATA", "Data Pipeline", "Ingestion, warehouse models and reporting jobs."),
    ("OPS", "Infrastructure", "Clusters, CI/CD, monitoring and on-call tooling."),
)
"""Key, name and description of each project (the same for every seed)."""

ACTIVE_SPRINT = frozenset({"WEB", "API", "MOB"})
"""Projects whose current sprint is running on `TODAY`; the others have only planned ones."""

COMPONENTS = {
    "WEB": ("checkout page", "product grid", "search bar", "cart drawer", "login form", "order history page"),
    "API": ("orders endpoint", "auth tokens", "rate limiter", "webhook delivery", "pagination", "inventory service"),
    "MOB": ("push notifications", "offline mode", "onboarding flow", "barcode scanner", "wishlist", "dark mode"),
    "DATA": ("nightly ETL job", "sales dashboard", "event ingestion", "customer dimension", "export to CSV"),
    "OPS": ("staging cluster", "CI pipeline", "alerting rules", "TLS certificates", "backup job", "log retention"),
}
PROBLEMS = (
    "crashes on empty input",
    "is slow under load",
    "shows the wrong totals",
    "fails after timeout",
    "breaks on Safari",
    "returns a 500 error",
    "loses data on retry",
    "ignores the user's locale",
)
PERSONAS = ("shopper", "admin", "support agent", "analyst", "guest user")
TASK_VERBS = ("Refactor", "Document", "Add metrics to", "Upgrade dependencies of", "Write tests for", "Clean up")
EPIC_THEMES = (
    "Checkout redesign",
    "Performance push",
    "Accessibility audit",
    "Q1 reliability",
    "Internationalisation",
    "Self-service onboarding",
    "Observability",
    "Security hardening",
)
LABELS = {
    "WEB": ("frontend", "ux", "checkout", "regression", "accessibility", "tech-debt"),
    "API": ("backend", "security", "performance", "regression", "breaking-change", "tech-debt"),
    "MOB": ("ios", "android", "ux", "regression", "crash", "tech-debt"),
    "DATA": ("etl", "reporting", "data-quality", "performance", "tech-debt"),
    "OPS": ("infra", "security", "monitoring", "ci", "cost", "tech-debt"),
}
COMMENTS = (
    "I can reproduce this on the latest build.",
    "Picking this up today.",
    "Pushed a first draft, feedback welcome.",
    "Blocked until the upstream fix lands.",
    "Added screenshots to the description.",
    "Can we split this into two smaller issues?",
    "Verified on staging, looks good.",
    "This needs a design review before we start.",
    "Estimate looks high to me, let's discuss at planning.",
    "Root cause found: a missing null check.",
)
GOALS = (
    "Ship the new checkout flow",
    "Burn down critical bugs",
    "Finish the reporting MVP",
    "Stabilise the release pipeline",
    "Polish onboarding",
    "Reduce p95 latency",
)
SPRINT_DAYS = 14
POINT_WEIGHTS = ((1, 3), (2, 5), (3, 6), (5, 5), (8, 3), (13, 1))


@dataclass
class _Spec:
    """An issue before it gets its number (numbers follow creation order)."""

    type: str
    status: str
    sprint: Sprint | None
    points: int | None
    created_on: date
    resolved_on: date | None = None


def _users(rng: random.Random) -> list[User]:
    """Thirty users with unique names and emails."""
    users: list[User] = []
    names: set[tuple[str, str]] = set()  # names are single words: a new pair is a new "first last"
    while len(users) < 30:
        first, last = PEOPLE.draw_new(rng, names)
        users.append(
            User(
                id=f"USR-{1001 + len(users)}",
                name=f"{first} {last}",
                email=f"{first}.{last}@acme.dev".lower(),
                title=rng.choice(TITLES),
            )
        )
    return users


def _points(rng: random.Random) -> int:
    values, weights = zip(*POINT_WEIGHTS, strict=True)
    return rng.choices(values, weights=weights)[0]


def _title(rng: random.Random, key: str, kind: str) -> str:
    thing = rng.choice(COMPONENTS[key])
    if kind == "bug":
        return f"{thing[0].upper()}{thing[1:]} {rng.choice(PROBLEMS)}"
    if kind == "story":
        return f"As a {rng.choice(PERSONAS)}, I can use the {thing} faster"
    return f"{rng.choice(TASK_VERBS)} the {thing}"


def _sprints(rng: random.Random, key: str, first_id: int) -> list[Sprint]:
    """Three closed sprints, then an active and a planned one, or two planned ones."""
    active = key in ACTIVE_SPRINT
    current_start = TODAY - timedelta(days=7) if active else TODAY
    number = rng.randint(8, 30)
    sprints: list[Sprint] = []
    for offset in (-3, -2, -1, 0, 1):
        start = current_start + timedelta(days=SPRINT_DAYS * offset)
        status = "closed" if offset < 0 else ("active" if offset == 0 and active else "planned")
        sprints.append(
            Sprint(
                id=f"SPR-{first_id + len(sprints)}",
                project_key=key,
                name=f"{key} Sprint {number + offset}",
                goal=rng.choice(GOALS),
                status=status,
                capacity_points=rng.choice((20, 24, 26, 30, 34, 40)),
                start_date=start,
                end_date=start + timedelta(days=SPRINT_DAYS - 1),
            )
        )
    return sprints


def _specs(rng: random.Random, sprints: list[Sprint]) -> list[_Spec]:
    """The non-epic issues of one project, in creation order: sprint by sprint, then the backlog."""
    specs: list[_Spec] = []
    kinds = ("bug", "story", "task")
    for sprint in sprints:
        fill = {"closed": 0.9, "active": 0.8, "planned": 0.55}[sprint.status] * sprint.capacity_points
        committed = 0
        done_points = 0
        while True:
            points = _points(rng)
            if committed + points > fill:
                break
            committed += points
            created = sprint.start_date - timedelta(days=rng.randint(3, 40))
            if sprint.status == "closed":
                status = "done"
            elif sprint.status == "active":
                status = rng.choices(("open", "in_progress", "in_review", "done"), weights=(3, 3, 2, 3))[0]
            else:
                status = "open"
            resolved = None
            if status == "done":
                last = min(sprint.end_date, TODAY - timedelta(days=1))
                resolved = sprint.start_date + timedelta(days=rng.randint(0, (last - sprint.start_date).days))
                done_points += points
            kind = rng.choices(kinds, weights=(3, 4, 3))[0]
            specs.append(_Spec(kind, status, sprint, points, created, resolved))
        if sprint.status == "closed":
            sprint.completed_points = done_points
    for _ in range(rng.randint(10, 14)):
        kind = rng.choices(kinds, weights=(4, 4, 3))[0]
        status = rng.choices(("open", "in_progress", "done"), weights=(17, 3, 1))[0]
        estimate = _points(rng) if rng.random() < 0.7 else None
        created = TODAY - timedelta(days=rng.randint(1, 90))
        resolved = created + timedelta(days=rng.randint(0, (TODAY - created).days - 1)) if status == "done" else None
        specs.append(_Spec(kind, status, None, estimate, created, resolved))
    return specs


def _project(
    rng: random.Random, key: str, name: str, description: str, users: list[User], counters: dict[str, int]
) -> tuple[Project, list[ProjectMember], list[Sprint], list[Issue], list[object]]:
    """One project with its members, sprints, issues and what hangs off them."""
    team = rng.sample(users, rng.randint(7, 10))
    lead = team[0]
    project = Project(key=key, name=name, description=description, lead_id=lead.id)
    members = [
        ProjectMember(project_key=key, user_id=u.id, role="lead" if u is lead else rng.choice(("developer", "qa")))
        for u in team
    ]
    sprints = _sprints(rng, key, counters["sprint"])
    counters["sprint"] += len(sprints)
    issues: list[Issue] = []

    def add(spec: _Spec, title: str) -> Issue:
        number = len(issues) + 1
        assignee = None if spec.status == "open" and spec.sprint is None and rng.random() < 0.35 else rng.choice(team)
        issue = Issue(
            id=f"{key}-{number}",
            project_key=key,
            number=number,
            type=spec.type,
            title=title,
            description=f"{title}. Reported by the {rng.choice(PERSONAS)} team; see the comments for details.",
            status=spec.status,
            priority=rng.choices(("low", "medium", "high", "critical"), weights=(3, 6, 3, 1))[0],
            assignee_id=assignee.id if assignee else None,
            reporter_id=rng.choice(team).id,
            story_points=spec.points,
            sprint_id=spec.sprint.id if spec.sprint else None,
            created_on=spec.created_on,
            updated_on=spec.resolved_on or min(TODAY, spec.created_on + timedelta(days=rng.randint(0, 20))),
            resolved_on=spec.resolved_on,
        )
        issues.append(issue)
        return issue

    themes = rng.sample(EPIC_THEMES, rng.randint(3, 4))
    epics = [
        add(_Spec("epic", "open", None, None, TODAY - timedelta(days=rng.randint(60, 120))), theme) for theme in themes
    ]
    children: dict[str, list[Issue]] = {e.id: [] for e in epics}
    for spec in _specs(rng, sprints):
        issue = add(spec, _title(rng, key, spec.type))
        if rng.random() < 0.65:
            epic = rng.choice(epics)
            issue.epic_id = epic.id
            children[epic.id].append(issue)
    for epic in epics:
        kids = children[epic.id]
        if kids and all(k.status == "done" for k in kids):
            epic.status = "done"
            epic.resolved_on = max(k.resolved_on or TODAY for k in kids)
            epic.updated_on = epic.resolved_on
        elif any(k.status != "open" for k in kids):
            epic.status = "in_progress"

    project.next_number = len(issues) + 1
    extras: list[object] = []
    work = [i for i in issues if i.type != "epic"]
    pairs: set[tuple[str, str]] = set()
    for _ in range(rng.randint(5, 8)):
        blocker, blocked = rng.sample(work, 2)
        if (blocker.id, blocked.id) in pairs or (blocked.id, blocker.id) in pairs:
            continue
        if blocked.status == "done" and blocker.status != "done":
            blocker, blocked = blocked, blocker  # a done issue has no blocker that is not done
        pairs.add((blocker.id, blocked.id))
        extras.append(Link(id=f"LNK-{counters['link']}", blocker_id=blocker.id, blocked_id=blocked.id))
        counters["link"] += 1
    for issue in issues:
        watchers = {issue.reporter_id} | ({issue.assignee_id} if issue.assignee_id else set())
        watchers |= {u.id for u in rng.sample(team, rng.choice((0, 0, 1, 2)))}
        extras.extend(Watcher(issue_id=issue.id, user_id=u) for u in sorted(watchers))
        for label in sorted(rng.sample(LABELS[key], rng.choices((0, 1, 2, 3), weights=(3, 5, 3, 1))[0])):
            extras.append(IssueLabel(issue_id=issue.id, label=label))
        day = issue.created_on
        for _ in range(rng.choices((0, 1, 2, 3), weights=(4, 4, 2, 1))[0]):
            day = min(TODAY, day + timedelta(days=rng.randint(0, 6)))
            extras.append(
                Comment(
                    id=f"CMT-{counters['comment']}",
                    issue_id=issue.id,
                    author_id=rng.choice(team).id,
                    body=rng.choice(COMMENTS),
                    posted_on=day,
                )
            )
            counters["comment"] += 1
    return project, members, sprints, issues, extras


def seed(db: Session, rng: random.Random) -> None:
    """Fill an empty issue tracker database deterministically.

    Args:
        db: Session on the freshly created schema.
        rng: The only source of randomness.
    """
    users = _users(rng)
    db.add_all(users)
    db.flush()
    counters = {"sprint": 1001, "link": 1001, "comment": 1001}
    for key, name, description in PROJECTS:
        project, members, sprints, issues, extras = _project(rng, key, name, description, users, counters)
        db.add(project)
        db.flush()
        db.add_all(members)
        db.add_all(sprints)
        db.flush()
        db.add_all(issues)
        db.flush()
        db.add_all(extras)
        db.flush()
