"""A notes server that mints what it stores: a random id and a ``now()`` timestamp per new note.

Like many third-party MCP servers, it is not deterministic: the same calls from the same state
leave a different database every run (the new note's ``id`` comes from ``uuid4``, its
``created_at`` and an update's ``updated_at`` from the clock). Its tools carry the gym's
``gym_mcp/*`` metadata, as the kit's do, so that synthesis can use them without inference.

Run: ``python notes_random_ids.py STATE.db`` (stdio). ``--seed STATE.db`` writes the seed data.
"""

from __future__ import annotations

import sqlite3
import sys
import uuid
from datetime import UTC, datetime
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

SCHEMA = """
CREATE TABLE contacts (id TEXT PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE notes (
    id TEXT PRIMARY KEY,
    contact_id TEXT NOT NULL REFERENCES contacts(id),
    text TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT
);
"""

CONTACTS = [("CON-1001", "Ada Lee"), ("CON-1002", "Ben Okafor"), ("CON-1003", "Chen Wu"), ("CON-1004", "Dora Silva")]
NOTES = [
    ("note_000000000101", "CON-1001", "Prefers email", "2026-01-05T09:00:00"),
    ("note_000000000102", "CON-1002", "Renewal due in March", "2026-01-06T10:30:00"),
    ("note_000000000103", "CON-1003", "Asked for a demo", "2026-01-07T11:15:00"),
]
TEXTS = ["Call back on Monday", "Sent the contract", "Wants a discount", "Met at the fair", "Moved to Lisbon"]


def seed(path: str) -> None:
    """Write the seed database (fixed ids and times: the template state)."""
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA)
    conn.executemany("INSERT INTO contacts VALUES (?, ?)", CONTACTS)
    conn.executemany("INSERT INTO notes (id, contact_id, text, created_at) VALUES (?, ?, ?, ?)", NOTES)
    conn.commit()
    conn.close()


def build(path: str) -> MCPServer:
    """The server over the database at ``path`` (a connection per call, as a real server has)."""
    server = MCPServer("notes-random-ids")

    def db() -> sqlite3.Connection:
        conn = sqlite3.connect(path)
        conn.row_factory = sqlite3.Row
        return conn

    def note(conn: sqlite3.Connection, note_id: str) -> dict[str, Any]:
        row = conn.execute("SELECT * FROM notes WHERE id = ?", (note_id,)).fetchone()
        if row is None:
            raise ToolError(f"No note {note_id}; list_notes shows the notes")
        return dict(row)

    def meta(kind: str, intent: str, samples: dict[str, list[str]] | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {"gym_mcp/kind": kind, "gym_mcp/intent": intent}
        if samples:
            out["gym_mcp/samples"] = samples
        return out

    @server.tool(meta=meta("read", "Show the notes on contact {contact_id}"))
    def list_notes(contact_id: str) -> dict[str, Any]:
        """List the notes on a contact, oldest first."""
        with db() as conn:
            rows = conn.execute("SELECT * FROM notes WHERE contact_id = ? ORDER BY created_at", (contact_id,))
            return {"notes": [dict(r) for r in rows]}

    @server.tool(meta=meta("write", "Add the note '{text}' to contact {contact_id}", {"text": TEXTS}))
    def add_note(contact_id: str, text: str) -> dict[str, Any]:
        """Add a note to a contact; returns the new note with its id."""
        with db() as conn:
            if conn.execute("SELECT 1 FROM contacts WHERE id = ?", (contact_id,)).fetchone() is None:
                raise ToolError(f"No contact {contact_id}")
            note_id = f"note_{uuid.uuid4().int % 10**12:012d}"  # minted: another id every run
            now = datetime.now(UTC).isoformat()
            conn.execute(
                "INSERT INTO notes (id, contact_id, text, created_at) VALUES (?, ?, ?, ?)",
                (note_id, contact_id, text, now),
            )
            return {"note": note(conn, note_id)}

    @server.tool(meta=meta("write", "Change the text of note {note_id} to '{text}'", {"text": TEXTS}))
    def update_note(note_id: str, text: str) -> dict[str, Any]:
        """Replace a note's text; returns the note."""
        with db() as conn:
            note(conn, note_id)
            now = datetime.now(UTC).isoformat()
            conn.execute("UPDATE notes SET text = ?, updated_at = ? WHERE id = ?", (text, now, note_id))
            return {"note": note(conn, note_id)}

    return server


def main() -> None:
    """``notes_random_ids.py STATE.db`` serves over stdio; ``--seed STATE.db`` writes the seed data."""
    if sys.argv[1] == "--seed":
        seed(sys.argv[2])
        return
    build(sys.argv[1]).run()


if __name__ == "__main__":
    main()
