"""Tests of the bundled calendar server, driven through a real MCP client (no mocks).

Tests that write create their own events in the week of 2026-02-16, after the last seeded
event (2026-02-11), so their scenarios do not depend on the seeded calendars.: READ tools."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.calendar.common import DAY, make_event, t


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
