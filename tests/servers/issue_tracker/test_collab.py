"""The issue tracker through a real MCP client: comments, labels and watchers."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import assert_error, one, scalar
from tests.servers.issue_tracker.common import issue_with, member, non_member


def test_add_and_list_comments(tracker: LiveServer) -> None:
    issue = issue_with(tracker, "project_key = 'API'")
    author = member(tracker, "API")
    top = scalar(tracker, "SELECT max(id) FROM comments")
    before = len(tracker.ok("list_comments", issue_id=issue))
    out = tracker.ok("add_comment", issue_id=issue, author_id=author, body="  Looks good to me. ")
    assert out["comment_id"] == f"CMT-{int(top[4:]) + 1}"
    assert tracker.query(
        "SELECT issue_id, author_id, body, posted_on FROM comments WHERE id = ?", out["comment_id"]
    ) == [(issue, author, "Looks good to me.", "2026-02-09")]
    listed = tracker.ok("list_comments", issue_id=issue)
    assert len(listed) == before + 1 and listed[-1]["body"] == "Looks good to me."
    outsider = non_member(tracker, "API")
    assert_error(tracker, "add_comment", "not a member of project API", "cannot comment", issue_id=issue,
                 author_id=outsider, body="Hi")  # fmt: skip
    assert_error(tracker, "add_comment", "1 to 2000", issue_id=issue, author_id=author, body="   ")
    assert_error(tracker, "list_comments", "search_issues", issue_id="API-0")


def test_add_and_remove_labels(tracker: LiveServer) -> None:
    issue = issue_with(tracker, "id NOT IN (SELECT issue_id FROM issue_labels)")
    out = tracker.ok("add_label", issue_id=issue, label="Needs Triage")
    assert out["labels"] == ["needs-triage"]
    assert tracker.query("SELECT label FROM issue_labels WHERE issue_id = ?", issue) == [("needs-triage",)]
    assert_error(tracker, "add_label", "already has the label", issue_id=issue, label="needs-triage")
    assert_error(tracker, "add_label", "not valid", issue_id=issue, label="bad_label!")
    for name in ("a1", "a2", "a3", "a4", "a5"):
        tracker.ok("add_label", issue_id=issue, label=name)
    assert_error(tracker, "add_label", "the maximum is 6", issue_id=issue, label="a6")
    out = tracker.ok("remove_label", issue_id=issue, label="needs-triage")
    assert out["removed"] == "needs-triage" and "needs-triage" not in out["labels"]
    assert tracker.query("SELECT count(*) FROM issue_labels WHERE issue_id = ?", issue) == [(5,)]
    assert_error(tracker, "remove_label", "has no label 'needs-triage'", "a1", issue_id=issue, label="needs-triage")


def test_watch_and_unwatch(tracker: LiveServer) -> None:
    issue, assignee = one(tracker, "SELECT id, assignee_id FROM issues WHERE assignee_id IS NOT NULL ORDER BY id")
    user = scalar(
        tracker,
        "SELECT id FROM users WHERE id NOT IN (SELECT user_id FROM watchers WHERE issue_id = ?) ORDER BY id",
        issue,
    )
    out = tracker.ok("watch_issue", issue_id=issue, user_id=user)
    assert user in out["watchers"]
    assert tracker.query("SELECT 1 FROM watchers WHERE issue_id = ? AND user_id = ?", issue, user) == [(1,)]
    assert_error(tracker, "watch_issue", "already watches", issue_id=issue, user_id=user)
    assert user not in tracker.ok("unwatch_issue", issue_id=issue, user_id=user)["watchers"]
    assert tracker.query("SELECT 1 FROM watchers WHERE issue_id = ? AND user_id = ?", issue, user) == []
    assert_error(tracker, "unwatch_issue", "does not watch", issue_id=issue, user_id=user)
    assert_error(tracker, "unwatch_issue", "keeps watching it while assigned", issue_id=issue, user_id=assignee)
    assert_error(tracker, "watch_issue", "list_users", issue_id=issue, user_id="USR-1")
