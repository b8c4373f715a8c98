"""The social media server, driven through a real MCP client on an in-memory database: posts."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump, one, scalar
from tests.servers.social_media.common import RECENT, blocked_on_post, count, stranger_of_private


def test_list_posts_honours_privacy(sm: LiveServer) -> None:
    private, post, stranger = stranger_of_private(sm)
    err = sm.error("list_posts", author_id=private, user_id=stranger)
    assert "private profile" in err
    assert "follow_user" in err
    own = sm.ok("list_posts", author_id=private, user_id=private, limit=100)
    assert post in [p["post_id"] for p in own["posts"]]
    assert len(own["posts"]) == count(sm, "posts", "author_id = ?", private)
    dates = [p["posted_at"] for p in own["posts"]]
    assert dates == sorted(dates, reverse=True)
    follower = scalar(
        sm, "SELECT follower_id FROM follows WHERE followee_id = ? AND status = 'accepted' ORDER BY id", private
    )
    assert sm.ok("list_posts", author_id=private, user_id=follower)["posts"]
    blocker, _, blocked = blocked_on_post(sm)
    assert "has blocked" in sm.error("list_posts", author_id=blocker, user_id=blocked)
    author = scalar(sm, "SELECT author_id FROM posts GROUP BY author_id HAVING count(*) >= 3 ORDER BY 1")
    assert sm.ok("list_posts", author_id=author, user_id=author, limit=2)["more"] is True
    assert "limit must be between" in sm.error("list_posts", author_id=author, user_id=author, limit=0)


def test_get_post(sm: LiveServer) -> None:
    post, author = one(
        sm,
        "SELECT post_id, (SELECT author_id FROM posts WHERE id = post_id) FROM comments GROUP BY post_id HAVING count(*) >= 2 ORDER BY 1",
    )
    out = sm.ok("get_post", post_id=post, user_id=author)
    assert [c["comment_id"] for c in out["comments"]] == [
        r[0] for r in sm.query("SELECT id FROM comments WHERE post_id = ? ORDER BY commented_at, id", post)
    ]
    assert out["like_count"] == count(sm, "likes", "post_id = ?", post)
    assert out["editable_until"] > out["posted_at"]
    private, hidden, stranger = stranger_of_private(sm)
    assert "private profile" in sm.error("get_post", post_id=hidden, user_id=stranger)
    assert "list_posts" in sm.error("get_post", post_id="PST-0001", user_id=stranger)
    assert private


def test_get_feed(sm: LiveServer) -> None:
    user = scalar(
        sm, "SELECT follower_id FROM follows WHERE status = 'accepted' GROUP BY 1 HAVING count(*) >= 5 ORDER BY 1"
    )
    feed = sm.ok("get_feed", user_id=user, limit=100)
    followed = {
        r[0] for r in sm.query("SELECT followee_id FROM follows WHERE follower_id = ? AND status = 'accepted'", user)
    }
    assert feed["posts"]
    assert {p["author_id"] for p in feed["posts"]} <= followed
    assert len(feed["posts"]) == count(sm, "posts", f"author_id IN ({','.join('?' * len(followed))})", *followed)
    dates = [p["posted_at"] for p in feed["posts"]]
    assert dates == sorted(dates, reverse=True)
    assert len(sm.ok("get_feed", user_id=user, limit=2)["posts"]) == 2
    assert "find_users" in sm.error("get_feed", user_id="USR-0000")


def test_create_post(sm: LiveServer) -> None:
    user = scalar(sm, "SELECT id FROM users ORDER BY id")
    out = sm.ok("create_post", author_id=user, text="  Happy Friday, everyone! ")
    assert (out["text"], out["posted_at"], out["editable_until"]) == (
        "Happy Friday, everyone!",
        "2026-01-15T12:00:00",
        "2026-01-16T12:00:00",
    )
    assert one(sm, "SELECT author_id, text FROM posts WHERE id = ?", out["post_id"]) == (
        user,
        "Happy Friday, everyone!",
    )
    state = dump(sm)
    assert "text must be 1 to 280" in sm.error("create_post", author_id=user, text=" ")
    assert "text must be 1 to 280" in sm.error("create_post", author_id=user, text="x" * 281)
    assert "author_id" in sm.error("create_post", author_id="USR-0000", text="hello")
    assert dump(sm) == state


def test_edit_post_within_the_window(sm: LiveServer) -> None:
    post, author = one(sm, f"SELECT id, author_id FROM posts WHERE {RECENT} ORDER BY id")
    out = sm.ok("edit_post", post_id=post, author_id=author, text="Edit: fixed a typo.")
    assert (out["text"], out["edited_at"]) == ("Edit: fixed a typo.", "2026-01-15T12:00:00")
    assert one(sm, "SELECT text, edited_at FROM posts WHERE id = ?", post) == (
        "Edit: fixed a typo.",
        "2026-01-15 12:00:00.000000",
    )
    old, old_author, posted = one(
        sm, f"SELECT id, author_id, posted_at FROM posts WHERE NOT {RECENT} AND author_id = ? ORDER BY id", author
    )
    state = dump(sm)
    err = sm.error("edit_post", post_id=old, author_id=old_author, text="Too late for this")
    assert f"posted at {posted[:16]}" in err
    assert "within 24 hours" in err
    assert post in err  # names the author's posts still editable
    stranger = scalar(sm, "SELECT id FROM users WHERE id != ? ORDER BY id", author)
    assert f"written by {author}" in sm.error("edit_post", post_id=post, author_id=stranger, text="Hijack")
    assert "already has exactly this text" in sm.error(
        "edit_post", post_id=post, author_id=author, text="Edit: fixed a typo."
    )
    assert dump(sm) == state


def test_delete_post_removes_its_comments(sm: LiveServer) -> None:
    post, author = one(
        sm,
        """SELECT p.id, p.author_id FROM posts p WHERE EXISTS (SELECT 1 FROM comments c WHERE c.post_id = p.id)
           AND EXISTS (SELECT 1 FROM likes l WHERE l.post_id = p.id) ORDER BY p.id""",
    )
    comments, likes = count(sm, "comments", "post_id = ?", post), count(sm, "likes", "post_id = ?", post)
    stranger = scalar(sm, "SELECT id FROM users WHERE id != ? ORDER BY id", author)
    state = dump(sm)
    assert "only its author can delete" in sm.error("delete_post", post_id=post, author_id=stranger)
    assert dump(sm) == state
    out = sm.ok("delete_post", post_id=post, author_id=author)
    assert (out["comments_removed"], out["likes_removed"]) == (comments, likes)
    assert (
        count(sm, "posts", "id = ?", post)
        == count(sm, "comments", "post_id = ?", post)
        == count(sm, "likes", "post_id = ?", post)
        == 0
    )
    assert "list_posts" in sm.error("delete_post", post_id=post, author_id=author)
    reported, reported_author = one(
        sm,
        "SELECT r.post_id, p.author_id FROM reports r JOIN posts p ON p.id = r.post_id WHERE r.status = 'open' ORDER BY r.id",
    )
    assert sm.ok("delete_post", post_id=reported, author_id=reported_author)["reports_resolved"] >= 1
    assert count(sm, "reports", "post_id = ? AND status = 'open'", reported) == 0
