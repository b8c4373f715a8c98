"""The maps server, driven through a real MCP client on an in-memory database: the server as a whole."""

from __future__ import annotations

import inspect

from gym_mcp.servers.maps import kit
from tests.helpers import LiveServer
from tests.servers.helpers import (
    assert_every_tool_described,
    assert_listed_with_kinds,
    dump,
    intent_placeholders,
    listed_tools,
    tool_params,
)
from tests.servers.maps.common import CLOSED_TODAY, TABLES, route_pair

WRITES = {
    "save_route",
    "report_incident",
    "clear_incident",
    "close_road",
    "lift_closure",
    "write_review",
    "delete_review",
    "create_saved_list",
    "save_place",
    "remove_saved_place",
    "delete_saved_list",
}
READS = {
    "search_places",
    "get_place",
    "find_nearby",
    "list_roads",
    "get_directions",
    "list_saved_routes",
    "list_incidents",
    "list_closures",
    "list_reviews",
    "find_user",
    "list_saved_lists",
}


def test_tools_are_listed_with_kinds(maps: LiveServer) -> None:
    assert_listed_with_kinds(maps, kit, writes=WRITES, reads=READS)
    assert set(kit.tools) == WRITES | READS
    assert {n for n, info in kit.tools.items() if info.write} == WRITES
    metas = {t.name: t.meta for t in listed_tools(maps)}
    assert metas["delete_review"]["gym_mcp/confirm"] == "always"
    assert metas["delete_saved_list"]["gym_mcp/confirm"] == "always"
    assert metas["get_directions"]["gym_mcp/kind"] == "read"


def test_every_tool_is_described_with_intent_and_samples(maps: LiveServer) -> None:
    assert_every_tool_described(maps, min_description=20)
    for name, info in kit.tools.items():
        _, inside = intent_placeholders(name, info)
        for p in tool_params(info):
            literal = not p.name.endswith("_id") and p.annotation not in (bool, "bool")
            if literal and "{" + p.name + "}" in (info.intent or ""):
                assert len(info.samples.get(p.name, ())) >= 2, f"{name}.{p.name} needs samples"
            if p.default is not inspect.Parameter.empty:
                assert p.name in inside, f"{name}: optional {p.name} has no slot"


def test_seed_has_enough_entities(maps: LiveServer) -> None:
    counts = {t: maps.query(f"SELECT count(*) FROM {t}")[0][0] for t in TABLES}
    assert sum(counts.values()) >= 250
    assert counts["places"] >= 80
    assert counts["roads"] >= 90
    assert counts["reviews"] >= 150
    assert {r[0] for r in maps.query("SELECT DISTINCT status FROM incidents")} == {"active", "cleared"}
    statuses = [c["status"] for c in LiveServer(kit, seed=0).ok("list_closures")]
    for status in ("active", "scheduled", "ended", "lifted"):
        assert statuses.count(status) >= 2, status
    assert maps.query("SELECT count(DISTINCT category) FROM places")[0][0] == 12
    # the error paths are reachable: full users and lists, cut-off places, a user at the route limit
    assert (
        maps.query("SELECT count(*) FROM (SELECT user_id FROM saved_lists GROUP BY 1 HAVING count(*) = 5)")[0][0] >= 3
    )
    assert (
        maps.query("SELECT count(*) FROM (SELECT list_id FROM saved_places GROUP BY 1 HAVING count(*) = 15)")[0][0] >= 3
    )
    assert (
        maps.query("SELECT count(*) FROM (SELECT user_id FROM saved_routes GROUP BY 1 HAVING count(*) = 8)")[0][0] >= 1
    )
    cut = maps.query(
        f"""SELECT count(*) FROM places p JOIN roads r ON r.to_node_id = p.node_id JOIN closures c ON c.road_id = r.id
            WHERE {CLOSED_TODAY} AND r.name NOT LIKE '%Street' AND r.name NOT LIKE '%Avenue'"""
    )[0][0]
    assert cut >= 4


def test_seed_is_internally_consistent(maps: LiveServer) -> None:
    assert maps.query("SELECT id FROM places WHERE node_id NOT IN (SELECT id FROM nodes)") == []
    assert maps.query("SELECT author_id, place_id FROM reviews GROUP BY 1, 2 HAVING count(*) > 1") == []
    assert maps.query("SELECT id FROM reviews WHERE rating NOT BETWEEN 1 AND 5") == []
    assert maps.query("SELECT list_id, place_id FROM saved_places GROUP BY 1, 2 HAVING count(*) > 1") == []
    assert maps.query("SELECT id FROM roads WHERE from_node_id = to_node_id OR length_m <= 0") == []
    assert maps.query("SELECT id FROM closures WHERE ends_on < starts_on") == []
    assert (
        maps.query(
            f"SELECT i.id FROM incidents i JOIN closures c ON c.road_id = i.road_id WHERE i.status = 'active' AND {CLOSED_TODAY}"
        )
        == []
    )
    # every saved route follows connected roads from its start to its end
    for start, end, roads in maps.query(
        """SELECT a.node_id, b.node_id, r.road_ids FROM saved_routes r JOIN places a ON a.id = r.from_place_id
           JOIN places b ON b.id = r.to_place_id"""
    ):
        node = start
        for road in roads.split(","):
            ends = maps.query("SELECT from_node_id, to_node_id FROM roads WHERE id = ?", road)[0]
            assert node in ends
            node = ends[1] if ends[0] == node else ends[0]
        assert node == end


def test_same_seed_same_data_other_seed_other_data(maps: LiveServer) -> None:
    assert dump(maps) == dump(LiveServer(kit, seed=0))
    other = dump(LiveServer(kit, seed=1))
    assert other != dump(maps)
    assert other["places"] != dump(maps)["places"]


def test_replaying_calls_gives_identical_state() -> None:
    servers = [LiveServer(kit, seed=0), LiveServer(kit, seed=0)]
    results = []
    for server in servers:
        a, b = route_pair(server)
        route = server.ok("get_directions", from_place_id=a, to_place_id=b)
        results.append(
            [
                route,
                server.ok("close_road", road_id=route["road_ids"][0], until="2026-01-25", reason="Parade"),
                server.ok("get_directions", from_place_id=a, to_place_id=b),
                server.ok("save_route", user_id="USR-1002", from_place_id=a, to_place_id=b, name="Detour"),
            ]
        )
    assert results[0] == results[1]
    assert dump(servers[0]) == dump(servers[1])
