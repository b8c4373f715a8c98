"""State backends: exact snapshots, restores, fingerprints and diffs of a server's state.

A backend owns the state a live server reads and writes (an SQLite database, a directory
tree, a JSON file, or several of these composed). The environment snapshots and restores it
from *outside* the server: no tool call can reach these operations and the agent's tool list
never shows them.

- `Snapshot`: immutable bytes of the whole state plus a content hash (``digest``).
- `fingerprint()`: a hash of the *logical* content, leaving out declared volatile parts
  (timestamp columns, generated tokens, ignored files), so two runs that did the same thing
  have equal fingerprints even if their wall-clock columns differ.
- `diff(a, b)`: what changed between two snapshots, per table (rows added/removed/changed by
  primary key), per file, or per JSON path.
- `location` / `copy_to(dest)`: where a server should be pointed for this state, and a new
  backend of the same kind holding a private copy of it (one per parallel environment).

Backends: `SQLiteState`, `DirectoryState`, `JSONFileState` and `CompositeState` (named parts,
for environments that compose several servers).
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import shutil
import sqlite3
import stat
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from gym_mcp.errors import ConfigError, StateError

__all__ = [
    "CompositeState",
    "DirectoryState",
    "GroupDiff",
    "JSONFileState",
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
        """Make a snapshot of ``data``, computing its content hash.

        A ``"composite"`` snapshot's digest is computed over its parts' digests, so it is equal
        for two composites whose parts have equal digests.
        """
        if kind == "composite":
            try:
                items = [(name, sub.kind, sub.digest) for name, sub in _decode_composite(data)]
            except StateError:
                pass  # not a composite encoding: hash the raw bytes
            else:
                return cls(kind, data, _composite_digest(items))
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
            f"{name}: +{len(g.added)} -{len(g.removed)} ~{len(g.changed)}" for name, g in sorted(self.groups.items())
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

    @property
    def location(self) -> Path:
        """The path a server should be pointed at for this state.

        Raises:
            StateError: The state has no single path (an in-memory database, a composite).
        """
        raise StateError(f"a {self.kind!r} state has no location")

    def copy_to(self, dest: str | os.PathLike[str]) -> StateBackend:
        """A new backend of the same kind and settings whose state lives at ``dest``.

        The copy holds an exact copy of the current content (equal fingerprint) and is then
        independent of this state; it is how each parallel environment gets its own private copy
        of a template state. Parent directories of ``dest`` are created.

        Args:
            dest: Where the copy lives: a file path for file states, a directory for
                directory states.

        Returns:
            The new backend; the caller owns it (and closes it).

        Raises:
            StateError: The backend cannot be copied, or ``dest`` cannot hold the copy.
        """
        raise StateError(f"a {type(self).__name__} state cannot be copied")

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
            if _same_path(target, self.path):
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


def _same_path(a: Path, b: Path) -> bool:
    """True when ``a`` and ``b`` name the same file (symlinks and ``..`` resolved)."""
    return a.resolve() == b.resolve()


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
        parts.append(kind + len(p).to_bytes(4, "big") + p + mode.to_bytes(4, "big") + len(body).to_bytes(8, "big"))
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

    @property
    def location(self) -> Path:
        """The root directory."""
        return self.root

    def copy_to(self, dest: str | os.PathLike[str]) -> DirectoryState:
        """A new directory state rooted at ``dest`` with a copy of this tree.

        The copy has the same ignore patterns; files, directories and permission bits are
        copied (ignored files too). Anything already under ``dest`` that is not in this tree is
        removed.

        Args:
            dest: The new root directory (created with its parents).

        Returns:
            The new state.

        Raises:
            StateError: ``dest`` is this root, inside it, or above it; or the copy failed.
        """
        target = Path(dest).resolve()
        root = self.root.resolve()
        if target == root or root in target.parents or target in root.parents:
            raise StateError(f"cannot copy directory {self.root} to {dest}: the trees overlap")
        snap = self.snapshot()
        try:
            copy = DirectoryState(dest, ignore=self.ignore)
        except OSError as exc:
            raise StateError(f"cannot copy directory {self.root} to {dest}: {exc}") from exc
        copy.restore(snap)
        return copy

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


# --------------------------------------------------------------------------------------------
# JSON files


def _canonical(value: Any) -> str:
    """Canonical JSON text: sorted keys, no whitespace, non-ASCII kept."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _child_path(path: str, key: str) -> str:
    """JSON path of ``key`` under ``path``: ``$.name`` or ``$["odd key"]``."""
    if key.isidentifier():
        return f"{path}.{key}"
    return f"{path}[{json.dumps(key, ensure_ascii=False)}]"


class JSONFileState(StateBackend):
    """A JSON file, or a JSON-lines file (one JSON value per line).

    The snapshot is the file's raw bytes; a missing file snapshots as empty bytes, and restoring
    empty bytes removes the file (so an existing but empty file also snapshots as "missing").
    `restore` rewrites the file *in place* (same inode), so a server holding the path or an open
    handle keeps seeing it.

    Fingerprints are taken on the *parsed* content in canonical form, so key order and
    whitespace do not matter; keys named in ``volatile_keys`` are dropped at any depth first. A
    file that does not parse is fingerprinted on its raw bytes instead of raising. For JSON
    lines the records are a list, in file order; blank lines are skipped.

    `diff` reports, in group ``"json"``, the JSON paths added, removed and changed: objects
    recurse by key (``$.users``), lists by index (``$.users[2].name``). For JSON lines the
    records are the top-level list; when every record on both sides is an object with a unique
    ``"id"``, records are matched by it (``$[id="u1"]``, ``$[id=7]``), so an inserted record is
    one added entry rather than a shift of every later index. Items are dicts
    ``{"path": ..., "value": ...}``; a changed item is a ``(before, after)`` pair of them.
    Volatile keys are left out of the diff.

    Args:
        path: The file (it need not exist yet).
        volatile_keys: Object keys left out of fingerprints and diffs, at any depth.
        lines: True for JSON lines, False for one JSON document; None (the default) decides by
            the suffix (``.jsonl`` and ``.ndjson`` are JSON lines).
    """

    kind = "json"

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        volatile_keys: Iterable[str] = (),
        lines: bool | None = None,
    ) -> None:
        self.path = Path(path)
        self.volatile_keys: frozenset[str] = frozenset(volatile_keys)
        self.lines: bool = self.path.suffix.lower() in (".jsonl", ".ndjson") if lines is None else lines

    @property
    def location(self) -> Path:
        """The JSON file."""
        return self.path

    def copy_to(self, dest: str | os.PathLike[str]) -> JSONFileState:
        """A new JSON state at the file ``dest`` with a copy of this file's bytes.

        The copy has the same volatile keys and the same JSON / JSON-lines mode, whatever the
        suffix of ``dest``. If this file is missing, so is the copy (any file at ``dest`` is
        removed).

        Args:
            dest: The new file (parent directories are created).

        Returns:
            The new state.

        Raises:
            StateError: ``dest`` is this state's own file, or the copy failed.
        """
        target = Path(dest)
        if _same_path(target, self.path):
            raise StateError(f"cannot copy JSON state {self.path} onto itself")
        copy = JSONFileState(target, volatile_keys=self.volatile_keys, lines=self.lines)
        copy.restore(self.snapshot())
        return copy

    def snapshot(self) -> Snapshot:
        """The file's raw bytes (empty for a missing file)."""
        return Snapshot.of(self.kind, self._read())

    def restore(self, snapshot: Snapshot) -> None:
        """Rewrite the file in place with the snapshot's bytes, or remove it for empty bytes."""
        self._check_kind(snapshot)
        data = snapshot.data
        try:
            if not data:
                self.path.unlink(missing_ok=True)
                return
            try:
                handle = open(self.path, "r+b")  # noqa: SIM115 - closed by the with below
            except FileNotFoundError:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                handle = open(self.path, "w+b")  # noqa: SIM115
            with handle:
                if handle.read() == data:
                    return
                handle.seek(0)
                handle.write(data)
                handle.truncate()
        except OSError as exc:
            raise StateError(f"cannot restore JSON state {self.path}: {exc}") from exc

    def fingerprint(self) -> str:
        """Hash of the parsed content in canonical form, volatile keys left out."""
        return self._fingerprint(self._read())

    def fingerprint_of(self, snapshot: Snapshot) -> str:
        """Fingerprint of a snapshot without touching the file."""
        self._check_kind(snapshot)
        return self._fingerprint(snapshot.data)

    def diff(self, a: Snapshot, b: Snapshot) -> StateDiff:
        """JSON paths added, removed and changed from ``a`` to ``b`` (group ``"json"``)."""
        self._check_kind(a)
        self._check_kind(b)
        added: list[dict[str, Any]] = []
        removed: list[dict[str, Any]] = []
        changed: list[tuple[dict[str, Any], dict[str, Any]]] = []
        status_a, va = self._parse(a.data)
        status_b, vb = self._parse(b.data)
        if status_a == "json" and status_b == "json":
            if self.lines and _keyed_by_id(va) and _keyed_by_id(vb):
                self._diff_records(va, vb, added, removed, changed)
            else:
                self._diff_values("$", va, vb, added, removed, changed)
        elif status_a == "missing" and status_b != "missing":
            added.append({"path": "$", "value": self._root_value(status_b, vb, b.data)})
        elif status_b == "missing" and status_a != "missing":
            removed.append({"path": "$", "value": self._root_value(status_a, va, a.data)})
        elif status_a != "missing" and a.data != b.data:  # at least one side does not parse
            changed.append(
                (
                    {"path": "$", "value": self._root_value(status_a, va, a.data)},
                    {"path": "$", "value": self._root_value(status_b, vb, b.data)},
                )
            )
        group = GroupDiff(tuple(added), tuple(removed), tuple(changed))
        return StateDiff({"json": group} if group else {})

    # -- helpers ---------------------------------------------------------------------------

    def _read(self) -> bytes:
        try:
            return self.path.read_bytes()
        except FileNotFoundError:
            return b""
        except OSError as exc:
            raise StateError(f"cannot snapshot JSON state {self.path}: {exc}") from exc

    def _parse(self, data: bytes) -> tuple[str, Any]:
        """``("json", value)``, ``("missing", None)`` or ``("raw", None)`` (does not parse)."""
        try:
            if self.lines:
                return "json", [json.loads(line) for line in data.splitlines() if line.strip()]
            if not data:
                return "missing", None
            return "json", json.loads(data)
        except (ValueError, RecursionError):  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            return "raw", None

    def _fingerprint(self, data: bytes) -> str:
        status, value = self._parse(data)
        if status == "json":
            payload = b"json\x00" + _canonical(self._strip(value)).encode()
        elif status == "missing":
            payload = b"missing\x00"
        else:
            payload = b"raw\x00" + data
        return hashlib.sha256(payload).hexdigest()

    def _strip(self, value: Any) -> Any:
        """``value`` without volatile keys, at any depth."""
        if not self.volatile_keys:
            return value
        if isinstance(value, dict):
            return {k: self._strip(v) for k, v in value.items() if k not in self.volatile_keys}
        if isinstance(value, list):
            return [self._strip(v) for v in value]
        return value

    def _root_value(self, status: str, value: Any, data: bytes) -> Any:
        """What a diff shows for a whole file: the parsed value, or the text if it does not parse."""
        if status == "json":
            return self._strip(value)
        if status == "raw":
            return data.decode("utf-8", errors="replace")
        return None

    def _diff_values(
        self,
        path: str,
        x: Any,
        y: Any,
        added: list[dict[str, Any]],
        removed: list[dict[str, Any]],
        changed: list[tuple[dict[str, Any], dict[str, Any]]],
    ) -> None:
        if isinstance(x, dict) and isinstance(y, dict):
            for key in x:
                if key in self.volatile_keys:
                    continue
                if key in y:
                    self._diff_values(_child_path(path, key), x[key], y[key], added, removed, changed)
                else:
                    removed.append({"path": _child_path(path, key), "value": self._strip(x[key])})
            for key in y:
                if key not in x and key not in self.volatile_keys:
                    added.append({"path": _child_path(path, key), "value": self._strip(y[key])})
        elif isinstance(x, list) and isinstance(y, list):
            for i in range(min(len(x), len(y))):
                self._diff_values(f"{path}[{i}]", x[i], y[i], added, removed, changed)
            for i in range(len(y), len(x)):
                removed.append({"path": f"{path}[{i}]", "value": self._strip(x[i])})
            for i in range(len(x), len(y)):
                added.append({"path": f"{path}[{i}]", "value": self._strip(y[i])})
        else:
            before, after = self._strip(x), self._strip(y)
            if _canonical(before) != _canonical(after):  # 1, 1.0 and true are different JSON
                changed.append(({"path": path, "value": before}, {"path": path, "value": after}))

    def _diff_records(
        self,
        xs: list[dict[str, Any]],
        ys: list[dict[str, Any]],
        added: list[dict[str, Any]],
        removed: list[dict[str, Any]],
        changed: list[tuple[dict[str, Any], dict[str, Any]]],
    ) -> None:
        by_id_x = {_canonical(r["id"]): r for r in xs}
        by_id_y = {_canonical(r["id"]): r for r in ys}
        for key, record in by_id_x.items():
            path = f"$[id={key}]"
            if key in by_id_y:
                self._diff_values(path, record, by_id_y[key], added, removed, changed)
            else:
                removed.append({"path": path, "value": self._strip(record)})
        for key, record in by_id_y.items():
            if key not in by_id_x:
                added.append({"path": f"$[id={key}]", "value": self._strip(record)})


def _keyed_by_id(records: Any) -> bool:
    """True when ``records`` is a list of objects, each with an ``"id"``, all ids distinct."""
    if not isinstance(records, list):
        return False
    if not all(isinstance(r, dict) and "id" in r for r in records):
        return False
    ids = {_canonical(r["id"]) for r in records}
    return len(ids) == len(records)


# --------------------------------------------------------------------------------------------
# Composite states


_COMPOSITE_MAGIC = b"GYMMCP-COMP1\n"


def _encode_composite(parts: Iterable[tuple[str, Snapshot]]) -> bytes:
    """Serialize named part snapshots: per part, length-prefixed name, kind and data."""
    out = [_COMPOSITE_MAGIC]
    for name, snap in parts:
        n, k = name.encode(), snap.kind.encode()
        out.append(len(n).to_bytes(4, "big") + n + len(k).to_bytes(4, "big") + k)
        out.append(len(snap.data).to_bytes(8, "big"))
        out.append(snap.data)
    return b"".join(out)


def _decode_composite(data: bytes) -> list[tuple[str, Snapshot]]:
    """The named part snapshots of a composite encoding (digests recomputed)."""
    if not data.startswith(_COMPOSITE_MAGIC):
        raise StateError("not a composite snapshot")
    view = memoryview(data)
    i = len(_COMPOSITE_MAGIC)

    def take(n: int) -> bytes:
        nonlocal i
        if i + n > len(data):
            raise StateError("truncated composite snapshot")
        chunk = bytes(view[i : i + n])
        i += n
        return chunk

    parts: list[tuple[str, Snapshot]] = []
    try:
        while i < len(data):
            name = take(int.from_bytes(take(4), "big")).decode()
            kind = take(int.from_bytes(take(4), "big")).decode()
            body = take(int.from_bytes(take(8), "big"))
            parts.append((name, Snapshot.of(kind, body)))
    except UnicodeDecodeError as exc:
        raise StateError(f"corrupt composite snapshot: {exc}") from exc
    return parts


def _composite_digest(items: Iterable[tuple[str, str, str]]) -> str:
    """Digest of a composite from its parts' ``(name, kind, digest)``."""
    h = hashlib.sha256(_COMPOSITE_MAGIC)
    for name, kind, digest in items:
        for text in (name, kind, digest):
            b = text.encode()
            h.update(len(b).to_bytes(4, "big") + b)
    return h.hexdigest()


class CompositeState(StateBackend):
    """One state made of named parts, e.g. the states of several servers in one environment.

    Every operation is done part by part: a snapshot holds each part's snapshot under its name
    (its digest is computed over the parts' digests), `restore` restores every part, the
    fingerprint hashes the sorted ``(name, part fingerprint)`` pairs, and `diff` names its groups
    ``f"{name}.{group}"`` (``"db.accounts"``, ``"repo.files"``, ``"cfg.json"``).

    A composite has no single `location`; read each part's from `parts`.

    Args:
        parts: The parts by name. Names are used as directory names by `copy_to`, so they must
            be non-empty and free of path separators (and not ``.`` or ``..``). The composite
            owns the parts: `close` closes them.

    Raises:
        ConfigError: No parts, or a bad part name.
    """

    kind = "composite"

    def __init__(self, parts: Mapping[str, StateBackend]) -> None:
        if not parts:
            raise ConfigError("a CompositeState needs at least one part")
        for name in parts:
            if (
                not isinstance(name, str)
                or name in ("", ".", "..")
                or any(c in name for c in ("/", "\\", "\x00", os.sep))
            ):
                raise ConfigError(f"bad CompositeState part name {name!r}")
        self._parts: dict[str, StateBackend] = dict(sorted(parts.items()))

    @property
    def parts(self) -> Mapping[str, StateBackend]:
        """The parts by name (read-only)."""
        return MappingProxyType(self._parts)

    @staticmethod
    def pack(snapshots: Mapping[str, Snapshot]) -> Snapshot:
        """A composite snapshot made of part snapshots, without any live state.

        The result is what `snapshot` gives for parts in those states (same bytes, same digest).

        Args:
            snapshots: The part snapshots by part name.

        Returns:
            The composite snapshot.
        """
        items = sorted(snapshots.items())
        digest = _composite_digest((name, s.kind, s.digest) for name, s in items)
        return Snapshot(CompositeState.kind, _encode_composite(items), digest)

    @staticmethod
    def unpack(snapshot: Snapshot) -> dict[str, Snapshot]:
        """The part snapshots of a composite snapshot, by part name.

        Raises:
            StateError: Not a composite snapshot.
        """
        if snapshot.kind != CompositeState.kind:
            raise StateError(f"cannot unpack a {snapshot.kind!r} snapshot as a composite")
        return dict(_decode_composite(snapshot.data))

    @property
    def location(self) -> Path:
        """Always raises: a composite has no single path.

        Raises:
            StateError: Always; use ``parts[name].location``.
        """
        raise StateError("a composite state has no single location; use .parts[name].location")

    def copy_to(self, dest: str | os.PathLike[str]) -> CompositeState:
        """A new composite whose parts are copies of these parts, under the directory ``dest``.

        A directory part (or a nested composite) is copied to ``dest/name``; a file part to
        ``dest/name/<its file name>``; an in-memory SQLite part to a new in-memory state.

        Args:
            dest: The directory holding the copies (created as needed).

        Returns:
            The new composite (it owns the copies).

        Raises:
            StateError: A part could not be copied (copies already made are closed).
        """
        base = Path(dest)
        copies: dict[str, StateBackend] = {}
        try:
            for name, part in self._parts.items():
                copies[name] = part.copy_to(_part_target(base / name, part))
        except BaseException:
            for made in copies.values():
                made.close()
            raise
        return CompositeState(copies)

    def snapshot(self) -> Snapshot:
        """Snapshot every part, in name order."""
        return self.pack({name: part.snapshot() for name, part in self._parts.items()})

    def restore(self, snapshot: Snapshot) -> None:
        """Restore every part from its snapshot (names and kinds are checked first)."""
        for name, snap in self._split(snapshot).items():
            self._parts[name].restore(snap)

    def fingerprint(self) -> str:
        """Hash of the sorted ``(name, part fingerprint)`` pairs."""
        return self._combine((name, part.fingerprint()) for name, part in self._parts.items())

    def fingerprint_of(self, snapshot: Snapshot) -> str:
        """Fingerprint of a snapshot without touching the parts' live states."""
        snaps = self._split(snapshot)
        return self._combine((name, self._parts[name].fingerprint_of(s)) for name, s in snaps.items())

    def diff(self, a: Snapshot, b: Snapshot) -> StateDiff:
        """Each part's diff, its groups renamed ``f"{name}.{group}"``."""
        sa, sb = self._split(a), self._split(b)
        groups: dict[str, GroupDiff] = {}
        for name, part in self._parts.items():
            for group, changes in part.diff(sa[name], sb[name]).groups.items():
                if changes:
                    groups[f"{name}.{group}"] = changes
        return StateDiff(groups)

    def close(self) -> None:
        """Close every part (all are tried; the first error is raised after)."""
        error: BaseException | None = None
        for part in self._parts.values():
            try:
                part.close()
            except Exception as exc:
                error = error or exc
        if error is not None:
            raise error

    # -- helpers ---------------------------------------------------------------------------

    def _split(self, snapshot: Snapshot) -> dict[str, Snapshot]:
        """The part snapshots by name, checked against the parts' names and kinds."""
        self._check_kind(snapshot)
        snaps = self.unpack(snapshot)
        if snaps.keys() != self._parts.keys():
            missing = sorted(self._parts.keys() - snaps.keys())
            extra = sorted(snaps.keys() - self._parts.keys())
            raise StateError(f"composite snapshot parts do not match: missing {missing}, unexpected {extra}")
        for name, snap in snaps.items():
            self._parts[name]._check_kind(snap)
        return snaps

    @staticmethod
    def _combine(fingerprints: Iterable[tuple[str, str]]) -> str:
        h = hashlib.sha256()
        for name, fp in sorted(fingerprints):
            h.update(f"{name}\x00{fp}\n".encode())
        return h.hexdigest()


def _part_target(base: Path, part: StateBackend) -> Path:
    """Where `CompositeState.copy_to` puts a copy of ``part``: ``base`` or ``base/<file name>``."""
    if isinstance(part, DirectoryState | CompositeState):
        return base
    try:
        location = part.location
    except StateError:  # in-memory: the destination is not used
        return base
    return base if location.is_dir() else base / location.name
