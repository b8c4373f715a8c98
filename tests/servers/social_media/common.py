"""What the social media server's tests share: seed-data queries."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import one, scalar

TABLES = ("users", "posts", "comments", "likes", "follows", "blocks", "messages", "reports")
RECENT = "posted_at >= '2026-01-14 12:00'"
"""SQL condition of a post still inside the 24-hour edit window at the fixed clock (2026-01-15 12:00)."""
UNRELATED = """NOT EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = v.id AND f.followee_id = a.id)
    AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker_id = v.id AND b.blocked_id = a.id)
                    OR (b.blocker_id = a.id AND b.blocked_id = v.id))"""
"""SQL condition: user ``v`` neither follows (nor asked to follow) user ``a`` and no block stands between them."""


def stranger_of_private(sm: LiveServer) -> tuple[str, str, str]:
    """(private author, a post of theirs, a user with no follow, request or block towards them)."""
    return one(
        sm,
        f"""SELECT a.id, p.id, v.id FROM users a JOIN posts p ON p.author_id = a.id, users v
            WHERE a.is_private AND v.id != a.id AND {UNRELATED} ORDER BY a.id, p.id, v.id""",
    )


def public_pair(sm: LiveServer) -> tuple[str, str, str]:
    """(public author, a post of theirs, another user with no follow or block either way)."""
    return one(
        sm,
        f"""SELECT a.id, p.id, v.id FROM users a JOIN posts p ON p.author_id = a.id, users v
            WHERE NOT a.is_private AND v.id != a.id AND {UNRELATED}
            AND NOT EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = a.id AND f.followee_id = v.id)
            ORDER BY a.id, p.id, v.id""",
    )


def blocked_on_post(sm: LiveServer) -> tuple[str, str, str]:
    """(blocker, a post of the blocker, the blocked user)."""
    return one(
        sm,
        "SELECT b.blocker_id, p.id, b.blocked_id FROM blocks b JOIN posts p ON p.author_id = b.blocker_id ORDER BY b.id, p.id",
    )


def count(sm: LiveServer, table: str, where: str = "1", *params: object) -> int:
    """Rows of a table matching a condition."""
    return int(scalar(sm, f"SELECT count(*) FROM {table} WHERE {where}", *params))
