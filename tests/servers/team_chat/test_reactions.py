"""The team chat server through a real MCP client: emoji reactions and pins."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import assert_error, one, scalar
from tests.servers.team_chat.common import authored, count, member, outsider


def test_add_and_remove_reaction(chat: LiveServer) -> None:
    message, author, channel = authored(chat)
    before = count(chat, "reactions", "message_id = ?", message)
    out = chat.ok("add_reaction", message_id=message, user_id=author, emoji=":Rocket:")
    assert out["emoji"] == "rocket" and out["reactions"]["rocket"] >= 1
    assert count(chat, "reactions", "message_id = ? AND user_id = ? AND emoji = 'rocket'", message, author) == 1
    err = assert_error(
        chat, "add_reaction", "already reacted with :rocket:", message_id=message, user_id=author, emoji="rocket"
    )
    assert "once per user" in err
    assert count(chat, "reactions", "message_id = ?", message) == before + 1
    # someone else may add the same emoji
    other = outsider(chat, channel)
    chat.ok("add_reaction", message_id=message, user_id=other, emoji="rocket")
    assert count(chat, "reactions", "message_id = ? AND emoji = 'rocket'", message) >= 2
    assert_error(chat, "add_reaction", "not an emoji name", message_id=message, user_id=author, emoji="::")

    removed = chat.ok("remove_reaction", message_id=message, user_id=author, emoji="rocket")
    assert removed["removed"] == "rocket"
    assert count(chat, "reactions", "message_id = ? AND user_id = ? AND emoji = 'rocket'", message, author) == 0
    assert_error(
        chat, "remove_reaction", "has no :rocket: reaction", message_id=message, user_id=author, emoji="rocket"
    )

    private, _ = member(chat, private=True)
    secret = scalar(chat, "SELECT id FROM messages WHERE channel_id = ? ORDER BY id", private)
    assert_error(
        chat, "add_reaction", "private channel", message_id=secret, user_id=outsider(chat, private), emoji="eyes"
    )
    archived_msg, archived_author, _ = authored(chat, archived=True)
    assert_error(chat, "add_reaction", "archived", message_id=archived_msg, user_id=archived_author, emoji="eyes")
    reaction = one(
        chat,
        "SELECT r.message_id, r.user_id, r.emoji FROM reactions r JOIN messages m ON m.id = r.message_id "
        "JOIN channels c ON c.id = m.channel_id WHERE c.archived = 1 ORDER BY r.id",
    )
    assert_error(chat, "remove_reaction", "archived", message_id=reaction[0], user_id=reaction[1], emoji=reaction[2])


def test_pin_unpin_and_list_pins(chat: LiveServer) -> None:
    message, author, channel = one(
        chat,
        """SELECT m.id, m.user_id, m.channel_id FROM messages m JOIN channels c ON c.id = m.channel_id
           WHERE c.archived = 0 AND c.is_private = 0 AND m.id NOT IN (SELECT message_id FROM pins)
             AND m.user_id IN (SELECT user_id FROM memberships WHERE channel_id = c.id)
             AND m.user_id IN (SELECT id FROM users WHERE deactivated = 0) ORDER BY m.id""",
    )
    pinned = count(chat, "pins", "channel_id = ?", channel)
    assert_error(chat, "pin_message", "join_channel first", message_id=message, user_id=outsider(chat, channel))
    out = chat.ok("pin_message", message_id=message, user_id=author)
    assert out["message_id"] == message and out["pinned_by"] == author
    assert chat.query("SELECT channel_id, user_id, pinned_at FROM pins WHERE message_id = ?", message) == [
        (channel, author, "2026-01-15 10:00:00.000000")
    ]
    assert_error(chat, "pin_message", "already pinned", message_id=message, user_id=author)
    listed = chat.ok("list_pins", channel_id=channel, user_id=author)
    assert len(listed["pins"]) == pinned + 1
    assert listed["pins"][-1]["message"]["message_id"] == message and listed["pins"][-1]["message"]["pinned"]

    chat.ok("unpin_message", message_id=message, user_id=author)
    assert count(chat, "pins", "message_id = ?", message) == 0
    assert count(chat, "messages", "id = ?", message) == 1
    assert_error(chat, "unpin_message", "not pinned", "list_pins", message_id=message, user_id=author)

    # at most 10 pins per channel
    candidates = chat.query(
        "SELECT id FROM messages WHERE channel_id = ? AND id NOT IN (SELECT message_id FROM pins) ORDER BY id", channel
    )
    for (mid,) in candidates[: 10 - pinned]:
        chat.ok("pin_message", message_id=mid, user_id=author)
    assert count(chat, "pins", "channel_id = ?", channel) == 10
    extra = candidates[10 - pinned][0]
    assert_error(chat, "pin_message", "maximum", "unpin_message", message_id=extra, user_id=author)

    private, _ = member(chat, private=True)
    assert_error(chat, "list_pins", "private channel", channel_id=private, user_id=outsider(chat, private))
    archived_pin = one(
        chat,
        "SELECT p.message_id, m.user_id FROM pins p JOIN channels c ON c.id = p.channel_id "
        "JOIN memberships m ON m.channel_id = c.id WHERE c.archived = 1 ORDER BY p.id, m.user_id",
    )
    assert_error(chat, "unpin_message", "archived", message_id=archived_pin[0], user_id=archived_pin[1])
