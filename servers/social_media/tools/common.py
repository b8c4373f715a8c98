"""What the social media tools share: the kit, id lookups, the visibility and block rules, result shapes.

Visibility: a public profile's posts are seen by everyone; a private profile's posts only by its
owner and its accepted followers. A block works both ways for following and messaging, and a
blocked user cannot see, comment on or like the blocker's posts.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import and_, delete, func, or_, select, update
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import Finder, ServerKit, ToolError, check_length, pick
from gym_mcp.servers.social_media.data import seed
from gym_mcp.servers.social_media.models import (
    CLOCK,
    EDIT_WINDOW,
    REPORT_REASONS,
    TODAY,
    Base,
    Block,
    Comment,
    Follow,
    Like,
    Post,
    Report,
    User,
)

__all__ = [
    "EDIT_HOURS",
    "block_between",
    "check_can_view",
    "check_not_blocked",
    "check_text",
    "follow_of",
    "kit",
    "load_follow",
    "load_post",
    "load_report",
    "load_user",
    "now",
    "post_view",
    "remove_post",
    "user_view",
]

EDIT_HOURS = int(EDIT_WINDOW.total_seconds() // 3600)

INSTRUCTIONS = f"""\
Back office of Chirp, a social network. Users ("USR-1001", find_users) post ("PST-1001"),
comment, like, follow each other ("FOL-1001"), block ("BLK-1001") and send direct messages.
A private profile's posts are seen only by its accepted followers: following a private profile
sends a request its owner accepts or declines (respond_to_follow_request). A blocked user
cannot see, comment on, like or message the blocker, and blocked pairs cannot follow each
other. An author can edit a post only within {EDIT_HOURS} hours of posting. Reports ("RPT-1001")
need a reason ({", ".join(REPORT_REASONS)}); moderators resolve them. Tools that show posts
take the id of the user looking (user_id). Now is {datetime.combine(TODAY, CLOCK).isoformat(timespec="minutes")}."""

kit = ServerKit(
    "social_media",
    base=Base,
    seed=seed,
    instructions=INSTRUCTIONS,
    today=TODAY,
    samples={"limit": (3, 5, 10, 20)},
    inline=True,
)

# -- lookups ------------------------------------------------------------------------------------

_MISSING = "No {noun} with id {id!r} (given as {field}). {Noun} ids look like '{example}'; {hint}."
load_user = Finder(User, "user", "USR-1001", "use find_users with a name or handle to look one up", message=_MISSING)
load_post = Finder(
    Post, "post", "PST-1001", "use list_posts with the author's id, or get_feed, to see valid ones", message=_MISSING
)
load_follow = Finder(
    Follow,
    "follow request",
    "FOL-1001",
    "use list_connections with kind 'requests' to see a user's pending ones",
    message=_MISSING,
)
load_report = Finder(Report, "report", "RPT-1001", "use list_reports to see valid ones", message=_MISSING)

# -- rules --------------------------------------------------------------------------------------


def now() -> datetime:
    """The server's fixed clock: noon on the kit's today, the time of every row a tool makes."""
    return datetime.combine(kit.today, CLOCK)


def check_text(text: str, field: str, high: int, example: str) -> str:
    """A trimmed text argument of 1 to ``high`` characters."""
    return check_length(text.strip(), field, 1, high, f", e.g. {example!r}")


def block_between(db: Session, a: str, b: str) -> Block | None:
    """The block between two users, in either direction, if any."""
    return db.scalar(
        select(Block).where(
            or_(and_(Block.blocker_id == a, Block.blocked_id == b), and_(Block.blocker_id == b, Block.blocked_id == a))
        )
    )


def follow_of(db: Session, follower_id: str, followee_id: str) -> Follow | None:
    """The follow (accepted or pending) of one user by another, if any."""
    return db.scalar(select(Follow).where(Follow.follower_id == follower_id, Follow.followee_id == followee_id))


def check_not_blocked(db: Session, actor: User, other: User, action: str) -> None:
    """Refuse ``action`` when either user has blocked the other (the message says who)."""
    block = block_between(db, actor.id, other.id)
    if block is None:
        return
    if block.blocker_id == other.id:
        raise ToolError(f"{other.id} (@{other.handle}) has blocked {actor.id}; a blocked user cannot {action}.")
    raise ToolError(
        f"{actor.id} has blocked {other.id} (@{other.handle}) ({block.id}); unblock them first (unblock_user) to "
        f"{action}."
    )


def check_can_view(db: Session, viewer: User, author: User) -> None:
    """Refuse when ``viewer`` may not see ``author``'s posts: a block, or a private profile they do not follow."""
    if viewer.id == author.id:
        return
    check_not_blocked(db, viewer, author, "see their posts")
    if not author.is_private:
        return
    follow = follow_of(db, viewer.id, author.id)
    if follow is not None and follow.status == "accepted":
        return
    if follow is not None:
        how = f"{viewer.id}'s follow request ({follow.id}) is still pending, so {author.id} must accept it first"
    else:
        how = f"{viewer.id} does not follow them: send a follow request with follow_user and wait for it to be accepted"
    raise ToolError(
        f"{author.id} (@{author.handle}) has a private profile: only accepted followers see its posts, and {how}."
    )


def remove_post(db: Session, post: Post, resolution: str) -> dict[str, int]:
    """Delete a post with its comments and likes; its open reports are resolved with ``resolution``."""
    counts = {
        "comments_removed": db.scalar(select(func.count()).select_from(Comment).where(Comment.post_id == post.id)) or 0,
        "likes_removed": db.scalar(select(func.count()).select_from(Like).where(Like.post_id == post.id)) or 0,
    }
    db.execute(delete(Comment).where(Comment.post_id == post.id))
    db.execute(delete(Like).where(Like.post_id == post.id))
    closed = db.execute(
        update(Report)
        .where(Report.post_id == post.id, Report.status == "open")
        .values(status="resolved", resolution=resolution)
    )
    counts["reports_resolved"] = int(getattr(closed, "rowcount", 0) or 0)
    db.delete(post)
    db.flush()
    return counts


# -- result shapes ------------------------------------------------------------------------------


def user_view(user: User) -> dict[str, Any]:
    """The short form of a user: id, handle, name and whether the profile is private."""
    return {"user_id": user.id, **pick(user, "handle", "display_name", "is_private")}


def post_view(db: Session, post: Post, *, full: bool = False) -> dict[str, Any]:
    """The fields of a post a model needs; ``full`` adds its comments, oldest first."""
    out: dict[str, Any] = {
        "post_id": post.id,
        **pick(post, "author_id", "text", "posted_at", "edited_at"),
        "editable_until": post.posted_at + EDIT_WINDOW,
        "like_count": db.scalar(select(func.count()).select_from(Like).where(Like.post_id == post.id)),
        "comment_count": db.scalar(select(func.count()).select_from(Comment).where(Comment.post_id == post.id)),
    }
    if full:
        rows = db.scalars(select(Comment).where(Comment.post_id == post.id).order_by(Comment.commented_at, Comment.id))
        out["comments"] = [{"comment_id": c.id, **pick(c, "author_id", "text", "commented_at")} for c in rows]
    return out
