"""Social media tools for posts: read a profile's posts, one post or a feed; post, edit and delete."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_limit, next_id
from gym_mcp.servers.social_media.models import EDIT_WINDOW, Block, Follow, Post
from gym_mcp.servers.social_media.tools.common import (
    EDIT_HOURS,
    check_can_view,
    check_text,
    kit,
    load_post,
    load_user,
    now,
    post_view,
    remove_post,
)

POST_TEXTS = (
    "Beautiful morning for a run along the harbor.",
    "Trying a new pasta recipe tonight.",
    "Does anyone know a good bike repair shop?",
    "Finished the book I started last month. Highly recommend it.",
    "Happy Friday, everyone!",
)


def _own_post(db: Session, post_id: str, author_id: str, action: str) -> Post:
    """A post and the check that ``author_id`` wrote it."""
    post = load_post(db, post_id)
    author = load_user(db, author_id, "author_id")
    if post.author_id != author.id:
        raise ToolError(
            f"Post {post.id} was written by {post.author_id}, not {author.id}; only its author can {action} it."
        )
    return post


@kit.tool(write=False, intent="Show the posts of user {author_id} as seen by user {user_id}[, at most {limit}]")
def list_posts(db: Session, author_id: str, user_id: str, limit: int = 10) -> dict[str, Any]:
    """List a user's posts, newest first, as another user (or the author) sees them.

    A private profile's posts are shown only to its owner and its accepted followers, and a
    blocked user sees none of the blocker's posts; the error says which rule refused. Returns
    {author_id, posts, more}.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        author_id: Whose posts, e.g. "USR-1002".
        user_id: The user looking, e.g. "USR-1001" (the author themself sees everything).
        limit: Maximum number of posts to return, 1 to 100, e.g. 10.
    """
    check_limit(limit)
    author = load_user(db, author_id, "author_id")
    check_can_view(db, load_user(db, user_id), author)
    stmt = select(Post).where(Post.author_id == author.id).order_by(Post.posted_at.desc(), Post.id.desc())
    rows = list(db.scalars(stmt.limit(limit + 1)))
    return {"author_id": author.id, "posts": [post_view(db, p) for p in rows[:limit]], "more": len(rows) > limit}


@kit.tool(write=False, intent="Open post {post_id} as user {user_id}")
def get_post(db: Session, post_id: str, user_id: str) -> dict[str, Any]:
    """Get one post with its comments (oldest first), like count and the time until which it can be edited.

    The same visibility rules as list_posts apply to the user looking.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        post_id: Post id, e.g. "PST-1001".
        user_id: The user looking, e.g. "USR-1001".
    """
    post = load_post(db, post_id)
    author = load_user(db, post.author_id)
    check_can_view(db, load_user(db, user_id), author)
    return post_view(db, post, full=True)


@kit.tool(write=False, intent="Show the feed of user {user_id}[, at most {limit} posts]")
def get_feed(db: Session, user_id: str, limit: int = 10) -> dict[str, Any]:
    """A user's home feed: the newest posts of the users they follow (accepted follows only).

    Posts of users on either side of a block are left out. Returns {user_id, posts, more}.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        user_id: Whose feed, e.g. "USR-1001".
        limit: Maximum number of posts to return, 1 to 100, e.g. 10.
    """
    check_limit(limit)
    user = load_user(db, user_id)
    followed = select(Follow.followee_id).where(Follow.follower_id == user.id, Follow.status == "accepted")
    blocked = (
        select(Block.blocked_id)
        .where(Block.blocker_id == user.id)
        .union(select(Block.blocker_id).where(Block.blocked_id == user.id))
    )
    stmt = (
        select(Post)
        .where(Post.author_id.in_(followed), Post.author_id.not_in(blocked))
        .order_by(Post.posted_at.desc(), Post.id.desc())
        .limit(limit + 1)
    )
    rows = list(db.scalars(stmt))
    return {"user_id": user.id, "posts": [post_view(db, p) for p in rows[:limit]], "more": len(rows) > limit}


@kit.tool(write=True, intent="Post '{text}' as user {author_id}", samples={"text": POST_TEXTS})
def create_post(db: Session, author_id: str, text: str) -> dict[str, Any]:
    """Publish a new post for a user, time-stamped now; its author can edit it for 24 hours.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        author_id: The author, e.g. "USR-1001".
        text: The post, 1 to 280 characters, e.g. "Happy Friday, everyone!".
    """
    author = load_user(db, author_id, "author_id")
    body = check_text(text, "text", 280, "Happy Friday, everyone!")
    post = Post(id=next_id(db, Post.id, "PST"), author_id=author.id, text=body, posted_at=now())
    db.add(post)
    db.flush()
    return post_view(db, post)


@kit.tool(
    write=True,
    intent="Have user {author_id} change the text of post {post_id} to '{text}'",
    samples={
        "text": ("Edit: fixed a typo.", "Updated: the event moved to Sunday.", "Correction: it was 12 km, not 10.")
    },
)
def edit_post(db: Session, post_id: str, author_id: str, text: str) -> dict[str, Any]:
    """Replace the text of a post; only its author can, and only within 24 hours of posting.

    editable_until (in get_post and list_posts) is the deadline. Past it, the post can only be
    deleted (delete_post) and posted again.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        post_id: Post id, e.g. "PST-1001".
        author_id: The user editing, who must be the author, e.g. "USR-1001".
        text: The new text, 1 to 280 characters, e.g. "Edit: fixed a typo.".
    """
    post = _own_post(db, post_id, author_id, "edit")
    body = check_text(text, "text", 280, "Edit: fixed a typo.")
    deadline = post.posted_at + EDIT_WINDOW
    if deadline < now():
        recent = db.scalars(
            select(Post.id)
            .where(Post.author_id == post.author_id, Post.posted_at >= now() - EDIT_WINDOW)
            .order_by(Post.id)
        ).all()
        still = f" {post.author_id}'s posts still editable: {', '.join(recent)}." if recent else ""
        raise ToolError(
            f"Post {post.id} was posted at {post.posted_at:%Y-%m-%d %H:%M}; posts can be edited only within "
            f"{EDIT_HOURS} hours (until {deadline:%Y-%m-%d %H:%M}) and it is now {now():%Y-%m-%d %H:%M}. Delete it "
            f"(delete_post) and post again instead.{still}"
        )
    if body == post.text:
        raise ToolError(f"Post {post.id} already has exactly this text; nothing changed.")
    post.text = body
    post.edited_at = now()
    return post_view(db, post)


@kit.tool(write=True, intent="Have user {author_id} delete post {post_id}", confirm="always")
def delete_post(db: Session, post_id: str, author_id: str) -> dict[str, Any]:
    """Delete a post with all its comments and likes; only its author can. Irreversible.

    Open reports on the post are resolved ("post deleted by its author").

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        post_id: Post id, e.g. "PST-1001".
        author_id: The user deleting, who must be the author, e.g. "USR-1001".
    """
    post = _own_post(db, post_id, author_id, "delete")
    return {"deleted_post_id": post.id, **remove_post(db, post, "Post deleted by its author")}
