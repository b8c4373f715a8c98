"""The issue tracker through a real MCP client: projects, users and workflows."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import assert_error, scalar


def test_list_projects(tracker: LiveServer) -> None:
    out = tracker.ok("list_projects")
    assert [p["project_key"] for p in out] == ["API", "DATA", "MOB", "OPS", "WEB"]
    web = next(p for p in out if p["project_key"] == "WEB")
    assert web["open_issues"] == scalar(
        tracker, "SELECT count(*) FROM issues WHERE project_key = 'WEB' AND status != 'done'"
    )
    assert web["lead_id"] == scalar(tracker, "SELECT lead_id FROM projects WHERE key = 'WEB'")


def test_get_project(tracker: LiveServer) -> None:
    out = tracker.ok("get_project", project_key=" web")
    assert out["project_key"] == "WEB"
    members = [r[0] for r in tracker.query("SELECT user_id FROM project_members WHERE project_key = 'WEB' ORDER BY 1")]
    assert [m["user_id"] for m in out["members"]] == members
    assert out["active_sprint"]["sprint_id"] == scalar(
        tracker, "SELECT id FROM sprints WHERE project_key = 'WEB' AND status = 'active'"
    )
    assert sum(out["issues_by_status"].values()) == scalar(
        tracker, "SELECT count(*) FROM issues WHERE project_key = 'WEB'"
    )
    assert tracker.ok("get_project", project_key="OPS")["active_sprint"] is None
    assert_error(tracker, "get_project", "No project with key 'XYZ'", "list_projects", project_key="XYZ")


def test_list_users(tracker: LiveServer) -> None:
    assert len(tracker.ok("list_users")) == 30
    assert len(tracker.ok("list_users", limit=5)) == 5
    name = scalar(tracker, "SELECT name FROM users ORDER BY id")
    found = tracker.ok("list_users", query=name.split()[1].lower())
    assert name in [u["name"] for u in found]
    members = tracker.ok("list_users", project_key="API")
    assert len(members) == scalar(tracker, "SELECT count(*) FROM project_members WHERE project_key = 'API'")
    assert_error(tracker, "list_users", "at least 2 characters", query="x")
    assert_error(tracker, "list_users", "between 1 and 100", limit=0)
    assert_error(tracker, "list_users", "list_projects", project_key="NOPE")


def test_get_workflow(tracker: LiveServer) -> None:
    bug = tracker.ok("get_workflow", issue_type="Bug")
    assert bug["transitions"]["open"] == ["in_progress"]
    assert bug["transitions"]["done"] == ["open"]
    task = tracker.ok("get_workflow", issue_type="task")
    assert "done" in task["transitions"]["open"]
    assert "in_review" not in tracker.ok("get_workflow", issue_type="epic")["statuses"]
    assert_error(tracker, "get_workflow", "bug, story, task, epic", issue_type="incident")
