"""The email server, driven through a real MCP client on an in-memory database: reading and filing messages."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.email.common import backup_message, count, folder_of, full_mailbox, received, roomy_mailbox
from tests.servers.helpers import assert_error, one, scalar


def test_list_messages_by_folder_label_and_read_state(mail: LiveServer) -> None:
    box = roomy_mailbox(mail)
    inbox = mail.ok("list_messages", mailbox_id=box, limit=100)
    assert inbox["folder"] == "Inbox" and inbox["more"] is False
    expected = mail.query(
        "SELECT m.id FROM messages m JOIN folders f ON f.id = m.folder_id WHERE m.mailbox_id = ? AND f.name = 'Inbox' "
        "ORDER BY m.sent_at DESC, m.id DESC",
        box,
    )
    assert [m["message_id"] for m in inbox["messages"]] == [r[0] for r in expected]
    first = mail.ok("list_messages", mailbox_id=box, limit=1)
    assert len(first["messages"]) == 1 and first["more"] is (len(expected) > 1)
    unread = mail.ok("list_messages", mailbox_id=box, unread_only=True)
    assert all(m["unread"] for m in unread["messages"])
    sent = mail.ok("list_messages", mailbox_id=box, folder="sent")
    assert sent["folder"] == "Sent" and all(m["from"] == sent["messages"][0]["from"] for m in sent["messages"])
    # a label alone lists it in every folder but Trash
    label, n = one(
        mail,
        "SELECT l.name, count(*) FROM labels l JOIN message_labels ml ON ml.label_id = l.id "
        "JOIN messages m ON m.id = ml.message_id JOIN folders f ON f.id = m.folder_id "
        "WHERE l.mailbox_id = ? AND f.name != 'Trash' GROUP BY l.id ORDER BY l.id",
        box,
    )
    labelled = mail.ok("list_messages", mailbox_id=box, label=label.lower(), limit=100)
    assert labelled["folder"] == "all but Trash"
    assert len(labelled["messages"]) == n and all(label in m["labels"] for m in labelled["messages"])
    drafts = mail.ok("list_messages", mailbox_id=box, folder="Drafts")
    assert len(drafts["messages"]) == count(mail, "drafts", "mailbox_id = ? AND status = 'draft'", box)
    assert_error(mail, "list_messages", "has no folder 'Spam'", "Inbox, Sent", mailbox_id=box, folder="Spam")
    assert_error(mail, "list_messages", "has no label 'Nope'", "create_label", mailbox_id=box, label="Nope")
    assert_error(mail, "list_messages", "between 1 and 100", mailbox_id=box, limit=500)


def test_search_messages(mail: LiveServer) -> None:
    box, sender, subject = one(
        mail,
        "SELECT mailbox_id, sender, subject FROM messages WHERE direction = 'received' AND subject LIKE 'Invoice%' "
        "ORDER BY id",
    )
    hits = mail.ok("search_messages", mailbox_id=box, text="INVOICE", limit=100)["messages"]
    assert subject in [h["subject"] for h in hits]
    assert all("folder" in h for h in hits)
    from_them = mail.ok("search_messages", mailbox_id=box, sender=sender.split("@")[1], limit=100)["messages"]
    assert from_them and all(h["from"].endswith(sender.split("@")[1]) for h in from_them)
    everything = mail.ok("search_messages", mailbox_id=box, limit=100)["messages"]
    assert len(everything) == count(mail, "messages", "mailbox_id = ?", box)  # Trash included
    day = everything[-1]["date"][:10]
    window = mail.ok("search_messages", mailbox_id=box, start_date=day, end_date=day, limit=100)["messages"]
    assert window and all(h["date"].startswith(day) for h in window)
    assert mail.ok("search_messages", mailbox_id=box, start_date="2026-01-16")["messages"] == []
    assert_error(mail, "search_messages", "swap them", mailbox_id=box, start_date="2026-01-10", end_date="2026-01-01")
    assert_error(mail, "search_messages", "date like 2026-01-10", mailbox_id=box, start_date="last week")


def test_get_message_and_thread(mail: LiveServer) -> None:
    thread, n = one(mail, "SELECT thread_id, count(*) FROM messages GROUP BY thread_id HAVING count(*) >= 3 ORDER BY 1")
    first = scalar(mail, "SELECT id FROM messages WHERE thread_id = ? ORDER BY sent_at LIMIT 1", thread)
    msg = mail.ok("get_message", message_id=first)
    assert msg["thread_id"] == thread and msg["body"] and msg["folder"] == folder_of(mail, first)
    conversation = mail.ok("get_thread", thread_id=thread)
    assert len(conversation["messages"]) == n
    assert conversation["messages"][0]["message_id"] == first
    assert all(m["subject"].startswith("Re: ") for m in conversation["messages"][1:])
    with_file = scalar(mail, "SELECT message_id FROM attachments WHERE message_id IS NOT NULL ORDER BY id")
    files = mail.ok("get_message", message_id=with_file)["attachments"]
    assert files and {"attachment_id", "filename", "mime_type", "size"} <= set(files[0])
    assert_error(mail, "get_message", "No message with id 'MSG-1'", "list_messages", message_id="MSG-1")
    assert_error(mail, "get_thread", "No thread with id 'THR-1'", "get_message", thread_id="THR-1")


def test_mark_read_and_unread(mail: LiveServer) -> None:
    msg = scalar(mail, "SELECT id FROM messages WHERE is_read = 0 ORDER BY id")
    assert mail.ok("mark_read", message_id=msg) == {"message_id": msg, "unread": False}
    assert mail.query("SELECT is_read FROM messages WHERE id = ?", msg) == [(1,)]
    assert_error(mail, "mark_read", "already read", message_id=msg)
    assert mail.ok("mark_unread", message_id=msg) == {"message_id": msg, "unread": True}
    assert mail.query("SELECT is_read FROM messages WHERE id = ?", msg) == [(0,)]
    assert_error(mail, "mark_unread", "already unread", message_id=msg)
    assert_error(mail, "mark_read", "list_messages", message_id="MSG-0")


def test_move_message(mail: LiveServer) -> None:
    box = roomy_mailbox(mail)
    msg = received(mail, box)
    out = mail.ok("move_message", message_id=msg, folder="archive")
    assert out == {"message_id": msg, "from_folder": "Inbox", "folder": "Archive"}
    assert folder_of(mail, msg) == "Archive"
    assert_error(mail, "move_message", "already in Archive", message_id=msg, folder="Archive")
    assert_error(mail, "move_message", "cannot be moved into Drafts", message_id=msg, folder="Drafts")
    assert_error(mail, "move_message", "only sent mail can be in Sent", message_id=msg, folder="Sent")
    assert_error(mail, "move_message", "has no folder 'Spam'", "create_folder", message_id=msg, folder="Spam")
    # a folder of another mailbox is not one of this mailbox's folders
    other = scalar(mail, "SELECT id FROM folders WHERE mailbox_id != ? AND name = 'Inbox' ORDER BY id", box)
    assert_error(mail, "move_message", "has no folder", message_id=msg, folder=other)
    folder = mail.ok("create_folder", mailbox_id=box, folder_name="Keep")["folder_id"]
    assert mail.ok("move_message", message_id=msg, folder=folder)["folder"] == "Keep"
    assert folder_of(mail, msg) == "Keep"


def test_delete_restore_and_empty_trash(mail: LiveServer) -> None:
    box = full_mailbox(mail)
    big = backup_message(mail, box)
    free_before = mail.ok("get_mailbox", mailbox_id=box)["free"]
    assert mail.ok("delete_message", message_id=big) == {"message_id": big, "from_folder": "Archive", "folder": "Trash"}
    assert folder_of(mail, big) == "Trash"
    assert mail.ok("get_mailbox", mailbox_id=box)["free"] == free_before  # the trash still counts
    assert_error(mail, "delete_message", "already in Trash", "empty_trash", message_id=big)
    assert mail.ok("move_message", message_id=big, folder="Archive")["from_folder"] == "Trash"  # restored
    mail.ok("delete_message", message_id=big)
    mail.ok("apply_label", message_id=big, label=scalar(mail, "SELECT name FROM labels WHERE mailbox_id = ?", box))
    in_trash = [
        r[0]
        for r in mail.query(
            "SELECT m.id FROM messages m JOIN folders f ON f.id = m.folder_id WHERE f.name = 'Trash' AND m.mailbox_id = ? "
            "ORDER BY m.id",
            box,
        )
    ]
    out = mail.ok("empty_trash", mailbox_id=box)
    assert out["deleted"] == len(in_trash) and out["message_ids"] == in_trash
    assert out["freed"].endswith("MB")
    assert count(mail, "messages", "id = ?", big) == 0
    assert count(mail, "attachments", "message_id = ?", big) == 0
    assert count(mail, "message_labels", "message_id = ?", big) == 0
    assert count(mail, "threads", "id NOT IN (SELECT thread_id FROM messages)") == 0
    assert mail.ok("get_mailbox", mailbox_id=box)["free"].endswith("MB")
    assert_error(mail, "empty_trash", "already empty", mailbox_id=box)
    assert_error(mail, "empty_trash", "list_mailboxes", mailbox_id="MBX-77")
