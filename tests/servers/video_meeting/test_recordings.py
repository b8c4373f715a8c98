"""The video meeting server, driven through a real MCP client on an in-memory database: recordings."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump, scalar
from tests.servers.video_meeting.common import logged, meeting

RECORDING = "AND m.id IN (SELECT meeting_id FROM recordings WHERE status = 'recording')"


def test_list_recordings(vm: LiveServer) -> None:
    host = scalar(vm, "SELECT m.host_id FROM recordings r JOIN meetings m ON m.id = r.meeting_id ORDER BY r.id")
    out = vm.ok("list_recordings", host_id=host)
    expected = scalar(
        vm, "SELECT count(*) FROM recordings r JOIN meetings m ON m.id = r.meeting_id WHERE m.host_id = ?", host
    )
    assert len(out) == expected
    assert [r["recorded_on"] for r in out] == sorted((r["recorded_on"] for r in out), reverse=True)
    assert "find_users" in vm.error("list_recordings", host_id="USR-9")


def test_start_and_stop_recording(vm: LiveServer) -> None:
    meeting_id, host = meeting(
        vm, "live", "AND m.id NOT IN (SELECT meeting_id FROM recordings WHERE status = 'recording')"
    )
    out = vm.ok("start_recording", meeting_id=meeting_id, acting_user_id=host)
    assert (out["status"], out["started_by"], out["recorded_on"]) == ("recording", host, "2026-01-15")
    assert "already being recorded" in vm.error("start_recording", meeting_id=meeting_id, acting_user_id=host)
    stopped = vm.ok("stop_recording", meeting_id=meeting_id, acting_user_id=host)
    assert (stopped["recording_id"], stopped["status"]) == (out["recording_id"], "completed")
    assert vm.query("SELECT status FROM recordings WHERE id = ?", out["recording_id"]) == [("completed",)]
    assert [a for _, a, _ in logged(vm, meeting_id)] == ["recording_started", "recording_stopped"]
    assert "not being recorded" in vm.error("stop_recording", meeting_id=meeting_id, acting_user_id=host)


def test_recording_refusals_change_nothing(vm: LiveServer) -> None:
    before = dump(vm)
    scheduled, host = meeting(vm, "scheduled")
    err = vm.error("start_recording", meeting_id=scheduled, acting_user_id=host)
    assert "not live, it has not started yet" in err
    assert "start_meeting" in err
    ended, ended_host = meeting(vm, "ended")
    assert "already ended" in vm.error("start_recording", meeting_id=ended, acting_user_id=ended_host)
    recording, recording_host = meeting(vm, "live", RECORDING)
    guest = scalar(vm, "SELECT user_id FROM participants WHERE meeting_id = ? AND role = 'attendee'", recording)
    err = vm.error("stop_recording", meeting_id=recording, acting_user_id=guest)
    assert recording_host in err
    assert "is not the host" in err
    assert "is not the host" in vm.error("start_recording", meeting_id=recording, acting_user_id=guest)
    assert dump(vm) == before
