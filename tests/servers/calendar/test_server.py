"""Tests of the bundled calendar server, driven through a real MCP client (no mocks).

Tests that write create their own events in the week of 2026-02-16, after the last seeded
event (2026-02-11), so their scenarios do not depend on the seeded calendars.: the server as a whole."""

from __future__ import annotations

from typing import Any

import pytest

from gym_mcp.servers.calendar import kit
from tests.helpers import LiveServer
from tests.servers.calendar.common import BUSY_SQL, make_event, t
from tests.servers.helpers import assert_listed_with_kinds, dump


def test_tools_listed_with_kinds(ro: LiveServer) -> None:
    assert_listed_with_kinds(
        ro,
        kit,
        writes={"create_event", "update_event", "cancel_event", "respond_to_invitation", "book_room"},
        reads={"find_person", "list_events", "find_free_slot", "check_availability", "list_rooms"},
    )


def test_seed_counts(ro: LiveServer) -> None:
    counts = {tb: ro.query(f"select count(*) from {tb}")[0][0] for tb in ("people", "rooms", "events", "invitations")}
    assert counts["people"] == 40
    assert counts["rooms"] == 12
    assert counts["events"] >= 100
    assert counts["invitations"] >= 250
    assert sum(counts.values()) >= 200
    responses = {r for (r,) in ro.query("select distinct response from invitations")}
    assert responses == {"pending", "accepted", "declined", "tentative"}
    assert ro.query("select count(*) from events where start < '2026-01-15'")[0][0] > 10
    assert ro.query("select count(*) from events where start >= '2026-01-15'")[0][0] > 60
    assert ro.query("select count(*) from events where status = 'cancelled'")[0][0] >= 1


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_seed_respects_business_rules(seed: int) -> None:
    server = LiveServer(kit, seed=seed)
    assert server.query(BUSY_SQL) == []
    rooms = server.query(
        """select a.id, b.id from events a join events b on a.room_id = b.room_id and a.id < b.id
        and a.status = 'confirmed' and b.status = 'confirmed' and a.start < b."end" and b.start < a."end" """
    )
    assert rooms == []
    over = server.query(
        """select e.id from events e join rooms r on r.id = e.room_id
        where 1 + (select count(*) from invitations i where i.event_id = e.id and i.response != 'declined')
        > r.capacity"""
    )
    assert over == []
    assert server.query('select count(*) from events where "end" <= start')[0][0] == 0
    assert (
        server.query(
            "select count(*) from invitations i join events e on e.id = i.event_id where i.person_id = e.organizer_id"
        )[0][0]
        == 0
    )


def test_same_seed_same_data_different_seed_different_data() -> None:
    a, b, c = LiveServer(kit, seed=0), LiveServer(kit, seed=0), LiveServer(kit, seed=1)
    assert kit.volatile_columns == {"events": frozenset({"created_at"})}
    assert dump(a) == dump(b)
    assert dump(a) != dump(c)
    assert dump(a)["people"] != dump(c)["people"]


def test_replaying_calls_gives_identical_state() -> None:
    def script(server: LiveServer) -> list[Any]:
        ev = make_event(server, attendee_ids=["PER-1002", "PER-1003"], room_id="ROOM-101")
        inv = server.ok("invite_attendee", event_id=ev["id"], acting_person_id="PER-1001", person_id="PER-1004")
        server.ok(
            "respond_to_invitation",
            invitation_id=inv["invitation_id"],
            person_id="PER-1004",
            response="accepted",
        )
        server.ok("update_event", event_id=ev["id"], acting_person_id="PER-1001", start=t("13:00"))
        return [ev["id"], inv["invitation_id"]]

    a, b = LiveServer(kit), LiveServer(kit)
    assert script(a) == script(b)
    assert dump(a) == dump(b)
