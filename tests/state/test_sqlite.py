"""SQLite state on real files and in-memory databases: snapshots, fingerprints, diffs, copies."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as strat

from gym_mcp.errors import StateError
from gym_mcp.state import DirectoryState, Snapshot, SQLiteState
from tests.state.data import balance, fill


@pytest.fixture(params=["memory", "file"])
def state(request: pytest.FixtureRequest, tmp_path: Path) -> SQLiteState:
    path = None if request.param == "memory" else tmp_path / "s.db"
    st = SQLiteState(path, volatile={"accounts": ["updated_at"]})
    fill(st.connection)
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


def test_fingerprint_is_the_rows_hash_and_a_state_seen_before_comes_from_the_digest(state: SQLiteState) -> None:
    start, first = state.snapshot(), state.fingerprint()
    for statement in (
        "UPDATE accounts SET balance = 0 WHERE id = 'A1'",
        "DELETE FROM accounts WHERE id = 'A2'",
        "INSERT INTO accounts VALUES ('A9', 'new', 5, 'x')",
        "UPDATE accounts SET updated_at = 'volatile only' WHERE id = 'A3'",
    ):
        state.connection.execute(statement)
        kept = len(state._fingerprints)
        fp = state.fingerprint()
        assert fp == state._fingerprint(state.connection)  # what reading and sorting every row gives
        assert len(state._fingerprints) == kept + 1 and fp in state._fingerprints.values()
        assert state.fingerprint() == fp and len(state._fingerprints) == kept + 1  # the next time is a lookup
        assert fp != first
    kept = len(state._fingerprints)
    state.restore(start)
    assert state.fingerprint() == first and len(state._fingerprints) == kept  # seen before: looked up


_WRITES = (
    "UPDATE accounts SET balance = balance + 1 WHERE id = 'A1'",
    "UPDATE accounts SET balance = balance - 1 WHERE id = 'A1'",  # back to what it was
    "UPDATE accounts SET updated_at = updated_at || 'x'",  # a volatile column only
    "INSERT OR REPLACE INTO accounts VALUES ('A9', 'new', 9, 't')",
    "DELETE FROM accounts WHERE id = 'A9'",
    "INSERT OR IGNORE INTO accounts SELECT id || 'b', owner, balance, updated_at FROM accounts",  # grows
    "DELETE FROM accounts WHERE id LIKE '%b'",
    "CREATE TABLE IF NOT EXISTS extra (k TEXT PRIMARY KEY, v BLOB)",  # changes no row count
    "DROP TABLE IF EXISTS extra",
    "CREATE TABLE IF NOT EXISTS extra (k TEXT PRIMARY KEY, v BLOB);"
    " INSERT OR IGNORE INTO extra SELECT id, randomblob(3000) FROM accounts",
    "PRAGMA user_version = 7",
    "VACUUM",  # the same rows laid out anew
)


@pytest.mark.parametrize("in_memory", [True, False], ids=["memory", "file"])
def test_the_fingerprint_cache_never_answers_for_other_content(in_memory: bool, tmp_path: Path) -> None:
    """Whatever writes, restores and snapshots came before, `fingerprint` is what the rows give.

    The cache is keyed by the content compared with what the state last restored or snapshotted
    (`_content_key`): a key that two different contents shared would answer with the wrong rows.
    """
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    steps = st.lists(st.one_of(st.sampled_from(_WRITES), st.sampled_from(["restore", "snapshot"])), max_size=14)

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(steps)
    def check(ops: list[str]) -> None:
        path = None if in_memory else tmp_path / "cache.db"
        if path is not None and path.exists():
            path.unlink()
        state = SQLiteState(path, volatile={"accounts": ["updated_at"]})
        try:
            fill(state.connection)
            start = state.snapshot()
            for op in ops:
                if op == "restore":
                    state.restore(start)
                elif op == "snapshot":
                    state.snapshot()
                else:
                    state.connection.executescript(op)
                assert state.fingerprint() == state._fingerprint(state.connection), ops
        finally:
            state.close()

    check()


def test_content_keys_are_equal_exactly_when_the_contents_are() -> None:
    """`_content_key` of two databases against the same known one: equal keys if and only if equal bytes.

    Header counters aside (`_sqlite_content`), whichever 4 KB chunks differ, the first included,
    and whatever the lengths.
    """
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from gym_mcp.state.base import _sqlite_content
    from gym_mcp.state.sqlite import _CHUNK, _content_key

    edits = st.lists(st.tuples(st.integers(0, 10**6), st.integers(1, 255)), max_size=4)  # (place, xor)
    length = st.sampled_from([0, 0, -1, 1, -_CHUNK, _CHUNK, 2 * _CHUNK + 7])  # added to the known length

    def edited(base: bytes, flips: list[tuple[int, int]], grow: int) -> bytes:
        size = max(100, len(base) + grow)
        out = bytearray((base + bytes(max(0, grow)))[:size])
        for at, x in flips:
            out[at % len(out)] ^= x
        return bytes(out)

    @settings(max_examples=300, deadline=None)
    @given(st.binary(min_size=100, max_size=3 * _CHUNK + 100), edits, length, edits, length, st.booleans())
    def check(
        base: bytes, fa: list[tuple[int, int]], la: int | None, fb: list[tuple[int, int]], lb: int | None, same_b: bool
    ) -> None:
        known = Snapshot.of("sqlite", base)
        a = edited(base, fa, la)
        b = edited(base, fa, la) if same_b else edited(base, fb, lb)
        assert (_content_key(a, known) == _content_key(b, known)) == (_sqlite_content(a) == _sqlite_content(b))
        if _sqlite_content(a) == _sqlite_content(base):
            assert _content_key(a, known) == known.digest  # the state last restored: its own digest

    check()


def test_the_digest_leaves_out_the_header_counters_and_only_them(state: SQLiteState) -> None:
    import hashlib

    from gym_mcp.state.base import _sqlite_content

    data = state.snapshot().data
    assert Snapshot.of("sqlite", data).digest == hashlib.sha256(_sqlite_content(data)).hexdigest()
    counters = bytearray(data)
    for offset in (24, 40, 92, 96):  # change counter, schema cookie, version-valid-for, library version
        counters[offset + 3] ^= 0xFF
    assert Snapshot.of("sqlite", bytes(counters)).digest == Snapshot.of("sqlite", data).digest
    for offset in (28, 44, 60, 100, len(data) - 1):  # page count, schema format, user version, content
        other = bytearray(data)
        other[offset] ^= 0x01
        assert Snapshot.of("sqlite", bytes(other)).digest != Snapshot.of("sqlite", data).digest, offset
    assert Snapshot.of("sqlite", b"short").digest == hashlib.sha256(b"short").hexdigest()


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
    fill(st.connection)
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


def test_sqlite_file_copy_to_is_equal_then_independent(tmp_path: Path) -> None:
    orig = SQLiteState(tmp_path / "orig.db", volatile={"accounts": ["updated_at"]})
    fill(orig.connection)
    copy = orig.copy_to(tmp_path / "nested" / "deeper" / "copy.db")
    assert isinstance(copy, SQLiteState)
    assert copy.location == tmp_path / "nested" / "deeper" / "copy.db"
    assert copy.location.is_file()
    assert copy.volatile == orig.volatile
    assert copy.fingerprint() == orig.fingerprint()
    assert copy.snapshot().digest == orig.snapshot().digest
    # a server in another process sees the copy's content in the file
    other = sqlite3.connect(copy.location)
    assert other.execute("SELECT COUNT(*) FROM accounts").fetchone()[0] == 5
    other.close()
    # independent both ways
    fp = orig.fingerprint()
    copy.connection.execute("UPDATE accounts SET balance = 0 WHERE id = 'A1'")
    assert orig.fingerprint() == fp
    assert balance(orig, "A1") == 100
    orig.connection.execute("DELETE FROM accounts WHERE id = 'A2'")
    assert copy.row_counts() == {"accounts": 5}
    # volatile columns still ignored on the copy
    copy_fp = copy.fingerprint()
    copy.connection.execute("UPDATE accounts SET updated_at = 'later'")
    assert copy.fingerprint() == copy_fp
    copy.close()
    orig.close()


def test_sqlite_copy_onto_itself_is_refused(tmp_path: Path) -> None:
    st = SQLiteState(tmp_path / "s.db")
    fill(st.connection)
    with pytest.raises(StateError, match="itself"):
        st.copy_to(tmp_path / "sub" / ".." / "s.db")
    st.close()


def test_sqlite_in_memory_copy_to_is_in_memory(tmp_path: Path) -> None:
    orig = SQLiteState(None, volatile={"accounts": ["updated_at"]})
    fill(orig.connection)
    copy = orig.copy_to(tmp_path / "ignored.db")
    assert copy.in_memory
    assert not (tmp_path / "ignored.db").exists()
    assert copy.volatile == orig.volatile
    assert copy.fingerprint() == orig.fingerprint()
    copy.connection.execute("UPDATE accounts SET balance = 0")
    assert balance(orig, "A3") == 300
    orig.connection.execute("DELETE FROM accounts")
    assert copy.row_counts() == {"accounts": 5}


def _laid_out(padding: int, path: Path | None) -> SQLiteState:
    """A cards table with an index, its root pages pushed back by ``padding`` pages; U7 has 10 - padding // 10 active cards."""
    state = SQLiteState(path)
    conn = state.connection
    conn.execute("CREATE TABLE pad(x)")
    conn.executemany("INSERT INTO pad VALUES (?)", [("x" * 3000,)] * padding)
    conn.execute("CREATE TABLE cards(id TEXT PRIMARY KEY, owner TEXT, status TEXT)")
    conn.execute("CREATE INDEX cards_owner ON cards(owner)")
    rows = [(f"C{i}", f"U{i % 50}", "cancelled" if i // 50 < padding // 10 else "active") for i in range(500)]
    conn.executemany("INSERT INTO cards VALUES (?, ?, ?)", rows)
    conn.execute("DELETE FROM pad")
    return state


def _active_cards(state: SQLiteState) -> int:
    query = "SELECT count(*) FROM cards WHERE owner = 'U7' AND status != 'cancelled'"
    return int(state.connection.execute(query).fetchone()[0])


def _cookie(state: SQLiteState) -> int:
    return int(state.connection.execute("PRAGMA schema_version").fetchone()[0])


@pytest.mark.parametrize("in_memory", [True, False])
def test_restore_of_a_database_laid_out_elsewhere_is_read_right(tmp_path: Path, in_memory: bool) -> None:
    """A snapshot from another process has the same schema at other pages; cached queries must not read the old ones."""
    here = _laid_out(0, None if in_memory else tmp_path / "here.db")
    elsewhere = _laid_out(40, None)  # the same tables, at other root pages, with other rows
    assert _active_cards(here) == 10  # now cached by sqlite3
    here.restore(elsewhere.snapshot())
    assert _active_cards(here) == _active_cards(elsewhere) == 6
    assert here.fingerprint() == elsewhere.fingerprint()


@pytest.mark.parametrize("in_memory", [True, False])
def test_a_restore_never_lands_on_a_schema_cookie_read_before(tmp_path: Path, in_memory: bool) -> None:
    """A state that read a layout from elsewhere, then gets its own back under the cookie it held, reads its own.

    Seen on a Ray worker: a server had restored a snapshot taken in another process (its indexes
    at other pages), and a later restore gave the cookie it already held: its parsed schema read
    the index of cards by account as the one by customer, and a customer had no cards.
    """
    here = _laid_out(0, None if in_memory else tmp_path / "here.db")
    mine, elsewhere = _laid_out(0, None), _laid_out(40, None)
    here.restore(elsewhere.snapshot())
    assert _active_cards(here) == 6  # parsed at the other layout
    held = _cookie(here)
    mine.connection.execute(f"PRAGMA schema_version = {held - 1}")  # snapshot cookie + 1 would be `held`
    here.restore(mine.snapshot())
    assert _cookie(here) > held
    assert _active_cards(here) == 10
    assert here.fingerprint() == mine.fingerprint()


@settings(max_examples=150, deadline=None)
@given(
    steps=strat.lists(
        strat.tuples(strat.sampled_from([0, 20, 40]), strat.integers(1, 6), strat.booleans()), min_size=1, max_size=10
    )
)
def test_any_run_of_restores_reads_what_each_snapshot_holds(steps: list[tuple[int, int, bool]]) -> None:
    """Databases laid out three ways, restored in any order under cookies picked to collide, queries between."""
    sources = {padding: _laid_out(padding, None) for padding in (0, 20, 40)}
    here = _laid_out(0, None)
    assert _active_cards(here) == 10
    for padding, cookie, query in steps:
        sources[padding].connection.execute(f"PRAGMA schema_version = {cookie}")
        here.restore(sources[padding].snapshot())
        if query:
            assert _active_cards(here) == 10 - padding // 10
    assert _active_cards(here) == 10 - steps[-1][0] // 10
