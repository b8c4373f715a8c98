"""The team chat server, driven through a real MCP client on an in-memory database: the server as a whole."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from gym_mcp.servers.team_chat import kit
from tests.helpers import LiveServer
from tests.servers.helpers import (
    assert_listed_with_kinds,
    dump,
)
from tests.servers.team_chat.common import TABLES, authored, count, member

WRITES = {
    "set_status",
    "send_direct_message",
    "create_channel",
    "join_channel",
    "leave_channel",
    "invite_to_channel",
    "archive_channel",
    "unarchive_channel",
    "set_topic",
    "post_message",
    "reply_in_thread",
    "edit_message",
    "delete_message",
    "add_reaction",
    "remove_reaction",
    "pin_message",
    "unpin_message",
}
READS = {
    "list_users",
    "get_user",
    "list_direct_messages",
    "list_channels",
    "get_channel",
    "get_thread",
    "list_messages",
    "search_messages",
    "list_pins",
}


def test_tools_are_listed_with_kinds(chat: LiveServer) -> None:
    assert_listed_with_kinds(chat, kit, writes=WRITES, reads=READS)
    assert set(kit.tools) == WRITES | READS
    assert {n for n, info in kit.tools.items() if info.confirm} == {"archive_channel", "delete_message"}


def test_seed_has_enough_entities(chat: LiveServer) -> None:
    counts = {t: count(chat, t) for t in TABLES}
    assert sum(counts.values()) >= 200
    assert counts["workspaces"] == 2
    assert counts["users"] >= 40
    assert counts["channels"] >= 20
    assert counts["messages"] >= 200
    assert counts["reactions"] >= 100
    assert counts["pins"] >= 10
    assert counts["direct_messages"] >= 50
    # the error paths are reachable
    assert count(chat, "channels", "is_private = 1") >= 3
    assert count(chat, "channels", "archived = 1") >= 2
    assert count(chat, "users", "deactivated = 1") >= 2
    assert count(chat, "messages", "parent_id IS NOT NULL") >= 30
    member(chat, private=True)
    member(chat, archived=True)
    authored(chat, reply=True)


def test_seed_is_internally_consistent(chat: LiveServer) -> None:
    # authors, reactors and pinners belong to the channel's workspace; replies stay in their parent's channel
    assert (
        chat.query(
            """SELECT m.id FROM messages m JOIN channels c ON c.id = m.channel_id JOIN users u ON u.id = m.user_id
           WHERE u.workspace_id != c.workspace_id"""
        )
        == []
    )
    assert (
        chat.query(
            "SELECT r.id FROM messages r JOIN messages p ON p.id = r.parent_id "
            "WHERE r.channel_id != p.channel_id OR p.parent_id IS NOT NULL OR r.posted_at <= p.posted_at"
        )
        == []
    )
    assert (
        chat.query(
            "SELECT d.id FROM direct_messages d JOIN users a ON a.id = d.user_id JOIN users b ON b.id = d.to_user_id "
            "WHERE a.workspace_id != b.workspace_id OR a.id = b.id"
        )
        == []
    )
    assert (
        chat.query("SELECT p.id FROM pins p JOIN messages m ON m.id = p.message_id WHERE m.channel_id != p.channel_id")
        == []
    )
    assert chat.query("SELECT name FROM channels WHERE name NOT GLOB '[a-z0-9]*' OR name GLOB '*[^a-z0-9-]*'") == []
    assert chat.query("SELECT max(posted_at) FROM messages")[0][0] < "2026-01-15T10:00"


def test_same_seed_same_data_other_seed_other_data(chat: LiveServer) -> None:
    assert dump(chat) == dump(LiveServer(kit, seed=0))
    other = dump(LiveServer(kit, seed=1))
    assert other != dump(chat)
    assert other["users"] != dump(chat)["users"]


def test_replaying_calls_gives_identical_state() -> None:
    servers = [LiveServer(kit, seed=0), LiveServer(kit, seed=0)]
    results = []
    for server in servers:
        channel, user = member(server)
        posted = server.ok("post_message", channel_id=channel, user_id=user, text="Replay me")
        results.append(
            [
                posted,
                server.ok("reply_in_thread", message_id=posted["message_id"], user_id=user, text="And me"),
                server.ok("add_reaction", message_id=posted["message_id"], user_id=user, emoji="tada"),
                server.ok("create_channel", user_id=user, channel_name="replay-test", visibility="private"),
            ]
        )
    assert results[0] == results[1]
    assert dump(servers[0]) == dump(servers[1])


def test_serves_over_stdio_to_a_real_client(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "gym_mcp.servers.team_chat", "--db", f"sqlite:///{tmp_path / 'chat.db'}"],
        env={**os.environ},
    )

    async def talk() -> tuple[list[str], str, str]:
        async with Client(stdio_client(params)) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            ok = await client.call_tool("list_channels", {"user_id": "USR-1001"})
            bad = await client.call_tool("post_message", {"channel_id": "CHN-1", "user_id": "USR-1001", "text": "x"})
            text = "".join(getattr(c, "text", "") for c in ok.content)
            return names, text, "".join(getattr(c, "text", "") for c in bad.content)

    names, text, error = asyncio.run(talk())
    assert set(names) == set(kit.tools)
    assert '"name":"general"' in text
    assert "list_channels" in error
    assert (tmp_path / "chat.db").exists()
