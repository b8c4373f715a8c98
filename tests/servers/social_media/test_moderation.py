"""The social media server, driven through a real MCP client on an in-memory database: reports and moderation."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump, one, scalar
from tests.servers.social_media.common import count, public_pair, stranger_of_private


def test_report_post(sm: LiveServer) -> None:
    author, post, user = public_pair(sm)
    out = sm.ok("report_post", post_id=post, user_id=user, reason="Hate speech", details="Insults another user.")
    assert (out["reason"], out["status"], out["filed_at"]) == ("hate_speech", "open", "2026-01-15T12:00:00")
    assert one(sm, "SELECT post_id, reporter_id, reason, status FROM reports WHERE id = ?", out["report_id"]) == (
        post,
        user,
        "hate_speech",
        "open",
    )
    state = dump(sm)
    err = sm.error("report_post", post_id=post, user_id=user, reason="spam")
    assert out["report_id"] in err
    err = sm.error("report_post", post_id=post, user_id=user, reason="boring")
    assert "reason must be one of" in err
    assert "misinformation" in err
    assert "own posts" in sm.error("report_post", post_id=post, user_id=author, reason="spam")
    _, hidden, stranger = stranger_of_private(sm)
    assert "private profile" in sm.error("report_post", post_id=hidden, user_id=stranger, reason="spam")
    assert "at most 300" in sm.error("report_post", post_id=post, user_id=stranger, reason="spam", details="d" * 301)
    assert dump(sm) == state


def test_list_reports(sm: LiveServer) -> None:
    everything = sm.ok("list_reports", limit=100)
    assert len(everything) == count(sm, "reports")
    assert [r["filed_at"] for r in everything] == sorted(r["filed_at"] for r in everything)
    for status in ("open", "resolved", "dismissed"):
        listed = sm.ok("list_reports", status=status, limit=100)
        assert len(listed) == count(sm, "reports", "status = ?", status)
    post = everything[0]["post_id"]
    assert {r["post_id"] for r in sm.ok("list_reports", post_id=post.lower())} == {post}
    assert len(sm.ok("list_reports", limit=2)) == 2
    assert "status must be one of" in sm.error("list_reports", status="pending")


def test_resolve_report(sm: LiveServer) -> None:
    warned, dismissed = [r[0] for r in sm.query("SELECT id FROM reports WHERE status = 'open' ORDER BY id LIMIT 2")]
    out = sm.ok("resolve_report", report_id=warned, action="warn_author", note="First offence")
    assert (out["status"], out["resolution"]) == ("resolved", "Author warned: First offence")
    assert sm.ok("resolve_report", report_id=dismissed, action="dismiss")["status"] == "dismissed"
    assert one(sm, "SELECT status, resolution FROM reports WHERE id = ?", dismissed) == (
        "dismissed",
        "No violation found",
    )
    state = dump(sm)
    err = sm.error("resolve_report", report_id=warned, action="dismiss")
    assert "already resolved" in err
    assert scalar(sm, "SELECT id FROM reports WHERE status = 'open' ORDER BY id") in err  # names open ones
    assert "action must be one of" in sm.error("resolve_report", report_id=warned, action="ban")
    assert "list_reports" in sm.error("resolve_report", report_id="RPT-0001", action="dismiss")
    assert dump(sm) == state


def test_resolve_report_by_removing_the_post(sm: LiveServer) -> None:
    report, post = one(
        sm,
        "SELECT id, post_id FROM reports WHERE status = 'open' AND post_id IN (SELECT post_id FROM comments) ORDER BY id",
    )
    out = sm.ok("resolve_report", report_id=report, action="remove_post", note="Clear spam")
    assert out["status"] == "resolved"
    assert out["resolution"] == "Post removed: Clear spam"
    assert out["reports_resolved"] >= 1
    assert count(sm, "posts", "id = ?", post) == count(sm, "comments", "post_id = ?", post) == 0
    assert count(sm, "reports", "post_id = ? AND status = 'open'", post) == 0
    assert sm.ok("list_reports", post_id=post)[0]["post_id"] == post  # the reports outlive the post
