"""The email server, driven through a real MCP client on an in-memory database: labels."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.email.common import count, next_number, received, roomy_mailbox
from tests.servers.helpers import assert_error


def test_list_labels(mail: LiveServer) -> None:
    box = roomy_mailbox(mail)
    labels = mail.ok("list_labels", mailbox_id=box)
    assert [lb["label_id"] for lb in labels] == [
        r[0] for r in mail.query("SELECT id FROM labels WHERE mailbox_id = ? ORDER BY name", box)
    ]
    for lb in labels:
        assert lb["messages"] == count(mail, "message_labels", "label_id = ?", lb["label_id"])
    assert_error(mail, "list_labels", "list_mailboxes", mailbox_id="MBX-5")


def test_create_label(mail: LiveServer) -> None:
    box = roomy_mailbox(mail)
    new_id = f"LBL-{next_number(mail, 'labels')}"
    out = mail.ok("create_label", mailbox_id=box, label_name="Read later", color="Teal")
    assert out == {"label_id": new_id, "mailbox_id": box, "name": "Read later", "color": "teal"}
    assert mail.query("SELECT mailbox_id, name, color FROM labels WHERE id = ?", new_id) == [
        (box, "Read later", "teal")
    ]
    assert mail.ok("create_label", mailbox_id=box, label_name="Plain")["color"] == "gray"
    assert_error(mail, "create_label", "already has the label 'Read later'", mailbox_id=box, label_name="READ LATER")
    assert_error(mail, "create_label", "color must be one of", mailbox_id=box, label_name="X", color="pink")
    assert_error(mail, "create_label", "1 to 40 characters", mailbox_id=box, label_name="x" * 41)


def test_label_limit(mail: LiveServer) -> None:
    box = roomy_mailbox(mail)
    for i in range(30 - count(mail, "labels", "mailbox_id = ?", box)):
        mail.ok("create_label", mailbox_id=box, label_name=f"Label {i}")
    assert_error(mail, "create_label", "maximum is 30", mailbox_id=box, label_name="One more")


def test_apply_and_remove_label(mail: LiveServer) -> None:
    box = roomy_mailbox(mail)
    msg = received(mail, box)
    # a label must exist before it is applied
    before = count(mail, "message_labels")
    assert_error(mail, "apply_label", "has no label 'Invoices'", "create_label", message_id=msg, label="Invoices")
    assert count(mail, "message_labels") == before
    label = mail.ok("create_label", mailbox_id=box, label_name="Invoices")["label_id"]
    out = mail.ok("apply_label", message_id=msg, label="invoices")
    assert "Invoices" in out["labels"]
    assert mail.query("SELECT label_id FROM message_labels WHERE message_id = ? AND label_id = ?", msg, label) == [
        (label,)
    ]
    assert_error(mail, "apply_label", "already has the label 'Invoices'", message_id=msg, label=label)
    # a label of another mailbox is not this mailbox's
    other = mail.query("SELECT id FROM labels WHERE mailbox_id != ? ORDER BY id", box)[0][0]
    assert_error(mail, "apply_label", "has no label", message_id=msg, label=other)
    assert "Invoices" not in mail.ok("remove_label", message_id=msg, label=label)["labels"]
    assert count(mail, "message_labels", "message_id = ? AND label_id = ?", msg, label) == 0
    assert count(mail, "labels", "id = ?", label) == 1  # the label itself stays
    assert_error(mail, "remove_label", "does not have the label 'Invoices'", message_id=msg, label="Invoices")
    assert_error(mail, "remove_label", "create_label", message_id=msg, label="Nope")
    assert_error(mail, "apply_label", "list_messages", message_id="MSG-3", label="Invoices")
