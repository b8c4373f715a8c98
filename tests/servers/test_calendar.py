"""Tests of the bundled calendar server, driven through a real MCP client (no mocks).

Tests that write create their own events in the week of 2026-02-16, after the last seeded
event (2026-02-11), so their scenarios do not depend on the seeded calendars.
"""

from __future__ import annotations

import inspect
from datetime import datetime
from typing import Any

import pytest

from gym_mcp.servers.calendar import kit
from tests.helpers import LiveServer
from tests.servers.helpers import (
    assert_every_tool_described,
    assert_listed_with_kinds,
    intent_placeholders,
    tool_params,
)

DAY = "2026-02-16"  # a Monday with nothing seeded

BUSY_SQL = """
with busy as (
    select e.organizer_id as person_id, e.id as event_id, e.start, e."end"
    from events e where e.status = 'confirmed'
    union all
    select i.person_id, e.id, e.start, e."end"
    from invitations i join events e on e.id = i.event_id
    where e.status = 'confirmed' and i.response = 'accepted'
)
select a.person_id, a.event_id, b.event_id from busy a join busy b
on a.person_id = b.person_id and a.event_id < b.event_id and a.start < b."end" and b.start < a."end"
"""


@pytest.fixture
def s() -> LiveServer:
    return LiveServer(kit)


@pytest.fixture(scope="module")
def ro() -> LiveServer:
    """A shared server for tests that only read."""
    return LiveServer(kit)


def dump(server: LiveServer) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows, without the volatile (wall-clock) columns."""
    volatile = kit.volatile_columns
    out = {}
    for table in kit.base.metadata.sorted_tables:
        cols = [c.name for c in table.columns if c.name not in volatile.get(table.name, ())]
        quoted = ", ".join(f'"{c}"' for c in cols)
        out[table.name] = server.query(f"select {quoted} from {table.name} order by id")
    return out


def t(hm: str, day: str = DAY) -> str:
    return f"{day}T{hm}"


def make_event(s: LiveServer, organizer: str = "PER-1001", start: str = "10:00", end: str = "11:00", **kw: Any) -> dict:
    return s.ok("create_event", organizer_id=organizer, title="Test meeting", start=t(start), end=t(end), **kw)


def attendee_error(s: LiveServer, tool: str, event: dict, acting_person_id: str, person_id: str) -> str:
    """The message of an invite_attendee or remove_attendee call on ``event`` that must fail."""
    return s.error(tool, event_id=event["id"], acting_person_id=acting_person_id, person_id=person_id)


def past_event(s: LiveServer) -> tuple[str, str]:
    """A confirmed seeded event before today: (event id, organizer id)."""
    row = s.query(
        "select id, organizer_id from events where status = 'confirmed' and start < '2026-01-15' order by id limit 1"
    )
    return row[0]


# -- the server as a whole --------------------------------------------------------------------


def test_tools_listed_with_kinds(ro: LiveServer) -> None:
    assert_listed_with_kinds(
        ro,
        kit,
        writes={"create_event", "update_event", "cancel_event", "respond_to_invitation", "book_room"},
        reads={"find_person", "list_events", "find_free_slot", "check_availability", "list_rooms"},
    )


def test_every_tool_and_parameter_is_described(ro: LiveServer) -> None:
    assert_every_tool_described(ro, min_description=30)


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


# -- READ tools -------------------------------------------------------------------------------


def test_find_person(ro: LiveServer) -> None:
    pid, name, email, dept = ro.query("select id, name, email, department from people where id = 'PER-1005'")[0]
    by_name = ro.ok("find_person", query=name.split()[0].upper())
    assert pid in [p["id"] for p in by_name]
    by_email = ro.ok("find_person", query=email)
    assert [p["id"] for p in by_email] == [pid]
    assert set(by_email[0]) == {"id", "name", "email", "department", "working_hours"}
    by_dept = ro.ok("find_person", query=dept, limit=100)
    assert len(by_dept) == ro.query("select count(*) from people where department = ?", dept)[0][0]
    assert len(ro.ok("find_person", query="e", limit=3)) == 3
    assert ro.ok("find_person", query="zzzz-nobody") == []
    assert "query is empty" in ro.error("find_person", query="  ")
    assert "limit" in ro.error("find_person", query="a", limit=0)


def test_get_person(ro: LiveServer) -> None:
    person = ro.ok("get_person", person_id="PER-1001")
    row = ro.query("select name, email, work_start, work_end from people where id = 'PER-1001'")[0]
    assert (person["name"], person["email"], person["working_hours"]) == (
        row[0],
        row[1],
        f"{row[2]}-{row[3]}",
    )
    err = ro.error("get_person", person_id="PER-9999")
    assert "PER-9999" in err
    assert "find_person" in err


def test_list_events(ro: LiveServer) -> None:
    # the person with the most events in the seeded window
    pid = ro.query(
        """select p, count(*) c from (select organizer_id p from events
        union all select person_id from invitations) group by p order by c desc, p limit 1"""
    )[0][0]
    events = ro.ok(
        "list_events",
        person_id=pid,
        start_date="2026-01-01",
        end_date="2026-02-28",
        limit=100,
        include_cancelled=True,
    )
    expected = ro.query(
        """select id from events where organizer_id = ?1
        or id in (select event_id from invitations where person_id = ?1) order by start, id""",
        pid,
    )
    assert [e["id"] for e in events] == [r[0] for r in expected]
    for e in events:
        (org,) = ro.query("select organizer_id from events where id = ?", e["id"])[0]
        if org == pid:
            assert e["role"] == "organizer"
        else:
            assert (
                e["role"]
                == ro.query("select response from invitations where event_id = ? and person_id = ?", e["id"], pid)[0][0]
            )
    confirmed = ro.ok("list_events", person_id=pid, start_date="2026-01-01", end_date="2026-02-28", limit=100)
    assert all(e["status"] == "confirmed" for e in confirmed)
    default = ro.ok("list_events", person_id=pid)
    assert all("2026-01-15" <= e["start"][:10] <= "2026-01-21" for e in default)
    assert len(ro.ok("list_events", person_id=pid, start_date="2026-01-01", end_date="2026-02-28", limit=2)) == 2
    assert "valid date" in ro.error("list_events", person_id=pid, start_date="20/01/2026")
    assert "before start_date" in ro.error("list_events", person_id=pid, start_date="2026-01-20", end_date="2026-01-19")
    assert "92 days" in ro.error("list_events", person_id=pid, start_date="2026-01-01", end_date="2026-12-31")
    assert "find_person" in ro.error("list_events", person_id="bob")


def test_get_event(ro: LiveServer) -> None:
    eid = ro.query("select event_id from invitations group by event_id having count(*) >= 3 order by 1 limit 1")[0][0]
    ev = ro.ok("get_event", event_id=eid)
    invs = ro.query("select id, person_id, response from invitations where event_id = ? order by id", eid)
    assert [(a["invitation_id"], a["person_id"], a["response"]) for a in ev["attendees"]] == invs
    assert ev["headcount"] == 1 + sum(r != "declined" for _, _, r in invs)
    assert ev["organizer"]["id"] == ro.query("select organizer_id from events where id = ?", eid)[0][0]
    cancelled = ro.query("select id from events where status = 'cancelled' limit 1")[0][0]
    assert "cancel_reason" in ro.ok("get_event", event_id=cancelled)
    err = ro.error("get_event", event_id="EVT-1")
    assert "EVT-1" in err
    assert "search_events" in err


def test_search_events(ro: LiveServer) -> None:
    hits = ro.ok("search_events", query="SPRINT", limit=100)
    expected = ro.query(
        "select id from events where lower(title) like '%sprint%' or lower(description) "
        "like '%sprint%' order by start, id"
    )
    assert [h["id"] for h in hits] == [r[0] for r in expected]
    assert hits
    dated = ro.ok("search_events", query="a", start_date="2026-01-19", end_date="2026-01-19", limit=100)
    assert dated
    assert all(h["start"].startswith("2026-01-19") for h in dated)
    assert ro.ok("search_events", query="no such meeting xyz") == []
    assert "query is empty" in ro.error("search_events", query="")
    assert "before start_date" in ro.error("search_events", query="a", start_date="2026-01-20", end_date="2026-01-01")


def test_list_invitations(ro: LiveServer) -> None:
    pid = ro.query(
        """select i.person_id from invitations i join events e on e.id = i.event_id
        where i.response = 'pending' and e.status = 'confirmed' and e.start >= '2026-01-15'
        group by i.person_id order by count(*) desc, 1 limit 1"""
    )[0][0]
    pending = ro.ok("list_invitations", person_id=pid, limit=100)
    expected = ro.query(
        """select i.id from invitations i join events e on e.id = i.event_id where i.person_id = ?
        and i.response = 'pending' and e.status = 'confirmed' and e.start >= '2026-01-15'
        order by e.start, e.id""",
        pid,
    )
    assert [p["invitation_id"] for p in pending] == [r[0] for r in expected]
    assert all(p["response"] == "pending" for p in pending)
    every = ro.ok("list_invitations", person_id=pid, response="any", limit=100)
    assert len(every) >= len(pending)
    assert "response must be one of" in ro.error("list_invitations", person_id=pid, response="maybe")
    assert "PER-0" in ro.error("list_invitations", person_id="PER-0")


def test_check_availability(ro: LiveServer) -> None:
    pid = ro.query(
        "select organizer_id from events where status = 'confirmed' and start >= '2026-01-19' order by start limit 1"
    )[0][0]
    got = ro.ok("check_availability", person_id=pid, start_date="2026-01-15", end_date="2026-02-13")
    expected = ro.query(
        """select id from events where status = 'confirmed' and start >= '2026-01-15' and (organizer_id = ?1
        or id in (select event_id from invitations where person_id = ?1 and response = 'accepted'))
        order by start, id""",
        pid,
    )
    assert [b["event_id"] for b in got["busy"]] == [r[0] for r in expected]
    tentative = ro.query(
        """select count(*) from events e join invitations i on i.event_id = e.id where e.status = 'confirmed'
        and e.start >= '2026-01-15' and i.person_id = ? and i.response = 'tentative'""",
        pid,
    )[0][0]
    assert len(got["tentative"]) == tentative
    assert got["working_hours"].count(":") == 2
    assert "31 days" in ro.error("check_availability", person_id=pid, start_date="2026-01-01", end_date="2026-03-01")
    assert "valid date" in ro.error("check_availability", person_id=pid, start_date="tomorrow")


def test_list_rooms(s: LiveServer) -> None:
    rooms = s.ok("list_rooms", min_capacity=10)
    assert rooms
    assert [r["id"] for r in rooms] == [
        r[0] for r in s.query("select id from rooms where capacity >= 10 order by capacity, id")
    ]
    assert len(s.ok("list_rooms")) == 12
    make_event(s, room_id="ROOM-101")
    free = [r["id"] for r in s.ok("list_rooms", start=t("10:30"), end=t("11:30"))]
    assert "ROOM-101" not in free
    assert len(free) == 11
    assert "ROOM-101" in [r["id"] for r in s.ok("list_rooms", start=t("11:00"), end=t("12:00"))]
    assert "both start and end" in s.error("list_rooms", start=t("10:00"))
    assert "must be after start" in s.error("list_rooms", start=t("10:00"), end=t("09:00"))


def test_find_free_slot_then_create_event(s: LiveServer) -> None:
    make_event(s, organizer="PER-1001", start="09:00", end="10:30")
    other = make_event(s, organizer="PER-1003", start="10:00", end="12:00", attendee_ids=["PER-1002"])
    inv = other["attendees"][0]["invitation_id"]
    s.ok("respond_to_invitation", invitation_id=inv, person_id="PER-1002", response="accepted")
    hours = [s.ok("get_person", person_id=p)["working_hours"] for p in ("PER-1001", "PER-1002")]
    found = s.ok("find_free_slot", person_ids=["PER-1001", "PER-1002"], date=DAY, duration_minutes=45)
    slot = found["slot"]
    assert slot["end"] <= t("09:00") or slot["start"] >= t("12:00")
    assert slot["start"] >= t(max(h[:5] for h in hours))
    created = s.ok(
        "create_event",
        organizer_id="PER-1001",
        title="Planning",
        start=slot["start"],
        end=slot["end"],
        attendee_ids=["PER-1002"],
    )
    inv2 = created["attendees"][0]["invitation_id"]
    s.ok("respond_to_invitation", invitation_id=inv2, person_id="PER-1002", response="accepted")
    again = s.ok("find_free_slot", person_ids=["PER-1001", "PER-1002"], date=DAY, duration_minutes=45)
    assert again["slot"]["start"] >= slot["end"]


def test_find_free_slot_none_and_errors(s: LiveServer) -> None:
    window = s.ok("get_person", person_id="PER-1001")["working_hours"]
    make_event(s, start=window[:5], end=window[6:])
    full = s.ok("find_free_slot", person_ids=["PER-1001"], date=DAY, duration_minutes=30)
    assert full["slot"] is None
    assert full["free_windows"] == []
    assert "another day" in full["hint"]
    assert "Saturday" in s.error("find_free_slot", person_ids=["PER-1001"], date="2026-02-21")
    assert "in the past" in s.error("find_free_slot", person_ids=["PER-1001"], date="2026-01-14")
    assert "PER-4242" in s.error("find_free_slot", person_ids=["PER-1001", "PER-4242"], date=DAY)
    assert "empty" in s.error("find_free_slot", person_ids=[], date=DAY)
    assert "between 15 and 480" in s.error("find_free_slot", person_ids=["PER-1001"], date=DAY, duration_minutes=5)
    assert "valid date" in s.error("find_free_slot", person_ids=["PER-1001"], date="Feb 16")


# -- WRITE tools ------------------------------------------------------------------------------


def test_create_event(s: LiveServer) -> None:
    max_evt = s.query("select max(id) from events")[0][0]
    max_inv = s.query("select max(id) from invitations")[0][0]
    ev = make_event(s, attendee_ids=["PER-1002", "PER-1003"], room_id="ROOM-101", description="Agenda")
    assert ev["id"] == f"EVT-{int(max_evt[4:]) + 1}"
    assert [a["invitation_id"] for a in ev["attendees"]] == [f"INV-{int(max_inv[4:]) + i}" for i in (1, 2)]
    assert ev["start"] == t("10:00")
    assert ev["room"]["id"] == "ROOM-101"
    row = s.query(
        'select title, start, "end", organizer_id, room_id, status, description from events where id = ?',
        ev["id"],
    )[0]
    assert row == (
        "Test meeting",
        "2026-02-16 10:00:00.000000",
        "2026-02-16 11:00:00.000000",
        "PER-1001",
        "ROOM-101",
        "confirmed",
        "Agenda",
    )
    assert s.query("select person_id, response from invitations where event_id = ? order by id", ev["id"]) == [
        ("PER-1002", "pending"),
        ("PER-1003", "pending"),
    ]
    # today itself is allowed
    assert (
        s.ok(
            "create_event",
            organizer_id="PER-1040",
            title="Now",
            start="2026-01-15T23:00",
            end="2026-01-15T23:30",
        )["status"]
        == "confirmed"
    )


def test_create_event_rejections_change_nothing(s: LiveServer) -> None:
    first = make_event(s, room_id="ROOM-101", attendee_ids=["PER-1002"])
    before = dump(s)
    err = s.error

    def bad(**kw: Any) -> str:
        args = {"organizer_id": "PER-1001", "title": "X", "start": t("14:00"), "end": t("15:00")} | kw
        return err("create_event", **args)

    assert first["id"] in bad(start=t("10:30"), end=t("11:30"))  # organizer double-booked
    assert "Double booking" in bad(start=t("10:30"), end=t("11:30"))
    assert first["id"] in bad(organizer_id="PER-1005", start=t("10:30"), end=t("11:30"), room_id="ROOM-101")
    assert "must be after start" in bad(end=t("13:00"))
    assert "must be after start" in bad(end=t("14:00"))
    assert "in the past" in bad(start="2026-01-14T10:00", end="2026-01-14T11:00")
    assert "not a valid date-time" in bad(start="2026-02-16T25:00")
    assert "not a date-time" in bad(start="2026-02-16")
    assert "timezone" in bad(start="2026-02-16T14:00+01:00")
    assert "same day" in bad(end="2026-02-17T09:00")
    small = s.query("select id, capacity from rooms order by capacity, id limit 1")[0]
    many = [f"PER-{1002 + i}" for i in range(small[1])]
    cap = bad(room_id=small[0], attendee_ids=many)
    assert f"holds {small[1]}" in cap
    assert "min_capacity" in cap
    assert "ROOM-999" in bad(room_id="ROOM-999")
    assert "PER-7777" in bad(attendee_ids=["PER-7777"])
    assert "organizer" in bad(attendee_ids=["PER-1001"])
    assert "twice" in bad(attendee_ids=["PER-1002", "PER-1002"])
    assert "organizer_id" in bad(organizer_id="nobody")
    assert "title" in bad(title=" ")
    assert dump(s) == before


def test_update_event(s: LiveServer) -> None:
    ev = make_event(s, attendee_ids=["PER-1002"], room_id="ROOM-101")
    moved = s.ok("update_event", event_id=ev["id"], acting_person_id="PER-1001", start=t("14:00"), title="Moved")
    assert (moved["start"], moved["end"], moved["title"]) == (t("14:00"), t("15:00"), "Moved")
    assert moved["changed"] == ["title", "start", "end"]
    assert s.query('select start, "end", title from events where id = ?', ev["id"])[0] == (
        "2026-02-16 14:00:00.000000",
        "2026-02-16 15:00:00.000000",
        "Moved",
    )
    longer = s.ok("update_event", event_id=ev["id"], acting_person_id="PER-1001", end=t("16:00"))
    assert (longer["start"], longer["end"]) == (t("14:00"), t("16:00"))
    bigger = s.query("select id from rooms where capacity >= 10 and id != 'ROOM-101' order by id limit 1")[0][0]
    changed = s.ok(
        "update_event",
        event_id=ev["id"],
        acting_person_id="PER-1001",
        room_id=bigger,
        start=t("09:00"),
        end=t("10:00"),
    )
    assert changed["room"]["id"] == bigger
    assert s.query("select room_id from events where id = ?", ev["id"])[0][0] == bigger


def test_update_event_rejections(s: LiveServer) -> None:
    ev = make_event(s, attendee_ids=["PER-1002"], room_id="ROOM-101")
    inv = ev["attendees"][0]["invitation_id"]
    s.ok("respond_to_invitation", invitation_id=inv, person_id="PER-1002", response="accepted")
    blocker = make_event(s, organizer="PER-1002", start="15:00", end="16:00")
    room_blocker = make_event(s, organizer="PER-1009", start="12:00", end="13:00", room_id="ROOM-101")
    before = dump(s)
    eid = ev["id"]
    err = s.error("update_event", event_id=eid, acting_person_id="PER-1001", start=t("15:30"))
    assert blocker["id"] in err
    assert "PER-1002" in err
    assert room_blocker["id"] in s.error("update_event", event_id=eid, acting_person_id="PER-1001", start=t("12:30"))
    not_org = s.error("update_event", event_id=eid, acting_person_id="PER-1002", title="Mine")
    assert "Only the organizer" in not_org
    assert "PER-1001" in not_org
    assert "in the past" in s.error("update_event", event_id=eid, acting_person_id="PER-1001", start="2026-01-10T10:00")
    assert "must be after start" in s.error("update_event", event_id=eid, acting_person_id="PER-1001", end=t("09:00"))
    assert "Nothing to update" in s.error("update_event", event_id=eid, acting_person_id="PER-1001")
    assert "ROOM-0" in s.error("update_event", event_id=eid, acting_person_id="PER-1001", room_id="ROOM-0")
    assert "EVT-0" in s.error("update_event", event_id="EVT-0", acting_person_id="PER-1001", title="x")
    past_id, past_org = past_event(s)
    assert "past events cannot" in s.error("update_event", event_id=past_id, acting_person_id=past_org, title="Renamed")
    assert dump(s) == before
    s.ok("cancel_event", event_id=eid, acting_person_id="PER-1001")
    assert "cancelled" in s.error("update_event", event_id=eid, acting_person_id="PER-1001", title="x")


def test_cancel_event(s: LiveServer) -> None:
    ev = make_event(s, attendee_ids=["PER-1002", "PER-1003"], room_id="ROOM-101")
    assert "Only the organizer" in s.error("cancel_event", event_id=ev["id"], acting_person_id="PER-1002")
    assert s.query("select status from events where id = ?", ev["id"])[0][0] == "confirmed"
    out = s.ok("cancel_event", event_id=ev["id"], acting_person_id="PER-1001", reason="No longer needed")
    assert out["status"] == "cancelled"
    assert out["notified_invitees"] == 2
    assert s.query("select status, cancel_reason from events where id = ?", ev["id"])[0] == (
        "cancelled",
        "No longer needed",
    )
    # the time and the room are free again
    make_event(s, start="10:00", end="11:00", room_id="ROOM-101")
    assert "already cancelled" in s.error("cancel_event", event_id=ev["id"], acting_person_id="PER-1001")
    past_id, past_org = past_event(s)
    assert "past events cannot" in s.error("cancel_event", event_id=past_id, acting_person_id=past_org)
    assert "acting_person_id" in s.error("cancel_event", event_id=ev["id"], acting_person_id="PER-X")


def test_invite_attendee(s: LiveServer) -> None:
    small = s.query("select id, capacity from rooms order by capacity, id limit 1")[0]
    ev = make_event(s, room_id=small[0], attendee_ids=[f"PER-{1002 + i}" for i in range(small[1] - 2)])
    max_inv = s.query("select max(id) from invitations")[0][0]
    inv = s.ok("invite_attendee", event_id=ev["id"], acting_person_id="PER-1001", person_id="PER-1030")
    assert inv["invitation_id"] == f"INV-{int(max_inv[4:]) + 1}"
    assert s.query("select event_id, person_id, response from invitations where id = ?", inv["invitation_id"]) == [
        (ev["id"], "PER-1030", "pending")
    ]
    count = s.query("select count(*) from invitations")[0][0]
    twice = attendee_error(s, "invite_attendee", ev, "PER-1001", "PER-1030")
    assert "already invited" in twice
    assert inv["invitation_id"] in twice
    full = attendee_error(s, "invite_attendee", ev, "PER-1001", "PER-1031")
    assert f"holds {small[1]}" in full
    assert "attends already" in attendee_error(s, "invite_attendee", ev, "PER-1001", "PER-1001")
    assert "Only the organizer" in attendee_error(s, "invite_attendee", ev, "PER-1030", "PER-1031")
    assert "PER-5555" in attendee_error(s, "invite_attendee", ev, "PER-1001", "PER-5555")
    assert s.query("select count(*) from invitations")[0][0] == count
    s.ok("cancel_event", event_id=ev["id"], acting_person_id="PER-1001")
    assert "cancelled" in attendee_error(s, "invite_attendee", ev, "PER-1001", "PER-1031")


def test_remove_attendee(s: LiveServer) -> None:
    ev = make_event(s, attendee_ids=["PER-1002", "PER-1003"])
    out = s.ok("remove_attendee", event_id=ev["id"], acting_person_id="PER-1001", person_id="PER-1002")
    assert out["removed_invitation_id"] == ev["attendees"][0]["invitation_id"]
    assert s.query("select person_id from invitations where event_id = ?", ev["id"]) == [("PER-1003",)]
    assert "not invited" in attendee_error(s, "remove_attendee", ev, "PER-1001", "PER-1002")
    assert "cancel_event" in attendee_error(s, "remove_attendee", ev, "PER-1001", "PER-1001")
    assert "Only the organizer" in attendee_error(s, "remove_attendee", ev, "PER-1003", "PER-1003")
    assert s.query("select person_id from invitations where event_id = ?", ev["id"]) == [("PER-1003",)]


def test_respond_to_invitation(s: LiveServer) -> None:
    ev = make_event(s, attendee_ids=["PER-1002"])
    inv = ev["attendees"][0]["invitation_id"]
    out = s.ok("respond_to_invitation", invitation_id=inv, person_id="PER-1002", response="accepted")
    assert (out["response"], out["previous_response"]) == ("accepted", "pending")
    assert s.query("select response from invitations where id = ?", inv)[0][0] == "accepted"
    # an overlapping invitation can be tentative but not accepted
    other = make_event(s, organizer="PER-1003", start="10:30", end="11:30", attendee_ids=["PER-1002"])
    inv2 = other["attendees"][0]["invitation_id"]
    err = s.error("respond_to_invitation", invitation_id=inv2, person_id="PER-1002", response="accepted")
    assert ev["id"] in err
    assert "Double booking" in err
    assert s.query("select response from invitations where id = ?", inv2)[0][0] == "pending"
    s.ok("respond_to_invitation", invitation_id=inv2, person_id="PER-1002", response="tentative")
    s.ok("respond_to_invitation", invitation_id=inv, person_id="PER-1002", response="declined")
    s.ok("respond_to_invitation", invitation_id=inv2, person_id="PER-1002", response="accepted")
    assert "only the invitee" in s.error(
        "respond_to_invitation", invitation_id=inv, person_id="PER-1003", response="accepted"
    )
    assert "must be" in s.error("respond_to_invitation", invitation_id=inv, person_id="PER-1002", response="yes")
    assert "INV-0" in s.error("respond_to_invitation", invitation_id="INV-0", person_id="PER-1002", response="accepted")
    s.ok("cancel_event", event_id=other["id"], acting_person_id="PER-1003")
    assert "cancelled" in s.error(
        "respond_to_invitation", invitation_id=inv2, person_id="PER-1002", response="declined"
    )
    past = s.query(
        "select i.id, i.person_id from invitations i join events e on e.id = i.event_id "
        "where e.status = 'confirmed' and e.start < '2026-01-15' limit 1"
    )[0]
    assert "past events cannot" in s.error(
        "respond_to_invitation", invitation_id=past[0], person_id=past[1], response="declined"
    )


def test_respond_capacity_after_decline(s: LiveServer) -> None:
    small = s.query("select id, capacity from rooms order by capacity, id limit 1")[0]
    invitees = [f"PER-{1002 + i}" for i in range(small[1] - 1)]
    ev = make_event(s, room_id=small[0], attendee_ids=invitees)
    first = ev["attendees"][0]["invitation_id"]
    s.ok("respond_to_invitation", invitation_id=first, person_id=invitees[0], response="declined")
    s.ok("invite_attendee", event_id=ev["id"], acting_person_id="PER-1001", person_id="PER-1035")
    err = s.error("respond_to_invitation", invitation_id=first, person_id=invitees[0], response="accepted")
    assert f"holds {small[1]}" in err
    assert s.query("select response from invitations where id = ?", first)[0][0] == "declined"


def test_book_and_release_room(s: LiveServer) -> None:
    big1, big2, big3 = (r for (r,) in s.query("select id from rooms where capacity >= 8 order by id limit 3"))
    ev = make_event(s, attendee_ids=["PER-1002", "PER-1003", "PER-1004"])
    booked = s.ok("book_room", event_id=ev["id"], acting_person_id="PER-1001", room_id=big1)
    assert (booked["room_id"], booked["previous_room_id"]) == (big1, None)
    assert s.query("select room_id from events where id = ?", ev["id"])[0][0] == big1
    assert "already booked in" in s.error("book_room", event_id=ev["id"], acting_person_id="PER-1001", room_id=big1)
    tiny = s.query("select id from rooms where capacity < 4 order by id")
    small = s.query("select id from rooms where capacity = 4 order by id limit 1")[0][0]
    assert tiny == []
    s.ok("invite_attendee", event_id=ev["id"], acting_person_id="PER-1001", person_id="PER-1005")
    assert "holds 4" in s.error("book_room", event_id=ev["id"], acting_person_id="PER-1001", room_id=small)
    other = make_event(s, organizer="PER-1020", start="10:30", end="11:00", room_id=big2)
    taken = s.error("book_room", event_id=ev["id"], acting_person_id="PER-1001", room_id=big2)
    assert other["id"] in taken
    assert "Only the organizer" in s.error("book_room", event_id=ev["id"], acting_person_id="PER-1002", room_id=big3)
    assert s.query("select room_id from events where id = ?", ev["id"])[0][0] == big1
    moved = s.ok("book_room", event_id=ev["id"], acting_person_id="PER-1001", room_id=big3)
    assert moved["previous_room_id"] == big1
    released = s.ok("release_room", event_id=ev["id"], acting_person_id="PER-1001")
    assert released["previous_room_id"] == big3
    assert s.query("select room_id from events where id = ?", ev["id"])[0][0] is None
    assert "no room" in s.error("release_room", event_id=ev["id"], acting_person_id="PER-1001")
    assert "Only the organizer" in s.error("release_room", event_id=other["id"], acting_person_id="PER-1001")


# -- synthesis hints ----------------------------------------------------------------------------


def test_every_tool_has_a_synthesis_intent() -> None:
    for name, info in kit.tools.items():
        _, inside = intent_placeholders(name, info)
        for p in tool_params(info):
            if p.default is not inspect.Parameter.empty:
                assert p.name in inside or isinstance(p.default, bool), f"{name}: optional {p.name} has no slot"
        for pname, values in info.samples.items():
            assert len(values) >= 3, f"{name}.{pname}"


def test_synthesis_samples_make_valid_calls(s: LiveServer) -> None:
    people = {pid for (pid,) in s.query("select id from people")}
    for info in kit.tools.values():
        for pname, values in info.samples.items():
            if pname.endswith("_ids"):
                assert all(1 <= len(v) <= 3 and set(v) <= people for v in values), f"{info.name}.{pname}"
    for name in ("create_event", "update_event", "list_rooms"):
        samples = kit.tools[name].samples
        for start in samples["start"]:
            assert start >= "2026-01-15", f"{name}: {start} is in the past"
            for end in samples["end"]:
                if start[:10] == end[:10]:  # a same-day pair always makes a 30-180 minute meeting
                    minutes = (datetime.fromisoformat(end) - datetime.fromisoformat(start)).seconds // 60
                    assert 30 <= minutes <= 180, (name, start, end)
    create = kit.tools["create_event"].samples
    for i, group in enumerate(create["attendee_ids"]):
        start, end = create["start"][i % len(create["start"])], create["end"][i % len(create["end"])]
        if start[:10] != end[:10]:
            end = start[:10] + end[10:]
        s.ok(
            "create_event",
            organizer_id=f"PER-{1030 + i}",
            title=create["title"][i % len(create["title"])],
            start=start,
            end=end,
            attendee_ids=group,
            description=create["description"][i % len(create["description"])],
        )


def test_synthesis_samples_find_free_slots(ro: LiveServer) -> None:
    free = kit.tools["find_free_slot"].samples
    for people_ids in free["person_ids"]:
        for day in free["date"]:
            assert ro.ok("find_free_slot", person_ids=people_ids, date=day, duration_minutes=120)["slot"]
