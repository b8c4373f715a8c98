"""A records server as third-party servers are written: no ``gym_mcp/*`` metadata, camelCase
columns, and a write stamps the row with the clock in whole seconds.

Two replays of the same calls a moment apart agree (the same second), so a synthesizer that
replays only at once never sees the stamp move; an independent replay later does. Its column
``deviceSN`` is what a ``device_sn`` parameter names.

Run: ``python records_clock.py STATE.db`` (stdio). ``--seed STATE.db`` writes the seed data.
"""

from __future__ import annotations

import sqlite3
import sys
from datetime import datetime
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

SCHEMA = """
CREATE TABLE records (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    deviceSN TEXT NOT NULL,
    status TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
"""
DEVICES = ["SN-1001", "SN-1002", "SN-2040", "SN-3300"]


def seed(path: str) -> None:
    """Write the seed database (fixed stamps: the template state)."""
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA)
    for i in range(8):
        conn.execute(
            "INSERT INTO records (deviceSN, status, updated_at) VALUES (?, ?, ?)",
            (DEVICES[i % 4], ["ok", "alarm"][i % 2], "2026-03-20 09:00:00"),
        )
    conn.commit()
    conn.close()


def build(path: str) -> MCPServer:
    """The server over the database at ``path`` (a connection per call)."""
    server = MCPServer("records-clock")

    def db() -> sqlite3.Connection:
        conn = sqlite3.connect(path)
        conn.row_factory = sqlite3.Row
        return conn

    def now() -> str:
        return datetime.now().isoformat(sep=" ", timespec="seconds")

    @server.tool()
    def get_record(record_id: int) -> dict[str, Any]:
        """Return one record by its id."""
        with db() as conn:
            row = conn.execute("SELECT * FROM records WHERE id = ?", (record_id,)).fetchone()
        if row is None:
            raise ToolError(f"record {record_id} was not found")
        return dict(row)

    @server.tool()
    def create_record(device_sn: str, status: str = "ok") -> dict[str, Any]:
        """Create a record for a device; it is stamped with the time."""
        with db() as conn:
            cur = conn.execute(
                "INSERT INTO records (deviceSN, status, updated_at) VALUES (?, ?, ?)", (device_sn, status, now())
            )
            return dict(conn.execute("SELECT * FROM records WHERE id = ?", (cur.lastrowid,)).fetchone())

    @server.tool()
    def update_record(record_id: int, status: str) -> dict[str, Any]:
        """Set a record's status; it is stamped with the time."""
        with db() as conn:
            if conn.execute("SELECT 1 FROM records WHERE id = ?", (record_id,)).fetchone() is None:
                raise ToolError(f"record {record_id} was not found")
            conn.execute("UPDATE records SET status = ?, updated_at = ? WHERE id = ?", (status, now(), record_id))
            return dict(conn.execute("SELECT * FROM records WHERE id = ?", (record_id,)).fetchone())

    return server


def main() -> None:
    """``records_clock.py STATE.db`` serves over stdio; ``--seed STATE.db`` writes the seed data."""
    if sys.argv[1] == "--seed":
        seed(sys.argv[2])
        return
    build(sys.argv[1]).run()


if __name__ == "__main__":
    main()
