"""The team chat server through a real MCP client: channels, memberships, archiving and topics."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import assert_error, scalar
from tests.servers.team_chat.common import count, foreigner, member, outsider


def is_member(chat: LiveServer, channel: str, user: str) -> bool:
    return count(chat, "memberships", "channel_id = ? AND user_id = ?", channel, user) == 1


def test_list_and_get_channels(chat: LiveServer) -> None:
    private, insider = member(chat, private=True)
    stranger = outsider(chat, private)
    seen = {c["channel_id"]: c for c in chat.ok("list_channels", user_id=insider)}
    assert private in seen and seen[private]["is_private"] and seen[private]["is_member"]
    assert private not in {c["channel_id"] for c in chat.ok("list_channels", user_id=stranger)}
    assert all(not c["archived"] for c in seen.values())
    workspace = scalar(chat, "SELECT workspace_id FROM users WHERE id = ?", insider)
    archived = chat.ok("list_channels", user_id=insider, include_archived=True)
    assert {c["channel_id"] for c in archived if c["archived"]} == {
        r[0] for r in chat.query("SELECT id FROM channels WHERE archived = 1 AND workspace_id = ?", workspace)
    }

    out = chat.ok("get_channel", channel_id=private, user_id=insider)
    assert out["member_count"] == len(out["members"]) == count(chat, "memberships", "channel_id = ?", private)
    assert out["pinned_message_ids"] == [
        r[0] for r in chat.query("SELECT message_id FROM pins WHERE channel_id = ? ORDER BY pinned_at, id", private)
    ]
    assert_error(
        chat, "get_channel", "private channel", "only its members can read it", channel_id=private, user_id=stranger
    )
    assert_error(chat, "get_channel", "in workspace", channel_id=private, user_id=foreigner(chat, private))
    assert_error(chat, "get_channel", "list_channels", channel_id="CHN-1", user_id=insider)


def test_create_channel(chat: LiveServer) -> None:
    _, user = member(chat)
    top = scalar(chat, "SELECT max(id) FROM channels")
    out = chat.ok(
        "create_channel", user_id=user, channel_name="#launch-planning", visibility="Private", topic="Q1 launch"
    )
    new = f"CHN-{int(top[4:]) + 1}"
    assert out == {
        "channel_id": new,
        "name": "launch-planning",
        "is_private": True,
        "archived": False,
        "topic": "Q1 launch",
        "member_count": 1,
        "is_member": True,
    }
    assert chat.query("SELECT name, is_private, creator_id, created_on FROM channels WHERE id = ?", new) == [
        ("launch-planning", 1, user, "2026-01-15")
    ]
    assert is_member(chat, new, user)
    err = assert_error(chat, "create_channel", "not valid", "'launch-party'", user_id=user, channel_name="Launch Party")
    assert "lowercase" in err
    assert_error(chat, "create_channel", "not valid", user_id=user, channel_name="a--b")
    assert_error(chat, "create_channel", "already exists", new, user_id=user, channel_name="launch-planning")
    workspace = scalar(chat, "SELECT workspace_id FROM users WHERE id = ?", user)
    archived = scalar(chat, "SELECT name FROM channels WHERE archived = 1 AND workspace_id = ?", workspace)
    assert_error(chat, "create_channel", "unarchive_channel", user_id=user, channel_name=archived)
    assert_error(chat, "create_channel", "visibility must be", user_id=user, channel_name="x-1", visibility="secret")
    # unique per workspace only: the other workspace may reuse a name
    other = scalar(chat, "SELECT id FROM users WHERE deactivated = 0 AND workspace_id != ?", workspace)
    assert chat.ok("create_channel", user_id=other, channel_name="launch-planning")["is_private"] is False
    assert count(chat, "channels", "name = 'launch-planning'") == 2


def test_join_leave_and_invite(chat: LiveServer) -> None:
    public, insider = member(chat)
    stranger = outsider(chat, public)
    out = chat.ok("join_channel", channel_id=public, user_id=stranger)
    assert out["joined"] is True and is_member(chat, public, stranger)
    assert_error(chat, "join_channel", "already a member", channel_id=public, user_id=stranger)
    assert chat.ok("leave_channel", channel_id=public, user_id=stranger)["left"] is True
    assert not is_member(chat, public, stranger)
    assert_error(chat, "leave_channel", "not a member", channel_id=public, user_id=stranger)
    general = scalar(
        chat,
        "SELECT channel_id FROM memberships m JOIN channels c ON c.id = m.channel_id WHERE c.name = 'general' AND m.user_id = ?",
        insider,
    )
    assert_error(chat, "leave_channel", "nobody can leave it", channel_id=general, user_id=insider)

    private, owner = member(chat, private=True)
    guest = outsider(chat, private)
    assert_error(chat, "join_channel", "private channel", "invite_to_channel", channel_id=private, user_id=guest)
    assert_error(chat, "post_message", "invite_to_channel", channel_id=private, user_id=guest, text="Hi")
    assert_error(
        chat,
        "invite_to_channel",
        "not a member of the private channel",
        channel_id=private,
        user_id=guest,
        invitee_user_id=guest,
    )
    out = chat.ok("invite_to_channel", channel_id=private, user_id=owner, invitee_user_id=guest)
    assert out == {"channel_id": private, "name": out["name"], "added_user_id": guest, "added_by": owner}
    assert is_member(chat, private, guest)
    chat.ok("post_message", channel_id=private, user_id=guest, text="Thanks for the invite")
    assert_error(
        chat, "invite_to_channel", "already a member", channel_id=private, user_id=owner, invitee_user_id=guest
    )
    assert_error(
        chat,
        "invite_to_channel",
        "only users of the channel's workspace",
        channel_id=private,
        user_id=owner,
        invitee_user_id=foreigner(chat, private),
    )
    gone = scalar(
        chat,
        "SELECT id FROM users WHERE deactivated = 1 AND workspace_id = (SELECT workspace_id FROM channels WHERE id = ?)",
        private,
    )
    assert_error(chat, "invite_to_channel", "deactivated", channel_id=private, user_id=owner, invitee_user_id=gone)
    assert_error(
        chat, "invite_to_channel", "invitee_user_id", channel_id=private, user_id=owner, invitee_user_id="USR-9"
    )

    archived, archived_member = member(chat, archived=True)
    assert_error(chat, "join_channel", "archived", channel_id=archived, user_id=outsider(chat, archived))
    assert_error(
        chat,
        "invite_to_channel",
        "archived",
        channel_id=archived,
        user_id=archived_member,
        invitee_user_id=outsider(chat, archived),
    )


def test_archive_and_unarchive(chat: LiveServer) -> None:
    public, insider = member(chat)
    stranger = outsider(chat, public)
    assert_error(chat, "archive_channel", "join_channel first", channel_id=public, user_id=stranger)
    messages = count(chat, "messages", "channel_id = ?", public)
    out = chat.ok("archive_channel", channel_id=public, user_id=insider)
    assert out == {"channel_id": public, "name": out["name"], "archived": True, "messages_kept": messages}
    assert chat.query("SELECT archived FROM channels WHERE id = ?", public) == [(1,)]
    assert_error(chat, "archive_channel", "already archived", channel_id=public, user_id=insider)
    # read-only: posting, reacting, pinning and topics are refused, reading still works
    assert_error(
        chat,
        "post_message",
        "archived and read-only",
        "unarchive_channel",
        channel_id=public,
        user_id=insider,
        text="Hi",
    )
    message = scalar(chat, "SELECT id FROM messages WHERE channel_id = ? ORDER BY id", public)
    assert_error(chat, "add_reaction", "archived", message_id=message, user_id=insider, emoji="eyes")
    assert_error(chat, "pin_message", "archived", message_id=message, user_id=insider)
    assert_error(chat, "set_topic", "archived", channel_id=public, user_id=insider, topic="New topic")
    assert chat.ok("list_messages", channel_id=public, user_id=insider)["archived"] is True
    assert count(chat, "messages", "channel_id = ?", public) == messages

    assert_error(chat, "unarchive_channel", "join_channel first", channel_id=public, user_id=stranger)
    assert chat.ok("unarchive_channel", channel_id=public, user_id=insider)["archived"] is False
    assert chat.query("SELECT archived FROM channels WHERE id = ?", public) == [(0,)]
    assert_error(chat, "unarchive_channel", "not archived", channel_id=public, user_id=insider)
    chat.ok("post_message", channel_id=public, user_id=insider, text="Back in business")
    general = scalar(
        chat,
        "SELECT c.id FROM channels c JOIN memberships m ON m.channel_id = c.id WHERE c.name = 'general' AND m.user_id = ?",
        insider,
    )
    assert_error(chat, "archive_channel", "cannot be archived", channel_id=general, user_id=insider)


def test_set_topic(chat: LiveServer) -> None:
    public, insider = member(chat)
    out = chat.ok("set_topic", channel_id=public, user_id=insider, topic=" Weekly sync notes ")
    assert out["topic"] == "Weekly sync notes"
    assert chat.query("SELECT topic FROM channels WHERE id = ?", public) == [("Weekly sync notes",)]
    assert_error(
        chat, "set_topic", "already has that topic", channel_id=public, user_id=insider, topic="Weekly sync notes"
    )
    assert_error(
        chat, "set_topic", "join_channel first", channel_id=public, user_id=outsider(chat, public), topic="Mine"
    )
    assert_error(chat, "set_topic", "0 to 250", channel_id=public, user_id=insider, topic="x" * 251)
    assert chat.ok("set_topic", channel_id=public, user_id=insider, topic="")["topic"] == ""
    assert chat.query("SELECT topic FROM channels WHERE id = ?", public) == [("",)]
