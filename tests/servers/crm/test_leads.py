"""The CRM server, driven through a real MCP client on an in-memory database: leads."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.crm.common import active_owner, count, inactive_owner, lead_with
from tests.servers.helpers import assert_error, one, scalar


def test_list_and_get_leads(ro: LiveServer) -> None:
    qualified = ro.ok("list_leads", status="Qualified", limit=100)
    assert len(qualified) == scalar(ro, "SELECT count(*) FROM leads WHERE status = 'qualified'")
    assert {lead["status"] for lead in qualified} == {"qualified"}
    dates = [lead["created_on"] for lead in ro.ok("list_leads", limit=100)]
    assert dates == sorted(dates, reverse=True)
    source, owner = one(ro, "SELECT source, owner_id FROM leads ORDER BY id")
    assert {lead["source"] for lead in ro.ok("list_leads", source=source)} == {source}
    assert {lead["owner_id"] for lead in ro.ok("list_leads", owner_id=owner)} == {owner}
    assert_error(ro, "list_leads", "status must be one of", status="hot")
    assert_error(ro, "list_leads", "source must be one of", source="tv")

    converted = lead_with(ro, "converted")
    out = ro.ok("get_lead", lead_id=converted.lower())
    acc, con = one(ro, "SELECT converted_account_id, converted_contact_id FROM leads WHERE id = ?", converted)
    assert (out["converted_account_id"], out["converted_contact_id"]) == (acc, con)
    noted = scalar(ro, "SELECT lead_id FROM notes WHERE lead_id IS NOT NULL ORDER BY id")
    assert ro.ok("get_lead", lead_id=noted)["notes"]
    assert_error(ro, "get_lead", "LEAD-1001", "list_leads", lead_id="LEAD-1")


def test_create_lead(crm: LiveServer) -> None:
    owner = active_owner(crm)
    args = {"first_name": "Jordan", "last_name": "Reyes", "company": "Acme Robotics", "source": "Web"}
    out = crm.ok("create_lead", **args, owner_id=owner, email="jordan@acmerobotics.com")
    new_id = f"LEAD-{1000 + count(crm, 'leads')}"
    assert out["lead_id"] == new_id
    assert (out["status"], out["source"], out["owner_id"]) == ("new", "web", owner)
    assert crm.query("SELECT company, email, created_on FROM leads WHERE id = ?", new_id) == [
        ("Acme Robotics", "jordan@acmerobotics.com", "2026-01-15")
    ]
    assert_error(
        crm,
        "create_lead",
        "already the email of open lead",
        new_id,
        **args,
        owner_id=owner,
        email="JORDAN@acmerobotics.com",
    )
    assert_error(crm, "create_lead", "inactive", **args, owner_id=inactive_owner(crm))
    assert_error(crm, "create_lead", "source must be one of", **{**args, "source": "tv"}, owner_id=owner)
    assert_error(crm, "create_lead", "not a valid email", **args, owner_id=owner, email="jordan")
    assert count(crm, "leads") == int(new_id[5:]) - 1000


def test_update_lead_status(crm: LiveServer) -> None:
    lead = lead_with(crm, "new")
    out = crm.ok("update_lead_status", lead_id=lead, status="contacted")
    assert (out["previous_status"], out["status"]) == ("new", "contacted")
    out = crm.ok("update_lead_status", lead_id=lead, status="disqualified", reason="No budget")
    assert out["disqualify_reason"] == "No budget"
    assert crm.query("SELECT status, disqualify_reason FROM leads WHERE id = ?", lead) == [
        ("disqualified", "No budget")
    ]
    crm.ok("update_lead_status", lead_id=lead, status="new")
    assert crm.query("SELECT status, disqualify_reason FROM leads WHERE id = ?", lead) == [("new", None)]
    assert_error(crm, "update_lead_status", "already new", lead_id=lead, status="new")
    assert_error(crm, "update_lead_status", "convert_lead", lead_id=lead, status="converted")
    assert_error(crm, "update_lead_status", "status must be one of", lead_id=lead, status="hot")
    converted = lead_with(crm, "converted")
    acc = scalar(crm, "SELECT converted_account_id FROM leads WHERE id = ?", converted)
    assert_error(crm, "update_lead_status", "already converted", acc, lead_id=converted, status="new")


def test_reassign_lead(crm: LiveServer) -> None:
    lead = lead_with(crm, "contacted")
    current = scalar(crm, "SELECT owner_id FROM leads WHERE id = ?", lead)
    new = active_owner(crm, other_than=current)
    assert crm.ok("reassign_lead", lead_id=lead, owner_id=new) == {
        "lead_id": lead,
        "previous_owner_id": current,
        "owner_id": new,
    }
    assert scalar(crm, "SELECT owner_id FROM leads WHERE id = ?", lead) == new
    assert_error(crm, "reassign_lead", "already owned by", lead_id=lead, owner_id=new)
    assert_error(crm, "reassign_lead", "inactive", "list_owners", lead_id=lead, owner_id=inactive_owner(crm))
    assert_error(crm, "reassign_lead", "reassign_account", lead_id=lead_with(crm, "converted"), owner_id=new)


def test_convert_lead(crm: LiveServer) -> None:
    lead = lead_with(crm, "qualified")
    first, last, company, owner = one(
        crm, "SELECT first_name, last_name, company, owner_id FROM leads WHERE id = ?", lead
    )
    accounts, contacts, opps = count(crm, "accounts"), count(crm, "contacts"), count(crm, "opportunities")
    out = crm.ok("convert_lead", lead_id=lead, opportunity_name="Pilot project", amount=25000)
    assert out["account_created"] is True
    assert out["account_id"] == f"ACC-{1001 + accounts}"
    assert out["contact_id"] == f"CON-{1001 + contacts}"
    opp = out["opportunity"]
    assert opp["opportunity_id"] == f"OPP-{1001 + opps}"
    assert (opp["stage"], opp["amount"], opp["close_date"], opp["owner_id"]) == (
        "prospecting",
        25000,
        "2026-04-15",
        owner,
    )
    assert crm.query("SELECT name, owner_id FROM accounts WHERE id = ?", out["account_id"]) == [(company, owner)]
    assert crm.query("SELECT first_name, last_name, account_id FROM contacts WHERE id = ?", out["contact_id"]) == [
        (first, last, out["account_id"])
    ]
    assert crm.query(
        "SELECT status, converted_on, converted_account_id, converted_contact_id, converted_opportunity_id "
        "FROM leads WHERE id = ?",
        lead,
    ) == [("converted", "2026-01-15", out["account_id"], out["contact_id"], opp["opportunity_id"])]
    err = assert_error(crm, "convert_lead", "already converted", "only once", lead_id=lead)
    assert out["account_id"] in err and opp["opportunity_id"] in err
    assert count(crm, "accounts") == accounts + 1

    # no opportunity unless named; an existing account of the company's name is reused
    other = scalar(
        crm,
        "SELECT l.id FROM leads l JOIN owners w ON w.id = l.owner_id "
        "WHERE l.status = 'qualified' AND w.active = 1 AND l.id != ? ORDER BY l.id",
        lead,
    )
    same = crm.ok(
        "create_account",
        account_name=scalar(crm, "SELECT company FROM leads WHERE id = ?", other),
        industry="Retail",
        owner_id=active_owner(crm),
    )
    out = crm.ok("convert_lead", lead_id=other)
    assert (out["account_id"], out["account_created"], out["opportunity"]) == (same["account_id"], False, None)
    assert count(crm, "opportunities") == opps + 1

    assert_error(crm, "convert_lead", "only qualified leads", "update_lead_status", lead_id=lead_with(crm, "new"))
    assert_error(crm, "convert_lead", "only qualified leads", lead_id=lead_with(crm, "disqualified"))
    qualified = lead_with(crm, "qualified")
    assert_error(crm, "convert_lead", "needs opportunity_name", lead_id=qualified, amount=100)
    assert_error(crm, "convert_lead", "greater than 0", lead_id=qualified, opportunity_name="X deal", amount=-5)
    idle = lead_with(crm, "qualified", active_owner=False)
    assert_error(crm, "convert_lead", "inactive", lead_id=idle)
    assert scalar(crm, "SELECT status FROM leads WHERE id = ?", idle) == "qualified"
