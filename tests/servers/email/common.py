"""What the email server's tests share: seed-data queries and small helpers."""

from __future__ import annotations

from typing import Any

from tests.helpers import LiveServer
from tests.servers.helpers import scalar

TABLES = (
    "mailboxes",
    "folders",
    "threads",
    "messages",
    "drafts",
    "labels",
    "message_labels",
    "attachments",
    "contacts",
)


def count(server: LiveServer, table: str, where: str = "1", *params: Any) -> int:
    return int(server.query(f"SELECT count(*) FROM {table} WHERE {where}", *params)[0][0])


def roomy_mailbox(server: LiveServer) -> str:
    """A mailbox with a 50 MB or larger quota (far from full)."""
    return str(scalar(server, "SELECT id FROM mailboxes WHERE quota_bytes >= 50 * 1048576 ORDER BY id"))


def full_mailbox(server: LiveServer) -> str:
    """A mailbox with less than 1 MB free (the seed makes three)."""
    return str(scalar(server, "SELECT id FROM mailboxes WHERE quota_bytes = 20 * 1048576 ORDER BY id"))


def folder_of(server: LiveServer, message_id: str) -> str:
    return str(
        scalar(server, "SELECT f.name FROM messages m JOIN folders f ON f.id = m.folder_id WHERE m.id = ?", message_id)
    )


def received(server: LiveServer, mailbox_id: str, folder: str = "Inbox") -> str:
    """A received message of the mailbox in that folder."""
    return str(
        scalar(
            server,
            "SELECT m.id FROM messages m JOIN folders f ON f.id = m.folder_id "
            "WHERE m.mailbox_id = ? AND f.name = ? AND m.direction = 'received' ORDER BY m.id",
            mailbox_id,
            folder,
        )
    )


def next_number(server: LiveServer, table: str) -> int:
    """The number the next id of a table will have."""
    top = server.query(f"SELECT max(CAST(substr(id, 5) AS INTEGER)) FROM {table}")[0][0]
    return int(top) + 1


def backup_message(server: LiveServer, mailbox_id: str) -> str:
    """The archived message whose large attachment nearly fills a full mailbox."""
    return str(
        scalar(
            server,
            "SELECT m.id FROM messages m JOIN attachments a ON a.message_id = m.id "
            "WHERE m.mailbox_id = ? AND a.filename = 'project-archive.zip'",
            mailbox_id,
        )
    )


def free_bytes(server: LiveServer, mailbox_id: str) -> int:
    """Quota left: the quota minus messages, unsent drafts and the attachments of both."""
    return int(
        scalar(
            server,
            """SELECT b.quota_bytes
                 - (SELECT coalesce(sum(size_bytes), 0) FROM messages WHERE mailbox_id = b.id)
                 - (SELECT coalesce(sum(size_bytes), 0) FROM drafts WHERE mailbox_id = b.id AND status = 'draft')
                 - (SELECT coalesce(sum(a.size_bytes), 0) FROM attachments a JOIN messages m ON m.id = a.message_id
                    WHERE m.mailbox_id = b.id)
                 - (SELECT coalesce(sum(a.size_bytes), 0) FROM attachments a JOIN drafts d ON d.id = a.draft_id
                    WHERE d.mailbox_id = b.id AND d.status = 'draft')
               FROM mailboxes b WHERE b.id = ?""",
            mailbox_id,
        )
    )
