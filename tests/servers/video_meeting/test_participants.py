"""The video meeting server, driven through a real MCP client on an in-memory database: joining, admitting, removing."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump, one, scalar
from tests.servers.video_meeting.common import INSIDE, ROOM, logged, meeting, status_of, stranger

WAITING = "SELECT user_id FROM participants WHERE meeting_id = ? AND status = 'waiting' ORDER BY user_id"


def test_join_meeting(vm: LiveServer) -> None:
    lobby, _ = meeting(vm, "live", "AND m.waiting_room")
    guest = stranger(vm, lobby)
    assert vm.ok("join_meeting", meeting_id=lobby, user_id=guest)["status"] == "waiting"
    assert status_of(vm, lobby, guest) == "waiting"
    assert logged(vm, lobby) == [(guest, "joined", guest)]
    assert "already in the waiting room" in vm.error("join_meeting", meeting_id=lobby, user_id=guest)
    open_room, _ = meeting(vm, "live", f"AND NOT m.waiting_room AND {INSIDE} < {ROOM}")
    invited = scalar(vm, "SELECT user_id FROM participants WHERE meeting_id = ? AND status = 'invited'", open_room)
    assert vm.ok("join_meeting", meeting_id=open_room, user_id=invited)["status"] == "admitted"
    before = dump(vm)
    full, _ = meeting(vm, "live", f"AND NOT m.waiting_room AND {INSIDE} >= {ROOM}")
    err = vm.error("join_meeting", meeting_id=full, user_id=stranger(vm, full))
    assert "cannot be let in" in err
    assert "remove_participant" in err
    removed_meeting, removed = one(vm, "SELECT meeting_id, user_id FROM participants WHERE status = 'removed'")
    assert "cannot rejoin" in vm.error("join_meeting", meeting_id=removed_meeting, user_id=removed)
    later, _ = meeting(vm, "scheduled")
    assert "has not started yet" in vm.error("join_meeting", meeting_id=later, user_id=stranger(vm, later))
    assert dump(vm) == before


def test_admit_participant(vm: LiveServer) -> None:
    meeting_id, host = meeting(
        vm, "live", f"AND m.id IN (SELECT meeting_id FROM participants WHERE status = 'waiting') AND {INSIDE} < {ROOM}"
    )
    guest = vm.query(WAITING, meeting_id)[0][0]
    before = dump(vm)
    err = vm.error("admit_participant", meeting_id=meeting_id, acting_user_id=guest, user_id=guest)
    assert f"Only the host of {meeting_id}" in err
    assert host in err
    outsider = stranger(vm, meeting_id)
    err = vm.error("admit_participant", meeting_id=meeting_id, acting_user_id=host, user_id=outsider)
    assert "is not in the waiting room" in err
    assert guest in err  # names who is waiting
    assert dump(vm) == before
    inside = scalar(vm, f"SELECT {INSIDE} FROM meetings m WHERE m.id = ?", meeting_id)
    out = vm.ok("admit_participant", meeting_id=meeting_id, acting_user_id=host, user_id=guest)
    assert out["people_in"] == inside + 1
    assert status_of(vm, meeting_id, guest) == "admitted"
    assert logged(vm, meeting_id) == [(host, "admitted", guest)]
    full, full_host = meeting(vm, "live", f"AND m.waiting_room AND {INSIDE} >= {ROOM}")
    knocking = vm.query(WAITING, full)[0][0]
    before = dump(vm)
    err = vm.error("admit_participant", meeting_id=full, acting_user_id=full_host, user_id=knocking)
    assert "cannot be let in" in err
    assert dump(vm) == before


def test_remove_participant(vm: LiveServer) -> None:
    meeting_id, host = meeting(vm, "live", f"AND m.waiting_room AND {INSIDE} >= {ROOM}")
    guest = scalar(
        vm,
        "SELECT user_id FROM participants WHERE meeting_id = ? AND status = 'admitted' AND role = 'attendee'",
        meeting_id,
    )
    before = dump(vm)
    assert "is not the host" in vm.error(
        "remove_participant", meeting_id=meeting_id, acting_user_id=guest, user_id=host
    )
    assert "cannot remove themself" in vm.error(
        "remove_participant", meeting_id=meeting_id, acting_user_id=host, user_id=host
    )
    assert "nothing to remove" in vm.error(
        "remove_participant", meeting_id=meeting_id, acting_user_id=host, user_id=stranger(vm, meeting_id)
    )
    assert dump(vm) == before
    out = vm.ok("remove_participant", meeting_id=meeting_id, acting_user_id=host, user_id=guest)
    assert out["removed_user_id"] == guest
    assert status_of(vm, meeting_id, guest) == "removed"
    # the room has space again: the one knocking can now be admitted
    knocking = vm.query(WAITING, meeting_id)[0][0]
    vm.ok("admit_participant", meeting_id=meeting_id, acting_user_id=host, user_id=knocking)
    assert [a for _, a, _ in logged(vm, meeting_id)] == ["removed", "admitted"]
    assert "cannot rejoin" in vm.error("join_meeting", meeting_id=meeting_id, user_id=guest)
