"""The social media server, driven through a real MCP client on an in-memory database: the server as a whole."""

from __future__ import annotations

import inspect

from gym_mcp.servers.social_media import kit
from tests.helpers import LiveServer
from tests.servers.helpers import (
    assert_every_tool_described,
    assert_listed_with_kinds,
    dump,
    intent_placeholders,
    listed_tools,
    tool_params,
)
from tests.servers.social_media.common import RECENT, TABLES, count

WRITES = {
    "follow_user",
    "unfollow_user",
    "respond_to_follow_request",
    "block_user",
    "unblock_user",
    "create_post",
    "edit_post",
    "delete_post",
    "comment_on_post",
    "like_post",
    "send_message",
    "report_post",
    "resolve_report",
}
READS = {
    "find_users",
    "get_profile",
    "list_connections",
    "list_posts",
    "get_post",
    "get_feed",
    "list_messages",
    "list_reports",
}


def test_tools_are_listed_with_kinds(sm: LiveServer) -> None:
    assert_listed_with_kinds(sm, kit, writes=WRITES, reads=READS)
    assert set(kit.tools) == WRITES | READS
    assert {n for n, info in kit.tools.items() if info.write} == WRITES
    metas = {t.name: t.meta for t in listed_tools(sm)}
    assert metas["delete_post"]["gym_mcp/confirm"] == "always"
    assert metas["resolve_report"]["gym_mcp/confirm"] == "always"
    assert metas["block_user"]["gym_mcp/confirm"] == "always"
    assert metas["get_feed"]["gym_mcp/kind"] == "read"


def test_every_tool_is_described_with_intent_and_samples(sm: LiveServer) -> None:
    assert_every_tool_described(sm, min_description=20)
    for name, info in kit.tools.items():
        _, inside = intent_placeholders(name, info)
        for p in tool_params(info):
            literal = not p.name.endswith("_id") and p.annotation not in (bool, "bool")
            if literal and "{" + p.name + "}" in (info.intent or ""):
                assert len(info.samples.get(p.name, ())) >= 2, f"{name}.{p.name} needs samples"
            if p.default is not inspect.Parameter.empty:
                assert p.name in inside, f"{name}: optional {p.name} has no slot"


def test_seed_has_enough_entities(sm: LiveServer) -> None:
    counts = {t: count(sm, t) for t in TABLES}
    assert sum(counts.values()) >= 250
    assert counts["users"] == 40
    assert counts["posts"] >= 120
    assert counts["likes"] >= 150
    assert counts["blocks"] >= 10
    for status in ("accepted", "pending"):
        assert count(sm, "follows", "status = ?", status) >= 10, status
    for status in ("open", "resolved", "dismissed"):
        assert count(sm, "reports", "status = ?", status) >= 5, status
    # the error paths are reachable: private profiles, posts in and out of the edit window, old messages across a block
    assert count(sm, "users", "is_private") >= 8
    assert count(sm, "posts", RECENT) >= 20
    assert count(sm, "posts", f"NOT {RECENT}") >= 80
    assert count(
        sm,
        "messages m",
        "EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id IN (m.sender_id, m.recipient_id) AND b.blocked_id IN (m.sender_id, m.recipient_id))",
    )


def test_seed_is_internally_consistent(sm: LiveServer) -> None:
    pairs = "(x.{a} = b.blocker_id AND x.{b} = b.blocked_id) OR (x.{a} = b.blocked_id AND x.{b} = b.blocker_id)"
    follow_block = pairs.format(a="follower_id", b="followee_id")
    assert sm.query(f"SELECT x.id FROM follows x JOIN blocks b ON {follow_block}") == []
    assert sm.query("SELECT id FROM follows WHERE follower_id = followee_id") == []
    assert sm.query("SELECT follower_id, followee_id FROM follows GROUP BY 1, 2 HAVING count(*) > 1") == []
    assert (
        sm.query(
            "SELECT f.id FROM follows f JOIN users u ON u.id = f.followee_id WHERE f.status = 'pending' AND NOT u.is_private"
        )
        == []
    )
    assert sm.query("SELECT post_id, liker_id FROM likes GROUP BY 1, 2 HAVING count(*) > 1") == []
    # nobody liked or commented across a block, nor on a private profile they do not follow
    for table, who, when in (("likes", "liker_id", "liked_at"), ("comments", "author_id", "commented_at")):
        assert (
            sm.query(
                f"""SELECT x.id FROM {table} x JOIN posts p ON p.id = x.post_id JOIN users u ON u.id = p.author_id
                WHERE x.{when} < p.posted_at OR EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id IN (x.{who}, p.author_id)
                AND b.blocked_id IN (x.{who}, p.author_id)) OR (u.is_private AND x.{who} != u.id AND NOT EXISTS (
                SELECT 1 FROM follows f WHERE f.follower_id = x.{who} AND f.followee_id = u.id AND f.status = 'accepted'))"""
            )
            == []
        )
    assert sm.query("SELECT id FROM posts WHERE posted_at > '2026-01-15 12:00' OR edited_at > '2026-01-15 12:00'") == []
    assert sm.query("SELECT id FROM reports WHERE post_id NOT IN (SELECT id FROM posts)") == []


def test_same_seed_same_data_other_seed_other_data(sm: LiveServer) -> None:
    assert dump(sm) == dump(LiveServer(kit, seed=0))
    other = dump(LiveServer(kit, seed=1))
    assert other != dump(sm)
    assert other["users"] != dump(sm)["users"]


def test_replaying_calls_gives_identical_state() -> None:
    servers = [LiveServer(kit, seed=0), LiveServer(kit, seed=0)]
    results = []
    for server in servers:
        post = server.ok("create_post", author_id="USR-1001", text="Hello, world")
        results.append(
            [
                post,
                server.ok("edit_post", post_id=post["post_id"], author_id="USR-1001", text="Hello again"),
                server.ok("block_user", user_id="USR-1002", target_user_id="USR-1003"),
                server.ok("send_message", sender_id="USR-1004", recipient_id="USR-1005", text="Hi"),
            ]
        )
    assert results[0] == results[1]
    assert dump(servers[0]) == dump(servers[1])
