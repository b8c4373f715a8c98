"""The team chat server through a real MCP client: posting, threads, reading, searching, editing, deleting."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import assert_error, scalar
from tests.servers.team_chat.common import authored, count, deactivated, foreigner, member, outsider


def test_post_message(chat: LiveServer) -> None:
    public, insider = member(chat)
    top = scalar(chat, "SELECT max(id) FROM messages")
    out = chat.ok("post_message", channel_id=public, user_id=insider, text=" Deploy is done ")
    new = f"MSG-{int(top[4:]) + 1}"
    assert out == {
        "message_id": new,
        "channel_id": public,
        "user_id": insider,
        "text": "Deploy is done",
        "posted_at": "2026-01-15T10:00",
        "edited": False,
        "reply_count": 0,
    }
    assert chat.query("SELECT channel_id, user_id, parent_id, text, edited FROM messages WHERE id = ?", new) == [
        (public, insider, None, "Deploy is done", 0)
    ]
    assert chat.ok("list_messages", channel_id=public, user_id=insider, limit=1)["messages"][0]["message_id"] == new
    assert_error(
        chat, "post_message", "join_channel first", channel_id=public, user_id=outsider(chat, public), text="Hi"
    )
    assert_error(chat, "post_message", "in workspace", channel_id=public, user_id=foreigner(chat, public), text="Hi")
    assert_error(chat, "post_message", "1 to 4000", channel_id=public, user_id=insider, text="")
    assert_error(chat, "post_message", "deactivated", channel_id=public, user_id=deactivated(chat), text="Hi")
    assert_error(chat, "post_message", "list_channels", channel_id="CHN-9", user_id=insider, text="Hi")
    assert count(chat, "messages", "id > ?", new) == 0


def test_reply_in_thread_and_get_thread(chat: LiveServer) -> None:
    message, author, channel = authored(chat)
    replies = count(chat, "messages", "parent_id = ?", message)
    out = chat.ok("reply_in_thread", message_id=message, user_id=author, text="On it")
    assert out["thread_of"] == message and out["channel_id"] == channel
    assert chat.query("SELECT parent_id, channel_id FROM messages WHERE id = ?", out["message_id"]) == [
        (message, channel)
    ]
    thread = chat.ok("get_thread", message_id=out["message_id"], user_id=author)
    assert thread["message"]["message_id"] == message
    assert thread["message"]["reply_count"] == replies + 1
    assert [r["message_id"] for r in thread["replies"]][-1] == out["message_id"]
    err = assert_error(
        chat, "reply_in_thread", "one level deep", message, message_id=out["message_id"], user_id=author, text="x"
    )
    assert f"top-level message {message}" in err
    assert_error(
        chat, "reply_in_thread", "join_channel first", message_id=message, user_id=outsider(chat, channel), text="x"
    )
    assert_error(chat, "reply_in_thread", "list_messages", message_id="MSG-1", user_id=author, text="x")
    archived_msg, archived_author, _ = authored(chat, archived=True)
    assert_error(chat, "reply_in_thread", "archived", message_id=archived_msg, user_id=archived_author, text="x")
    private, insider = member(chat, private=True)
    secret = scalar(chat, "SELECT id FROM messages WHERE channel_id = ? ORDER BY id", private)
    assert chat.ok("get_thread", message_id=secret, user_id=insider)["message"]["message_id"] == secret
    assert_error(chat, "get_thread", "only its members can read it", message_id=secret, user_id=outsider(chat, private))


def test_list_messages(chat: LiveServer) -> None:
    public, insider = member(chat)
    out = chat.ok("list_messages", channel_id=public, user_id=insider, limit=3)
    top_level = chat.query(
        "SELECT id FROM messages WHERE channel_id = ? AND parent_id IS NULL ORDER BY posted_at DESC, id DESC", public
    )
    assert [m["message_id"] for m in out["messages"]] == [r[0] for r in top_level[:3]]
    assert out["more"] is (len(top_level) > 3)
    # a public channel reads for anyone in the workspace, a private one only for members
    assert chat.ok("list_messages", channel_id=public, user_id=outsider(chat, public))["channel_id"] == public
    private, _ = member(chat, private=True)
    assert_error(chat, "list_messages", "private channel", channel_id=private, user_id=outsider(chat, private))
    assert_error(
        chat, "list_messages", "limit must be between 1 and 100", channel_id=public, user_id=insider, limit=101
    )


def test_search_messages(chat: LiveServer) -> None:
    private, insider = member(chat, private=True)
    stranger = outsider(chat, private)
    word = scalar(chat, "SELECT text FROM messages WHERE channel_id = ? ORDER BY id", private).split()[1]
    mine = chat.ok("search_messages", user_id=insider, query=word.upper(), limit=100)
    assert mine and all(word.lower() in m["text"].lower() for m in mine)
    assert private in {m["channel_id"] for m in mine}
    assert private not in {m["channel_id"] for m in chat.ok("search_messages", user_id=stranger, query=word, limit=100)}
    only = chat.ok("search_messages", user_id=insider, query=word, channel_id=private)
    assert only and {m["channel_id"] for m in only} == {private}
    assert_error(chat, "search_messages", "only its members", user_id=stranger, query=word, channel_id=private)
    assert_error(chat, "search_messages", "2 to 100", user_id=insider, query="a")
    assert chat.ok("search_messages", user_id=insider, query="zzqxv") == []


def test_edit_message(chat: LiveServer) -> None:
    message, author, channel = authored(chat)
    out = chat.ok("edit_message", message_id=message, user_id=author, text="Correction: 3pm")
    assert out["edited"] is True and out["text"] == "Correction: 3pm"
    assert chat.query("SELECT text, edited, edited_at FROM messages WHERE id = ?", message) == [
        ("Correction: 3pm", 1, "2026-01-15 10:00:00.000000")
    ]
    assert_error(
        chat, "edit_message", "already has that text", message_id=message, user_id=author, text="Correction: 3pm"
    )
    other = scalar(
        chat, "SELECT user_id FROM memberships WHERE channel_id = ? AND user_id != ? ORDER BY user_id", channel, author
    )
    err = assert_error(
        chat, "edit_message", "Only the author", author, message_id=message, user_id=other, text="Hijack"
    )
    assert other in err
    assert chat.query("SELECT text FROM messages WHERE id = ?", message) == [("Correction: 3pm",)]
    archived_msg, archived_author, _ = authored(chat, archived=True)
    assert_error(chat, "edit_message", "archived", message_id=archived_msg, user_id=archived_author, text="x")


def test_delete_message(chat: LiveServer) -> None:
    message, author, _ = one_with_thread(chat)
    replies = count(chat, "messages", "parent_id = ?", message)
    other = scalar(
        chat, "SELECT user_id FROM messages WHERE parent_id = ? AND user_id != ? ORDER BY id", message, author
    )
    assert_error(chat, "delete_message", "Only the author", message_id=message, user_id=other)
    out = chat.ok("delete_message", message_id=message, user_id=author)
    assert out["deleted"] is True and out["replies_deleted"] == replies
    assert count(chat, "messages", "id = ? OR parent_id = ?", message, message) == 0
    assert count(chat, "reactions", "message_id = ?", message) == 0
    assert count(chat, "pins", "message_id = ?", message) == 0
    assert_error(chat, "delete_message", "list_messages", message_id=message, user_id=author)
    archived_msg, archived_author, _ = authored(chat, archived=True)
    assert_error(chat, "delete_message", "archived", message_id=archived_msg, user_id=archived_author)
    assert count(chat, "messages", "id = ?", archived_msg) == 1


def one_with_thread(chat: LiveServer) -> tuple[str, str, str]:
    """(a top-level message with replies by someone else, its active author, its channel) in an open channel."""
    rows = chat.query(
        """SELECT p.id, p.user_id, p.channel_id FROM messages p JOIN channels c ON c.id = p.channel_id
           JOIN users u ON u.id = p.user_id
           WHERE c.archived = 0 AND u.deactivated = 0 AND p.parent_id IS NULL
             AND EXISTS (SELECT 1 FROM messages r WHERE r.parent_id = p.id AND r.user_id != p.user_id)
             AND EXISTS (SELECT 1 FROM reactions x WHERE x.message_id = p.id)
           ORDER BY p.id"""
    )
    assert rows
    return rows[0]
