"""State backends on real SQLite files, in-memory databases and directory trees."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from gym_mcp import DirectoryState, Snapshot, SQLiteState
from gym_mcp.errors import StateError


def _fill(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE accounts (id TEXT PRIMARY KEY, owner TEXT, balance INTEGER, updated_at TEXT)")
    conn.executemany(
        "INSERT INTO accounts VALUES (?, ?, ?, ?)",
        [(f"A{i}", f"owner {i}", i * 100, f"2026-01-0{i}") for i in range(1, 6)],
    )


@pytest.fixture(params=["memory", "file"])
def state(request: pytest.FixtureRequest, tmp_path: Path) -> SQLiteState:
    path = None if request.param == "memory" else tmp_path / "s.db"
    st = SQLiteState(path, volatile={"accounts": ["updated_at"]})
    _fill(st.connection)
    return st


def test_snapshot_restore_is_exact(state: SQLiteState) -> None:
    snap = state.snapshot()
    fp = state.fingerprint()
    state.connection.execute("UPDATE accounts SET balance = 0 WHERE id = 'A1'")
    state.connection.execute("DELETE FROM accounts WHERE id = 'A2'")
    assert state.fingerprint() != fp
    state.restore(snap)
    assert state.fingerprint() == fp
    assert state.snapshot().digest == snap.digest


def test_snapshot_is_immutable_and_hashed(state: SQLiteState) -> None:
    snap = state.snapshot()
    assert isinstance(snap, Snapshot)
    assert len(snap.digest) == 64
    with pytest.raises(AttributeError):
        snap.data = b""  # type: ignore[misc]
    state.connection.execute("UPDATE accounts SET balance = 1")
    assert state.snapshot().digest != snap.digest


def test_volatile_columns_are_left_out_of_fingerprints(state: SQLiteState) -> None:
    fp = state.fingerprint()
    state.connection.execute("UPDATE accounts SET updated_at = 'later'")
    assert state.fingerprint() == fp
    state.connection.execute("UPDATE accounts SET owner = 'someone' WHERE id = 'A3'")
    assert state.fingerprint() != fp


def test_fingerprint_ignores_row_order(tmp_path: Path) -> None:
    a, b = SQLiteState(None), SQLiteState(None)
    for st, order in ((a, [1, 2, 3]), (b, [3, 1, 2])):
        st.connection.execute("CREATE TABLE t (id INTEGER, v TEXT)")
        st.connection.executemany("INSERT INTO t VALUES (?, ?)", [(i, str(i)) for i in order])
    assert a.fingerprint() == b.fingerprint()


def test_fingerprint_of_snapshot_matches_live(state: SQLiteState) -> None:
    snap = state.snapshot()
    assert state.fingerprint_of(snap) == state.fingerprint()


def test_diff_rows_added_removed_changed(state: SQLiteState) -> None:
    before = state.snapshot()
    state.connection.execute("INSERT INTO accounts VALUES ('A9', 'new', 5, 'x')")
    state.connection.execute("DELETE FROM accounts WHERE id = 'A1'")
    state.connection.execute("UPDATE accounts SET balance = 7 WHERE id = 'A2'")
    state.connection.execute("UPDATE accounts SET updated_at = 'volatile only' WHERE id = 'A3'")
    after = state.snapshot()
    diff = state.diff(before, after)
    accounts = diff["accounts"]
    assert [r["id"] for r in accounts.added] == ["A9"]
    assert [r["id"] for r in accounts.removed] == ["A1"]
    assert [(b["balance"], a["balance"]) for b, a in accounts.changed] == [(200, 7)]
    assert "accounts: +1 -1 ~1" in diff.summary()
    assert not state.diff(before, before)


def test_file_restore_is_seen_by_other_connections(tmp_path: Path) -> None:
    st = SQLiteState(tmp_path / "shared.db")
    _fill(st.connection)
    snap = st.snapshot()
    other = sqlite3.connect(tmp_path / "shared.db")
    other.execute("DELETE FROM accounts")
    other.commit()
    st.restore(snap)
    assert other.execute("SELECT COUNT(*) FROM accounts").fetchone()[0] == 5


def test_wrong_snapshot_kind_is_refused(state: SQLiteState, tmp_path: Path) -> None:
    d = DirectoryState(tmp_path / "d")
    with pytest.raises(StateError, match="directory"):
        state.restore(d.snapshot())


def test_directory_state_round_trip(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    st = DirectoryState(root, ignore=["*.log"])
    (root / "a.txt").write_text("alpha")
    (root / "sub").mkdir()
    (root / "sub" / "b.txt").write_text("beta")
    (root / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(root / "run.sh", 0o755)
    snap = st.snapshot()
    fp = st.fingerprint()
    (root / "a.txt").write_text("changed")
    (root / "sub" / "b.txt").unlink()
    (root / "new").mkdir()
    (root / "new" / "c.txt").write_text("gamma")
    os.chmod(root / "run.sh", 0o644)
    diff = st.diff(snap, st.snapshot())
    files = diff["files"]
    assert set(files.added) == {"new", "new/c.txt"}
    assert files.removed == ("sub/b.txt",)
    assert {p for p, _ in files.changed} == {"a.txt", "run.sh"}
    st.restore(snap)
    assert st.fingerprint() == fp
    assert (root / "a.txt").read_text() == "alpha"
    assert not (root / "new").exists()
    assert os.stat(root / "run.sh").st_mode & 0o777 == 0o755
    (root / "debug.log").write_text("noise")
    assert st.fingerprint() == fp  # ignored pattern
