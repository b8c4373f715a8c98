"""One state made of named parts (several servers composed in one environment)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType

from gym_mcp.errors import ConfigError, StateError
from gym_mcp.state.base import (
    GroupDiff,
    Snapshot,
    StateBackend,
    StateDiff,
    _composite_digest,
    _decode_composite,
    _encode_composite,
)
from gym_mcp.state.directory import DirectoryState

__all__ = ["CompositeState"]


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

    def differing(self, a: Snapshot, b: Snapshot) -> dict[str, tuple[str, ...]]:
        """Each part's differing fields, its groups renamed ``f"{name}.{group}"`` (as `diff` names them)."""
        sa, sb = self._split(a), self._split(b)
        out: dict[str, tuple[str, ...]] = {}
        for name, part in self._parts.items():
            for group, fields in part.differing(sa[name], sb[name]).items():
                out[f"{name}.{group}"] = fields
        return out

    def loosened(self, fields: Mapping[str, Iterable[str]]) -> CompositeState:
        """A composite of the parts loosened by their own groups of ``fields`` (``"part.group"``)."""
        parts: dict[str, StateBackend] = {}
        for name, part in self._parts.items():
            mine = {g.split(".", 1)[1]: f for g, f in fields.items() if g.startswith(f"{name}.")}
            parts[name] = part.loosened(mine) if mine else part
        return CompositeState(parts)

    def spec_lines(self, fields: Mapping[str, Iterable[str]]) -> list[str]:
        """Each part's lines under a comment naming the part (each part has its own ``[state]``)."""
        lines: list[str] = []
        for name, part in self._parts.items():
            mine = {g.split(".", 1)[1]: f for g, f in fields.items() if g.startswith(f"{name}.")}
            if mine:
                lines += [f"# part {name}", *part.spec_lines(mine)]
        return lines

    @property
    def closed(self) -> bool:
        """True after `close`, or when any part is closed (the whole can no longer be restored)."""
        return self._closed or any(part.closed for part in self._parts.values())

    def close(self) -> None:
        """Close every part (all are tried; the first error is raised after)."""
        self._closed = True
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
