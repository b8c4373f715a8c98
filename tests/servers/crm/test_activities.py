"""The CRM server, driven through a real MCP client on an in-memory database: activities and notes."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.crm.common import OPEN, account_with_open_opps, archived_account, count, lead_with, opp_in
from tests.servers.helpers import assert_error, one, scalar


def test_list_activities(ro: LiveServer) -> None:
    overdue = ro.ok("list_activities", status="overdue", limit=100)
    expected = ro.query("SELECT id FROM activities WHERE done = 0 AND due_date < '2026-01-15' ORDER BY due_date, id")
    assert [a["activity_id"] for a in overdue] == [r[0] for r in expected]
    assert all(a["overdue"] and not a["done"] for a in overdue)
    done = ro.ok("list_activities", status="done", limit=100)
    assert all(a["done"] and a["completed_on"] for a in done)
    acc = account_with_open_opps(ro)
    assert {a["account_id"] for a in ro.ok("list_activities", account_id=acc)} == {acc}
    opp = scalar(ro, "SELECT opportunity_id FROM activities WHERE opportunity_id IS NOT NULL ORDER BY id")
    assert {a["opportunity_id"] for a in ro.ok("list_activities", opportunity_id=opp)} == {opp}
    assert_error(ro, "list_activities", "status must be one of", status="late")
    assert_error(ro, "list_activities", "list_opportunities", opportunity_id="OPP-1")


def test_log_activity(crm: LiveServer) -> None:
    acc = account_with_open_opps(crm)
    contact = scalar(crm, "SELECT id FROM contacts WHERE account_id = ? ORDER BY id", acc)
    opp, opp_owner = one(
        crm, f"SELECT id, owner_id FROM opportunities WHERE account_id = ? AND stage IN {OPEN} ORDER BY id", acc
    )
    new_id = f"ACT-{1001 + count(crm, 'activities')}"
    out = crm.ok(
        "log_activity",
        account_id=acc,
        kind="Call",
        subject="Discovery call",
        due_date="2026-01-20",
        contact_id=contact,
        opportunity_id=opp,
    )
    assert (out["activity_id"], out["kind"], out["done"], out["overdue"], out["owner_id"]) == (
        new_id,
        "call",
        False,
        False,
        opp_owner,
    )
    assert crm.query(
        "SELECT account_id, contact_id, opportunity_id, due_date FROM activities WHERE id = ?", new_id
    ) == [(acc, contact, opp, "2026-01-20")]
    args = {"account_id": acc, "kind": "task", "subject": "Prepare quote"}
    assert_error(crm, "log_activity", "in the past", **args, due_date="2026-01-14")
    assert_error(crm, "log_activity", "kind must be one of", **{**args, "kind": "fax"}, due_date="2026-01-20")
    stranger = scalar(crm, "SELECT id FROM contacts WHERE account_id != ? ORDER BY id", acc)
    assert_error(crm, "log_activity", "works at", "list_contacts", **args, due_date="2026-01-20", contact_id=stranger)
    other_opp = scalar(crm, f"SELECT id FROM opportunities WHERE account_id != ? AND stage IN {OPEN} ORDER BY id", acc)
    assert_error(crm, "log_activity", "belongs to", **args, due_date="2026-01-20", opportunity_id=other_opp)
    closed = scalar(crm, f"SELECT id FROM opportunities WHERE stage NOT IN {OPEN} ORDER BY id")
    closed_acc = scalar(crm, "SELECT account_id FROM opportunities WHERE id = ?", closed)
    if scalar(crm, "SELECT status FROM accounts WHERE id = ?", closed_acc) == "active":
        assert_error(
            crm,
            "log_activity",
            "closed opportunities",
            **{**args, "account_id": closed_acc},
            due_date="2026-01-20",
            opportunity_id=closed,
        )
    assert_error(
        crm, "log_activity", "archived", **{**args, "account_id": archived_account(crm)}, due_date="2026-01-20"
    )
    idle = scalar(
        crm,
        "SELECT a.id FROM accounts a JOIN owners w ON w.id = a.owner_id "
        "WHERE w.active = 0 AND a.status = 'active' ORDER BY a.id",
    )
    assert_error(crm, "log_activity", "inactive", **{**args, "account_id": idle}, due_date="2026-01-20")
    assert count(crm, "activities") == int(new_id[4:]) - 1000


def test_complete_activity(crm: LiveServer) -> None:
    act = scalar(crm, "SELECT id FROM activities WHERE done = 0 ORDER BY id")
    out = crm.ok("complete_activity", activity_id=act, outcome="Agreed next steps")
    assert (out["done"], out["completed_on"], out["outcome"], out["overdue"]) == (
        True,
        "2026-01-15",
        "Agreed next steps",
        False,
    )
    assert crm.query("SELECT done, completed_on, outcome FROM activities WHERE id = ?", act) == [
        (1, "2026-01-15", "Agreed next steps")
    ]
    assert_error(crm, "complete_activity", "already completed", activity_id=act)
    assert_error(crm, "complete_activity", "list_activities", activity_id="ACT-1")


def test_add_note(crm: LiveServer) -> None:
    opp = opp_in(crm, "proposal")
    new_id = f"NOTE-{1001 + count(crm, 'notes')}"
    out = crm.ok("add_note", body=" Needs SSO before signing. ", opportunity_id=opp)
    assert out == {
        "note_id": new_id,
        "body": "Needs SSO before signing.",
        "created_on": "2026-01-15",
        "opportunity_id": opp,
    }
    assert crm.query("SELECT opportunity_id, account_id, lead_id, contact_id FROM notes WHERE id = ?", new_id) == [
        (opp, None, None, None)
    ]
    assert crm.ok("get_opportunity", opportunity_id=opp)["notes"][0]["note_id"] == new_id
    lead = lead_with(crm, "new")
    assert crm.ok("add_note", body="Met at the trade show.", lead_id=lead)["lead_id"] == lead
    contact = scalar(crm, "SELECT id FROM contacts ORDER BY id")
    assert crm.ok("add_note", body="Prefers email.", contact_id=contact)["contact_id"] == contact
    acc = account_with_open_opps(crm)
    assert crm.ok("add_note", body="Budget approved.", account_id=acc)["account_id"] == acc
    assert_error(crm, "add_note", "exactly one", body="Hello there")
    assert_error(crm, "add_note", "exactly one", body="Hello there", account_id=acc, lead_id=lead)
    assert_error(crm, "add_note", "2 to 1000", body="x", account_id=acc)
    assert_error(crm, "add_note", "archived", body="Hello there", account_id=archived_account(crm))
    assert_error(crm, "add_note", "list_leads", body="Hello there", lead_id="LEAD-1")
    assert count(crm, "notes") == int(new_id[5:]) - 1000 + 3
