"""Social media tools for profiles and connections: find users, follow and unfollow, answer requests, block."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_limit, next_id, pick
from gym_mcp.servers.social_media.models import Block, Follow, Post, User
from gym_mcp.servers.social_media.tools.common import (
    block_between,
    check_not_blocked,
    follow_of,
    kit,
    load_follow,
    load_user,
    now,
    user_view,
)

KINDS = ("followers", "following", "requests", "blocked")
DECISIONS = ("accept", "decline")


@kit.tool(
    write=False,
    intent="Find the user matching '{query}'[, showing at most {limit} results]",
    samples={"query": ("Nguyen", "Patel", "Garcia", "Kim", "Silva", "Rossi", "Tanaka", "mia_")},
)
def find_users(db: Session, query: str, limit: int = 10) -> list[dict[str, Any]]:
    """Search users by handle or display name (case-insensitive, partial match), in id order.

    Returns a list of {user_id, handle, display_name, is_private}; an empty list means no match.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        query: Part of a handle or name, at least 2 characters, e.g. "nguyen" or "ava_".
        limit: Maximum number of users to return, 1 to 100, e.g. 10.
    """
    check_limit(limit)
    text = query.strip().lower().lstrip("@")
    if len(text) < 2:
        raise ToolError("query must have at least 2 characters, e.g. a last name like 'Nguyen'")
    rows = db.scalars(
        select(User)
        .where(
            or_(
                User.handle.contains(text, autoescape=True),
                func.lower(User.display_name).contains(text, autoescape=True),
            )
        )
        .order_by(User.id)
        .limit(limit)
    )
    return [user_view(u) for u in rows]


@kit.tool(write=False, intent="Show the profile of user {user_id}")
def get_profile(db: Session, user_id: str) -> dict[str, Any]:
    """Get a user's profile: handle, name, bio, whether it is private, and follower, following and post counts.

    Counts include only accepted follows. Anyone can see a profile; the posts of a private one
    are shown only to its accepted followers (list_posts).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        user_id: User id, e.g. "USR-1001".
    """
    user = load_user(db, user_id)

    def count(*where: Any) -> int:
        return db.scalar(select(func.count()).select_from(Follow).where(*where)) or 0

    return {
        **user_view(user),
        **pick(user, "bio", "joined_on"),
        "followers": count(Follow.followee_id == user.id, Follow.status == "accepted"),
        "following": count(Follow.follower_id == user.id, Follow.status == "accepted"),
        "pending_requests": count(Follow.followee_id == user.id, Follow.status == "pending"),
        "posts": db.scalar(select(func.count()).select_from(Post).where(Post.author_id == user.id)),
    }


@kit.tool(
    write=False,
    intent="List the {kind} of user {user_id}",
    samples={"kind": KINDS},
)
def list_connections(db: Session, user_id: str, kind: str) -> list[dict[str, Any]]:
    """List a user's followers, who they follow, the follow requests waiting for them, or who they blocked.

    kind "followers" and "following" list accepted follows; "requests" lists pending requests
    to this user (answer them with respond_to_follow_request); "blocked" lists the users this
    user blocked. Each entry has the other user, the follow_id or block_id, and since when.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        user_id: User id, e.g. "USR-1001".
        kind: One of followers, following, requests, blocked.
    """
    user = load_user(db, user_id)
    which = kind.strip().lower() if isinstance(kind, str) else ""
    if which not in KINDS:
        raise ToolError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
    if which == "blocked":
        blocks = db.scalars(select(Block).where(Block.blocker_id == user.id).order_by(Block.id))
        out = []
        for b in blocks:
            other = db.get(User, b.blocked_id)
            assert other is not None
            out.append({"block_id": b.id, **user_view(other), "since": b.blocked_at})
        return out
    if which == "following":
        stmt = select(Follow).where(Follow.follower_id == user.id, Follow.status == "accepted")
    else:
        status = "pending" if which == "requests" else "accepted"
        stmt = select(Follow).where(Follow.followee_id == user.id, Follow.status == status)
    result = []
    for f in db.scalars(stmt.order_by(Follow.id)):
        other = db.get(User, f.followee_id if which == "following" else f.follower_id)
        assert other is not None
        result.append({"follow_id": f.id, **user_view(other), "status": f.status, "since": f.requested_at})
    return result


@kit.tool(write=True, intent="Have user {user_id} follow user {target_user_id}")
def follow_user(db: Session, user_id: str, target_user_id: str) -> dict[str, Any]:
    """Make one user follow another. Following a private profile sends a request that stays pending.

    Refused when following yourself, when the follow (or request) already exists, and when
    either user has blocked the other. Returns the follow with its status: "accepted" for a
    public profile, "pending" for a private one (its owner answers with respond_to_follow_request).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        user_id: The user who follows, e.g. "USR-1001".
        target_user_id: The user to follow, e.g. "USR-1002".
    """
    user = load_user(db, user_id)
    target = load_user(db, target_user_id, "target_user_id")
    if user.id == target.id:
        raise ToolError(f"user_id and target_user_id are both {user.id}; a user cannot follow themselves.")
    check_not_blocked(db, user, target, "follow them")
    existing = follow_of(db, user.id, target.id)
    if existing is not None:
        state = "already follows" if existing.status == "accepted" else "already has a pending follow request to"
        raise ToolError(
            f"{user.id} {state} {target.id} ({existing.id}, since {existing.requested_at:%Y-%m-%d}); a user "
            "follows another only once."
        )
    follow = Follow(
        id=next_id(db, Follow.id, "FOL"),
        follower_id=user.id,
        followee_id=target.id,
        status="pending" if target.is_private else "accepted",
        requested_at=now(),
    )
    db.add(follow)
    db.flush()
    return {"follow_id": follow.id, **pick(follow, "follower_id", "followee_id", "status", "requested_at")}


@kit.tool(write=True, intent="Have user {follower_id} unfollow user {followee_id}")
def unfollow_user(db: Session, follower_id: str, followee_id: str) -> dict[str, Any]:
    """Stop following a user, or withdraw a pending follow request.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        follower_id: The user who follows, e.g. "USR-1001".
        followee_id: The user they follow, e.g. "USR-1002".
    """
    follower = load_user(db, follower_id, "follower_id")
    followee = load_user(db, followee_id, "followee_id")
    follow = follow_of(db, follower.id, followee.id)
    if follow is None:
        raise ToolError(
            f"{follower.id} does not follow {followee.id} and has no pending request to them; nothing changed "
            f"(list_connections with kind 'following' shows whom {follower.id} follows)."
        )
    db.delete(follow)
    return {
        "removed_follow_id": follow.id,
        "follower_id": follower.id,
        "followee_id": followee.id,
        "was": follow.status,
    }


@kit.tool(
    write=True,
    intent="Process follow request {follow_id}: {decision} it",
    samples={"decision": DECISIONS},
)
def respond_to_follow_request(db: Session, follow_id: str, decision: str) -> dict[str, Any]:
    """Accept or decline a pending follow request to a private profile.

    Accepting lets the follower see the profile's posts; declining deletes the request. Only a
    pending request can be answered.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        follow_id: The follow request, e.g. "FOL-1001" (list_connections with kind "requests").
        decision: "accept" or "decline".
    """
    follow = load_follow(db, follow_id)
    choice = decision.strip().lower() if isinstance(decision, str) else ""
    if choice not in DECISIONS:
        raise ToolError(f"decision must be accept or decline; got {decision!r}")
    if follow.status != "pending":
        waiting = db.scalars(
            select(Follow.id)
            .where(Follow.followee_id == follow.followee_id, Follow.status == "pending")
            .order_by(Follow.id)
        ).all()
        others = (
            f"pending requests to {follow.followee_id}: {', '.join(waiting)}"
            if waiting
            else (f"{follow.followee_id} has no pending requests")
        )
        raise ToolError(
            f"Follow {follow.id} ({follow.follower_id} -> {follow.followee_id}) is already accepted; only a pending "
            f"request can be answered ({others})."
        )
    if choice == "accept":
        follow.status = "accepted"
    else:
        db.delete(follow)
    return {
        "follow_id": follow.id,
        **pick(follow, "follower_id", "followee_id"),
        "status": "accepted" if choice == "accept" else "declined",
    }


@kit.tool(write=True, intent="Have user {user_id} block user {target_user_id}", confirm="always")
def block_user(db: Session, user_id: str, target_user_id: str) -> dict[str, Any]:
    """Block a user: any follow between the two, either way and pending or not, is removed for good.

    From then on the blocked user cannot see, comment on or like the blocker's posts, and
    neither can message or follow the other. Refused for yourself and when already blocked.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        user_id: The user who blocks, e.g. "USR-1001".
        target_user_id: The user to block, e.g. "USR-1002".
    """
    user = load_user(db, user_id)
    target = load_user(db, target_user_id, "target_user_id")
    if user.id == target.id:
        raise ToolError(f"user_id and target_user_id are both {user.id}; a user cannot block themselves.")
    existing = block_between(db, user.id, target.id)
    if existing is not None and existing.blocker_id == user.id:
        raise ToolError(f"{user.id} already blocked {target.id} ({existing.id}); nothing changed.")
    pair = or_(
        (Follow.follower_id == user.id) & (Follow.followee_id == target.id),
        (Follow.follower_id == target.id) & (Follow.followee_id == user.id),
    )
    removed = list(db.scalars(select(Follow.id).where(pair).order_by(Follow.id)))
    db.execute(delete(Follow).where(pair))
    block = Block(id=next_id(db, Block.id, "BLK"), blocker_id=user.id, blocked_id=target.id, blocked_at=now())
    db.add(block)
    db.flush()
    return {
        "block_id": block.id,
        **pick(block, "blocker_id", "blocked_id", "blocked_at"),
        "removed_follow_ids": removed,
    }


@kit.tool(write=True, intent="Have user {blocker_id} unblock user {blocked_id}")
def unblock_user(db: Session, blocker_id: str, blocked_id: str) -> dict[str, Any]:
    """Lift a block. Follows removed by the block do not come back.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        blocker_id: The user who blocked, e.g. "USR-1001".
        blocked_id: The user they blocked, e.g. "USR-1002".
    """
    blocker = load_user(db, blocker_id, "blocker_id")
    blocked = load_user(db, blocked_id, "blocked_id")
    block = db.scalar(select(Block).where(Block.blocker_id == blocker.id, Block.blocked_id == blocked.id))
    if block is None:
        raise ToolError(
            f"{blocker.id} has not blocked {blocked.id}; nothing changed (list_connections with kind 'blocked' "
            f"shows whom {blocker.id} blocked)."
        )
    db.delete(block)
    return {"removed_block_id": block.id, "blocker_id": blocker.id, "blocked_id": blocked.id}
