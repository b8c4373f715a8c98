"""The email server, driven through a real MCP client on an in-memory database: drafts, sending, replies, forwards."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.email.common import (
    backup_message,
    count,
    folder_of,
    free_bytes,
    full_mailbox,
    next_number,
    received,
    roomy_mailbox,
)
from tests.servers.helpers import assert_error, one, scalar

TO = ["ana.lopez@contoso.example"]


def test_list_drafts(mail: LiveServer) -> None:
    box = scalar(mail, "SELECT mailbox_id FROM drafts GROUP BY mailbox_id HAVING count(*) >= 2 ORDER BY 1")
    drafts = mail.ok("list_drafts", mailbox_id=box)
    assert {d["draft_id"] for d in drafts} == {
        r[0] for r in mail.query("SELECT id FROM drafts WHERE mailbox_id = ? AND status = 'draft'", box)
    }
    assert all(d["status"] == "draft" and "body" in d for d in drafts)
    sent = mail.ok("update_draft", draft_id=drafts[0]["draft_id"], to=TO)["draft_id"]
    mail.ok("send_draft", draft_id=sent)
    assert sent not in [d["draft_id"] for d in mail.ok("list_drafts", mailbox_id=box)]
    assert sent in [d["draft_id"] for d in mail.ok("list_drafts", mailbox_id=box, include_sent=True)]
    assert_error(mail, "list_drafts", "list_mailboxes", mailbox_id="MBX-2")


def test_create_and_update_draft(mail: LiveServer) -> None:
    box = roomy_mailbox(mail)
    new_id = f"DRF-{next_number(mail, 'drafts')}"
    draft = mail.ok("create_draft", mailbox_id=box, subject="  Plan ", body="First text", cc=["Team@Globex.example"])
    assert draft["draft_id"] == new_id
    assert (draft["to"], draft["cc"], draft["status"], draft["updated"]) == (
        [],
        ["team@globex.example"],
        "draft",
        "2026-01-15T09:30",
    )
    assert mail.query("SELECT mailbox_id, subject, body, to_addrs FROM drafts WHERE id = ?", new_id) == [
        (box, "Plan", "First text", "")
    ]
    out = mail.ok(
        "update_draft", draft_id=new_id, to=[*TO, "j.lee@globex.example", "ana.lopez@contoso.example"], body="New"
    )
    assert out["to"] == [*TO, "j.lee@globex.example"] and out["body"] == "New" and out["subject"] == "Plan"
    assert mail.query("SELECT to_addrs, body FROM drafts WHERE id = ?", new_id) == [
        ("ana.lopez@contoso.example, j.lee@globex.example", "New")
    ]
    assert mail.ok("update_draft", draft_id=new_id, cc=[])["cc"] == []
    assert_error(mail, "update_draft", "Nothing to change", draft_id=new_id)
    assert_error(mail, "update_draft", "not a valid email address", "find_contact", draft_id=new_id, to=["Ana Lopez"])
    assert_error(mail, "update_draft", "body cannot be empty", draft_id=new_id, body="   ")
    assert_error(mail, "update_draft", "No draft with id 'DRF-9'", "list_drafts", draft_id="DRF-9")
    assert_error(mail, "create_draft", "subject must be 1 to 200", mailbox_id=box, subject="", body="x")
    assert_error(mail, "create_draft", "not a valid email address", mailbox_id=box, subject="s", body="x", to=["a@b"])
    assert mail.query("SELECT body FROM drafts WHERE id = ?", new_id) == [("New",)]


def test_add_attachment(mail: LiveServer) -> None:
    box = roomy_mailbox(mail)
    draft = mail.ok("create_draft", mailbox_id=box, subject="Files", body="See attached")["draft_id"]
    new_id = f"ATT-{next_number(mail, 'attachments')}"
    out = mail.ok("add_attachment", draft_id=draft, filename="Budget.XLSX", size_kb=2048)
    assert out["attachment_id"] == new_id and out["size"] == "2.0 MB"
    assert out["mime_type"] == "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    assert mail.query("SELECT draft_id, message_id, size_bytes FROM attachments WHERE id = ?", new_id) == [
        (draft, None, 2048 * 1024)
    ]
    assert (
        mail.ok("add_attachment", draft_id=draft, filename="blob.bin", size_kb=1)["mime_type"]
        == "application/octet-stream"
    )
    assert (
        mail.ok("add_attachment", draft_id=draft, filename="x.dat", size_kb=1, mime_type="Text/Plain")["mime_type"]
        == "text/plain"
    )
    assert_error(
        mail, "add_attachment", "size_kb must be between 1 and 25600", draft_id=draft, filename="a.pdf", size_kb=30000
    )
    assert_error(mail, "add_attachment", "without folders", draft_id=draft, filename="docs/a.pdf", size_kb=5)
    assert_error(
        mail, "add_attachment", "mime_type must look like", draft_id=draft, filename="a.pdf", size_kb=5, mime_type="pdf"
    )


def test_quota_refuses_what_does_not_fit(mail: LiveServer) -> None:
    box = full_mailbox(mail)
    draft = mail.ok("create_draft", mailbox_id=box, subject="Big", body="Big file", to=TO)["draft_id"]
    before = count(mail, "attachments")
    err = assert_error(mail, "add_attachment", "nearly full", "only", "KB", "of its 20.0 MB quota is free", "empty_trash",
                       draft_id=draft, filename="video.zip", size_kb=5000)  # fmt: skip
    assert "needs 4.9 MB" in err
    assert count(mail, "attachments") == before
    # deleting and emptying the trash makes room
    mail.ok("delete_message", message_id=backup_message(mail, box))
    mail.ok("empty_trash", mailbox_id=box)
    mail.ok("add_attachment", draft_id=draft, filename="video.zip", size_kb=5000)
    # a forward copies the attachments and so needs room for them too
    mail.ok("add_attachment", draft_id=draft, filename="more.zip", size_kb=9000)
    sent = mail.ok("send_draft", draft_id=draft)["message"]["message_id"]
    assert_error(mail, "forward_message", "the forward with its attachments needs", message_id=sent, to=["x@y.example"])


def test_send_draft(mail: LiveServer) -> None:
    box = roomy_mailbox(mail)
    draft = mail.ok("create_draft", mailbox_id=box, subject="Report", body="Here it is")["draft_id"]
    mail.ok("add_attachment", draft_id=draft, filename="report.pdf", size_kb=300)
    # no send without at least one recipient
    assert_error(mail, "send_draft", "has no recipients", "update_draft", draft_id=draft)
    assert mail.query("SELECT status FROM drafts WHERE id = ?", draft) == [("draft",)]
    mail.ok("update_draft", draft_id=draft, to=TO)
    new_id = f"MSG-{next_number(mail, 'messages')}"
    out = mail.ok("send_draft", draft_id=draft)
    assert out["status"] == "sent" and out["message"]["message_id"] == new_id
    msg = out["message"]
    assert (msg["folder"], msg["direction"], msg["to"], msg["date"]) == ("Sent", "sent", TO, "2026-01-15T09:30")
    assert [a["filename"] for a in msg["attachments"]] == ["report.pdf"]
    assert mail.query("SELECT status, sent_message_id FROM drafts WHERE id = ?", draft) == [("sent", new_id)]
    assert mail.query("SELECT message_id, draft_id FROM attachments WHERE filename = 'report.pdf'") == [(new_id, None)]
    assert count(mail, "threads", "id = ? AND subject = 'Report'", msg["thread_id"]) == 1
    # a sent message cannot be edited or sent again
    assert_error(
        mail, "update_draft", "already sent as message " + new_id, "cannot be edited", draft_id=draft, body="x"
    )
    assert_error(mail, "add_attachment", "cannot be edited", draft_id=draft, filename="a.pdf", size_kb=1)
    assert_error(mail, "send_draft", "already sent", draft_id=draft)


def test_send_draft_of_a_reply_keeps_the_thread(mail: LiveServer) -> None:
    draft, thread = one(
        mail,
        "SELECT d.id, m.thread_id FROM drafts d JOIN messages m ON m.id = d.in_reply_to WHERE d.to_addrs != '' ORDER BY d.id",
    )
    msg = mail.ok("send_draft", draft_id=draft)["message"]
    assert msg["thread_id"] == thread and msg["subject"].startswith("Re: ")


def test_send_message(mail: LiveServer) -> None:
    box = roomy_mailbox(mail)
    new_id = f"MSG-{next_number(mail, 'messages')}"
    out = mail.ok(
        "send_message",
        mailbox_id=box,
        to=[" Ana.Lopez@contoso.example"],
        subject="Hello",
        body="Hi!",
        cc=["b@c.example"],
    )
    assert out["message_id"] == new_id and out["to"] == TO and out["cc"] == ["b@c.example"]
    assert mail.query("SELECT mailbox_id, direction, subject, is_read FROM messages WHERE id = ?", new_id) == [
        (box, "sent", "Hello", 1)
    ]
    assert folder_of(mail, new_id) == "Sent"
    before = count(mail, "messages")
    assert_error(mail, "send_message", "at least one recipient", mailbox_id=box, to=[], subject="a", body="b")
    assert_error(mail, "send_message", "'not-an-address'", mailbox_id=box, to=["not-an-address"], subject="a", body="b")
    assert_error(
        mail,
        "send_message",
        "at most 20 addresses",
        mailbox_id=box,
        to=[f"p{i}@x.example" for i in range(21)],
        subject="a",
        body="b",
    )
    assert_error(mail, "send_message", "body cannot be empty", mailbox_id=box, to=TO, subject="a", body=" ")
    assert_error(mail, "send_message", "at most 20000", mailbox_id=box, to=TO, subject="a", body="x" * 20001)
    assert count(mail, "messages") == before


def test_reply_keeps_the_thread_and_goes_to_the_sender(mail: LiveServer) -> None:
    box = roomy_mailbox(mail)
    original = received(mail, box)
    sender, subject, thread = mail.query("SELECT sender, subject, thread_id FROM messages WHERE id = ?", original)[0]
    out = mail.ok("reply_to_message", message_id=original, body="Thanks, works for me.")
    assert out["thread_id"] == thread
    assert out["subject"] == (subject if subject.startswith("Re: ") else f"Re: {subject}")
    assert out["to"] == [sender] and out["cc"] == [] and out["in_reply_to"] == original
    assert mail.query(
        "SELECT folder_id IN (SELECT id FROM folders WHERE name = 'Sent') FROM messages WHERE id = ?", out["message_id"]
    ) == [(1,)]
    # "Re:" is not stacked, and replying to one's own mail goes to its recipients
    again = mail.ok("reply_to_message", message_id=out["message_id"], body="One more thing.")
    assert again["subject"] == out["subject"] and again["to"] == [sender] and again["thread_id"] == thread
    assert_error(mail, "reply_to_message", "body cannot be empty", message_id=original, body="")
    assert_error(mail, "reply_to_message", "list_messages", message_id="MSG-5", body="Hi")


def test_reply_all_copies_the_other_recipients(mail: LiveServer) -> None:
    msg, box_address, cc = one(
        mail,
        "SELECT m.id, b.address, m.cc_addrs FROM messages m JOIN mailboxes b ON b.id = m.mailbox_id "
        "WHERE m.direction = 'received' AND m.cc_addrs != '' ORDER BY m.id",
    )
    out = mail.ok("reply_to_message", message_id=msg, body="Adding everyone.", reply_all=True)
    assert out["cc"] == [cc] and box_address not in out["cc"] + out["to"]


def test_reply_is_refused_over_quota(mail: LiveServer) -> None:
    box = full_mailbox(mail)
    msg = backup_message(mail, box)
    draft = mail.ok("create_draft", mailbox_id=box, subject="Filler", body="x")["draft_id"]
    mail.ok("add_attachment", draft_id=draft, filename="filler.bin", size_kb=free_bytes(mail, box) // 1024)
    mail.ok("update_draft", draft_id=draft, body="x" * (free_bytes(mail, box) + 1))  # fills the last bytes
    assert free_bytes(mail, box) == 0
    assert_error(mail, "update_draft", "the edited draft needs 4.4 KB but only 0 B", draft_id=draft, body="x" * 5000)
    before = count(mail, "messages")
    assert_error(mail, "reply_to_message", "nearly full", "the reply needs", message_id=msg, body="Thanks, received.")
    assert_error(mail, "send_message", "nearly full", mailbox_id=box, to=TO, subject="Hi", body="Hello")
    assert_error(mail, "create_draft", "nearly full", mailbox_id=box, subject="Hi", body="Hello")
    assert count(mail, "messages") == before


def test_forward_message(mail: LiveServer) -> None:
    msg, box, n_files = one(
        mail,
        "SELECT m.id, m.mailbox_id, count(a.id) FROM messages m JOIN attachments a ON a.message_id = m.id "
        "JOIN mailboxes b ON b.id = m.mailbox_id WHERE b.quota_bytes >= 50 * 1048576 GROUP BY m.id ORDER BY m.id",
    )
    subject, thread = mail.query("SELECT subject, thread_id FROM messages WHERE id = ?", msg)[0]
    out = mail.ok("forward_message", message_id=msg, to=["k.okafor@litware.example"], note="FYI")
    assert out["subject"] == f"Fwd: {subject}" and out["forwarded_from"] == msg
    assert out["thread_id"] != thread and out["folder"] == "Sent"
    assert out["body"].startswith("FYI\n\n---------- Forwarded message ----------")
    assert len(out["attachments"]) == n_files
    assert count(mail, "attachments", "message_id = ?", out["message_id"]) == n_files
    assert count(mail, "attachments", "message_id = ?", msg) == n_files  # the original keeps its files
    again = mail.ok("forward_message", message_id=out["message_id"], to=TO)
    assert again["subject"] == out["subject"]
    assert_error(mail, "forward_message", "at least one recipient", message_id=msg, to=[])
    assert_error(mail, "forward_message", "not a valid email address", message_id=msg, to=["someone"])
    assert box
