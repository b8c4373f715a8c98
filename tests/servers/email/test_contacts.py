"""The email server, driven through a real MCP client on an in-memory database: the address book."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.email.common import count, next_number, roomy_mailbox
from tests.servers.helpers import assert_error, one


def test_list_contacts(mail: LiveServer) -> None:
    box = roomy_mailbox(mail)
    contacts = mail.ok("list_contacts", mailbox_id=box)
    assert [c["contact_id"] for c in contacts] == [
        r[0] for r in mail.query("SELECT id FROM contacts WHERE mailbox_id = ? ORDER BY name, id", box)
    ]
    assert len(mail.ok("list_contacts", mailbox_id=box, limit=2)) == 2
    assert_error(mail, "list_contacts", "between 1 and 100", mailbox_id=box, limit=101)
    assert_error(mail, "list_contacts", "list_mailboxes", mailbox_id="MBX-0")


def test_find_contact(mail: LiveServer) -> None:
    box, name, email, company = one(
        mail, "SELECT mailbox_id, name, email, company FROM contacts WHERE company != '' ORDER BY id"
    )
    last = name.split()[-1]
    assert email in [c["email"] for c in mail.ok("find_contact", mailbox_id=box, query=last.lower())]
    by_company = mail.ok("find_contact", mailbox_id=box, query=company.upper())
    assert by_company and all(c["company"] == company for c in by_company)
    assert mail.ok("find_contact", mailbox_id=box, query="zzzz") == []
    assert_error(mail, "find_contact", "at least 2 characters", mailbox_id=box, query=" a ")


def test_add_contact(mail: LiveServer) -> None:
    box = roomy_mailbox(mail)
    new_id = f"CON-{next_number(mail, 'contacts')}"
    out = mail.ok(
        "add_contact", mailbox_id=box, contact_name="Ana  Lopez", email=" Ana.Lopez@Contoso.example ", company="Contoso"
    )
    assert out == {
        "contact_id": new_id,
        "name": "Ana Lopez",
        "email": "ana.lopez@contoso.example",
        "company": "Contoso",
        "mailbox_id": box,
    }
    assert mail.query("SELECT mailbox_id, name, email FROM contacts WHERE id = ?", new_id) == [
        (box, "Ana Lopez", "ana.lopez@contoso.example")
    ]
    assert_error(
        mail,
        "add_contact",
        "already in the contacts",
        new_id,
        mailbox_id=box,
        contact_name="A",
        email="ana.lopez@contoso.example",
    )
    assert_error(
        mail, "add_contact", "not a valid email address", mailbox_id=box, contact_name="A", email="ana at contoso"
    )
    assert_error(mail, "add_contact", "cannot be empty", mailbox_id=box, contact_name="A", email="  ")
    own = mail.query("SELECT address FROM mailboxes WHERE id = ?", box)[0][0]
    assert_error(mail, "add_contact", "itself", mailbox_id=box, contact_name="Me", email=own)
    assert_error(mail, "add_contact", "1 to 80 characters", mailbox_id=box, contact_name="", email="x@y.example")
    assert_error(
        mail, "add_contact", "at most 80", mailbox_id=box, contact_name="X", email="x@y.example", company="c" * 81
    )
    assert count(mail, "contacts", "mailbox_id = ? AND email = 'x@y.example'", box) == 0
