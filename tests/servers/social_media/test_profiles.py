"""The social media server, driven through a real MCP client on an in-memory database: profiles and connections."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump, one, scalar
from tests.servers.social_media.common import count, public_pair, stranger_of_private


def test_find_users(sm: LiveServer) -> None:
    user, handle, name = one(sm, "SELECT id, handle, display_name FROM users ORDER BY id")
    assert user in [u["user_id"] for u in sm.ok("find_users", query="@" + handle.upper())]
    assert user in [u["user_id"] for u in sm.ok("find_users", query=name.split()[1])]
    assert len(sm.ok("find_users", query="a_", limit=3)) == 3
    assert sm.ok("find_users", query="zzzz") == []
    assert "at least 2 characters" in sm.error("find_users", query=" q ")


def test_get_profile(sm: LiveServer) -> None:
    user = scalar(sm, "SELECT followee_id FROM follows WHERE status = 'pending' ORDER BY id")
    out = sm.ok("get_profile", user_id=user.lower())
    assert out["is_private"] is True
    assert out["followers"] == count(sm, "follows", "followee_id = ? AND status = 'accepted'", user)
    assert out["following"] == count(sm, "follows", "follower_id = ? AND status = 'accepted'", user)
    assert out["pending_requests"] == count(sm, "follows", "followee_id = ? AND status = 'pending'", user)
    assert out["posts"] == count(sm, "posts", "author_id = ?", user)
    err = sm.error("get_profile", user_id="USR-0001")
    assert "find_users" in err


def test_list_connections(sm: LiveServer) -> None:
    user = scalar(sm, "SELECT followee_id FROM follows WHERE status = 'pending' ORDER BY id")
    followers = sm.ok("list_connections", user_id=user, kind="followers")
    assert [f["user_id"] for f in followers] == [
        r[0]
        for r in sm.query(
            "SELECT follower_id FROM follows WHERE followee_id = ? AND status = 'accepted' ORDER BY id", user
        )
    ]
    requests = sm.ok("list_connections", user_id=user, kind="requests")
    assert requests
    assert {r["status"] for r in requests} == {"pending"}
    following = sm.ok("list_connections", user_id=user, kind="following")
    assert len(following) == count(sm, "follows", "follower_id = ? AND status = 'accepted'", user)
    blocker = scalar(sm, "SELECT blocker_id FROM blocks ORDER BY id")
    blocked = sm.ok("list_connections", user_id=blocker, kind="blocked")
    assert [b["block_id"] for b in blocked] == [
        r[0] for r in sm.query("SELECT id FROM blocks WHERE blocker_id = ? ORDER BY id", blocker)
    ]
    assert "kind must be one of" in sm.error("list_connections", user_id=user, kind="friends")


def test_follow_user(sm: LiveServer) -> None:
    private, _, stranger = stranger_of_private(sm)
    out = sm.ok("follow_user", user_id=stranger, target_user_id=private)
    assert (out["status"], out["requested_at"]) == ("pending", "2026-01-15T12:00:00")
    public, _, other = public_pair(sm)
    assert sm.ok("follow_user", user_id=other, target_user_id=public)["status"] == "accepted"
    assert one(sm, "SELECT status FROM follows WHERE follower_id = ? AND followee_id = ?", other, public) == (
        "accepted",
    )
    state = dump(sm)
    assert "already follows" in sm.error("follow_user", user_id=other, target_user_id=public)
    assert "pending follow request" in sm.error("follow_user", user_id=stranger, target_user_id=private)
    assert "cannot follow themselves" in sm.error("follow_user", user_id=other, target_user_id=other)
    blocker, blocked = one(sm, "SELECT blocker_id, blocked_id FROM blocks ORDER BY id")
    assert "has blocked" in sm.error("follow_user", user_id=blocked, target_user_id=blocker)
    assert "unblock_user" in sm.error("follow_user", user_id=blocker, target_user_id=blocked)
    assert "target_user_id" in sm.error("follow_user", user_id=other, target_user_id="USR-0000")
    assert dump(sm) == state


def test_unfollow_user(sm: LiveServer) -> None:
    follow, follower, followee = one(
        sm, "SELECT id, follower_id, followee_id FROM follows WHERE status = 'accepted' ORDER BY id"
    )
    out = sm.ok("unfollow_user", follower_id=follower, followee_id=followee)
    assert (out["removed_follow_id"], out["was"]) == (follow, "accepted")
    assert sm.query("SELECT id FROM follows WHERE id = ?", follow) == []
    pending, a, b = one(sm, "SELECT id, follower_id, followee_id FROM follows WHERE status = 'pending' ORDER BY id")
    assert sm.ok("unfollow_user", follower_id=a, followee_id=b)["was"] == "pending"
    state = dump(sm)
    assert "does not follow" in sm.error("unfollow_user", follower_id=follower, followee_id=followee)
    assert dump(sm) == state
    assert pending


def test_respond_to_follow_request(sm: LiveServer) -> None:
    follow, follower, followee = one(
        sm, "SELECT id, follower_id, followee_id FROM follows WHERE status = 'pending' ORDER BY id"
    )
    assert "private profile" in sm.error("list_posts", author_id=followee, user_id=follower)
    out = sm.ok("respond_to_follow_request", follow_id=follow, decision="Accept")
    assert out["status"] == "accepted"
    assert scalar(sm, "SELECT status FROM follows WHERE id = ?", follow) == "accepted"
    assert sm.ok("list_posts", author_id=followee, user_id=follower)["author_id"] == followee
    state = dump(sm)
    err = sm.error("respond_to_follow_request", follow_id=follow, decision="decline")
    assert "already accepted" in err
    waiting = scalar(sm, "SELECT id FROM follows WHERE followee_id = ? AND status = 'pending' ORDER BY id", followee)
    assert waiting in err  # names the requests still waiting
    assert "accept or decline" in sm.error("respond_to_follow_request", follow_id=waiting, decision="maybe")
    assert "list_connections" in sm.error("respond_to_follow_request", follow_id="FOL-0001", decision="accept")
    assert dump(sm) == state
    assert sm.ok("respond_to_follow_request", follow_id=waiting, decision="decline")["status"] == "declined"
    assert sm.query("SELECT id FROM follows WHERE id = ?", waiting) == []


def test_block_user_removes_follows(sm: LiveServer) -> None:
    a, b = one(
        sm,
        """SELECT f.follower_id, f.followee_id FROM follows f JOIN follows g ON g.follower_id = f.followee_id
           AND g.followee_id = f.follower_id ORDER BY f.id""",
    )
    out = sm.ok("block_user", user_id=a, target_user_id=b)
    assert len(out["removed_follow_ids"]) == 2
    assert sm.query("SELECT id FROM follows WHERE follower_id IN (?, ?) AND followee_id IN (?, ?)", a, b, a, b) == []
    assert one(sm, "SELECT blocker_id, blocked_id FROM blocks WHERE id = ?", out["block_id"]) == (a, b)
    state = dump(sm)
    assert "already blocked" in sm.error("block_user", user_id=a, target_user_id=b)
    assert "cannot block themselves" in sm.error("block_user", user_id=a, target_user_id=a)
    assert "has blocked" in sm.error("follow_user", user_id=b, target_user_id=a)
    assert dump(sm) == state


def test_unblock_user(sm: LiveServer) -> None:
    block, blocker, blocked = one(sm, "SELECT id, blocker_id, blocked_id FROM blocks ORDER BY id")
    assert sm.ok("unblock_user", blocker_id=blocker, blocked_id=blocked)["removed_block_id"] == block
    assert sm.query("SELECT id FROM blocks WHERE id = ?", block) == []
    state = dump(sm)
    assert "has not blocked" in sm.error("unblock_user", blocker_id=blocker, blocked_id=blocked)
    assert "blocked_id" in sm.error("unblock_user", blocker_id=blocker, blocked_id="USR-0000")
    assert dump(sm) == state
    sm.ok("send_message", sender_id=blocked, recipient_id=blocker, text="Sorry about that.")
