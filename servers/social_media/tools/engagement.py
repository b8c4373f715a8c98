"""Social media tools for engagement: comment on and like posts, send and read direct messages."""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_limit, next_id, pick
from gym_mcp.servers.social_media.models import Comment, Like, Message
from gym_mcp.servers.social_media.tools.common import (
    block_between,
    check_can_view,
    check_not_blocked,
    check_text,
    kit,
    load_post,
    load_user,
    now,
    post_view,
)


@kit.tool(
    write=True,
    intent="Have user {user_id} comment '{text}' on post {post_id}",
    samples={"text": ("Congrats!", "Love this.", "Where was this taken?", "Count me in.", "So true.")},
)
def comment_on_post(db: Session, post_id: str, user_id: str, text: str) -> dict[str, Any]:
    """Add a comment to a post.

    The user must be able to see the post: not blocked by (and not blocking) its author, and
    an accepted follower if the author's profile is private.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        post_id: Post id, e.g. "PST-1001".
        user_id: The user commenting, e.g. "USR-1001".
        text: The comment, 1 to 280 characters, e.g. "Congrats!".
    """
    post = load_post(db, post_id)
    user = load_user(db, user_id)
    author = load_user(db, post.author_id)
    body = check_text(text, "text", 280, "Congrats!")
    check_not_blocked(db, user, author, "comment on their posts")
    check_can_view(db, user, author)
    comment = Comment(
        id=next_id(db, Comment.id, "CMT"), post_id=post.id, author_id=user.id, text=body, commented_at=now()
    )
    db.add(comment)
    db.flush()
    return {"comment_id": comment.id, **pick(comment, "post_id", "author_id", "text", "commented_at")}


@kit.tool(write=True, intent="Have user {user_id} like post {post_id}")
def like_post(db: Session, post_id: str, user_id: str) -> dict[str, Any]:
    """Like a post, once per user.

    The same rules as comment_on_post apply: no like across a block, and a private author's
    posts only for accepted followers. Returns the post with its new like count.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        post_id: Post id, e.g. "PST-1001".
        user_id: The user liking it, e.g. "USR-1001".
    """
    post = load_post(db, post_id)
    user = load_user(db, user_id)
    author = load_user(db, post.author_id)
    check_not_blocked(db, user, author, "like their posts")
    check_can_view(db, user, author)
    existing = db.scalar(select(Like).where(Like.post_id == post.id, Like.liker_id == user.id))
    if existing is not None:
        raise ToolError(f"{user.id} already liked {post.id} ({existing.id}); a post is liked once per user.")
    db.add(Like(id=next_id(db, Like.id, "LIK"), post_id=post.id, liker_id=user.id, liked_at=now()))
    db.flush()
    return post_view(db, post)


@kit.tool(
    write=True,
    intent="Have user {sender_id} send user {recipient_id} the message '{text}'",
    samples={
        "text": ("Are we still on for Saturday?", "Thanks for the tip!", "Call me when you can.", "Happy birthday!")
    },
)
def send_message(db: Session, sender_id: str, recipient_id: str, text: str) -> dict[str, Any]:
    """Send a direct message from one user to another.

    Refused when either has blocked the other, and for a message to yourself.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        sender_id: The user sending, e.g. "USR-1001".
        recipient_id: The user receiving, e.g. "USR-1002".
        text: The message, 1 to 1000 characters, e.g. "Are we still on for Saturday?".
    """
    sender = load_user(db, sender_id, "sender_id")
    recipient = load_user(db, recipient_id, "recipient_id")
    if sender.id == recipient.id:
        raise ToolError(f"sender_id and recipient_id are both {sender.id}; a user cannot message themselves.")
    body = check_text(text, "text", 1000, "Are we still on for Saturday?")
    check_not_blocked(db, sender, recipient, "message them")
    message = Message(
        id=next_id(db, Message.id, "MSG"), sender_id=sender.id, recipient_id=recipient.id, text=body, sent_at=now()
    )
    db.add(message)
    db.flush()
    return {"message_id": message.id, **pick(message, "sender_id", "recipient_id", "text", "sent_at")}


@kit.tool(write=False, intent="Show the messages between user {user_id} and user {other_user_id}[, the last {limit}]")
def list_messages(db: Session, user_id: str, other_user_id: str, limit: int = 20) -> dict[str, Any]:
    """Show the direct messages between two users, the last ``limit`` of them, oldest first.

    Returns {user_id, other_user_id, messages, blocked}; blocked says whether a block now stops
    new messages (older ones stay readable).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        user_id: One user, e.g. "USR-1001".
        other_user_id: The other user, e.g. "USR-1002".
        limit: Maximum number of messages to return, 1 to 100, e.g. 20.
    """
    check_limit(limit)
    user = load_user(db, user_id)
    other = load_user(db, other_user_id, "other_user_id")
    between = or_(
        and_(Message.sender_id == user.id, Message.recipient_id == other.id),
        and_(Message.sender_id == other.id, Message.recipient_id == user.id),
    )
    rows = list(
        db.scalars(select(Message).where(between).order_by(Message.sent_at.desc(), Message.id.desc()).limit(limit))
    )
    return {
        "user_id": user.id,
        "other_user_id": other.id,
        "messages": [{"message_id": m.id, **pick(m, "sender_id", "text", "sent_at")} for m in reversed(rows)],
        "blocked": block_between(db, user.id, other.id) is not None,
    }
