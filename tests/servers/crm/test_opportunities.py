"""The CRM server, driven through a real MCP client on an in-memory database: opportunities and their stages."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.crm.common import (
    OPEN,
    account_with_open_opps,
    active_owner,
    archived_account,
    count,
    inactive_owner,
    opp_in,
)
from tests.servers.helpers import assert_error, scalar


def stage_of(server: LiveServer, opp: str) -> str:
    return str(scalar(server, "SELECT stage FROM opportunities WHERE id = ?", opp))


def test_list_and_get_opportunities(ro: LiveServer) -> None:
    out = ro.ok("list_opportunities", stage="negotiation", limit=100)
    rows = ro.query("SELECT id, coalesce(amount_cents, 0) FROM opportunities WHERE stage = 'negotiation'")
    assert out["count"] == len(rows) and out["more"] is False
    assert out["total_amount"] == sum(r[1] for r in rows) / 100
    open_count = scalar(ro, f"SELECT count(*) FROM opportunities WHERE stage IN {OPEN}")
    assert ro.ok("list_opportunities", stage="open", limit=100)["count"] == open_count
    assert ro.ok("list_opportunities", limit=3)["more"] is True
    acc = account_with_open_opps(ro)
    assert {o["account_id"] for o in ro.ok("list_opportunities", account_id=acc)["opportunities"]} == {acc}
    assert_error(ro, "list_opportunities", "stage must be one of", stage="won")
    assert_error(ro, "list_opportunities", "list_accounts", account_id="ACC-1")

    opp = opp_in(ro, "proposal")
    got = ro.ok("get_opportunity", opportunity_id=opp)
    assert (got["stage"], got["probability"], got["allowed_next_stages"]) == (
        "proposal",
        50,
        ["negotiation", "closed_lost"],
    )
    assert ro.ok("get_opportunity", opportunity_id=opp_in(ro, "closed_won"))["allowed_next_stages"] == []
    assert_error(ro, "get_opportunity", "OPP-1001", "list_opportunities", opportunity_id="OPP-9")


def test_create_and_update_opportunity(crm: LiveServer) -> None:
    acc = account_with_open_opps(crm)
    owner = scalar(crm, "SELECT owner_id FROM accounts WHERE id = ?", acc)
    new_id = f"OPP-{1001 + count(crm, 'opportunities')}"
    out = crm.ok("create_opportunity", account_id=acc, opportunity_name="Pilot project", close_date="2026-03-31")
    assert out == {
        "opportunity_id": new_id,
        "name": "Pilot project",
        "account_id": acc,
        "stage": "prospecting",
        "amount": None,
        "probability": 10,
        "close_date": "2026-03-31",
        "owner_id": owner,
    }
    assert crm.query("SELECT stage, created_on, amount_cents FROM opportunities WHERE id = ?", new_id) == [
        ("prospecting", "2026-01-15", None)
    ]
    other = active_owner(crm, other_than=owner)
    second = crm.ok(
        "create_opportunity",
        account_id=acc,
        opportunity_name="Renewal",
        close_date="2026-02-01",
        amount=1500.5,
        owner_id=other,
    )
    assert (second["amount"], second["owner_id"]) == (1500.5, other)
    args = {"account_id": acc, "opportunity_name": "X deal"}
    assert_error(crm, "create_opportunity", "in the past", **args, close_date="2026-01-14")
    assert_error(crm, "create_opportunity", "not a valid date", **args, close_date="soon")
    assert_error(crm, "create_opportunity", "inactive", **args, close_date="2026-03-01", owner_id=inactive_owner(crm))
    assert_error(
        crm, "create_opportunity", "archived", **{**args, "account_id": archived_account(crm)}, close_date="2026-03-01"
    )

    out = crm.ok("update_opportunity", opportunity_id=new_id, amount=42000, close_date="2026-04-30")
    assert out == {"opportunity_id": new_id, "changed": {"amount": 42000, "close_date": "2026-04-30"}}
    assert crm.query("SELECT amount_cents, close_date FROM opportunities WHERE id = ?", new_id) == [
        (4_200_000, "2026-04-30")
    ]
    assert_error(crm, "update_opportunity", "Nothing to change", opportunity_id=new_id)
    assert_error(crm, "update_opportunity", "greater than 0", opportunity_id=new_id, amount=0)
    assert_error(crm, "update_opportunity", "in the past", opportunity_id=new_id, close_date="2025-12-01")
    assert_error(
        crm, "update_opportunity", "closed stages are final", opportunity_id=opp_in(crm, "closed_lost"), amount=10
    )


def test_advance_opportunity_stage(crm: LiveServer) -> None:
    opp = opp_in(crm, "prospecting")
    out = crm.ok("advance_opportunity_stage", opportunity_id=opp)
    assert (out["previous_stage"], out["stage"], out["probability"]) == ("prospecting", "qualification", 20)
    err = assert_error(crm, "advance_opportunity_stage", "one stage at a time", opportunity_id=opp, stage="negotiation")
    assert "allowed next stages are proposal" in err and "closed_lost" in err
    assert stage_of(crm, opp) == "qualification"
    assert_error(
        crm, "advance_opportunity_stage", "already in qualification", opportunity_id=opp, stage="qualification"
    )
    assert_error(crm, "advance_opportunity_stage", "close_opportunity", opportunity_id=opp, stage="closed_lost")
    assert_error(crm, "advance_opportunity_stage", "stage must be one of", opportunity_id=opp, stage="done")
    crm.ok("advance_opportunity_stage", opportunity_id=opp, stage="Proposal")
    crm.ok("advance_opportunity_stage", opportunity_id=opp, stage="negotiation")
    assert stage_of(crm, opp) == "negotiation"
    err = assert_error(crm, "advance_opportunity_stage", "closed_won", "close_opportunity", opportunity_id=opp)
    assert "closed_lost" in err
    assert stage_of(crm, opp) == "negotiation"
    assert_error(crm, "advance_opportunity_stage", "final", opportunity_id=opp_in(crm, "closed_won"))


def test_close_opportunity(crm: LiveServer) -> None:
    ready = opp_in(crm, "negotiation", amount=True)
    out = crm.ok("close_opportunity", opportunity_id=ready, outcome="won", reason="Best fit")
    assert (out["stage"], out["previous_stage"], out["probability"], out["close_date"]) == (
        "closed_won",
        "negotiation",
        100,
        "2026-01-15",
    )
    assert crm.query("SELECT stage, close_date, close_reason FROM opportunities WHERE id = ?", ready) == [
        ("closed_won", "2026-01-15", "Best fit")
    ]
    assert_error(crm, "close_opportunity", "closed stages are final", opportunity_id=ready, outcome="lost")

    no_amount = opp_in(crm, "negotiation", amount=False)
    assert_error(crm, "close_opportunity", "no amount", "update_opportunity", opportunity_id=no_amount, outcome="won")
    err = assert_error(
        crm, "close_opportunity", "in the future", opportunity_id=no_amount, outcome="won", close_date="2026-01-16"
    )
    assert "2026-01-15" in err
    crm.ok("update_opportunity", opportunity_id=no_amount, amount=9000)
    crm.ok("close_opportunity", opportunity_id=no_amount, outcome="closed_won", close_date="2026-01-14")
    assert crm.query("SELECT stage, close_date FROM opportunities WHERE id = ?", no_amount) == [
        ("closed_won", "2026-01-14")
    ]

    early = opp_in(crm, "proposal", amount=True)
    err = assert_error(crm, "close_opportunity", "only from negotiation", opportunity_id=early, outcome="won")
    assert "allowed next stages are negotiation" in err
    assert_error(crm, "close_opportunity", "before", opportunity_id=early, outcome="lost", close_date="2000-01-01")
    assert_error(crm, "close_opportunity", "'won' or 'lost'", opportunity_id=early, outcome="maybe")
    out = crm.ok("close_opportunity", opportunity_id=early, outcome="lost", reason="Chose a competitor")
    assert out["stage"] == "closed_lost" and out["probability"] == 0
    assert stage_of(crm, early) == "closed_lost"


def test_reassign_opportunity(crm: LiveServer) -> None:
    opp = opp_in(crm, "qualification")
    current = scalar(crm, "SELECT owner_id FROM opportunities WHERE id = ?", opp)
    new = active_owner(crm, other_than=current)
    assert crm.ok("reassign_opportunity", opportunity_id=opp, owner_id=new)["owner_id"] == new
    assert scalar(crm, "SELECT owner_id FROM opportunities WHERE id = ?", opp) == new
    assert_error(crm, "reassign_opportunity", "already owned by", opportunity_id=opp, owner_id=new)
    assert_error(crm, "reassign_opportunity", "inactive", opportunity_id=opp, owner_id=inactive_owner(crm))
    assert_error(crm, "reassign_opportunity", "final", opportunity_id=opp_in(crm, "closed_lost"), owner_id=new)
    assert_error(crm, "reassign_opportunity", "list_owners", opportunity_id=opp, owner_id="OWN-1")
