"""An SQLite database as a state backend (a file, or an in-memory connection)."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from gym_mcp.errors import StateError
from gym_mcp.state.base import (
    GroupDiff,
    Snapshot,
    StateBackend,
    StateDiff,
    _sqlite_content,
    _sqlite_digest,
    same_path,
    toml_key,
    toml_list,
)

__all__ = ["SQLiteState"]


_CHUNK = 4096


def _content_key(data: bytes, known: Snapshot | None) -> str:
    """A key for the database content ``data``: equal keys are equal content (header counters aside).

    Against ``known`` (the content this state last restored or snapshotted): the same content
    is ``known``'s own digest; other content is keyed by ``known``'s digest and the 4 KB chunks
    that differ from it (their places and bytes) and its length. Comparing bytes is about a
    tenth of hashing them: an episode's final state costs the chunks it changed, not its whole
    database. Without ``known``, the content's own digest (`Snapshot.digest`).
    """
    if known is None or len(known.data) < 100 or len(data) < 100:
        return _sqlite_digest(data)
    base = known.data
    head = _sqlite_content(data[:_CHUNK])
    same_head = head == _sqlite_content(base[:_CHUNK])
    if same_head and len(data) == len(base) and data[_CHUNK:] == base[_CHUNK:]:  # one memcmp
        return known.digest
    h = hashlib.sha256(f"{known.digest}:{len(data)}".encode())
    if not same_head:
        h.update((0).to_bytes(8, "big"))
        h.update(head)
    for at in range(_CHUNK, len(data), _CHUNK):
        chunk = data[at : at + _CHUNK]  # bytes, not memoryviews: bytes compare with memcmp
        if chunk != base[at : at + _CHUNK]:
            h.update(at.to_bytes(8, "big"))
            h.update(chunk)
    return "chunks:" + h.hexdigest()


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class SQLiteState(StateBackend):
    """An SQLite database, in a file or in memory.

    A file database is shared with a server in another process (stdio, HTTP): the server opens
    a connection per call, and `restore` writes the snapshot into the file with SQLite's backup
    API, which respects locks. An in-memory database lives in this process and is handed to an
    in-process server as its one connection; `restore` swaps its content in place.

    Args:
        path: Database file; None for an in-memory database.
        volatile: Columns left out of fingerprints, by table name.
    """

    kind = "sqlite"

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        volatile: Mapping[str, Iterable[str]] | None = None,
    ):
        self.path = Path(path) if path is not None else None
        self.volatile: dict[str, frozenset[str]] = {t: frozenset(c) for t, c in (volatile or {}).items()}
        self._conn = self._connect()
        self._fingerprints: dict[str, str] = {}
        self._known: Snapshot | None = None  # content this state last restored or snapshotted
        self._lock = threading.RLock()
        self._schema_cache: dict[str, tuple[list[str], list[str]]] | None = None

    def _connect(self) -> sqlite3.Connection:
        target = str(self.path) if self.path is not None else ":memory:"
        # check_same_thread=False: an in-process server runs its tools in worker threads.
        conn = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
        if self.path is not None:
            # This connection only snapshots and restores a private working copy: skip the fsyncs
            # and the on-disk rollback journal of each restore (5 ms -> 1 ms for 10k rows). The
            # server's own connections keep SQLite's defaults.
            conn.execute("PRAGMA synchronous=OFF")
            conn.execute("PRAGMA journal_mode=MEMORY")
        return conn

    def reconnect(self) -> None:
        """Take a new connection (an in-memory database: a copy of the content), leaving the old one.

        An in-process server's tool that timed out may still be running in a worker thread on
        the old connection; once the server is rebuilt on `connection`, nothing that thread does
        reaches this state. The old connection is not closed under that thread: it goes away
        with the last reference to it.
        """
        with self._lock:
            old, new = self._conn, self._connect()
            try:
                if self.path is None:
                    old.backup(new)
            except sqlite3.Error as exc:
                new.close()
                raise StateError(f"cannot reconnect SQLite state {self.path or ':memory:'}: {exc}") from exc
            self._conn = new
            self._schema_cache = None

    @property
    def url(self) -> str:
        """SQLAlchemy URL of a file database (what a server in another process opens)."""
        if self.path is None:
            raise StateError("an in-memory SQLite state has no URL; use .connection in-process")
        return f"sqlite:///{self.path}"

    @property
    def connection(self) -> sqlite3.Connection:
        """This process's connection (the database itself, for an in-memory state)."""
        return self._conn

    @property
    def in_memory(self) -> bool:
        """True for an in-memory database."""
        return self.path is None

    @property
    def location(self) -> Path:
        """The database file.

        Raises:
            StateError: For an in-memory database (use `connection` in-process).
        """
        if self.path is None:
            raise StateError("an in-memory SQLite state has no location; use .connection in-process")
        return self.path

    def copy_to(self, dest: str | os.PathLike[str]) -> SQLiteState:
        """A new SQLite state at the file ``dest`` with a copy of this database.

        The copy has the same volatile columns. It is written with SQLite's backup API, so any
        database already at ``dest`` is replaced. An *in-memory* state is copied into a new
        in-memory state whatever ``dest`` is (nothing is written to disk).

        Args:
            dest: The new database file (parent directories are created); ignored for an
                in-memory state.

        Returns:
            The new state.

        Raises:
            StateError: ``dest`` is this state's own file, or the copy failed.
        """
        target: Path | None = None
        if self.path is not None:
            target = Path(dest)
            if same_path(target, self.path):
                raise StateError(f"cannot copy SQLite state {self.path} onto itself")
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StateError(f"cannot copy SQLite state to {target}: {exc}") from exc
        try:
            copy = SQLiteState(target, volatile=self.volatile)
        except sqlite3.Error as exc:
            raise StateError(f"cannot copy SQLite state to {target}: {exc}") from exc
        with self._lock:
            try:
                self._conn.backup(copy._conn)
            except sqlite3.Error as exc:
                copy.close()
                raise StateError(
                    f"cannot copy SQLite state {self.path or ':memory:'} to {target or ':memory:'}: {exc}"
                ) from exc
        return copy

    def snapshot(self) -> Snapshot:
        """Serialize the whole database."""
        with self._lock:
            snap = Snapshot.of(self.kind, self._serialize())
            self._known = snap
            return snap

    def _serialize(self) -> bytes:
        """The database's bytes (SQLite's serialization of this connection's main database)."""
        try:
            return self._conn.serialize()
        except sqlite3.Error as exc:
            raise StateError(f"cannot snapshot SQLite state {self.path or ':memory:'}: {exc}") from exc

    def restore(self, snapshot: Snapshot) -> None:
        """Replace the database content with the snapshot's."""
        self._check_kind(snapshot)
        with self._lock:
            try:
                if self.path is None:
                    # This connection's parsed schema and the statements it prepared (Python's
                    # sqlite3 caches them) hold the replaced database's table and index root
                    # pages, and SQLite parses the schema anew only when the schema cookie
                    # differs from the one it parsed. A snapshot from another process can hold
                    # the same schema at other pages, and a cookie the connection holds would
                    # let a query read the wrong pages: wrong rows (an index of cards by account
                    # read as the one by customer: no cards) or "database disk image is
                    # malformed". So the restored database keeps the cookie held before when its
                    # schema rows (root pages included) are the ones it replaces, and everything
                    # parsed stays valid; otherwise it gets a cookie above both, never one held
                    # before. The backup API below bumps the file's cookie itself; the digest
                    # ignores the cookie (`_sqlite_content`).
                    held, layout = self._cookie(), self._layout()
                    self._conn.deserialize(snapshot.data)
                    theirs = self._cookie()
                    self._conn.execute(f"PRAGMA schema_version = {held}")
                    if self._layout() != layout:
                        self._conn.execute(f"PRAGMA schema_version = {max(held, theirs) + 1}")
                else:
                    src = sqlite3.connect(":memory:")
                    try:
                        src.deserialize(snapshot.data)
                        src.backup(self._conn)
                    finally:
                        src.close()
            except sqlite3.Error as exc:
                raise StateError(f"cannot restore SQLite state {self.path or ':memory:'}: {exc}") from exc
            self._schema_cache = None
            self._known = snapshot

    def _cookie(self) -> int:
        """The schema cookie of this connection's database (SQLite's ``schema_version``)."""
        return int(self._conn.execute("PRAGMA schema_version").fetchone()[0])

    def _layout(self) -> list[tuple[Any, ...]]:
        """The schema's rows: every table and index with its root page and SQL."""
        return self._conn.execute("SELECT type, name, tbl_name, rootpage, sql FROM sqlite_master").fetchall()

    def fingerprint(self) -> str:
        """Hash of all rows of all tables, volatile columns left out, row order ignored.

        Looked up by the database's content first (`fingerprint_of`'s cache, see `_content_key`):
        a state fingerprinted before (an episode that read and did not write, the same task
        solved the same way) costs serializing the database and comparing it with the content
        last restored (0.05 ms for Banking's 240 KB; hashing all of it was 0.16 ms) instead of
        reading and sorting every row (2.2 ms). Equal keys are equal bytes, so the answer is the
        one the rows give. A state not seen before is read from the live connection (no copy of
        the snapshot is opened for it).
        """
        with self._lock:
            key = _content_key(self._serialize(), self._known)
            cached = self._fingerprints.get(key)
            return cached if cached is not None else self._remember(key, self._fingerprint(self._conn))

    def fingerprint_of(self, snapshot: Snapshot) -> str:
        """Fingerprint of a snapshot without touching the live database (cached by digest)."""
        cached = self._fingerprints.get(snapshot.digest)
        if cached is None:
            with self._opened(snapshot) as conn:
                cached = self._remember(snapshot.digest, self._fingerprint(conn))
        return cached

    def _remember(self, digest: str, fingerprint: str) -> str:
        """Keep ``fingerprint`` for the content ``digest`` (at most 256 kept; then they start over)."""
        if len(self._fingerprints) > 256:
            self._fingerprints.clear()
        self._fingerprints[digest] = fingerprint
        return fingerprint

    def diff(self, a: Snapshot, b: Snapshot) -> StateDiff:
        """Rows added, removed and changed per table, matched by primary key."""
        with self._opened(a) as ca, self._opened(b) as cb:
            tables = sorted(set(self._tables(ca)) | set(self._tables(cb)))
            groups: dict[str, GroupDiff] = {}
            for table in tables:
                rows_a = self._keyed_rows(ca, table)
                rows_b = self._keyed_rows(cb, table)
                vol = self.volatile.get(table, frozenset())
                added = tuple(rows_b[k] for k in sorted(rows_b.keys() - rows_a.keys(), key=repr))
                removed = tuple(rows_a[k] for k in sorted(rows_a.keys() - rows_b.keys(), key=repr))
                changed = tuple(
                    (rows_a[k], rows_b[k])
                    for k in sorted(rows_a.keys() & rows_b.keys(), key=repr)
                    if _without(rows_a[k], vol) != _without(rows_b[k], vol)
                )
                group = GroupDiff(added, removed, changed)
                if group:
                    groups[table] = group
            return StateDiff(groups)

    def differing(self, a: Snapshot, b: Snapshot) -> dict[str, tuple[str, ...]]:
        """The columns, by table, whose values differ between two states that should be equal.

        Rows are not matched by primary key here: a minted id *is* the primary key, so `diff`
        would call the same note one row removed and one added. Each column is compared as the
        multiset of its values instead; a column whose values differ (an id, a timestamp, a
        foreign key to a minted id) is named, volatile columns aside. A table on one side only
        is named with all its columns.

        Args:
            a: One state.
            b: Another state that should have been equal to it.

        Returns:
            ``{table: sorted columns}``, empty when the fingerprints agree.
        """
        if self.fingerprint_of(a) == self.fingerprint_of(b):
            return {}
        out: dict[str, tuple[str, ...]] = {}
        with self._opened(a) as ca, self._opened(b) as cb:
            ta, tb = set(self._tables(ca)), set(self._tables(cb))
            for table in sorted(ta | tb):
                vol = self.volatile.get(table, frozenset())
                if table not in ta or table not in tb:
                    cols, _ = self._columns(ca if table in ta else cb, table)
                    out[table] = tuple(sorted(c for c in cols if c not in vol))
                    continue
                cols_a, _ = self._columns(ca, table)
                cols_b, _ = self._columns(cb, table)
                named = set(cols_a) ^ set(cols_b)  # a column on one side only
                for col in sorted(set(cols_a) & set(cols_b)):
                    if col not in vol and _column_values(ca, table, col) != _column_values(cb, table, col):
                        named.add(col)
                named -= vol
                if named:
                    out[table] = tuple(sorted(named))
        return out

    def loosened(self, fields: Mapping[str, Iterable[str]]) -> SQLiteState:
        """An in-memory SQLite state whose volatile columns are these plus ``fields`` (for `fingerprint_of`)."""
        volatile = {t: set(c) for t, c in self.volatile.items()}
        for table, cols in fields.items():
            volatile.setdefault(table, set()).update(cols)
        return SQLiteState(None, volatile=volatile)

    def spec_lines(self, fields: Mapping[str, Iterable[str]]) -> list[str]:
        """``volatile = { table = [columns] }``: these columns and those declared already."""
        merged = {t: set(c) for t, c in self.volatile.items()}
        for table, cols in fields.items():
            merged.setdefault(table, set()).update(cols)
        body = ", ".join(f"{toml_key(t)} = {toml_list(sorted(c))}" for t, c in sorted(merged.items()) if c)
        return [f"volatile = {{ {body} }}"]

    def row_counts(self) -> dict[str, int]:
        """Number of rows per table (handy for reports and tests)."""
        with self._lock:
            return {
                t: int(self._conn.execute(f"SELECT COUNT(*) FROM {_quote(t)}").fetchone()[0])
                for t in self._tables(self._conn)
            }

    @property
    def closed(self) -> bool:
        """True after `close`, or once this process's connection was closed under the state.

        An in-memory database is gone with its connection, and a file database can no longer be
        snapshotted or restored through it, so either way the state is no longer usable.
        """
        if self._closed:
            return True
        try:
            _ = self._conn.total_changes  # a plain getter that raises on a closed connection
        except sqlite3.ProgrammingError:
            return True
        return False

    def close(self) -> None:
        """Close this process's connection (an in-memory database is then gone)."""
        with self._lock:
            self._closed = True
            self._conn.close()

    # -- helpers ---------------------------------------------------------------------------

    class _Opened:
        def __init__(self, data: bytes) -> None:
            self.conn = sqlite3.connect(":memory:")
            self.conn.deserialize(data)

        def __enter__(self) -> sqlite3.Connection:
            return self.conn

        def __exit__(self, *exc: object) -> None:
            self.conn.close()

    def _opened(self, snapshot: Snapshot) -> SQLiteState._Opened:
        self._check_kind(snapshot)
        return SQLiteState._Opened(snapshot.data)

    @staticmethod
    def _tables(conn: sqlite3.Connection) -> list[str]:
        rows = conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        )
        return [r[0] for r in rows]

    @staticmethod
    def _columns(conn: sqlite3.Connection, table: str) -> tuple[list[str], list[str]]:
        info = list(conn.execute(f"PRAGMA table_info({_quote(table)})"))
        cols = [r[1] for r in info]
        pk = [r[1] for r in sorted((r for r in info if r[5]), key=lambda r: r[5])]
        return cols, pk

    def _fingerprint(self, conn: sqlite3.Connection) -> str:
        h = hashlib.sha256()
        for table in self._tables(conn):
            cols, _ = self._columns(conn, table)
            keep = [c for c in cols if c not in self.volatile.get(table, frozenset())]
            h.update(f"\x00table {table} {keep}\n".encode())
            if not keep:
                continue
            select = ", ".join(_quote(c) for c in keep)
            rows = sorted(repr(r) for r in conn.execute(f"SELECT {select} FROM {_quote(table)}"))
            for r in rows:
                h.update(r.encode())
                h.update(b"\n")
        return h.hexdigest()

    def _keyed_rows(self, conn: sqlite3.Connection, table: str) -> dict[Any, dict[str, Any]]:
        if table not in self._tables(conn):
            return {}
        cols, pk = self._columns(conn, table)
        out: dict[Any, dict[str, Any]] = {}
        for values in conn.execute(f"SELECT * FROM {_quote(table)}"):
            row = dict(zip(cols, values, strict=True))
            key = tuple(row[c] for c in pk) if pk else tuple(values)
            out[key] = row
        return out


def _column_values(conn: sqlite3.Connection, table: str, column: str) -> list[str]:
    """A column's values as a sorted multiset (their reprs)."""
    return sorted(repr(r[0]) for r in conn.execute(f"SELECT {_quote(column)} FROM {_quote(table)}"))


def _without(row: Mapping[str, Any], drop: frozenset[str]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in drop}
