"""The issue tracker through a real MCP client: finding, reading, creating, changing and deleting issues."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import assert_error, one, scalar
from tests.servers.issue_tracker.common import committed, issue_row, issue_with, member, non_member


def test_search_issues(tracker: LiveServer) -> None:
    out = tracker.ok("search_issues", project_key="WEB", status="open", limit=100)
    assert out["total"] == scalar(tracker, "SELECT count(*) FROM issues WHERE project_key = 'WEB' AND status = 'open'")
    assert all(i["status"] == "open" and i["issue_id"].startswith("WEB-") for i in out["issues"])
    few = tracker.ok("search_issues", limit=3)
    assert len(few["issues"]) == 3 and few["more"] is True
    sprint = scalar(tracker, "SELECT id FROM sprints WHERE status = 'active' ORDER BY id")
    in_sprint = tracker.ok("search_issues", sprint_id=sprint, limit=100)
    assert in_sprint["total"] == scalar(tracker, "SELECT count(*) FROM issues WHERE sprint_id = ?", sprint)
    backlog = tracker.ok("search_issues", project_key="API", sprint_id="backlog", limit=100)
    assert all(i["sprint_id"] is None and i["type"] != "epic" for i in backlog["issues"])
    label = tracker.ok("search_issues", label="Regression", limit=100)
    assert label["total"] == scalar(tracker, "SELECT count(*) FROM issue_labels WHERE label = 'regression'")
    assignee = scalar(tracker, "SELECT assignee_id FROM issues WHERE assignee_id IS NOT NULL ORDER BY id")
    assert all(i["assignee_id"] == assignee for i in tracker.ok("search_issues", assignee_id=assignee)["issues"])
    assert all(i["assignee_id"] is None for i in tracker.ok("search_issues", assignee_id="unassigned")["issues"])
    assert tracker.ok("search_issues", issue_type="epic", project_key="OPS")["total"] >= 3
    assert tracker.ok("search_issues", text="zzzz-nothing")["total"] == 0
    assert_error(tracker, "search_issues", "open, in_progress, in_review, done", status="closed")
    assert_error(tracker, "search_issues", "bug, story, task, epic", issue_type="incident")
    assert_error(tracker, "search_issues", "list_sprints", sprint_id="SPR-1")
    assert_error(tracker, "search_issues", "list_users", assignee_id="USR-1")
    assert_error(tracker, "search_issues", "at least 2", text="a")


def test_get_issue(tracker: LiveServer) -> None:
    blocked = scalar(tracker, "SELECT blocked_id FROM links ORDER BY id")
    out = tracker.ok("get_issue", issue_id=blocked.lower())
    assert out["issue_id"] == blocked
    link = one(tracker, "SELECT id, blocker_id FROM links WHERE blocked_id = ? ORDER BY id", blocked)
    assert {"link_id": link[0], "issue_id": link[1]}.items() <= out["blocked_by"][0].items()
    assert out["watchers"] == [
        r[0] for r in tracker.query("SELECT user_id FROM watchers WHERE issue_id = ? ORDER BY 1", blocked)
    ]
    assert out["comment_count"] == scalar(tracker, "SELECT count(*) FROM comments WHERE issue_id = ?", blocked)
    epic = issue_with(tracker, "type = 'epic'")
    children = tracker.ok("get_issue", issue_id=epic)["children"]
    assert [c["issue_id"] for c in children] == [
        r[0] for r in tracker.query("SELECT id FROM issues WHERE epic_id = ? ORDER BY number", epic)
    ]
    bug = issue_with(tracker, "type = 'bug' AND status = 'open'")
    assert tracker.ok("get_issue", issue_id=bug)["next_statuses"] == ["in_progress"]
    assert_error(tracker, "get_issue", "No issue 'WEB-9999'", "search_issues", issue_id="WEB-9999")


def test_create_issue(tracker: LiveServer) -> None:
    reporter, assignee = (
        r[0]
        for r in tracker.query("SELECT user_id FROM project_members WHERE project_key = 'API' ORDER BY user_id LIMIT 2")
    )
    epic = issue_with(tracker, "type = 'epic' AND project_key = 'API'")
    top = scalar(tracker, "SELECT next_number FROM projects WHERE key = 'API'")
    out = tracker.ok(
        "create_issue",
        project_key="api",
        issue_type="Story",
        title="  Support bulk export ",
        reporter_id=reporter,
        priority="high",
        story_points=5,
        assignee_id=assignee,
        epic_id=epic,
    )
    assert out["issue_id"] == f"API-{top}"
    assert issue_row(tracker, out["issue_id"], "type", "title", "status", "priority", "story_points", "epic_id",
                     "assignee_id", "created_on", "sprint_id") == (
        "story", "Support bulk export", "open", "high", 5, epic, assignee, "2026-02-09", None
    )  # fmt: skip
    watchers = {r[0] for r in tracker.query("SELECT user_id FROM watchers WHERE issue_id = ?", out["issue_id"])}
    assert watchers == {reporter, assignee}
    assert scalar(tracker, "SELECT next_number FROM projects WHERE key = 'API'") == top + 1
    outsider = non_member(tracker, "API")
    err = assert_error(tracker, "create_issue", "not a member of project API", reporter, project_key="API",
                       issue_type="bug", title="Broken", reporter_id=outsider)  # fmt: skip
    assert outsider in err
    assert_error(tracker, "create_issue", "not a member", project_key="API", issue_type="bug", title="Broken",
                 reporter_id=reporter, assignee_id=outsider)  # fmt: skip
    assert_error(tracker, "create_issue", "epic takes no story points", project_key="API", issue_type="epic",
                 title="Big thing", reporter_id=reporter, story_points=8)  # fmt: skip
    assert_error(tracker, "create_issue", "Fibonacci", project_key="API", issue_type="task", title="Do it",
                 reporter_id=reporter, story_points=4)  # fmt: skip
    other_epic = issue_with(tracker, "type = 'epic' AND project_key = 'WEB'")
    assert_error(tracker, "create_issue", "an epic of project WEB", epic, project_key="API", issue_type="task",
                 title="Do it", reporter_id=reporter, epic_id=other_epic)  # fmt: skip
    assert_error(tracker, "create_issue", "issue_type must be one of", project_key="API", issue_type="incident",
                 title="Do it", reporter_id=reporter)  # fmt: skip
    assert_error(tracker, "create_issue", "3 to 120", project_key="API", issue_type="bug", title="x",
                 reporter_id=reporter)  # fmt: skip
    assert_error(tracker, "create_issue", "priority must be", project_key="API", issue_type="bug", title="Broken",
                 reporter_id=reporter, priority="urgent")  # fmt: skip
    assert scalar(tracker, "SELECT next_number FROM projects WHERE key = 'API'") == top + 1


def test_update_issue(tracker: LiveServer) -> None:
    issue = issue_with(tracker, "sprint_id IS NULL AND type != 'epic' AND story_points IS NOT NULL")
    out = tracker.ok("update_issue", issue_id=issue, title="Sharper title", priority="critical", story_points=13)
    assert out["updated"] == sorted({"title", "priority", "story_points"})
    assert issue_row(tracker, issue, "title", "priority", "story_points", "updated_on") == (
        "Sharper title", "critical", 13, "2026-02-09"
    )  # fmt: skip
    assert_error(tracker, "update_issue", "already has these values", issue_id=issue, priority="critical")
    assert_error(tracker, "update_issue", "Nothing to update", issue_id=issue)
    assert_error(tracker, "update_issue", "Fibonacci", issue_id=issue, story_points=7)
    epic = issue_with(tracker, "type = 'epic'")
    assert_error(tracker, "update_issue", "epics take no story points", issue_id=epic, story_points=3)
    # raising the estimate of an issue in a sprint must still fit the sprint's capacity
    sprint, capacity = one(tracker, "SELECT id, capacity_points FROM sprints WHERE status = 'active' ORDER BY id")
    in_sprint, points = one(
        tracker, "SELECT id, story_points FROM issues WHERE sprint_id = ? ORDER BY story_points, id", sprint
    )
    left = capacity - committed(tracker, sprint)
    err = assert_error(tracker, "update_issue", f"has {left} of {capacity} story points left", issue_id=in_sprint,
                       story_points=21)  # fmt: skip
    assert sprint in err and f"from {points} to 21 points" in err
    assert issue_row(tracker, in_sprint, "story_points") == (points,)


def test_assign_issue(tracker: LiveServer) -> None:
    issue = issue_with(tracker, "project_key = 'MOB' AND assignee_id IS NULL")
    user = member(tracker, "MOB")
    out = tracker.ok("assign_issue", issue_id=issue, user_id=user)
    assert out["assignee_id"] == user and out["previous_assignee_id"] is None
    assert issue_row(tracker, issue, "assignee_id") == (user,)
    assert tracker.query("SELECT 1 FROM watchers WHERE issue_id = ? AND user_id = ?", issue, user) == [(1,)]
    assert_error(tracker, "assign_issue", "already assigned", issue_id=issue, user_id=user)
    outsider = non_member(tracker, "MOB")
    err = assert_error(tracker, "assign_issue", "not a member of project MOB", user, issue_id=issue, user_id=outsider)
    assert "Members of MOB" in err
    assert issue_row(tracker, issue, "assignee_id") == (user,)
    assert_error(tracker, "assign_issue", "list_users", issue_id=issue, user_id="USR-9")


def test_set_epic(tracker: LiveServer) -> None:
    issue = issue_with(tracker, "project_key = 'DATA' AND type != 'epic' AND epic_id IS NULL")
    epic = issue_with(tracker, "project_key = 'DATA' AND type = 'epic'")
    out = tracker.ok("set_epic", issue_id=issue, epic_id=epic)
    assert out["epic_id"] == epic and out["previous_epic_id"] is None
    assert issue_row(tracker, issue, "epic_id") == (epic,)
    assert_error(tracker, "set_epic", "already under epic", issue_id=issue, epic_id=epic)
    assert_error(tracker, "set_epic", "itself an epic", issue_id=epic, epic_id=epic)
    story = issue_with(tracker, "project_key = 'DATA' AND type = 'story'")
    assert_error(tracker, "set_epic", "not an epic", epic, issue_id=issue, epic_id=story)
    web_epic = issue_with(tracker, "project_key = 'WEB' AND type = 'epic'")
    assert_error(tracker, "set_epic", "an epic of project WEB", issue_id=issue, epic_id=web_epic)


def test_delete_issue(tracker: LiveServer) -> None:
    epic = scalar(
        tracker,
        "SELECT e.id FROM issues e WHERE e.type = 'epic' AND EXISTS (SELECT 1 FROM issues c WHERE c.epic_id = e.id) "
        "AND EXISTS (SELECT 1 FROM comments WHERE issue_id = e.id) ORDER BY e.id",
    )
    children = [r[0] for r in tracker.query("SELECT id FROM issues WHERE epic_id = ? ORDER BY number", epic)]
    out = tracker.ok("delete_issue", issue_id=epic)
    assert out["deleted"] == epic and out["children_detached"] == children
    assert out["comments_deleted"] >= 1
    assert tracker.query("SELECT id FROM issues WHERE id = ?", epic) == []
    for table, col in (("comments", "issue_id"), ("watchers", "issue_id"), ("issue_labels", "issue_id")):
        assert tracker.query(f"SELECT count(*) FROM {table} WHERE {col} = ?", epic) == [(0,)]
    assert tracker.query("SELECT count(*) FROM issues WHERE epic_id = ?", epic) == [(0,)]
    linked = scalar(tracker, "SELECT blocker_id FROM links ORDER BY id")
    assert tracker.ok("delete_issue", issue_id=linked)["links_removed"] >= 1
    assert tracker.query("SELECT count(*) FROM links WHERE blocker_id = ? OR blocked_id = ?", linked, linked) == [(0,)]
    assert_error(tracker, "delete_issue", "search_issues", issue_id=epic)
