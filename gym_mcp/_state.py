"""State backends: exact snapshots, restores, fingerprints and diffs of a server's state.

A backend owns the state a live server reads and writes (an SQLite database, a directory
tree). The environment snapshots and restores it from *outside* the server: no tool call can
reach these operations and the agent's tool list never shows them.

- `Snapshot`: immutable bytes of the whole state plus a content hash (``digest``).
- `fingerprint()`: a hash of the *logical* content, leaving out declared volatile parts
  (timestamp columns, generated tokens, ignored files), so two runs that did the same thing
  have equal fingerprints even if their wall-clock columns differ.
- `diff(a, b)`: what changed between two snapshots, per table (rows added/removed/changed by
  primary key) or per file.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import shutil
import sqlite3
import stat
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gym_mcp.errors import StateError

__all__ = [
    "DirectoryState",
    "GroupDiff",
    "SQLiteState",
    "Snapshot",
    "StateBackend",
    "StateDiff",
]


@dataclass(frozen=True)
class Snapshot:
    """An immutable copy of a whole state.

    Attributes:
        kind: The backend kind that made it (``"sqlite"``, ``"directory"``, ...).
        data: The serialized state.
        digest: SHA-256 of ``data``: equal digests mean byte-identical states.
    """

    kind: str
    data: bytes = field(repr=False)
    digest: str = ""

    @classmethod
    def of(cls, kind: str, data: bytes) -> Snapshot:
        """Make a snapshot of ``data``, computing its content hash."""
        hashed = _sqlite_content(data) if kind == "sqlite" else data
        return cls(kind, data, hashlib.sha256(hashed).hexdigest())

    def __len__(self) -> int:
        return len(self.data)


def _sqlite_content(data: bytes) -> bytes:
    """Database bytes without the header's counters.

    Those are the change counter (bytes 24-27), schema cookie (40-43) and version-valid-for
    (92-95). SQLite bumps these on writes, a restore through the backup API included, so they tell how a
    file got its content, not what the content is.
    """
    if len(data) < 100:
        return data
    return data[:24] + bytes(4) + data[28:40] + bytes(4) + data[44:92] + bytes(4) + data[96:]


@dataclass(frozen=True)
class GroupDiff:
    """Changes inside one group (a table, or the files of a directory).

    Attributes:
        added: Items present only in the second state (rows as dicts, or file paths).
        removed: Items present only in the first state.
        changed: ``(before, after)`` pairs of items whose content differs.
    """

    added: tuple[Any, ...] = ()
    removed: tuple[Any, ...] = ()
    changed: tuple[tuple[Any, Any], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)


@dataclass(frozen=True)
class StateDiff:
    """What changed between two states, by group (table name, or ``"files"``).

    Only groups with changes appear. ``bool(diff)`` is False when nothing changed.
    """

    groups: Mapping[str, GroupDiff] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return any(self.groups.values())

    def __getitem__(self, group: str) -> GroupDiff:
        return self.groups.get(group, GroupDiff())

    def summary(self) -> str:
        """One line per changed group, e.g. ``accounts: +1 -0 ~2``."""
        if not self:
            return "no changes"
        return "\n".join(
            f"{name}: +{len(g.added)} -{len(g.removed)} ~{len(g.changed)}"
            for name, g in sorted(self.groups.items())
        )


class StateBackend(ABC):
    """The state of one live server, snapshotted and restored from outside the server."""

    kind: str = "abstract"

    @abstractmethod
    def snapshot(self) -> Snapshot:
        """Copy the whole current state."""

    @abstractmethod
    def restore(self, snapshot: Snapshot) -> None:
        """Make the current state exactly the snapshot's."""

    @abstractmethod
    def fingerprint(self) -> str:
        """Hash of the current logical content, volatile parts left out."""

    @abstractmethod
    def fingerprint_of(self, snapshot: Snapshot) -> str:
        """Hash of a snapshot's logical content, as `fingerprint` would give after restoring it."""

    @abstractmethod
    def diff(self, a: Snapshot, b: Snapshot) -> StateDiff:
        """What changed from snapshot ``a`` to snapshot ``b``."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release files and connections held by the backend."""

    def _check_kind(self, snapshot: Snapshot) -> None:
        if snapshot.kind != self.kind:
            raise StateError(f"cannot use a {snapshot.kind!r} snapshot with a {self.kind!r} state")


# --------------------------------------------------------------------------------------------
# SQLite


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
        target = str(self.path) if self.path is not None else ":memory:"
        # check_same_thread=False: an in-process server runs its tools in worker threads.
        self._conn = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
        if self.path is not None:
            # This connection only snapshots and restores a private working copy: skip the fsyncs
            # and the on-disk rollback journal of each restore (5 ms -> 1 ms for 10k rows). The
            # server's own connections keep SQLite's defaults.
            self._conn.execute("PRAGMA synchronous=OFF")
            self._conn.execute("PRAGMA journal_mode=MEMORY")
        self._fingerprints: dict[str, str] = {}
        self._lock = threading.RLock()
        self._schema_cache: dict[str, tuple[list[str], list[str]]] | None = None

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

    def snapshot(self) -> Snapshot:
        """Serialize the whole database."""
        with self._lock:
            try:
                return Snapshot.of(self.kind, self._conn.serialize())
            except sqlite3.Error as exc:
                raise StateError(f"cannot snapshot SQLite state {self.path or ':memory:'}: {exc}") from exc

    def restore(self, snapshot: Snapshot) -> None:
        """Replace the database content with the snapshot's."""
        self._check_kind(snapshot)
        with self._lock:
            try:
                if self.path is None:
                    self._conn.deserialize(snapshot.data)
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

    def fingerprint(self) -> str:
        """Hash of all rows of all tables, volatile columns left out, row order ignored."""
        with self._lock:
            return self._fingerprint(self._conn)

    def fingerprint_of(self, snapshot: Snapshot) -> str:
        """Fingerprint of a snapshot without touching the live database (cached by digest)."""
        cached = self._fingerprints.get(snapshot.digest)
        if cached is None:
            with self._opened(snapshot) as conn:
                cached = self._fingerprint(conn)
            if len(self._fingerprints) > 256:
                self._fingerprints.clear()
            self._fingerprints[snapshot.digest] = cached
        return cached

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

    def row_counts(self) -> dict[str, int]:
        """Number of rows per table (handy for reports and tests)."""
        with self._lock:
            return {
                t: int(self._conn.execute(f"SELECT COUNT(*) FROM {_quote(t)}").fetchone()[0])
                for t in self._tables(self._conn)
            }

    def close(self) -> None:
        """Close this process's connection (an in-memory database is then gone)."""
        with self._lock:
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


def _without(row: Mapping[str, Any], drop: frozenset[str]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in drop}


# --------------------------------------------------------------------------------------------
# Directory trees


_MAGIC = b"GYMMCP-DIR1\n"


def _encode_tree(entries: Iterable[tuple[str, int, bytes | None]]) -> bytes:
    """Serialize (path, mode, content-or-None-for-directory) entries, sorted by path."""
    parts = [_MAGIC]
    for path, mode, content in entries:
        p = path.encode()
        body = b"" if content is None else content
        kind = b"d" if content is None else b"f"
        parts.append(
            kind + len(p).to_bytes(4, "big") + p + mode.to_bytes(4, "big") + len(body).to_bytes(8, "big")
        )
        parts.append(body)
    return b"".join(parts)


def _decode_tree(data: bytes) -> Iterator[tuple[str, int, bytes | None]]:
    if not data.startswith(_MAGIC):
        raise StateError("not a directory snapshot")
    i = len(_MAGIC)
    while i < len(data):
        kind = data[i : i + 1]
        n = int.from_bytes(data[i + 1 : i + 5], "big")
        path = data[i + 5 : i + 5 + n].decode()
        i += 5 + n
        mode = int.from_bytes(data[i : i + 4], "big")
        size = int.from_bytes(data[i + 4 : i + 12], "big")
        i += 12
        body = data[i : i + size]
        i += size
        yield path, mode, (None if kind == b"d" else body)


class DirectoryState(StateBackend):
    """A directory tree (files, sub-directories, permission bits).

    Args:
        root: The directory the server works in; created if missing.
        ignore: Glob patterns (relative paths) left out of fingerprints and diffs, e.g.
            ``["*.log", ".git/index"]``; they are still snapshotted and restored.
    """

    kind = "directory"

    def __init__(self, root: str | os.PathLike[str], *, ignore: Iterable[str] = ()) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.ignore = tuple(ignore)

    def _walk(self) -> list[tuple[str, int, bytes | None]]:
        entries: list[tuple[str, int, bytes | None]] = []
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames.sort()
            rel_dir = os.path.relpath(dirpath, self.root)
            for d in dirnames:
                full = os.path.join(dirpath, d)
                rel = d if rel_dir == "." else f"{rel_dir}/{d}"
                entries.append((rel, stat.S_IMODE(os.lstat(full).st_mode), None))
            for f in sorted(filenames):
                full = os.path.join(dirpath, f)
                rel = f if rel_dir == "." else f"{rel_dir}/{f}"
                st = os.lstat(full)
                if stat.S_ISREG(st.st_mode):
                    entries.append((rel, stat.S_IMODE(st.st_mode), Path(full).read_bytes()))
        entries.sort(key=lambda e: e[0])
        return entries

    def _ignored(self, rel: str) -> bool:
        return any(fnmatch.fnmatch(rel, pat) for pat in self.ignore)

    def snapshot(self) -> Snapshot:
        """Copy every file and directory under the root."""
        try:
            return Snapshot.of(self.kind, _encode_tree(self._walk()))
        except OSError as exc:
            raise StateError(f"cannot snapshot directory {self.root}: {exc}") from exc

    def restore(self, snapshot: Snapshot) -> None:
        """Make the tree exactly the snapshot's: extra paths removed, files rewritten."""
        self._check_kind(snapshot)
        wanted = list(_decode_tree(snapshot.data))
        wanted_paths = {p for p, _, _ in wanted}
        try:
            for dirpath, dirnames, filenames in os.walk(self.root, topdown=False):
                rel_dir = os.path.relpath(dirpath, self.root)
                for name in filenames:
                    rel = name if rel_dir == "." else f"{rel_dir}/{name}"
                    if rel not in wanted_paths:
                        os.unlink(os.path.join(dirpath, name))
                for name in dirnames:
                    rel = name if rel_dir == "." else f"{rel_dir}/{name}"
                    full = os.path.join(dirpath, name)
                    if rel not in wanted_paths:
                        if os.path.islink(full):
                            os.unlink(full)
                        else:
                            shutil.rmtree(full)
            for path, mode, content in wanted:
                target = self.root / path
                if content is None:
                    target.mkdir(parents=True, exist_ok=True)
                    os.chmod(target, mode)
                    continue
                if target.is_dir() and not target.is_symlink():
                    shutil.rmtree(target)
                if not target.exists() or target.read_bytes() != content:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(content)
                if stat.S_IMODE(target.stat().st_mode) != mode:
                    os.chmod(target, mode)
        except OSError as exc:
            raise StateError(f"cannot restore directory {self.root}: {exc}") from exc

    def _fingerprint_entries(self, entries: Iterable[tuple[str, int, bytes | None]]) -> str:
        h = hashlib.sha256()
        for path, mode, content in entries:
            if self._ignored(path):
                continue
            digest = "dir" if content is None else hashlib.sha256(content).hexdigest()
            h.update(f"{path}\x00{mode:o}\x00{digest}\n".encode())
        return h.hexdigest()

    def fingerprint(self) -> str:
        """Hash of paths, permission bits and contents, ignored patterns left out."""
        return self._fingerprint_entries(self._walk())

    def fingerprint_of(self, snapshot: Snapshot) -> str:
        """Fingerprint of a snapshot without touching the directory."""
        self._check_kind(snapshot)
        return self._fingerprint_entries(_decode_tree(snapshot.data))

    def diff(self, a: Snapshot, b: Snapshot) -> StateDiff:
        """Files (and directories) added, removed and changed, by relative path."""
        self._check_kind(a)
        self._check_kind(b)
        ea = {p: (m, c) for p, m, c in _decode_tree(a.data) if not self._ignored(p)}
        eb = {p: (m, c) for p, m, c in _decode_tree(b.data) if not self._ignored(p)}
        group = GroupDiff(
            added=tuple(sorted(eb.keys() - ea.keys())),
            removed=tuple(sorted(ea.keys() - eb.keys())),
            changed=tuple((p, p) for p in sorted(ea.keys() & eb.keys()) if ea[p] != eb[p]),
        )
        return StateDiff({"files": group} if group else {})
