"""The CRM server, driven through a real MCP client on an in-memory database: the server as a whole."""

from __future__ import annotations

from gym_mcp.servers.crm import kit
from tests.helpers import LiveServer
from tests.servers.crm.common import OPEN, TABLES, account_without_open_opps, lead_with, opp_in
from tests.servers.helpers import (
    assert_listed_with_kinds,
    dump,
)

WRITES = {
    "create_account",
    "update_account",
    "reassign_account",
    "archive_account",
    "create_contact",
    "update_contact",
    "create_lead",
    "update_lead_status",
    "reassign_lead",
    "convert_lead",
    "create_opportunity",
    "update_opportunity",
    "advance_opportunity_stage",
    "close_opportunity",
    "reassign_opportunity",
    "log_activity",
    "complete_activity",
    "add_note",
}
READS = {
    "list_owners",
    "list_accounts",
    "get_account",
    "list_contacts",
    "list_leads",
    "get_lead",
    "list_opportunities",
    "get_opportunity",
    "list_activities",
}


def test_tools_are_listed_with_kinds(ro: LiveServer) -> None:
    assert_listed_with_kinds(ro, kit, writes=WRITES, reads=READS)
    assert set(kit.tools) == WRITES | READS
    assert {n for n, t in kit.tools.items() if t.confirm} == {"archive_account", "close_opportunity"}


def test_owner_samples_are_active_owners(ro: LiveServer) -> None:
    active = {r[0] for r in ro.query("SELECT id FROM owners WHERE active = 1")}
    for name, info in kit.tools.items():
        if info.write and "owner_id" in info.samples:
            assert set(info.samples["owner_id"]) <= active, name


def test_seed_has_enough_entities(ro: LiveServer) -> None:
    counts = {t: ro.query(f"SELECT count(*) FROM {t}")[0][0] for t in TABLES}
    assert sum(counts.values()) >= 200
    assert counts["owners"] >= 10
    assert counts["accounts"] >= 50
    assert counts["contacts"] >= 100
    assert counts["leads"] >= 50
    assert counts["opportunities"] >= 60
    assert counts["activities"] >= 100
    assert counts["notes"] >= 30
    # the error paths are reachable
    assert ro.query("SELECT count(*) FROM owners WHERE active = 0")[0][0] >= 2
    assert ro.query("SELECT count(*) FROM accounts WHERE status = 'archived'")[0][0] >= 2
    for status in ("new", "contacted", "qualified", "disqualified", "converted"):
        lead_with(ro, status)
    opp_in(ro, "negotiation", amount=False)
    opp_in(ro, "negotiation", amount=True)
    account_without_open_opps(ro)


def test_seed_keeps_the_rules(ro: LiveServer) -> None:
    today = kit.today.isoformat()
    assert ro.query(f"SELECT id FROM opportunities WHERE stage NOT IN {OPEN} AND close_date >= ?", today) == []
    assert ro.query("SELECT id FROM opportunities WHERE stage = 'closed_won' AND amount_cents IS NULL") == []
    assert ro.query(f"SELECT id FROM opportunities WHERE stage IN {OPEN} AND close_date < ?", today) == []
    assert (
        ro.query(
            "SELECT o.id FROM opportunities o JOIN accounts a ON a.id = o.account_id "
            f"WHERE a.status = 'archived' AND o.stage IN {OPEN}"
        )
        == []
    )
    assert (
        ro.query(
            "SELECT t.id FROM activities t JOIN contacts c ON c.id = t.contact_id WHERE c.account_id != t.account_id"
        )
        == []
    )
    converted = ro.query(
        "SELECT l.id FROM leads l JOIN accounts a ON a.id = l.converted_account_id "
        "JOIN contacts c ON c.id = l.converted_contact_id AND c.account_id = a.id WHERE l.status = 'converted'"
    )
    assert len(converted) == ro.query("SELECT count(*) FROM leads WHERE status = 'converted'")[0][0]
    assert ro.query("SELECT count(*) FROM leads WHERE converted_opportunity_id IS NOT NULL")[0][0] >= 1
    assert (
        ro.query(
            "SELECT id FROM notes WHERE (account_id IS NOT NULL) + (contact_id IS NOT NULL) "
            "+ (lead_id IS NOT NULL) + (opportunity_id IS NOT NULL) != 1"
        )
        == []
    )


def test_same_seed_same_data_other_seed_other_data(ro: LiveServer) -> None:
    assert dump(ro) == dump(LiveServer(kit, seed=0))
    other = dump(LiveServer(kit, seed=1))
    assert other != dump(ro)
    assert other["accounts"] != dump(ro)["accounts"]


def test_replaying_calls_gives_identical_state() -> None:
    servers = [LiveServer(kit, seed=0), LiveServer(kit, seed=0)]
    results = []
    for server in servers:
        lead = lead_with(server, "qualified")
        opp = opp_in(server, "prospecting")
        results.append(
            [
                server.ok("convert_lead", lead_id=lead, opportunity_name="Pilot", amount=1000),
                server.ok("advance_opportunity_stage", opportunity_id=opp),
                server.ok("add_note", body="Called twice.", opportunity_id=opp),
            ]
        )
    assert results[0] == results[1]
    assert dump(servers[0]) == dump(servers[1])
