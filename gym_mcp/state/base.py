"""The state types every backend shares: `Snapshot`, `StateDiff` / `GroupDiff`, and `StateBackend`.

State backends: exact snapshots, restores, fingerprints and diffs of a server's state.

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
- `differing(a, b)` / `loosened(fields)`: where two states that should be equal differ, at the
  grain a backend declares volatile parts (table columns, JSON keys, file paths), and a detached
  backend that also leaves those out of its fingerprints. Replay that proves determinism uses
  them: two replays of the same calls that end in different states name what was minted.
- `location` / `copy_to(dest)`: where a server should be pointed for this state, and a new
  backend of the same kind holding a private copy of it (one per parallel environment).

Backends: `SQLiteState`, `DirectoryState`, `JSONFileState` and `CompositeState` (named parts,
for environments that compose several servers).
"""

from __future__ import annotations

import hashlib
import json
import os
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gym_mcp.errors import StateError

__all__ = ["Fields", "GroupDiff", "Snapshot", "StateBackend", "StateDiff", "same_path"]

Fields = Mapping[str, tuple[str, ...]]
"""Parts of a state by group, as `StateBackend.differing` names them: ``{table: (columns...)}``,
``{"json": (keys...)}``, ``{"files": (paths...)}``; a composite's groups are ``"part.group"``."""


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
        return cls(kind, data, _sqlite_digest(data) if kind == "sqlite" else hashlib.sha256(data).hexdigest())

    def __len__(self) -> int:
        return len(self.data)


def _sqlite_content(data: bytes) -> bytes:
    """Database bytes without the header's counters.

    Those are the change counter (bytes 24-27), schema cookie (40-43), version-valid-for
    (92-95) and the version of the SQLite library that wrote last (96-99). SQLite sets these on
    writes, a restore included (it bumps the schema cookie), so they tell how a file got its
    content, not what the content is.
    """
    if len(data) < 100:
        return data
    return data[:24] + bytes(4) + data[28:40] + bytes(4) + data[44:92] + bytes(8) + data[100:]


def _sqlite_digest(data: bytes) -> str:
    """SHA-256 of `_sqlite_content` (the same hex digest), hashed in place instead of copied first.

    Every final step of an episode hashes its database (Banking's 240 KB): the copy was a tenth
    of that step's fingerprint.
    """
    if len(data) < 100:
        return hashlib.sha256(data).hexdigest()
    view = memoryview(data)
    h = hashlib.sha256(view[:24])
    for part in (bytes(4), view[28:40], bytes(4), view[44:92], bytes(8), view[100:]):
        h.update(part)
    return h.hexdigest()


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

    def differing(self, a: Snapshot, b: Snapshot) -> dict[str, tuple[str, ...]]:
        """Where two states differ, at the grain this backend declares volatile parts.

        `diff` says which rows or paths changed; this says which *columns* (or keys, or files):
        what to declare volatile so that the two states fingerprint alike. The base version names
        whole groups with no fields (nothing a backend can leave out); backends that can be
        loosened say more.

        Args:
            a: One state.
            b: Another state that should have been equal to it.

        Returns:
            ``{group: sorted fields}`` (see `Fields`), empty when the fingerprints agree.
        """
        if self.fingerprint_of(a) == self.fingerprint_of(b):
            return {}
        return {group: () for group in self.diff(a, b).groups}

    def loosened(self, fields: Mapping[str, Iterable[str]]) -> StateBackend:
        """A detached backend of the same kind that also leaves ``fields`` out of fingerprints and diffs.

        Only its `fingerprint_of` and `diff` are meant to be used: it shares no live state with
        this one (a server never sees it), so judging with extra volatile parts touches nothing.

        Args:
            fields: Extra volatile parts, as `differing` names them.

        Raises:
            StateError: This backend cannot leave parts out.
        """
        raise StateError(f"a {type(self).__name__} state cannot leave parts out of its fingerprint")

    def reconcile(self, a: Snapshot, b: Snapshot) -> tuple[dict[str, tuple[str, ...]], str | None]:
        """Where two states that should be equal differ, and the fingerprint both have without those parts.

        Args:
            a: One state (e.g. after a first replay).
            b: Another (after a second replay of the same calls from the same start).

        Returns:
            ``(fields, fingerprint)``: the `differing` fields (empty when the states agree) and
            the fingerprint the two share once those are volatile too, or None when leaving them
            out does not make the two agree (a minted file name, a group with no field to name).
        """
        fields = self.differing(a, b)
        if not fields:
            return {}, self.fingerprint_of(a)
        if not all(fields.values()):
            return fields, None
        try:
            loose = self.loosened(fields)
        except StateError:
            return fields, None
        fa = loose.fingerprint_of(a)
        return fields, fa if fa == loose.fingerprint_of(b) else None

    def fingerprint_without(self, fields: Mapping[str, Iterable[str]] | None) -> str:
        """The current state's fingerprint with ``fields`` also left out (`fingerprint` when there are none).

        How an episode is judged when its task names parts that replay found minted
        (``metadata["volatile"]``): the final state and the expected one hashed alike.
        """
        if not fields:
            return self.fingerprint()
        return self.loosened(fields).fingerprint_of(self.snapshot())

    def spec_lines(self, fields: Mapping[str, Iterable[str]]) -> list[str]:
        """The ``[state]`` lines of a spec file that declare these parts volatile, with those declared already.

        ``volatile = { notes = ["created_at", "id"] }`` for SQLite, ``volatile_keys = [...]``
        for JSON, ``ignore = [...]`` for a folder (see docs/spec-files.md); the base version
        names the groups in a comment (nothing a spec can declare).
        """
        return [f"# {group}: {', '.join(f) or '(whole group)'}" for group, f in sorted(fields.items())]

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

    _closed: bool = False

    @property
    def closed(self) -> bool:
        """True once the backend was closed: its owner is done with it and must not use it again.

        Cheap (no I/O), so a pool can ask it before handing a server out. Every backend is
        closed after `close`; one holding a connection (`SQLiteState`) is also closed when that
        connection was closed under it, and a `CompositeState` when any of its parts is.
        """
        return self._closed

    def close(self) -> None:
        """Release files and connections held by the backend; `closed` is True after.

        Backends that override it set ``self._closed = True`` (or call this).
        """
        self._closed = True

    def _check_kind(self, snapshot: Snapshot) -> None:
        if snapshot.kind != self.kind:
            raise StateError(f"cannot use a {snapshot.kind!r} snapshot with a {self.kind!r} state")


def toml_key(name: str) -> str:
    """A TOML key: bare when it can be, else quoted."""
    return name if name and all(c.isalnum() or c in "_-" for c in name) else json.dumps(name)


def toml_list(values: Iterable[str]) -> str:
    """A TOML array of strings, e.g. ``["created_at", "id"]``."""
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


# --------------------------------------------------------------------------------------------
# SQLite


def same_path(a: Path, b: Path) -> bool:
    """True when ``a`` and ``b`` name the same file (symlinks and ``..`` resolved)."""
    return a.resolve() == b.resolve()


# Composite snapshots: named part snapshots in one encoding (see `CompositeState`).


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
