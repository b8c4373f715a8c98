"""What the video meeting server's tests share: seed-data queries."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import one, scalar

TABLES = ("users", "rooms", "meetings", "participants", "recordings", "meeting_events")
ROOM = "(SELECT capacity FROM rooms r WHERE r.id = m.room_id)"
INSIDE = "(SELECT count(*) FROM participants p WHERE p.meeting_id = m.id AND p.status = 'admitted')"


def meeting(server: LiveServer, status: str, extra: str = "") -> tuple[str, str]:
    """(meeting, host) of the first meeting in a status (and an extra SQL condition on ``m``)."""
    return one(server, f"SELECT m.id, m.host_id FROM meetings m WHERE m.status = ? {extra} ORDER BY m.id", status)


def status_of(server: LiveServer, meeting_id: str, user_id: str) -> str | None:
    """A user's participant status in a meeting (None when not a participant)."""
    rows = server.query("SELECT status FROM participants WHERE meeting_id = ? AND user_id = ?", meeting_id, user_id)
    return rows[0][0] if rows else None


def stranger(server: LiveServer, meeting_id: str) -> str:
    """A user who is no participant of the meeting."""
    return scalar(
        server,
        "SELECT id FROM users WHERE id NOT IN (SELECT user_id FROM participants WHERE meeting_id = ?)",
        meeting_id,
    )


def logged(server: LiveServer, meeting_id: str) -> list[tuple[str, str, str | None]]:
    """(acting user, action, user) of the meeting's log entries written now (today at 11:00)."""
    return server.query(
        "SELECT acting_user_id, action, user_id FROM meeting_events WHERE meeting_id = ? "
        "AND at = '2026-01-15 11:00:00.000000' ORDER BY id",
        meeting_id,
    )
