"""The video meeting server, driven through a real MCP client on an in-memory database: the server as a whole."""

from __future__ import annotations

import inspect

from gym_mcp.servers.video_meeting import kit
from tests.helpers import LiveServer
from tests.servers.helpers import (
    assert_every_tool_described,
    assert_listed_with_kinds,
    dump,
    intent_placeholders,
    listed_tools,
    tool_params,
)
from tests.servers.video_meeting.common import INSIDE, ROOM, TABLES, meeting, stranger

WRITES = {
    "schedule_meeting",
    "invite_user",
    "cancel_meeting",
    "start_meeting",
    "end_meeting",
    "join_meeting",
    "admit_participant",
    "remove_participant",
    "start_recording",
    "stop_recording",
}
READS = {"find_users", "list_rooms", "list_meetings", "get_meeting", "list_recordings"}
HOST_ONLY = {
    "invite_user",
    "cancel_meeting",
    "start_meeting",
    "end_meeting",
    "admit_participant",
    "remove_participant",
    "start_recording",
    "stop_recording",
}


def test_tools_are_listed_with_kinds(vm: LiveServer) -> None:
    assert_listed_with_kinds(vm, kit, writes=WRITES, reads=READS)
    assert set(kit.tools) == WRITES | READS
    assert {n for n, info in kit.tools.items() if info.write} == WRITES
    confirm = {t.name: t.meta.get("gym_mcp/confirm") for t in listed_tools(vm)}
    assert {n for n, c in confirm.items() if c} == {"cancel_meeting", "end_meeting", "remove_participant"}
    assert {
        n for n, info in kit.tools.items() if "acting_user_id" in inspect.signature(info.fn).parameters
    } == HOST_ONLY


def test_every_tool_is_described_with_a_valid_intent_and_samples(vm: LiveServer) -> None:
    assert_every_tool_described(vm, min_description=20)
    for name, info in kit.tools.items():
        outside, inside = intent_placeholders(name, info)
        for p in tool_params(info):
            if p.default is not inspect.Parameter.empty:
                assert p.name in inside, f"{name}: optional {p.name} has no [...] slot"
            literal = not p.name.endswith("_id") and "bool" not in str(p.annotation)
            if literal and p.name in outside | inside:
                assert len(info.samples.get(p.name, ())) >= 2, f"{name}.{p.name} has no samples"


def test_seed_has_enough_entities(vm: LiveServer) -> None:
    counts = {t: vm.query(f"SELECT count(*) FROM {t}")[0][0] for t in TABLES}
    assert sum(counts.values()) >= 250
    assert counts["users"] >= 50
    assert counts["rooms"] >= 10
    assert counts["meetings"] >= 40
    for table, statuses in (
        ("meetings", ("scheduled", "live", "ended", "cancelled")),
        ("participants", ("invited", "waiting", "admitted", "left", "removed")),
        ("recordings", ("recording", "completed")),
    ):
        for status in statuses:
            assert vm.query(f"SELECT count(*) FROM {table} WHERE status = ?", status)[0][0] >= 2, (table, status)
    # the refusals are reachable: full rooms with and without a waiting room, meetings to start today
    live = "SELECT count(*) FROM meetings m WHERE m.status = 'live' AND "
    assert vm.query(live + f"m.waiting_room AND {INSIDE} >= {ROOM}")[0][0] >= 1
    assert vm.query(live + f"NOT m.waiting_room AND {INSIDE} >= {ROOM}")[0][0] >= 1
    assert vm.query(live + f"{INSIDE} < {ROOM}")[0][0] >= 4
    assert (
        vm.query("SELECT count(*) FROM meetings WHERE status = 'scheduled' AND date(start) = '2026-01-15'")[0][0] >= 3
    )


def test_seed_is_internally_consistent(vm: LiveServer) -> None:
    # no room holds two scheduled or live meetings at once, nor more people than its capacity
    assert (
        vm.query(
            "SELECT a.id FROM meetings a JOIN meetings b ON a.room_id = b.room_id AND a.id < b.id "
            "AND a.start < b.end AND b.start < a.end WHERE a.status IN ('scheduled', 'live', 'ended') "
            "AND b.status IN ('scheduled', 'live', 'ended')"
        )
        == []
    )
    assert vm.query(f"SELECT m.id FROM meetings m WHERE {INSIDE} > {ROOM}") == []
    # every meeting has exactly its host as host; statuses fit the clock (now is 2026-01-15 11:00)
    assert (
        vm.query(
            "SELECT m.id FROM meetings m LEFT JOIN participants p ON p.meeting_id = m.id AND p.role = 'host' "
            "GROUP BY m.id HAVING count(p.user_id) != 1 OR max(p.user_id) != m.host_id"
        )
        == []
    )
    now = "'2026-01-15 11:00:00'"
    assert vm.query(f"SELECT id FROM meetings WHERE status = 'live' AND NOT (start <= {now} AND end > {now})") == []
    assert vm.query(f"SELECT id FROM meetings WHERE status = 'scheduled' AND start < {now}") == []
    assert vm.query(f"SELECT id FROM meetings WHERE status = 'ended' AND end > {now}") == []
    assert vm.query(f"SELECT id FROM meeting_events WHERE at > {now}") == []
    # only live meetings have people in them or waiting, or a recording in progress
    assert (
        vm.query(
            "SELECT p.meeting_id FROM participants p JOIN meetings m ON m.id = p.meeting_id "
            "WHERE p.status IN ('admitted', 'waiting') AND m.status != 'live'"
        )
        == []
    )
    assert (
        vm.query(
            "SELECT r.id FROM recordings r JOIN meetings m ON m.id = r.meeting_id WHERE "
            "(r.status = 'recording' AND m.status != 'live') OR m.status IN ('scheduled', 'cancelled')"
        )
        == []
    )


def test_same_seed_same_data_other_seed_other_data(vm: LiveServer) -> None:
    assert dump(vm) == dump(LiveServer(kit, seed=0))
    other = dump(LiveServer(kit, seed=1))
    assert other != dump(vm)
    assert other["users"] != dump(vm)["users"]


def test_replaying_calls_gives_identical_state() -> None:
    servers = [LiveServer(kit, seed=0), LiveServer(kit, seed=0)]
    results = []
    for server in servers:
        meeting_id, host = meeting(server, "live", f"AND m.waiting_room AND {INSIDE} < {ROOM}")
        guest = stranger(server, meeting_id)
        results.append(
            [
                server.ok("join_meeting", meeting_id=meeting_id, user_id=guest),
                server.ok("admit_participant", meeting_id=meeting_id, acting_user_id=host, user_id=guest),
                server.ok("start_recording", meeting_id=meeting_id, acting_user_id=host)
                if server.query("SELECT 1 FROM recordings WHERE meeting_id = ? AND status = 'recording'", meeting_id)
                == []
                else None,
            ]
        )
    assert results[0] == results[1]
    assert dump(servers[0]) == dump(servers[1])
