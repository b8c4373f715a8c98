"""The issue tracker through a real MCP client: sprints, their capacity and their life cycle."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import assert_error, one, scalar
from tests.servers.issue_tracker.common import committed, issue_row, sprint_with


def test_list_sprints(tracker: LiveServer) -> None:
    out = tracker.ok("list_sprints", project_key="WEB")
    assert [s["status"] for s in out] == ["closed", "closed", "closed", "active", "planned"]
    active = out[3]
    assert active["committed_points"] == committed(tracker, active["sprint_id"])
    assert active["points_left"] == active["capacity_points"] - active["committed_points"]
    assert [s["status"] for s in tracker.ok("list_sprints", project_key="OPS", status="planned")] == ["planned"] * 2
    assert_error(tracker, "list_sprints", "planned, active, closed", project_key="WEB", status="done")
    assert_error(tracker, "list_sprints", "list_projects", project_key="ZZZ")


def test_create_sprint(tracker: LiveServer) -> None:
    top = scalar(tracker, "SELECT max(id) FROM sprints")
    out = tracker.ok(
        "create_sprint", project_key="DATA", sprint_name="Launch prep", start_date="2026-03-02", capacity_points=30,
        goal="Ship it",
    )  # fmt: skip
    assert out["sprint_id"] == f"SPR-{int(top[4:]) + 1}"
    assert (out["status"], out["end_date"], out["points_left"]) == ("planned", "2026-03-15", 30)
    assert tracker.query("SELECT project_key, status, capacity_points FROM sprints WHERE id = ?", out["sprint_id"]) == [
        ("DATA", "planned", 30)
    ]
    assert_error(tracker, "create_sprint", "already has a sprint named", project_key="DATA", sprint_name="launch prep",
                 start_date="2026-03-02", capacity_points=20)  # fmt: skip
    assert_error(tracker, "create_sprint", "in the past", project_key="DATA", sprint_name="Old", start_date="2026-01-05",
                 capacity_points=20)  # fmt: skip
    assert_error(tracker, "create_sprint", "between 1 and 200", project_key="DATA", sprint_name="Huge",
                 start_date="2026-03-02", capacity_points=500)  # fmt: skip
    assert_error(tracker, "create_sprint", "not a valid date", project_key="DATA", sprint_name="Bad date",
                 start_date="next week", capacity_points=20)  # fmt: skip


def test_start_sprint(tracker: LiveServer) -> None:
    planned = sprint_with(tracker, "project_key = 'OPS' AND status = 'planned'")
    out = tracker.ok("start_sprint", sprint_id=planned)
    assert (out["status"], out["start_date"], out["end_date"]) == ("active", "2026-02-09", "2026-02-22")
    assert tracker.query("SELECT status FROM sprints WHERE id = ?", planned) == [("active",)]
    assert_error(tracker, "start_sprint", "already active", "cannot be started twice", sprint_id=planned)
    second = sprint_with(tracker, "project_key = 'OPS' AND status = 'planned'")
    assert_error(tracker, "start_sprint", "only one sprint per project", planned, sprint_id=second)
    assert tracker.query("SELECT status FROM sprints WHERE id = ?", second) == [("planned",)]
    closed = sprint_with(tracker, "status = 'closed'")
    assert_error(tracker, "start_sprint", "closed sprints cannot be restarted", sprint_id=closed)


def test_close_sprint_moves_unfinished_issues_to_the_backlog(tracker: LiveServer) -> None:
    sprint = sprint_with(tracker, "status = 'active'")
    done = [r[0] for r in tracker.query("SELECT id FROM issues WHERE sprint_id = ? AND status = 'done'", sprint)]
    unfinished = [r[0] for r in tracker.query("SELECT id FROM issues WHERE sprint_id = ? AND status != 'done'", sprint)]
    assert unfinished
    out = tracker.ok("close_sprint", sprint_id=sprint)
    assert sorted(out["moved_to_backlog"]) == sorted(unfinished)
    assert sorted(out["completed_issues"]) == sorted(done)
    assert tracker.query("SELECT status, end_date FROM sprints WHERE id = ?", sprint) == [("closed", "2026-02-09")]
    assert all(issue_row(tracker, i, "sprint_id") == (None,) for i in unfinished)
    assert all(issue_row(tracker, i, "sprint_id") == (sprint,) for i in done)
    assert_error(tracker, "close_sprint", "already closed", sprint_id=sprint)
    planned = sprint_with(tracker, "status = 'planned'")
    assert_error(tracker, "close_sprint", "has not started", "start_sprint", sprint_id=planned)
    # with the sprint closed, the project's planned one can start
    project = scalar(tracker, "SELECT project_key FROM sprints WHERE id = ?", sprint)
    tracker.ok("start_sprint", sprint_id=sprint_with(tracker, "status = 'planned' AND project_key = ?", project))


def test_add_to_sprint_respects_capacity(tracker: LiveServer) -> None:
    sprint, capacity = one(tracker, "SELECT id, capacity_points FROM sprints WHERE project_key = 'WEB' "
                                    "AND status = 'planned'")  # fmt: skip
    small = scalar(
        tracker,
        "SELECT id FROM issues WHERE project_key = 'WEB' AND sprint_id IS NULL AND status != 'done' "
        "AND type != 'epic' AND story_points <= ? ORDER BY story_points, number",
        capacity - committed(tracker, sprint),
    )
    out = tracker.ok("add_to_sprint", issue_id=small, sprint_id=sprint)
    assert out["sprint_id"] == sprint and out["points_left"] == capacity - committed(tracker, sprint)
    assert issue_row(tracker, small, "sprint_id") == (sprint,)
    assert_error(tracker, "add_to_sprint", "already in sprint", issue_id=small, sprint_id=sprint)
    backlog = [
        r[0]
        for r in tracker.query(
            "SELECT id FROM issues WHERE project_key = 'WEB' AND sprint_id IS NULL AND status != 'done' "
            "AND type != 'epic' ORDER BY number"
        )
    ]
    for issue in backlog:  # fill the sprint with 21-point issues until one no longer fits
        tracker.ok("update_issue", issue_id=issue, story_points=21)
        left = capacity - committed(tracker, sprint)
        if left < 21:
            err = assert_error(tracker, "add_to_sprint", f"has {left} of {capacity} story points left",
                               f"adding {issue} (21 points)", issue_id=issue, sprint_id=sprint)  # fmt: skip
            assert issue_row(tracker, issue, "sprint_id") == (None,)
            assert "would exceed its capacity" in err
            break
        tracker.ok("add_to_sprint", issue_id=issue, sprint_id=sprint)
    else:
        raise AssertionError("the backlog never filled the sprint")
    assert committed(tracker, sprint) <= capacity


def test_add_to_sprint_errors(tracker: LiveServer) -> None:
    web_issue = scalar(
        tracker,
        "SELECT id FROM issues WHERE project_key = 'WEB' AND sprint_id IS NULL AND status != 'done' "
        "AND type != 'epic' ORDER BY number",
    )
    api_sprint = sprint_with(tracker, "project_key = 'API' AND status = 'planned'")
    web_open = sprint_with(tracker, "project_key = 'WEB' AND status = 'planned'")
    assert_error(tracker, "add_to_sprint", "belongs to project API", web_open, issue_id=web_issue,
                 sprint_id=api_sprint)  # fmt: skip
    closed = sprint_with(tracker, "project_key = 'WEB' AND status = 'closed'")
    assert_error(tracker, "add_to_sprint", "is closed", "Open sprints of WEB", issue_id=web_issue, sprint_id=closed)
    epic = scalar(tracker, "SELECT id FROM issues WHERE project_key = 'WEB' AND type = 'epic' ORDER BY number")
    assert_error(tracker, "add_to_sprint", "epics do not go into sprints", issue_id=epic, sprint_id=web_open)
    done = scalar(tracker, "SELECT id FROM issues WHERE project_key = 'WEB' AND status = 'done' AND type != 'epic'")
    assert_error(tracker, "add_to_sprint", "already done", issue_id=done, sprint_id=web_open)


def test_remove_from_sprint(tracker: LiveServer) -> None:
    sprint = sprint_with(tracker, "status = 'active'")
    issue, points = one(tracker, "SELECT id, coalesce(story_points, 0) FROM issues WHERE sprint_id = ? ORDER BY id",
                        sprint)  # fmt: skip
    before = committed(tracker, sprint)
    out = tracker.ok("remove_from_sprint", issue_id=issue)
    assert out["removed_from"] == sprint
    assert committed(tracker, sprint) == before - points
    assert issue_row(tracker, issue, "sprint_id") == (None,)
    assert_error(tracker, "remove_from_sprint", "already in the backlog", issue_id=issue)
    in_closed = scalar(
        tracker, "SELECT i.id FROM issues i JOIN sprints s ON s.id = i.sprint_id WHERE s.status = 'closed'"
    )
    assert_error(tracker, "remove_from_sprint", "closed sprint", issue_id=in_closed)
