"""The CRM server, driven through a real MCP client on an in-memory database: owners, accounts and contacts."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.crm.common import (
    OPEN,
    account_with_open_opps,
    account_without_open_opps,
    active_owner,
    archived_account,
    count,
    inactive_owner,
)
from tests.servers.helpers import assert_error, one, scalar


def test_list_owners(ro: LiveServer) -> None:
    owners = ro.ok("list_owners")
    assert len(owners) == count(ro, "owners")
    inactive = inactive_owner(ro)
    assert next(o for o in owners if o["owner_id"] == inactive)["active"] is False
    assert inactive not in [o["owner_id"] for o in ro.ok("list_owners", active_only=True)]
    west = ro.ok("list_owners", region="west")
    assert west and {o["region"] for o in west} == {"West"}
    owner, opps, cents = one(
        ro,
        f"SELECT owner_id, count(*), sum(coalesce(amount_cents, 0)) FROM opportunities WHERE stage IN {OPEN} "
        "GROUP BY owner_id ORDER BY owner_id",
    )
    row = next(o for o in owners if o["owner_id"] == owner)
    assert (row["open_opportunities"], row["open_pipeline"]) == (opps, cents / 100)
    assert_error(ro, "list_owners", "region must be one of", region="Mars")


def test_list_and_get_accounts(ro: LiveServer) -> None:
    archived = archived_account(ro)
    listed = [a["account_id"] for a in ro.ok("list_accounts", limit=100)]
    assert archived not in listed
    assert archived in [a["account_id"] for a in ro.ok("list_accounts", include_archived=True, limit=100)]
    acc, name, industry, owner = one(ro, "SELECT id, name, industry, owner_id FROM accounts WHERE status = 'active'")
    found = ro.ok("list_accounts", query=name.split()[0].upper())
    assert acc in [a["account_id"] for a in found]
    assert all(a["industry"] == industry for a in ro.ok("list_accounts", industry=industry.lower()))
    assert all(a["owner_id"] == owner for a in ro.ok("list_accounts", owner_id=owner))
    assert len(ro.ok("list_accounts", limit=3)) == 3
    assert_error(ro, "list_accounts", "industry must be one of", industry="Space")
    assert_error(ro, "list_accounts", "limit must be between 1 and 100", limit=0)

    busy = account_with_open_opps(ro)
    out = ro.ok("get_account", account_id=busy.lower())
    assert out["account_id"] == busy
    expected = ro.query(f"SELECT id FROM opportunities WHERE account_id = ? AND stage IN {OPEN} ORDER BY id", busy)
    assert [o["opportunity_id"] for o in out["open_opportunities"]] == [r[0] for r in expected]
    contacts = ro.query("SELECT id FROM contacts WHERE account_id = ? ORDER BY id", busy)
    assert [c["contact_id"] for c in out["contacts"]] == [r[0] for r in contacts]
    assert all(not a["done"] for a in out["open_activities"])
    assert ro.ok("get_account", account_id=archived)["archived_on"]
    assert_error(ro, "get_account", "ACC-9999", "list_accounts", account_id="ACC-9999")


def test_create_account(crm: LiveServer) -> None:
    owner = active_owner(crm)
    top = scalar(crm, "SELECT max(id) FROM accounts")
    out = crm.ok(
        "create_account", account_name="Acme Robotics", industry="software", owner_id=owner.lower(), city="Austin"
    )
    new_id = f"ACC-{int(top[4:]) + 1}"
    assert out == {
        "account_id": new_id,
        "name": "Acme Robotics",
        "industry": "Software",
        "city": "Austin",
        "owner_id": owner,
        "status": "active",
    }
    assert crm.query("SELECT owner_id, status, created_on FROM accounts WHERE id = ?", new_id) == [
        (owner, "active", "2026-01-15")
    ]
    assert_error(
        crm, "create_account", "already exists", new_id, account_name="acme robotics", industry="Retail", owner_id=owner
    )
    assert_error(
        crm,
        "create_account",
        "inactive",
        "list_owners",
        account_name="Zeta",
        industry="Retail",
        owner_id=inactive_owner(crm),
    )
    assert_error(
        crm, "create_account", "industry must be one of", account_name="Zeta", industry="Space", owner_id=owner
    )
    assert_error(crm, "create_account", "OWN-1001", account_name="Zeta", industry="Retail", owner_id="OWN-1")
    assert count(crm, "accounts") == int(new_id[4:]) - 1000


def test_update_account(crm: LiveServer) -> None:
    acc = account_without_open_opps(crm)
    out = crm.ok("update_account", account_id=acc, phone="+1-503-555-0142", industry="energy")
    assert out == {"account_id": acc, "changed": {"phone": "+1-503-555-0142", "industry": "Energy"}}
    assert crm.query("SELECT phone, industry FROM accounts WHERE id = ?", acc) == [("+1-503-555-0142", "Energy")]
    assert_error(crm, "update_account", "Nothing to change", account_id=acc)
    assert_error(crm, "update_account", "not a phone number", account_id=acc, phone="call me")
    assert_error(crm, "update_account", "archived", account_id=archived_account(crm), city="Denver")


def test_reassign_account(crm: LiveServer) -> None:
    acc = account_with_open_opps(crm)
    current = scalar(crm, "SELECT owner_id FROM accounts WHERE id = ?", acc)
    new = active_owner(crm, other_than=current)
    out = crm.ok("reassign_account", account_id=acc, owner_id=new)
    assert (out["previous_owner_id"], out["owner_id"]) == (current, new)
    assert scalar(crm, "SELECT owner_id FROM accounts WHERE id = ?", acc) == new
    open_owners = crm.query(
        f"SELECT DISTINCT owner_id FROM opportunities WHERE account_id = ? AND stage IN {OPEN}", acc
    )
    assert open_owners == [(new,)]
    assert out["opportunities_moved"]
    assert_error(crm, "reassign_account", "already owned by", account_id=acc, owner_id=new)
    assert_error(crm, "reassign_account", "inactive", account_id=acc, owner_id=inactive_owner(crm))
    assert_error(crm, "reassign_account", "archived", account_id=archived_account(crm), owner_id=new)
    assert scalar(crm, "SELECT owner_id FROM accounts WHERE id = ?", acc) == new


def test_archive_account(crm: LiveServer) -> None:
    busy = account_with_open_opps(crm)
    opps = [r[0] for r in crm.query(f"SELECT id FROM opportunities WHERE account_id = ? AND stage IN {OPEN}", busy)]
    err = assert_error(crm, "archive_account", "cannot be archived", "close_opportunity", *opps, account_id=busy)
    assert "open opportunit" in err
    assert scalar(crm, "SELECT status FROM accounts WHERE id = ?", busy) == "active"
    for opp in opps:
        crm.ok("close_opportunity", opportunity_id=opp, outcome="lost")
    out = crm.ok("archive_account", account_id=busy)
    assert out == {"account_id": busy, "status": "archived", "archived_on": "2026-01-15"}
    assert crm.query("SELECT status, archived_on FROM accounts WHERE id = ?", busy) == [("archived", "2026-01-15")]
    assert_error(crm, "archive_account", "already archived", account_id=busy)
    assert_error(crm, "create_contact", "archived", account_id=busy, first_name="A", last_name="B", email="a@b.co")


def test_list_contacts(ro: LiveServer) -> None:
    acc = account_with_open_opps(ro)
    listed = ro.ok("list_contacts", account_id=acc)
    assert [c["contact_id"] for c in listed] == [
        r[0] for r in ro.query("SELECT id FROM contacts WHERE account_id = ? ORDER BY id", acc)
    ]
    cid, last, title = one(ro, "SELECT id, last_name, title FROM contacts ORDER BY id")
    assert cid in [c["contact_id"] for c in ro.ok("list_contacts", query=last.lower(), limit=100)]
    assert all(
        title.lower() in c["title"].lower() for c in ro.ok("list_contacts", query=title) if c["contact_id"] == cid
    )
    assert len(ro.ok("list_contacts", limit=5)) == 5
    assert_error(ro, "list_contacts", "list_accounts", account_id="ACC-1")


def test_create_and_update_contact(crm: LiveServer) -> None:
    acc = account_with_open_opps(crm)
    top = scalar(crm, "SELECT max(id) FROM contacts")
    out = crm.ok(
        "create_contact",
        account_id=acc,
        first_name="Jordan",
        last_name="Reyes",
        email="Jordan.Reyes@Example.com",
        title="CFO",
    )
    new_id = f"CON-{int(top[4:]) + 1}"
    assert out == {"contact_id": new_id, "name": "Jordan Reyes", "email": "jordan.reyes@example.com", "account_id": acc}
    assert crm.query("SELECT account_id, title FROM contacts WHERE id = ?", new_id) == [(acc, "CFO")]
    taken = scalar(crm, "SELECT email FROM contacts WHERE id != ? ORDER BY id", new_id)
    args = {"account_id": acc, "first_name": "A", "last_name": "B"}
    assert_error(crm, "create_contact", "already the email of", **args, email=taken)
    assert_error(crm, "create_contact", "not a valid email", **args, email="nobody")
    assert_error(crm, "create_contact", "archived", **{**args, "account_id": archived_account(crm)}, email="x@y.io")

    out = crm.ok("update_contact", contact_id=new_id, title="CEO", phone="+1 (617) 555-0199")
    assert out == {"contact_id": new_id, "changed": {"title": "CEO", "phone": "+1 (617) 555-0199"}}
    assert crm.query("SELECT title, phone FROM contacts WHERE id = ?", new_id) == [("CEO", "+1 (617) 555-0199")]
    crm.ok("update_contact", contact_id=new_id, email="jordan.reyes@example.com")  # its own email is fine
    assert_error(crm, "update_contact", "already the email of", contact_id=new_id, email=taken)
    assert_error(crm, "update_contact", "Nothing to change", contact_id=new_id)
    assert_error(crm, "update_contact", "list_contacts", contact_id="CON-9999", title="CEO")
