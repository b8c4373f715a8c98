"""`differing`, `loosened`, `reconcile` and `spec_lines`: where two states that should agree differ."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from gym_mcp.state import CompositeState, DirectoryState, JSONFileState, SQLiteState


def _db(note_id: str, created: str, extra: bool = False) -> SQLiteState:
    state = SQLiteState(None, volatile={"log": ["at"]})
    conn: sqlite3.Connection = state.connection
    conn.executescript(
        "CREATE TABLE notes (id TEXT PRIMARY KEY, text TEXT, created_at TEXT);"
        "CREATE TABLE tags (note_id TEXT, tag TEXT); CREATE TABLE log (msg TEXT, at TEXT);"
    )
    conn.execute("INSERT INTO notes VALUES ('n-1', 'seed', '2026-01-01')")
    conn.execute("INSERT INTO notes VALUES (?, 'new', ?)", (note_id, created))
    conn.execute("INSERT INTO tags VALUES (?, 'red')", (note_id,))
    conn.execute("INSERT INTO log VALUES ('added', ?)", (created,))
    if extra:
        conn.execute("INSERT INTO notes VALUES ('n-2', 'other', '2026-01-02')")
    return state


def test_sqlite_names_the_minted_columns_even_when_one_is_the_primary_key() -> None:
    a, b = _db("n-7731", "2026-12-04T10:00:00.1"), _db("n-0042", "2026-12-04T10:00:00.9")
    sa, sb = a.snapshot(), b.snapshot()
    assert a.diff(sa, sb)["notes"].added  # by primary key it looks like another note
    fields, fingerprint = a.reconcile(sa, sb)
    assert fields == {"notes": ("created_at", "id"), "tags": ("note_id",)}  # log.at is declared volatile
    assert fingerprint is not None and fingerprint == a.loosened(fields).fingerprint_of(sb)
    assert a.spec_lines(fields) == ['volatile = { log = ["at"], notes = ["created_at", "id"], tags = ["note_id"] }']
    assert a.fingerprint_without(fields) == fingerprint
    assert a.fingerprint_without({}) == a.fingerprint()


def test_sqlite_states_that_differ_in_content_are_not_reconciled_by_what_differs() -> None:
    a, b = _db("n-7", "t1"), _db("n-7", "t1", extra=True)
    assert a.reconcile(a.snapshot(), a.snapshot()) == ({}, a.fingerprint())
    fields, fingerprint = a.reconcile(a.snapshot(), b.snapshot())
    assert set(fields["notes"]) == {"created_at", "id", "text"}  # every column of the extra row
    assert fingerprint is not None  # with all of them left out, only the row count is left


def test_json_names_keys_at_any_depth_not_their_parents(tmp_path: Path) -> None:
    state = JSONFileState(tmp_path / "db.json", volatile_keys=["etag"])

    def doc(note_id: str, at: str) -> bytes:
        notes = [{"id": "n1", "text": "seed"}, {"id": note_id, "text": "new", "meta": {"at": at}}]
        return json.dumps({"notes": notes, "etag": at}).encode()

    from gym_mcp.state import Snapshot

    sa, sb = Snapshot.of("json", doc("x-1", "10:00")), Snapshot.of("json", doc("x-2", "10:01"))
    fields, fingerprint = state.reconcile(sa, sb)
    assert fields == {"json": ("at", "id")}
    assert fingerprint == state.loosened(fields).fingerprint_of(sb)
    assert state.spec_lines(fields) == ['volatile_keys = ["at", "etag", "id"]']


def test_a_minted_file_name_cannot_be_left_out(tmp_path: Path) -> None:
    state = DirectoryState(tmp_path / "root")
    (state.root / "a-1.txt").write_text("x")
    sa = state.snapshot()
    (state.root / "a-1.txt").rename(state.root / "a-2.txt")
    sb = state.snapshot()
    fields, fingerprint = state.reconcile(sa, sb)
    assert fields == {"files": ("a-1.txt", "a-2.txt")}
    assert fingerprint is not None  # both names ignored: the two trees agree
    assert state.spec_lines(fields) == ['ignore = ["a-1.txt", "a-2.txt"]']


def test_a_composite_names_each_part_group(tmp_path: Path) -> None:
    one, two = _db("n-8", "t1"), _db("n-9", "t2")
    comp = CompositeState({"crm": one})
    sa = CompositeState.pack({"crm": one.snapshot()})
    sb = CompositeState.pack({"crm": two.snapshot()})
    fields, fingerprint = comp.reconcile(sa, sb)
    assert fields == {"crm.notes": ("created_at", "id"), "crm.tags": ("note_id",)}
    assert fingerprint is not None
    assert comp.spec_lines(fields)[0] == "# part crm"
