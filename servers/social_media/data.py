"""Deterministic seed data of the social media server: forty people, their posts and everything around them.

A quarter of the profiles are private; some of their followers are still pending. Blocked pairs
never follow, comment on or like each other (some messaged before the block). About a fifth of
the posts are less than a day old, so their authors can still edit them. Everything follows from
the `random.Random` passed to `seed`.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from operator import attrgetter
from typing import Any

from sqlalchemy.orm import Session

from gym_mcp.servers.kit import NamePool, unique_name
from gym_mcp.servers.social_media.models import (
    NOW,
    REPORT_REASONS,
    TODAY,
    Block,
    Comment,
    Follow,
    Like,
    Message,
    Post,
    Report,
    User,
)

__all__ = ["seed"]

FIRST_NAMES = (
    "Ava", "Noah", "Mia", "Liam", "Zoe", "Ethan", "Chloe", "Lucas", "Priya", "Omar", "Hana", "Diego",
    "Sofia", "Kenji", "Amara", "Felix", "Ines", "Tariq", "Nora", "Mateo", "Lena", "Ravi", "Yuki", "Jonas",
)  # fmt: skip
LAST_NAMES = (
    "Nguyen", "Patel", "Garcia", "Kim", "Okafor", "Larsen", "Rossi", "Haddad", "Tanaka", "Silva",
    "Fischer", "Moreau", "Cohen", "Walsh", "Reyes", "Novak",
)  # fmt: skip
PEOPLE = NamePool(FIRST_NAMES, LAST_NAMES)
"""The names people of the seed data are drawn from."""
BIOS = (
    "Coffee first, then everything else.",
    "Runner, reader, recovering perfectionist.",
    "Photographer in the making.",
    "Plant parent of 23.",
    "Building things on the internet.",
    "Amateur baker and professional taster.",
    "Trail miles and travel stories.",
    "",
)
POSTS = (
    "Just finished my first half marathon. Legs are done, heart is full!",
    "Is it too early for a second coffee? Asking for a friend.",
    "New sourdough recipe turned out great. Thread with the steps below.",
    "The sunset over the harbor tonight was unreal.",
    "Anyone have podcast recommendations for a long drive?",
    "Finally repotted the monstera. It is thriving.",
    "Hot take: pineapple belongs on pizza.",
    "Three weeks into learning Japanese and I can order ramen now.",
    "Our team shipped the new release today. Proud of everyone.",
    "Rainy Sunday, good book, no plans. Perfect.",
    "Looking for a running buddy for Saturday mornings.",
    "Visited the new science museum. The planetarium show is worth it.",
    "Tried the new noodle place downtown. Ten out of ten.",
    "Reminder to drink water and stretch.",
    "Who else is watching the game tonight?",
    "Made it to the top of the trail just before the fog rolled in.",
    "My cat knocked my phone into the sink. Again.",
    "Weekend project: a bookshelf from reclaimed wood.",
)
COMMENTS = (
    "Congrats!",
    "Love this.",
    "So true.",
    "Where is this?",
    "Recipe please!",
    "Count me in.",
    "Haha, same here.",
    "Looks amazing.",
    "Totally disagree, but respect.",
    "Great shot!",
)
MESSAGES = (
    "Hey, are we still on for Saturday?",
    "Sure, see you at nine.",
    "Did you see the photos I sent?",
    "Thanks for the recommendation!",
    "Can you send me that recipe?",
    "Running late, sorry!",
    "Happy birthday!",
    "Let me know when you are free.",
)
DETAILS = ("", "Repeated posts linking to a scam site.", "Targets another user.", "False claim.", "Stolen photo.")


def _minutes_ago(rng: random.Random, low: int, high: int) -> datetime:
    return NOW - timedelta(minutes=rng.randint(low, high))


def seed(db: Session, rng: random.Random) -> None:
    """Fill an empty social media database deterministically.

    Args:
        db: Session on the freshly created schema.
        rng: The only source of randomness.
    """
    users: list[User] = []
    handles: set[str] = set()
    for i in range(40):
        first, last = PEOPLE.draw(rng)
        handle = unique_name(f"{first}_{last}", handles)
        users.append(
            User(
                id=f"USR-{1001 + i}",
                handle=handle,
                display_name=f"{first} {last}",
                bio=rng.choice(BIOS),
                is_private=False,
                joined_on=TODAY - timedelta(days=rng.randint(60, 1500)),
            )
        )
    for user in rng.sample(users, 10):
        user.is_private = True
    ids = [u.id for u in users]
    private = {u.id for u in users if u.is_private}

    blocks: list[Block] = []
    blocked: set[frozenset[str]] = set()
    while len(blocks) < 18:
        a, b = rng.sample(ids, 2)
        if frozenset((a, b)) not in blocked:
            blocked.add(frozenset((a, b)))
            blocks.append(Block(blocker_id=a, blocked_id=b, blocked_at=_minutes_ago(rng, 60, 60 * 24 * 60)))

    follows: list[Follow] = []
    accepted: set[tuple[str, str]] = set()
    for user in users:
        others = [o for o in ids if o != user.id and frozenset((user.id, o)) not in blocked]
        for target in rng.sample(others, rng.randint(4, 12)):
            pending = target in private and rng.random() < 0.3
            when = _minutes_ago(rng, 60, 60 * 24 * (20 if pending else 400))
            follows.append(
                Follow(
                    follower_id=user.id,
                    followee_id=target,
                    status="pending" if pending else "accepted",
                    requested_at=when,
                )
            )
            if not pending:
                accepted.add((user.id, target))

    def sees(viewer: str, author: str) -> bool:
        if frozenset((viewer, author)) in blocked:
            return False
        return viewer == author or author not in private or (viewer, author) in accepted

    posts: list[Post] = []
    for user in users:
        for _ in range(rng.randint(1, 7)):
            recent = rng.random() < 0.22
            when = _minutes_ago(rng, 20, 23 * 60) if recent else _minutes_ago(rng, 25 * 60, 30 * 24 * 60)
            post = Post(author_id=user.id, text=rng.choice(POSTS), posted_at=when)
            if rng.random() < 0.1:
                post.edited_at = min(NOW, when + timedelta(minutes=rng.randint(1, 600)))
            posts.append(post)

    posts.sort(key=lambda p: p.posted_at)
    for i, post in enumerate(posts):
        post.id = f"PST-{1001 + i}"

    comments: list[Comment] = []
    likes: list[Like] = []
    liked: set[tuple[str, str]] = set()
    for _ in range(700):
        post, viewer = rng.choice(posts), rng.choice(ids)
        if not sees(viewer, post.author_id):
            continue
        span = int(min(NOW - post.posted_at, timedelta(days=3)).total_seconds() // 60)
        when = post.posted_at + timedelta(minutes=rng.randint(1, max(1, span)))
        if rng.random() < 0.35:
            comments.append(Comment(post_id=post.id, author_id=viewer, text=rng.choice(COMMENTS), commented_at=when))
        elif viewer != post.author_id and (post.id, viewer) not in liked:
            liked.add((post.id, viewer))
            likes.append(Like(post_id=post.id, liker_id=viewer, liked_at=when))

    messages: list[Message] = []
    pairs: list[tuple[str, str]] = []
    for _ in range(36):
        a, b = rng.sample(ids, 2)
        pairs.append((a, b))
    pairs += [(b.blocked_id, b.blocker_id) for b in rng.sample(blocks, 5)]  # they talked before the block
    cutoff = {frozenset((b.blocker_id, b.blocked_id)): b.blocked_at for b in blocks}
    for a, b in pairs:
        end = cutoff.get(frozenset((a, b)), NOW)
        when = end - timedelta(days=rng.randint(2, 40))
        for k in range(rng.randint(2, 7)):
            when = min(when + timedelta(minutes=rng.randint(2, 600)), end - timedelta(minutes=1))
            sender, recipient = (a, b) if k % 2 == 0 else (b, a)
            messages.append(Message(sender_id=sender, recipient_id=recipient, text=rng.choice(MESSAGES), sent_at=when))

    reports: list[Report] = []
    reported: set[tuple[str, str]] = set()
    while len(reports) < 36:
        post, reporter = rng.choice(posts), rng.choice(ids)
        if reporter == post.author_id or (post.id, reporter) in reported or not sees(reporter, post.author_id):
            continue
        reported.add((post.id, reporter))
        status = (("open",) * 5 + ("resolved",) * 2 + ("dismissed",) * 3)[len(reports) % 10]
        span = int((NOW - post.posted_at).total_seconds() // 60)
        report = Report(
            post_id=post.id,
            reporter_id=reporter,
            reason=rng.choice(REPORT_REASONS),
            details=rng.choice(DETAILS),
            status=status,
            filed_at=post.posted_at + timedelta(minutes=rng.randint(1, max(1, span))),
            resolution={"open": None, "resolved": "Author warned", "dismissed": "No violation found"}[status],
        )
        reports.append(report)

    # ids follow time, as they would have been handed out
    table: tuple[tuple[str, list[Any], str], ...] = (
        ("BLK", blocks, "blocked_at"),
        ("FOL", follows, "requested_at"),
        ("CMT", comments, "commented_at"),
        ("LIK", likes, "liked_at"),
        ("MSG", messages, "sent_at"),
        ("RPT", reports, "filed_at"),
    )
    for prefix, rows, key in table:
        rows.sort(key=attrgetter(key))  # stable: ties keep their order
        for i, r in enumerate(rows):
            r.id = f"{prefix}-{1001 + i}"
    db.add_all(users)
    db.flush()
    db.add_all([*blocks, *follows, *posts])
    db.flush()
    db.add_all([*comments, *likes, *messages, *reports])
    db.flush()
