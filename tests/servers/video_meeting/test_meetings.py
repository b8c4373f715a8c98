"""The video meeting server, driven through a real MCP client on an in-memory database: meetings."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump, one, scalar
from tests.servers.video_meeting.common import ROOM, logged, meeting, status_of, stranger

NEW = {"title": "Launch planning", "start": "2026-02-10T09:30", "end": "2026-02-10T10:30"}


def test_list_meetings(vm: LiveServer) -> None:
    user_id = scalar(vm, "SELECT user_id FROM participants GROUP BY user_id HAVING count(*) >= 5 ORDER BY 1")
    listed = vm.ok("list_meetings", user_id=user_id)
    assert len(listed) == scalar(vm, "SELECT count(*) FROM participants WHERE user_id = ?", user_id)
    assert [m["start"] for m in listed] == sorted(m["start"] for m in listed)
    status = listed[0]["status"]
    assert {m["status"] for m in vm.ok("list_meetings", user_id=user_id, status=status)} == {status}
    day = listed[0]["start"][:10]
    assert {m["start"][:10] for m in vm.ok("list_meetings", user_id=user_id, day=day)} == {day}
    host = vm.ok("list_meetings", user_id=scalar(vm, "SELECT host_id FROM meetings ORDER BY id"))
    assert "host" in {m["my_role"] for m in host}
    assert "status must be one of" in vm.error("list_meetings", user_id=user_id, status="open")
    assert "find_users" in vm.error("list_meetings", user_id="USR-0001")


def test_get_meeting(vm: LiveServer) -> None:
    meeting_id, host = meeting(
        vm, "live", "AND m.waiting_room AND m.id IN (SELECT meeting_id FROM participants WHERE status = 'waiting')"
    )
    out = vm.ok("get_meeting", meeting_id=meeting_id)
    assert out["participants"][0] == {**out["participants"][0], "user_id": host, "role": "host", "status": "admitted"}
    waiting = vm.query(
        "SELECT user_id FROM participants WHERE meeting_id = ? AND status = 'waiting' ORDER BY user_id", meeting_id
    )
    assert out["waiting"] == [w for (w,) in waiting]
    assert out["admitted"] <= out["room_capacity"]
    assert "list_meetings" in vm.error("get_meeting", meeting_id="MTG-1")


def test_schedule_meeting(vm: LiveServer) -> None:
    host = scalar(vm, "SELECT id FROM users ORDER BY id")
    out = vm.ok("schedule_meeting", host_id=host, room_id="ROOM-1004", waiting_room=False, **NEW)
    assert (out["status"], out["start"], out["waiting_room"]) == ("scheduled", NEW["start"], False)
    assert out["participants"] == [{"user_id": host, "role": "host", "status": "invited", "name": out["host_name"]}]
    assert logged(vm, out["meeting_id"]) == [(host, "scheduled", None)]
    before = dump(vm)
    err = vm.error(
        "schedule_meeting",
        host_id=host,
        room_id="ROOM-1004",
        **{**NEW, "start": "2026-02-10T10:00", "end": "2026-02-10T11:00"},
    )
    assert f"already booked at that time by {out['meeting_id']}" in err
    assert "list_rooms" in err
    assert "in the past" in vm.error(
        "schedule_meeting",
        host_id=host,
        room_id="ROOM-1004",
        **{**NEW, "start": "2026-01-15T10:00", "end": "2026-01-15T10:30"},
    )
    assert "same day" in vm.error(
        "schedule_meeting", host_id=host, room_id="ROOM-1005", **{**NEW, "end": "2026-02-11T10:00"}
    )
    assert "at most 8 hours" in vm.error(
        "schedule_meeting",
        host_id=host,
        room_id="ROOM-1005",
        **{**NEW, "start": "2026-02-10T07:00", "end": "2026-02-10T18:00"},
    )
    assert "list_rooms" in vm.error("schedule_meeting", host_id=host, room_id="ROOM-42", **NEW)
    assert dump(vm) == before
    other = vm.ok("schedule_meeting", host_id=host, room_id="ROOM-1005", **NEW)  # another room is free
    assert other["meeting_id"] == f"MTG-{int(out['meeting_id'][4:]) + 1}"


def test_invite_user(vm: LiveServer) -> None:
    meeting_id, host = meeting(vm, "scheduled", f"AND {ROOM} >= 10")
    guest = stranger(vm, meeting_id)
    out = vm.ok("invite_user", meeting_id=meeting_id, acting_user_id=host, user_id=guest)
    assert out["status"] == "invited"
    assert status_of(vm, meeting_id, guest) == "invited"
    assert logged(vm, meeting_id) == [(host, "invited", guest)]
    before = dump(vm)
    assert "already a participant" in vm.error("invite_user", meeting_id=meeting_id, acting_user_id=host, user_id=guest)
    err = vm.error("invite_user", meeting_id=meeting_id, acting_user_id=guest, user_id=stranger(vm, meeting_id))
    assert f"Only the host of {meeting_id}" in err
    assert host in err
    full, full_host = meeting(
        vm,
        "live",
        "AND NOT m.waiting_room AND " + ROOM + " <= (SELECT count(*) FROM "
        "participants p WHERE p.meeting_id = m.id AND p.status = 'admitted')",
    )
    assert "nobody more can be invited" in vm.error(
        "invite_user", meeting_id=full, acting_user_id=full_host, user_id=stranger(vm, full)
    )
    ended, ended_host = meeting(vm, "ended")
    assert "only a scheduled or live meeting" in vm.error(
        "invite_user", meeting_id=ended, acting_user_id=ended_host, user_id=stranger(vm, ended)
    )
    assert dump(vm) == before


def test_cancel_meeting(vm: LiveServer) -> None:
    meeting_id, host = meeting(vm, "scheduled")
    guest = scalar(vm, "SELECT user_id FROM participants WHERE meeting_id = ? AND role = 'attendee'", meeting_id)
    before = dump(vm)
    assert "is not the host" in vm.error("cancel_meeting", meeting_id=meeting_id, acting_user_id=guest)
    live, live_host = meeting(vm, "live")
    assert "end it with end_meeting" in vm.error("cancel_meeting", meeting_id=live, acting_user_id=live_host)
    assert dump(vm) == before
    assert vm.ok("cancel_meeting", meeting_id=meeting_id, acting_user_id=host)["status"] == "cancelled"
    assert scalar(vm, "SELECT status FROM meetings WHERE id = ?", meeting_id) == "cancelled"
    assert "already cancelled" in vm.error("cancel_meeting", meeting_id=meeting_id, acting_user_id=host)


def test_start_meeting(vm: LiveServer) -> None:
    meeting_id, host = meeting(vm, "scheduled", "AND date(m.start) = '2026-01-15'")
    out = vm.ok("start_meeting", meeting_id=meeting_id, acting_user_id=host)
    assert (out["status"], out["admitted"]) == ("live", 1)
    assert status_of(vm, meeting_id, host) == "admitted"
    assert logged(vm, meeting_id) == [(host, "started", None)]
    assert "already live" in vm.error("start_meeting", meeting_id=meeting_id, acting_user_id=host)
    later, later_host = meeting(vm, "scheduled", "AND date(m.start) > '2026-01-15'")
    before = dump(vm)
    err = vm.error("start_meeting", meeting_id=later, acting_user_id=later_host)
    assert "only be started on its day" in err
    assert "is not the host" in vm.error("start_meeting", meeting_id=later, acting_user_id=host)
    assert dump(vm) == before


def test_end_meeting(vm: LiveServer) -> None:
    meeting_id, host = meeting(vm, "live", "AND m.id IN (SELECT meeting_id FROM recordings WHERE status = 'recording')")
    present = scalar(
        vm, "SELECT count(*) FROM participants WHERE meeting_id = ? AND status IN ('admitted', 'waiting')", meeting_id
    )
    guest = scalar(vm, "SELECT user_id FROM participants WHERE meeting_id = ? AND role = 'attendee'", meeting_id)
    before = dump(vm)
    assert "is not the host" in vm.error("end_meeting", meeting_id=meeting_id, acting_user_id=guest)
    scheduled, scheduled_host = meeting(vm, "scheduled")
    assert "cancel_meeting" in vm.error("end_meeting", meeting_id=scheduled, acting_user_id=scheduled_host)
    assert dump(vm) == before
    out = vm.ok("end_meeting", meeting_id=meeting_id, acting_user_id=host)
    assert (out["status"], out["people_left"]) == ("ended", present)
    assert vm.query("SELECT status FROM recordings WHERE id = ?", out["stopped_recording_id"]) == [("completed",)]
    assert (
        scalar(
            vm,
            "SELECT count(*) FROM participants WHERE meeting_id = ? AND status IN ('admitted', 'waiting')",
            meeting_id,
        )
        == 0
    )
    assert [a for _, a, _ in logged(vm, meeting_id)] == ["recording_stopped", "ended"]
    assert "already ended" in vm.error("end_meeting", meeting_id=meeting_id, acting_user_id=host)
    assert one(vm, "SELECT status FROM meetings WHERE id = ?", meeting_id) == ("ended",)
