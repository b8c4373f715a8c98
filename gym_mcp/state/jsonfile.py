"""A JSON or JSON-lines file as a state backend, fingerprinted on its parsed content."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from gym_mcp.errors import StateError
from gym_mcp.state.base import GroupDiff, Snapshot, StateBackend, StateDiff, same_path, toml_list

__all__ = ["JSONFileState"]


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
        if same_path(target, self.path):
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

    def differing(self, a: Snapshot, b: Snapshot) -> dict[str, tuple[str, ...]]:
        """The object keys whose values differ between two states that should be equal (group ``"json"``).

        Volatile keys are names at any depth, so each key is compared as the multiset of the
        values found under it anywhere (records are not matched: a minted ``"id"`` is how they
        would be). A file that does not parse names no key (nothing to leave out).

        Args:
            a: One state.
            b: Another state that should have been equal to it.

        Returns:
            ``{"json": sorted keys}``, or ``{"json": ()}`` when the difference has no key to
            name; empty when the fingerprints agree.
        """
        if self.fingerprint_of(a) == self.fingerprint_of(b):
            return {}
        status_a, va = self._parse(a.data)
        status_b, vb = self._parse(b.data)
        if status_a != "json" or status_b != "json":
            return {"json": ()}
        by_key_a: dict[str, list[str]] = {}
        by_key_b: dict[str, list[str]] = {}
        _values_by_key(self._strip(va), by_key_a)
        _values_by_key(self._strip(vb), by_key_b)
        every = by_key_a.keys() | by_key_b.keys()
        keys = {k for k in every if sorted(by_key_a.get(k, [])) != sorted(by_key_b.get(k, []))}
        return {"json": tuple(sorted(keys))}

    def loosened(self, fields: Mapping[str, Iterable[str]]) -> JSONFileState:
        """A JSON state on the same path whose volatile keys are these plus ``fields["json"]``.

        It never reads nor writes the file itself: use its `fingerprint_of` and `diff`.
        """
        extra = fields.get("json", ())
        return JSONFileState(self.path, volatile_keys=self.volatile_keys | set(extra), lines=self.lines)

    def spec_lines(self, fields: Mapping[str, Iterable[str]]) -> list[str]:
        """``volatile_keys = [keys]``: these keys and those declared already."""
        return [f"volatile_keys = {toml_list(sorted(self.volatile_keys | set(fields.get('json', ()))))}"]

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


def _values_by_key(value: Any, out: dict[str, list[str]]) -> None:
    """Collect, for every object key at any depth, the canonical text of each scalar under it.

    A key that holds an object or a list is not itself collected (its children are): ``"notes"``
    is not volatile because one note's ``"id"`` is.
    """
    if isinstance(value, dict):
        for key, child in value.items():
            if isinstance(child, dict | list):
                _values_by_key(child, out)
            else:
                out.setdefault(key, []).append(_canonical(child))
    elif isinstance(value, list):
        for child in value:
            _values_by_key(child, out)


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
