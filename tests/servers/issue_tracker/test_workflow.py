"""The issue tracker through a real MCP client: workflow transitions and blocking links."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import assert_error, one, scalar
from tests.servers.issue_tracker.common import issue_row, issue_with


def test_transition_bug_through_its_workflow(tracker: LiveServer) -> None:
    bug = issue_with(tracker, "type = 'bug' AND status = 'open' AND id NOT IN (SELECT blocked_id FROM links)")
    err = assert_error(tracker, "transition_issue", "cannot move from open to done", "in_progress", issue_id=bug,
                       status="done")  # fmt: skip
    assert "get_workflow" in err
    assert issue_row(tracker, bug, "status") == ("open",)
    for status in ("in_progress", "in_review", "done"):
        out = tracker.ok("transition_issue", issue_id=bug, status=status.replace("_", " "))
        assert out["status"] == status
    assert issue_row(tracker, bug, "status", "resolved_on", "updated_on") == ("done", "2026-02-09", "2026-02-09")
    assert_error(tracker, "transition_issue", "already done", issue_id=bug, status="done")
    assert tracker.ok("transition_issue", issue_id=bug, status="open")["previous_status"] == "done"
    assert issue_row(tracker, bug, "status", "resolved_on") == ("open", None)
    assert_error(tracker, "transition_issue", "status must be one of", issue_id=bug, status="closed")


def test_task_may_skip_review(tracker: LiveServer) -> None:
    task = issue_with(tracker, "type = 'task' AND status = 'open' AND id NOT IN (SELECT blocked_id FROM links)")
    assert tracker.ok("transition_issue", issue_id=task, status="done")["status"] == "done"
    story = issue_with(tracker, "type = 'story' AND status = 'in_progress'")
    assert_error(tracker, "transition_issue", "in_review, open", issue_id=story, status="done")


def test_blocked_issue_cannot_be_done(tracker: LiveServer) -> None:
    blocker, blocked = one(
        tracker,
        """SELECT a.id, b.id FROM links l JOIN issues a ON a.id = l.blocker_id JOIN issues b ON b.id = l.blocked_id
           WHERE a.status != 'done' AND b.status != 'done' AND b.type = 'task' ORDER BY l.id""",
    )
    if issue_row(tracker, blocked, "status") == ("open",):
        tracker.ok("transition_issue", issue_id=blocked, status="in_progress")
    err = assert_error(tracker, "transition_issue", "is blocked by issues that are not done", blocker,
                       issue_id=blocked, status="done")  # fmt: skip
    assert "unlink_issues" in err
    assert issue_row(tracker, blocked, "status") != ("done",)
    link = scalar(tracker, "SELECT id FROM links WHERE blocker_id = ? AND blocked_id = ?", blocker, blocked)
    others = tracker.query(
        "SELECT l.id FROM links l JOIN issues a ON a.id = l.blocker_id WHERE l.blocked_id = ? AND a.status != 'done'",
        blocked,
    )
    for (lid,) in others:
        tracker.ok("unlink_issues", link_id=lid)
    assert tracker.query("SELECT id FROM links WHERE id = ?", link) == []
    assert tracker.ok("transition_issue", issue_id=blocked, status="done")["status"] == "done"


def test_epic_cannot_be_done_before_its_children(tracker: LiveServer) -> None:
    epic, child = one(
        tracker,
        "SELECT e.id, c.id FROM issues e JOIN issues c ON c.epic_id = e.id WHERE e.status = 'in_progress' "
        "AND c.status != 'done' ORDER BY e.id, c.number",
    )
    assert_error(tracker, "transition_issue", "still has issues that are not done", child, issue_id=epic, status="done")


def test_link_issues(tracker: LiveServer) -> None:
    a = issue_with(tracker, "project_key = 'OPS' AND status = 'open' AND type != 'epic'")
    b = scalar(
        tracker, "SELECT id FROM issues WHERE project_key = 'OPS' AND status = 'open' AND id != ? ORDER BY number", a
    )
    top = scalar(tracker, "SELECT max(id) FROM links")
    out = tracker.ok("link_issues", issue_id=a, blocked_issue_id=b)
    assert out == {"link_id": f"LNK-{int(top[4:]) + 1}", "blocker_id": a, "blocked_id": b}
    assert tracker.query("SELECT blocker_id, blocked_id FROM links WHERE id = ?", out["link_id"]) == [(a, b)]
    assert tracker.ok("get_issue", issue_id=b)["blocked_by"][-1]["issue_id"] == a
    assert_error(tracker, "link_issues", "already blocks", issue_id=a, blocked_issue_id=b)
    assert_error(tracker, "link_issues", "cannot block each other", "unlink_issues", issue_id=b, blocked_issue_id=a)
    assert_error(tracker, "link_issues", "cannot block itself", issue_id=a, blocked_issue_id=a)
    done = issue_with(tracker, "status = 'done' AND type != 'epic'")
    assert_error(tracker, "link_issues", "already done", issue_id=a, blocked_issue_id=done)
    assert_error(tracker, "link_issues", "No issue 'OPS-999'", issue_id=a, blocked_issue_id="OPS-999")


def test_unlink_issues(tracker: LiveServer) -> None:
    link, blocker, blocked = one(tracker, "SELECT id, blocker_id, blocked_id FROM links ORDER BY id")
    out = tracker.ok("unlink_issues", link_id=link.lower())
    assert out == {"removed": link, "blocker_id": blocker, "blocked_id": blocked}
    assert tracker.query("SELECT id FROM links WHERE id = ?", link) == []
    assert_error(tracker, "unlink_issues", "No link", "get_issue", link_id=link)
