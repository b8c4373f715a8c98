"""A directory tree as a state backend (files, sub-directories, permission bits)."""

from __future__ import annotations

import fnmatch
import hashlib
import os
import shutil
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

from gym_mcp.errors import StateError
from gym_mcp.state.base import GroupDiff, Snapshot, StateBackend, StateDiff

__all__ = ["DirectoryState"]


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
