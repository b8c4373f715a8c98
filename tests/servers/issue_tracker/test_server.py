"""The issue tracker, driven through a real MCP client on an in-memory database: the server as a whole."""

from __future__ import annotations

from gym_mcp.servers.issue_tracker import kit
from tests.helpers import LiveServer
from tests.servers.helpers import (
    assert_listed_with_kinds,
    dump,
    scalar,
)
from tests.servers.issue_tracker.common import TABLES, member


def test_tools_are_listed_with_kinds(tracker: LiveServer) -> None:
    writes = {"create_issue", "transition_issue", "add_to_sprint", "close_sprint", "delete_issue", "watch_issue"}
    reads = {"list_projects", "search_issues", "get_issue", "list_sprints", "get_workflow", "list_comments"}
    assert_listed_with_kinds(tracker, kit, writes=writes, reads=reads)
    assert len(kit.tools) >= 20
    assert {n for n, info in kit.tools.items() if info.confirm} == {"delete_issue", "close_sprint"}


def test_seed_has_enough_entities(tracker: LiveServer) -> None:
    counts = {t: tracker.query(f"SELECT count(*) FROM {t}")[0][0] for t in TABLES}
    assert sum(counts.values()) >= 200
    assert counts["users"] >= 30
    assert counts["projects"] == 5
    assert counts["issues"] >= 150
    assert counts["sprints"] >= 20
    assert counts["comments"] >= 100
    assert counts["links"] >= 20
    # the error paths are reachable: projects with and without an active sprint, blocked issues
    active = {r[0] for r in tracker.query("SELECT project_key FROM sprints WHERE status = 'active'")}
    assert active and active != {r[0] for r in tracker.query("SELECT key FROM projects")}
    assert (
        scalar(
            tracker,
            """SELECT count(*) FROM links l JOIN issues a ON a.id = l.blocker_id JOIN issues b ON b.id = l.blocked_id
               WHERE a.status != 'done' AND b.status != 'done'""",
        )
        >= 3
    )


def test_seed_is_consistent(tracker: LiveServer) -> None:
    # assignees, reporters and commenters are members of the issue's project
    strangers = tracker.query(
        """SELECT i.id FROM issues i WHERE NOT EXISTS (SELECT 1 FROM project_members m
           WHERE m.project_key = i.project_key AND m.user_id = i.reporter_id)
           OR (i.assignee_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM project_members m
           WHERE m.project_key = i.project_key AND m.user_id = i.assignee_id))"""
    )
    assert strangers == []
    assert (
        tracker.query(
            """SELECT c.id FROM comments c JOIN issues i ON i.id = c.issue_id WHERE NOT EXISTS
               (SELECT 1 FROM project_members m WHERE m.project_key = i.project_key AND m.user_id = c.author_id)"""
        )
        == []
    )
    # sprints fit their capacity; closed sprints hold only done issues; one active sprint per project
    over = tracker.query(
        """SELECT s.id FROM sprints s WHERE s.capacity_points <
           (SELECT coalesce(sum(story_points), 0) FROM issues WHERE sprint_id = s.id)"""
    )
    assert over == []
    assert (
        tracker.query(
            "SELECT i.id FROM issues i JOIN sprints s ON s.id = i.sprint_id WHERE s.status = 'closed' "
            "AND i.status != 'done'"
        )
        == []
    )
    assert tracker.query("SELECT project_key FROM sprints WHERE status = 'active' GROUP BY 1 HAVING count(*) > 1") == []
    # a done issue has no blocker that is not done; a done epic no child that is not
    assert (
        tracker.query(
            """SELECT l.id FROM links l JOIN issues a ON a.id = l.blocker_id JOIN issues b ON b.id = l.blocked_id
               WHERE b.status = 'done' AND a.status != 'done'"""
        )
        == []
    )
    assert (
        tracker.query(
            "SELECT c.id FROM issues c JOIN issues e ON e.id = c.epic_id WHERE e.status = 'done' AND c.status != 'done'"
        )
        == []
    )


def test_same_seed_same_data_other_seed_other_data(tracker: LiveServer) -> None:
    assert dump(tracker) == dump(LiveServer(kit, seed=0))
    other = dump(LiveServer(kit, seed=1))
    assert other != dump(tracker)
    assert other["users"] != dump(tracker)["users"]


def test_replaying_calls_gives_identical_state() -> None:
    servers = [LiveServer(kit, seed=0), LiveServer(kit, seed=0)]
    results = []
    for server in servers:
        reporter = member(server, "WEB")
        created = server.ok(
            "create_issue", project_key="WEB", issue_type="bug", title="Cart total is wrong", reporter_id=reporter
        )
        results.append(
            [
                created,
                server.ok("transition_issue", issue_id=created["issue_id"], status="in_progress"),
                server.ok("add_comment", issue_id=created["issue_id"], author_id=reporter, body="On it."),
                server.ok(
                    "create_sprint",
                    project_key="OPS",
                    sprint_name="Launch prep",
                    start_date="2026-03-02",
                    capacity_points=30,
                ),
            ]
        )
    assert results[0] == results[1]
    assert dump(servers[0]) == dump(servers[1])
