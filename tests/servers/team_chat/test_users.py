"""The team chat server through a real MCP client: people, statuses and direct messages."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import assert_error, one, scalar
from tests.servers.team_chat.common import count, deactivated


def test_list_users_and_get_user(chat: LiveServer) -> None:
    users = chat.ok("list_users", workspace_id="wks-1001")
    active = count(chat, "users", "workspace_id = 'WKS-1001' AND deactivated = 0")
    assert len(users) == active
    assert all("deactivated" not in u for u in users)
    everyone = chat.ok("list_users", workspace_id="WKS-1001", include_deactivated=True, limit=100)
    assert len(everyone) == count(chat, "users", "workspace_id = 'WKS-1001'")
    user_id, full_name, title = one(chat, "SELECT id, full_name, title FROM users WHERE deactivated = 0 ORDER BY id")
    found = chat.ok("list_users", workspace_id="WKS-1001", query=full_name.split()[1].upper())
    assert user_id in [u["user_id"] for u in found]
    assert all(title.lower() in u["title"].lower() for u in chat.ok("list_users", workspace_id="WKS-1001", query=title))
    assert len(chat.ok("list_users", workspace_id="WKS-1001", limit=3)) == 3
    assert_error(chat, "list_users", "WKS-1001", workspace_id="WKS-9")
    assert_error(chat, "list_users", "limit must be between 1 and 100", workspace_id="WKS-1001", limit=0)

    profile = chat.ok("get_user", user_id=user_id)
    assert profile["full_name"] == full_name
    public = chat.query(
        "SELECT c.id FROM channels c JOIN memberships m ON m.channel_id = c.id "
        "WHERE m.user_id = ? AND c.is_private = 0 ORDER BY c.name",
        user_id,
    )
    assert [c["channel_id"] for c in profile["channels"]] == [r[0] for r in public]
    assert_error(chat, "get_user", "list_users", user_id="USR-1")


def test_set_status(chat: LiveServer) -> None:
    user = scalar(chat, "SELECT id FROM users WHERE deactivated = 0 ORDER BY id")
    out = chat.ok("set_status", user_id=user, status_text=" In a meeting ", status_emoji=":Calendar:", presence="DND")
    assert out["status"] == {"text": "In a meeting", "emoji": "calendar"}
    assert out["presence"] == "dnd"
    assert chat.query("SELECT status_text, status_emoji, presence FROM users WHERE id = ?", user) == [
        ("In a meeting", "calendar", "dnd")
    ]
    chat.ok("set_status", user_id=user, status_text="")
    assert chat.query("SELECT status_text, status_emoji, presence FROM users WHERE id = ?", user) == [("", "", "dnd")]
    assert_error(chat, "set_status", "presence must be one of", user_id=user, status_text="Hi", presence="busy")
    assert_error(chat, "set_status", "0 to 100", user_id=user, status_text="x" * 101)
    assert_error(chat, "set_status", "not an emoji name", user_id=user, status_text="Hi", status_emoji="a b")
    assert_error(chat, "set_status", "deactivated and cannot act", user_id=deactivated(chat), status_text="Hi")
    assert chat.query("SELECT status_text FROM users WHERE id = ?", user) == [("",)]


def test_send_and_list_direct_messages(chat: LiveServer) -> None:
    a, b = one(
        chat,
        "SELECT a.id, b.id FROM users a JOIN users b ON b.workspace_id = a.workspace_id AND b.id > a.id "
        "WHERE a.deactivated = 0 AND b.deactivated = 0 ORDER BY a.id, b.id",
    )
    before = chat.ok("list_direct_messages", user_id=a, with_user_id=b)["total"]
    top = scalar(chat, "SELECT max(id) FROM direct_messages")
    out = chat.ok("send_direct_message", user_id=a, to_user_id=b, text=" Lunch tomorrow? ")
    assert out["dm_id"] == f"DM-{int(top[3:]) + 1}"
    assert out["text"] == "Lunch tomorrow?"
    assert out["sent_at"] == "2026-01-15T10:00"
    assert chat.query("SELECT user_id, to_user_id, text FROM direct_messages WHERE id = ?", out["dm_id"]) == [
        (a, b, "Lunch tomorrow?")
    ]
    listed = chat.ok("list_direct_messages", user_id=b, with_user_id=a, limit=1)
    assert listed["total"] == before + 1
    assert listed["messages"][0]["dm_id"] == out["dm_id"]

    other_ws = scalar(
        chat, "SELECT id FROM users WHERE workspace_id != (SELECT workspace_id FROM users WHERE id = ?)", a
    )
    assert_error(
        chat,
        "send_direct_message",
        "direct messages stay within one workspace",
        user_id=a,
        to_user_id=other_ws,
        text="Hi",
    )
    assert_error(chat, "send_direct_message", "themselves", user_id=a, to_user_id=a, text="Hi")
    assert_error(chat, "send_direct_message", "1 to 4000", user_id=a, to_user_id=b, text="   ")
    gone = scalar(
        chat,
        "SELECT id FROM users WHERE deactivated = 1 AND workspace_id = (SELECT workspace_id FROM users WHERE id = ?)",
        a,
    )
    assert_error(chat, "send_direct_message", "cannot receive messages", user_id=a, to_user_id=gone, text="Hi")
    assert_error(chat, "send_direct_message", "deactivated and cannot act", user_id=gone, to_user_id=a, text="Hi")
    assert_error(chat, "send_direct_message", "to_user_id", user_id=a, to_user_id="USR-9", text="Hi")
    assert_error(chat, "list_direct_messages", "another user", user_id=a, with_user_id=a)
    assert count(chat, "direct_messages", "user_id = ? AND to_user_id = ?", a, b) >= 1
    assert chat.query("SELECT count(*) FROM direct_messages WHERE id > ?", out["dm_id"]) == [(0,)]
