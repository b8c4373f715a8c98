"""Tests of the bundled calendar server, driven through a real MCP client (no mocks).

Tests that write create their own events in the week of 2026-02-16, after the last seeded
event (2026-02-11), so their scenarios do not depend on the seeded calendars.: WRITE tools."""

from __future__ import annotations

from typing import Any

from tests.helpers import LiveServer
from tests.servers.calendar.common import attendee_error, make_event, past_event, t
from tests.servers.helpers import dump


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
