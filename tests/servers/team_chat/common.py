"""What the team chat server's tests share: seed-data queries and small helpers."""

from __future__ import annotations

from typing import Any

from tests.helpers import LiveServer
from tests.servers.helpers import one, scalar

TABLES = ("workspaces", "users", "channels", "memberships", "messages", "reactions", "pins", "direct_messages")

ACTIVE = "SELECT id FROM users WHERE deactivated = 0"


def count(server: LiveServer, table: str, where: str = "1", *params: Any) -> int:
    return server.query(f"SELECT count(*) FROM {table} WHERE {where}", *params)[0][0]


def member(server: LiveServer, *, private: bool = False, archived: bool = False) -> tuple[str, str]:
    """(channel, an active member of it) of a channel other than #general."""
    return one(
        server,
        f"""SELECT c.id, m.user_id FROM channels c JOIN memberships m ON m.channel_id = c.id
            WHERE c.is_private = ? AND c.archived = ? AND c.name NOT IN ('general', 'random') AND m.user_id IN ({ACTIVE})
            ORDER BY c.id, m.user_id""",
        int(private),
        int(archived),
    )


def outsider(server: LiveServer, channel: str) -> str:
    """An active user of the channel's workspace who is not a member of it."""
    return scalar(
        server,
        f"""SELECT u.id FROM users u JOIN channels c ON c.workspace_id = u.workspace_id
            WHERE c.id = ? AND u.id IN ({ACTIVE})
              AND u.id NOT IN (SELECT user_id FROM memberships WHERE channel_id = c.id) ORDER BY u.id""",
        channel,
    )


def foreigner(server: LiveServer, channel: str) -> str:
    """An active user of another workspace than the channel's."""
    return scalar(
        server,
        f"""SELECT u.id FROM users u JOIN channels c ON c.workspace_id != u.workspace_id
            WHERE c.id = ? AND u.id IN ({ACTIVE}) ORDER BY u.id""",
        channel,
    )


def authored(server: LiveServer, *, archived: bool = False, reply: bool = False) -> tuple[str, str, str]:
    """(message, its active author, its channel): a top-level message (or a reply) in an open (or archived) channel."""
    return one(
        server,
        f"""SELECT m.id, m.user_id, m.channel_id FROM messages m JOIN channels c ON c.id = m.channel_id
            WHERE c.archived = ? AND (m.parent_id IS NOT NULL) = ? AND m.user_id IN ({ACTIVE})
              AND m.user_id IN (SELECT user_id FROM memberships WHERE channel_id = c.id)
            ORDER BY m.id""",
        int(archived),
        int(reply),
    )


def deactivated(server: LiveServer) -> str:
    return scalar(server, "SELECT id FROM users WHERE deactivated = 1 ORDER BY id")
