"""The email server, driven through a real MCP client on an in-memory database: the server as a whole."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from gym_mcp.servers.email import kit
from tests.helpers import LiveServer
from tests.servers.email.common import TABLES, backup_message, count, full_mailbox, received, roomy_mailbox
from tests.servers.helpers import (
    assert_listed_with_kinds,
    dump,
)

WRITES = {
    "create_folder",
    "mark_read",
    "mark_unread",
    "move_message",
    "delete_message",
    "empty_trash",
    "create_label",
    "apply_label",
    "remove_label",
    "create_draft",
    "update_draft",
    "add_attachment",
    "send_draft",
    "send_message",
    "reply_to_message",
    "forward_message",
    "add_contact",
}
READS = {
    "list_mailboxes",
    "get_mailbox",
    "list_folders",
    "list_messages",
    "search_messages",
    "get_message",
    "get_thread",
    "list_labels",
    "list_drafts",
    "list_contacts",
    "find_contact",
}


def test_tools_are_listed_with_kinds(mail: LiveServer) -> None:
    assert_listed_with_kinds(mail, kit, writes=WRITES, reads=READS)
    assert set(kit.tools) == WRITES | READS
    assert {n for n, info in kit.tools.items() if info.confirm} == {"empty_trash"}
    assert kit.tools["empty_trash"].confirm == "always"


def test_synthesis_samples_make_valid_calls(mail: LiveServer) -> None:
    box = roomy_mailbox(mail)
    compose = kit.tools["send_message"].samples
    for i, to in enumerate(compose["to"]):
        mail.ok(
            "send_message",
            mailbox_id=box,
            to=to,
            subject=compose["subject"][i % len(compose["subject"])],
            body=compose["body"][i % len(compose["body"])],
            cc=compose["cc"][i % len(compose["cc"])],
        )
    for name in kit.tools["add_contact"].samples["contact_name"]:
        i = kit.tools["add_contact"].samples["contact_name"].index(name)
        mail.ok("add_contact", mailbox_id=box, contact_name=name, email=kit.tools["add_contact"].samples["email"][i])
    for folder in kit.tools["list_messages"].samples["folder"]:
        mail.ok("list_messages", mailbox_id=box, folder=folder)


def test_seed_has_enough_entities(mail: LiveServer) -> None:
    counts = {t: count(mail, t) for t in TABLES}
    assert sum(counts.values()) >= 200
    assert counts["mailboxes"] >= 12
    assert counts["folders"] >= counts["mailboxes"] * 5
    assert counts["messages"] >= 250
    assert counts["threads"] >= 100
    assert counts["drafts"] >= 15
    assert counts["labels"] >= 40
    assert counts["attachments"] >= 50
    assert counts["contacts"] >= 60
    # the error paths are reachable
    assert count(mail, "mailboxes", "quota_bytes = 20 * 1048576") == 3
    assert count(mail, "drafts", "to_addrs = ''") >= 2
    assert count(mail, "messages", "is_read = 0") >= 20
    trash = "folder_id IN (SELECT id FROM folders WHERE name = 'Trash')"
    assert count(mail, "messages", trash) >= 5
    backup_message(mail, full_mailbox(mail))


def test_seed_is_consistent(mail: LiveServer) -> None:
    # every message sits in a folder and a thread of its own mailbox
    assert (
        mail.query(
            "SELECT m.id FROM messages m JOIN folders f ON f.id = m.folder_id JOIN threads t ON t.id = m.thread_id "
            "WHERE f.mailbox_id != m.mailbox_id OR t.mailbox_id != m.mailbox_id"
        )
        == []
    )
    # labels on a message belong to its mailbox; sent mail is from the mailbox's own address
    assert (
        mail.query(
            "SELECT ml.message_id FROM message_labels ml JOIN messages m ON m.id = ml.message_id "
            "JOIN labels l ON l.id = ml.label_id WHERE l.mailbox_id != m.mailbox_id"
        )
        == []
    )
    assert (
        mail.query(
            "SELECT m.id FROM messages m JOIN mailboxes b ON b.id = m.mailbox_id "
            "WHERE m.direction = 'sent' AND m.sender != b.address"
        )
        == []
    )
    # received mail is never in Sent, nothing is in Drafts, and nothing is dated after now
    assert (
        count(mail, "messages", "direction = 'received' AND folder_id IN (SELECT id FROM folders WHERE name = 'Sent')")
        == 0
    )
    assert count(mail, "messages", "folder_id IN (SELECT id FROM folders WHERE name = 'Drafts')") == 0
    assert count(mail, "messages", "sent_at > '2026-01-15 09:30:00'") == 0
    # every mailbox is within its quota
    for (box,) in mail.query("SELECT id FROM mailboxes"):
        info = mail.ok("get_mailbox", mailbox_id=box)
        assert info["used_percent"] < 100


def test_same_seed_same_data_other_seed_other_data(mail: LiveServer) -> None:
    assert dump(mail) == dump(LiveServer(kit, seed=0))
    other = dump(LiveServer(kit, seed=1))
    assert other != dump(mail)
    assert other["mailboxes"] != dump(mail)["mailboxes"]


def test_replaying_calls_gives_identical_state() -> None:
    servers = [LiveServer(kit, seed=0), LiveServer(kit, seed=0)]
    results = []
    for server in servers:
        box = roomy_mailbox(server)
        msg = received(server, box)
        draft = server.ok("create_draft", mailbox_id=box, subject="Plan", body="Draft text", to=["a@b.example"])
        results.append(
            [
                server.ok("reply_to_message", message_id=msg, body="Thanks!"),
                server.ok("add_attachment", draft_id=draft["draft_id"], filename="plan.pdf", size_kb=120),
                server.ok("send_draft", draft_id=draft["draft_id"]),
                server.ok("delete_message", message_id=msg),
                server.ok("empty_trash", mailbox_id=box),
            ]
        )
    assert results[0] == results[1]
    assert dump(servers[0]) == dump(servers[1])


def test_serves_over_stdio_to_a_real_client(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "gym_mcp.servers.email", "--db", f"sqlite:///{tmp_path / 'mail.db'}"],
        env={**os.environ},
    )

    async def talk() -> tuple[list[str], str]:
        async with Client(stdio_client(params)) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            result = await client.call_tool("get_mailbox", {"mailbox_id": "MBX-1001"})
            return names, "".join(getattr(c, "text", "") for c in result.content)

    names, text = asyncio.run(talk())
    assert set(names) == set(kit.tools)
    assert '"mailbox_id":"MBX-1001"' in text
    assert (tmp_path / "mail.db").exists()
