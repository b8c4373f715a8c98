"""The email server, driven through a real MCP client on an in-memory database: mailboxes and folders."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.email.common import count, full_mailbox, next_number, roomy_mailbox
from tests.servers.helpers import assert_error


def test_list_mailboxes(mail: LiveServer) -> None:
    everyone = mail.ok("list_mailboxes")
    assert [m["mailbox_id"] for m in everyone] == [r[0] for r in mail.query("SELECT id FROM mailboxes ORDER BY id")]
    assert len(mail.ok("list_mailboxes", limit=3)) == 3
    address, dept = mail.query("SELECT address, department FROM mailboxes WHERE id = 'MBX-1001'")[0]
    found = mail.ok("list_mailboxes", query=address.split("@")[0].upper())
    assert [m["mailbox_id"] for m in found] == ["MBX-1001"]
    assert all(m["department"] == dept for m in mail.ok("list_mailboxes", query=dept))
    assert mail.ok("list_mailboxes", query="nobody-like-this") == []
    assert_error(mail, "list_mailboxes", "between 1 and 100", limit=0)


def test_get_mailbox_shows_quota_and_folders(mail: LiveServer) -> None:
    box = full_mailbox(mail)
    info = mail.ok("get_mailbox", mailbox_id=box.lower())
    assert info["mailbox_id"] == box
    assert info["quota"] == "20.0 MB"
    assert 95 < info["used_percent"] < 100
    assert info["free"].endswith("KB")
    names = [f["name"] for f in info["folders"]]
    assert names[:5] == ["Inbox", "Sent", "Drafts", "Archive", "Trash"]
    inbox = info["folders"][0]
    assert inbox["messages"] == count(mail, "messages", "folder_id = ? ", inbox["folder_id"])
    assert info["unread"] == count(
        mail,
        "messages",
        "mailbox_id = ? AND is_read = 0 AND folder_id NOT IN (SELECT id FROM folders WHERE name = 'Trash')",
        box,
    )
    drafts = next(f for f in info["folders"] if f["name"] == "Drafts")
    assert drafts["messages"] == count(mail, "drafts", "mailbox_id = ? AND status = 'draft'", box)
    assert_error(mail, "get_mailbox", "No mailbox with id 'MBX-9'", "list_mailboxes", mailbox_id="MBX-9")


def test_list_folders(mail: LiveServer) -> None:
    box = roomy_mailbox(mail)
    folders = mail.ok("list_folders", mailbox_id=box)
    assert [f["folder_id"] for f in folders] == [
        r[0] for r in mail.query("SELECT id FROM folders WHERE mailbox_id = ? ORDER BY id", box)
    ]
    assert all(f["system"] for f in folders[:5])
    assert_error(mail, "list_folders", "list_mailboxes", mailbox_id="nope")


def test_create_folder(mail: LiveServer) -> None:
    box = roomy_mailbox(mail)
    new_id = f"FLD-{next_number(mail, 'folders')}"
    out = mail.ok("create_folder", mailbox_id=box, folder_name="  Board   Minutes ")
    assert out == {"folder_id": new_id, "mailbox_id": box, "name": "Board Minutes", "system": False}
    assert mail.query("SELECT mailbox_id, name, system FROM folders WHERE id = ?", new_id) == [
        (box, "Board Minutes", 0)
    ]
    # names are unique per mailbox, case-insensitive, system folders included
    assert_error(
        mail,
        "create_folder",
        "already has a folder named 'Board Minutes'",
        new_id,
        mailbox_id=box,
        folder_name="board minutes",
    )
    assert_error(
        mail, "create_folder", "already has a system folder named 'Inbox'", mailbox_id=box, folder_name="INBOX"
    )
    # ... but another mailbox may use the same name
    other = mail.query("SELECT id FROM mailboxes WHERE id != ? ORDER BY id", box)[0][0]
    mail.ok("create_folder", mailbox_id=other, folder_name="Board Minutes")
    assert_error(mail, "create_folder", "1 to 40 characters", mailbox_id=box, folder_name="   ")
    assert_error(mail, "create_folder", "cannot contain '/'", mailbox_id=box, folder_name="a/b")
    before = count(mail, "folders")
    assert_error(mail, "create_folder", "list_mailboxes", mailbox_id="MBX-1", folder_name="X")
    assert count(mail, "folders") == before


def test_folder_limit(mail: LiveServer) -> None:
    box = roomy_mailbox(mail)
    have = count(mail, "folders", "mailbox_id = ?", box)
    for i in range(20 - have):
        mail.ok("create_folder", mailbox_id=box, folder_name=f"Folder {i}")
    assert_error(mail, "create_folder", "maximum is 20", mailbox_id=box, folder_name="One more")
