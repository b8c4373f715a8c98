"""The social media server, driven through a real MCP client on an in-memory database: comments, likes, messages."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump, one, scalar
from tests.servers.social_media.common import blocked_on_post, count, public_pair, stranger_of_private


def test_comment_on_post(sm: LiveServer) -> None:
    _, post, user = public_pair(sm)
    before = count(sm, "comments", "post_id = ?", post)
    out = sm.ok("comment_on_post", post_id=post, user_id=user, text="Congrats!")
    assert one(sm, "SELECT post_id, author_id, text, commented_at FROM comments WHERE id = ?", out["comment_id"]) == (
        post,
        user,
        "Congrats!",
        "2026-01-15 12:00:00.000000",
    )
    assert count(sm, "comments", "post_id = ?", post) == before + 1
    state = dump(sm)
    blocker, blocker_post, blocked = blocked_on_post(sm)
    err = sm.error("comment_on_post", post_id=blocker_post, user_id=blocked, text="Hello?")
    assert f"{blocker}" in err
    assert "cannot comment on their posts" in err
    _, hidden, stranger = stranger_of_private(sm)
    assert "private profile" in sm.error("comment_on_post", post_id=hidden, user_id=stranger, text="Nice")
    assert "text must be 1 to 280" in sm.error("comment_on_post", post_id=post, user_id=user, text="")
    assert dump(sm) == state


def test_blocker_cannot_comment_either(sm: LiveServer) -> None:
    blocker, blocked = one(
        sm,
        "SELECT b.blocker_id, b.blocked_id FROM blocks b WHERE EXISTS (SELECT 1 FROM posts p WHERE p.author_id = b.blocked_id) ORDER BY b.id",
    )
    post = scalar(sm, "SELECT id FROM posts WHERE author_id = ? ORDER BY id", blocked)
    assert "unblock_user" in sm.error("comment_on_post", post_id=post, user_id=blocker, text="Hi")


def test_like_post(sm: LiveServer) -> None:
    _, post, user = public_pair(sm)
    before = count(sm, "likes", "post_id = ?", post)
    assert sm.ok("like_post", post_id=post, user_id=user)["like_count"] == before + 1
    assert count(sm, "likes", "post_id = ? AND liker_id = ?", post, user) == 1
    state = dump(sm)
    assert "already liked" in sm.error("like_post", post_id=post, user_id=user)
    blocker, blocker_post, blocked = blocked_on_post(sm)
    assert "cannot like their posts" in sm.error("like_post", post_id=blocker_post, user_id=blocked)
    _, hidden, stranger = stranger_of_private(sm)
    assert "private profile" in sm.error("like_post", post_id=hidden, user_id=stranger)
    assert dump(sm) == state
    assert blocker


def test_send_message(sm: LiveServer) -> None:
    sender, recipient = one(
        sm,
        "SELECT sender_id, recipient_id FROM messages m WHERE NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id IN (m.sender_id, m.recipient_id) AND b.blocked_id IN (m.sender_id, m.recipient_id)) ORDER BY id",
    )
    out = sm.ok("send_message", sender_id=sender, recipient_id=recipient, text="Are we still on for Saturday?")
    assert one(sm, "SELECT sender_id, recipient_id, text FROM messages WHERE id = ?", out["message_id"]) == (
        sender,
        recipient,
        "Are we still on for Saturday?",
    )
    state = dump(sm)
    blocker, blocked = one(sm, "SELECT blocker_id, blocked_id FROM blocks ORDER BY id")
    assert "cannot message them" in sm.error("send_message", sender_id=blocked, recipient_id=blocker, text="Hi")
    assert "unblock_user" in sm.error("send_message", sender_id=blocker, recipient_id=blocked, text="Hi")
    assert "themselves" in sm.error("send_message", sender_id=sender, recipient_id=sender, text="Note to self")
    assert "text must be 1 to 1000" in sm.error(
        "send_message", sender_id=sender, recipient_id=recipient, text="x" * 1001
    )
    assert "recipient_id" in sm.error("send_message", sender_id=sender, recipient_id="USR-0000", text="Hi")
    assert dump(sm) == state


def test_list_messages(sm: LiveServer) -> None:
    a, b = one(sm, "SELECT sender_id, recipient_id FROM messages GROUP BY 1, 2 HAVING count(*) >= 2 ORDER BY 1, 2")
    out = sm.ok("list_messages", user_id=b, other_user_id=a, limit=100)
    expected = sm.query(
        "SELECT id FROM messages WHERE (sender_id = ? AND recipient_id = ?) OR (sender_id = ? AND recipient_id = ?) ORDER BY sent_at, id",
        a,
        b,
        b,
        a,
    )
    assert [m["message_id"] for m in out["messages"]] == [r[0] for r in expected]
    assert [m["message_id"] for m in sm.ok("list_messages", user_id=a, other_user_id=b, limit=1)["messages"]] == [
        expected[-1][0]
    ]
    blocker, blocked = one(
        sm,
        "SELECT b.blocker_id, b.blocked_id FROM blocks b JOIN messages m ON m.sender_id IN (b.blocker_id, b.blocked_id) AND m.recipient_id IN (b.blocker_id, b.blocked_id) ORDER BY b.id",
    )
    old = sm.ok("list_messages", user_id=blocker, other_user_id=blocked)
    assert old["blocked"] is True
    assert old["messages"]  # messages from before the block stay readable
    assert "other_user_id" in sm.error("list_messages", user_id=a, other_user_id="USR-0000")
    assert scalar(sm, "SELECT count(*) FROM messages") > 100
