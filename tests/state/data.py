"""Small fixtures of state the backend tests share."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from gym_mcp.state import SQLiteState


def fill(conn: sqlite3.Connection) -> None:
    """Five accounts, ``A1``-``A5``, with ``updated_at`` as their volatile column."""
    conn.execute("CREATE TABLE accounts (id TEXT PRIMARY KEY, owner TEXT, balance INTEGER, updated_at TEXT)")
    conn.executemany(
        "INSERT INTO accounts VALUES (?, ?, ?, ?)",
        [(f"A{i}", f"owner {i}", i * 100, f"2026-01-0{i}") for i in range(1, 6)],
    )


def balance(st: SQLiteState, account: str) -> int:
    """An account's balance."""
    return int(st.connection.execute("SELECT balance FROM accounts WHERE id = ?", (account,)).fetchone()[0])


def write_json(path: Path, value: object, **kwargs: object) -> None:
    """Write ``value`` as JSON (``json.dumps`` keyword arguments pass through)."""
    path.write_text(json.dumps(value, **kwargs))  # type: ignore[arg-type]
