"""The IoT devices server, driven through a real MCP client on an in-memory database: the server as a whole."""

from __future__ import annotations

import inspect

from gym_mcp.servers.iot_devices import kit
from tests.helpers import LiveServer
from tests.servers.helpers import (
    assert_every_tool_described,
    assert_listed_with_kinds,
    dump,
    intent_placeholders,
    listed_tools,
    tool_params,
)
from tests.servers.iot_devices.common import TABLES, device

WRITES = {
    "set_home_mode",
    "move_device",
    "remove_device",
    "set_device_state",
    "turn_on_device",
    "turn_off_device",
    "set_brightness",
    "set_thermostat",
    "lock_door",
    "unlock_door",
    "create_schedule",
    "pause_schedule",
    "resume_schedule",
    "delete_schedule",
    "create_scene",
    "set_scene_action",
    "remove_scene_action",
    "apply_scene",
    "create_automation",
    "enable_automation",
    "disable_automation",
}
READS = {
    "list_homes",
    "get_home",
    "list_devices",
    "get_device",
    "list_schedules",
    "list_scenes",
    "list_automations",
    "get_energy_usage",
    "list_energy_readings",
}


def test_tools_are_listed_with_kinds(iot: LiveServer) -> None:
    assert_listed_with_kinds(iot, kit, writes=WRITES, reads=READS)
    assert set(kit.tools) == WRITES | READS
    assert len(kit.tools) >= 25
    assert {n for n, info in kit.tools.items() if info.write} == WRITES
    confirm = {t.name: t.meta.get("gym_mcp/confirm") for t in listed_tools(iot)}
    assert {n for n, c in confirm.items() if c} == {"remove_device", "unlock_door", "delete_schedule"}
    assert all(c == "always" for c in confirm.values() if c)


def test_every_tool_is_described_with_a_valid_intent_and_samples(iot: LiveServer) -> None:
    assert_every_tool_described(iot, min_description=20)
    for name, info in kit.tools.items():
        outside, inside = intent_placeholders(name, info)
        for p in tool_params(info):
            if p.default is not inspect.Parameter.empty:
                assert p.name in inside, f"{name}: optional {p.name} has no [...] slot"
            literal = not p.name.endswith("_id") and p.annotation not in (bool, "bool", "bool | None")
            if literal and p.name in outside | inside:
                assert len(info.samples.get(p.name, ())) >= 2, f"{name}.{p.name} has no samples"


def test_seed_has_enough_entities(iot: LiveServer) -> None:
    counts = {t: iot.query(f"SELECT count(*) FROM {t}")[0][0] for t in TABLES}
    assert sum(counts.values()) >= 250
    assert counts["homes"] >= 8
    assert counts["devices"] >= 100
    assert counts["schedules"] >= 40
    assert counts["scenes"] >= 20
    assert counts["automations"] >= 20
    kinds = {k for (k,) in iot.query("SELECT DISTINCT kind FROM devices")}
    assert kinds == {"light", "thermostat", "lock", "camera", "plug", "speaker", "blind", "sensor"}
    for table, column, values in (
        ("devices", "status", ("online", "offline")),
        ("homes", "mode", ("home", "away", "night", "vacation")),
        ("schedules", "status", ("active", "paused")),
        ("automations", "enabled", (0, 1)),
    ):
        for value in values:
            assert iot.query(f"SELECT count(*) FROM {table} WHERE {column} = ?", value)[0][0] >= 2, (table, value)
    assert iot.query("SELECT count(*) FROM devices WHERE status = 'offline'")[0][0] >= 10
    # the refusals are reachable: offline devices in scenes, unlocked doors, clashing paused schedules
    assert (
        iot.query(
            "SELECT count(DISTINCT x.scene_id) FROM scene_actions x JOIN devices d ON d.id = x.device_id "
            "WHERE d.status = 'offline'"
        )[0][0]
        >= 3
    )
    assert iot.query("SELECT count(*) FROM device_states WHERE attribute = 'lock' AND value = 'unlocked'")[0][0] >= 3
    assert (
        iot.query(
            "SELECT count(*) FROM schedules p JOIN schedules a ON a.device_id = p.device_id AND a.time = p.time "
            "WHERE p.status = 'paused' AND a.status = 'active'"
        )[0][0]
        >= 3
    )


def test_seed_is_internally_consistent(iot: LiveServer) -> None:
    # a device sits in a room of its own home; scenes and automations only use devices of their home
    assert iot.query("SELECT d.id FROM devices d JOIN rooms r ON r.id = d.room_id WHERE r.home_id != d.home_id") == []
    assert (
        iot.query(
            "SELECT x.scene_id FROM scene_actions x JOIN scenes s ON s.id = x.scene_id JOIN devices d ON d.id = x.device_id "
            "WHERE d.home_id != s.home_id"
        )
        == []
    )
    assert (
        iot.query(
            "SELECT a.id FROM automations a JOIN devices t ON t.id = a.trigger_device_id "
            "JOIN devices x ON x.id = a.action_device_id WHERE t.home_id != a.home_id OR x.home_id != a.home_id "
            "OR t.id = x.id"
        )
        == []
    )
    # no two active schedules of one device at the same time share a day (only weekly sets that overlap)
    clashes = iot.query(
        "SELECT a.id, a.days, b.days FROM schedules a JOIN schedules b ON a.device_id = b.device_id "
        "AND a.time = b.time AND a.id < b.id WHERE a.status = 'active' AND b.status = 'active'"
    )
    overlap = {
        "daily": set("1234567"),
        "weekdays": set("12345"),
        "weekends": set("67"),
        "mon,wed,fri": set("135"),
        "tue,thu": set("24"),
        "sat": set("6"),
    }
    assert [c for c in clashes if overlap[c[1]] & overlap[c[2]]] == []
    # homes away or on vacation have their online doors locked; offline devices report no energy after last seen
    assert (
        iot.query(
            "SELECT d.id FROM devices d JOIN homes h ON h.id = d.home_id JOIN device_states s ON s.device_id = d.id "
            "WHERE h.mode IN ('away', 'vacation') AND d.status = 'online' AND s.attribute = 'lock' AND s.value = 'unlocked'"
        )
        == []
    )
    assert (
        iot.query(
            "SELECT r.device_id FROM energy_readings r JOIN devices d ON d.id = r.device_id WHERE r.day > d.last_seen_on "
            "OR r.day >= '2026-01-15'"
        )
        == []
    )
    # every setting change in the log ends in the device's current value
    assert (
        iot.query(
            "SELECT e.id FROM device_events e JOIN device_states s ON s.device_id = e.device_id "
            "AND s.attribute = e.attribute WHERE e.id = (SELECT max(id) FROM device_events f WHERE f.device_id = "
            "e.device_id AND f.attribute = e.attribute) AND s.value != e.new_value"
        )
        == []
    )


def test_same_seed_same_data_other_seed_other_data(iot: LiveServer) -> None:
    assert dump(iot) == dump(LiveServer(kit, seed=0))
    other = dump(LiveServer(kit, seed=1))
    assert other != dump(iot)
    assert other["devices"] != dump(iot)["devices"]


def test_replaying_calls_gives_identical_state() -> None:
    servers = [LiveServer(kit, seed=0), LiveServer(kit, seed=0)]
    results = []
    for server in servers:
        light = device(server, "light")
        results.append(
            [
                server.ok("set_brightness", device_id=light, brightness=35),
                server.ok(
                    "create_schedule", device_id=light, attribute="power", value="off", time="23:45", days="daily"
                ),
                server.ok("create_scene", home_id="HOME-1001", name="Replay"),
            ]
        )
    assert results[0] == results[1]
    assert dump(servers[0]) == dump(servers[1])
