"""A directory tree as a state backend (files, folders, symbolic links, permission bits).

Everything under the root belongs to the state, and nothing else may be touched: a tool can
leave a symbolic link (or a hard link, or a fifo) where a file or folder used to be, pointing
anywhere on the machine. So this module

- never follows a link below the root: each folder is opened through its parent's descriptor
  with ``O_NOFOLLOW`` (`_open_dir`), and every name is read, created or removed relative to
  such a descriptor (``dir_fd``), so no path string is ever resolved again after the check that
  made it safe, and a link swapped in meanwhile makes the call fail instead of being followed;
- records a link as a link (its target text, never what it points at); a fifo, socket or device
  is left out of snapshots (nothing could restore it) and removed by `DirectoryState.restore`;
- restores by replacing anything of the wrong type (`os.unlink` removes a link, never its
  target) and writes to or ``chmod``-s a file in place only after ``fstat`` on the open
  descriptor showed a regular file with no other hard link (`_update_file`);
- refuses snapshot data naming a path that could leave the root (``..``, absolute, empty parts)
  or a member whose parent is not a folder of the same snapshot, before changing anything.

The root path itself is configuration, not state: it is opened like any path (a root that is a
link to a folder works), only what is below it is held to the rules above.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from gym_mcp.errors import StateError
from gym_mcp.state.base import GroupDiff, Snapshot, StateBackend, StateDiff, toml_list

__all__ = ["DirectoryState"]


# --------------------------------------------------------------------------------------------
# The snapshot format
#
# ``_MAGIC``, then per entry: a kind byte, the path's length (4 bytes, big-endian) and its bytes,
# the mode (4 bytes), the body's length (8 bytes) and the body. Entries are sorted by path. A
# tree without links encodes exactly as before links were recorded (kind ``l`` is the only
# addition), so such snapshots, their digests and fingerprints are unchanged.

_MAGIC = b"GYMMCP-DIR1\n"
_FILE, _DIR, _LINK = b"f", b"d", b"l"


class _Entry(NamedTuple):
    """One member of a tree.

    Attributes:
        path: Relative to the root, ``/``-separated; bytes that are not UTF-8 appear as
            surrogate escapes (`os.fsdecode`), so any name the file system holds round-trips.
        kind: `_FILE`, `_DIR` or `_LINK`.
        mode: Permission bits (`stat.S_IMODE`); 0 for a link (a link's own mode means nothing).
        body: A file's content, a link's target (`os.fsencode`), empty for a folder.
    """

    path: str
    kind: bytes
    mode: int
    body: bytes


def _encode_tree(entries: Iterable[_Entry]) -> bytes:
    """Serialize entries (already sorted by path)."""
    parts = [_MAGIC]
    for e in entries:
        p = os.fsencode(e.path)
        parts.append(
            e.kind + len(p).to_bytes(4, "big") + p + e.mode.to_bytes(4, "big") + len(e.body).to_bytes(8, "big")
        )
        parts.append(e.body)
    return b"".join(parts)


def _decode_tree(data: bytes) -> list[_Entry]:
    """The entries of a snapshot, each checked to name a member of the tree below the root.

    Raises:
        StateError: The data is not a well-formed directory snapshot: truncated, an unknown
            kind, a mode with more than permission bits, a path that is empty, absolute or has
            an empty, ``.`` or ``..`` part, a path given twice, a member whose parent is not a
            folder of the snapshot (so no member can sit below a link), an empty link target,
            or a NUL byte in a path or target.
    """
    if not data.startswith(_MAGIC):
        raise StateError("not a directory snapshot")
    entries: list[_Entry] = []
    kinds: dict[str, bytes] = {}
    i, end = len(_MAGIC), len(data)
    while i < end:
        if i + 5 > end:
            raise StateError("truncated directory snapshot")
        kind = data[i : i + 1]
        n = int.from_bytes(data[i + 1 : i + 5], "big")
        head = i + 5 + n + 12
        if head > end:
            raise StateError("truncated directory snapshot")
        raw = data[i + 5 : i + 5 + n]
        mode = int.from_bytes(data[head - 12 : head - 8], "big")
        size = int.from_bytes(data[head - 8 : head], "big")
        if head + size > end:
            raise StateError("truncated directory snapshot")
        body = data[head : head + size]
        i = head + size
        _check_member(raw)
        path = os.fsdecode(raw)
        if kind not in (_FILE, _DIR, _LINK):
            raise StateError(f"directory snapshot: unknown entry kind {kind!r} for {path!r}")
        if mode & ~0o7777 or (kind == _LINK and mode):
            raise StateError(f"directory snapshot: bad mode {mode:o} for {path!r}")
        if kind == _DIR and body:
            raise StateError(f"directory snapshot: folder {path!r} has content")
        if kind == _LINK and (not body or b"\0" in body):
            raise StateError(f"directory snapshot: bad link target {body!r} for {path!r}")
        if path in kinds:
            raise StateError(f"directory snapshot: {path!r} appears twice")
        kinds[path] = kind
        entries.append(_Entry(path, kind, mode, body))
    for e in entries:
        parent = e.path.rpartition("/")[0]
        if parent and kinds.get(parent) != _DIR:
            raise StateError(f"directory snapshot: {e.path!r} is not inside a folder of the snapshot")
    return entries


def _check_member(raw: bytes) -> None:
    """Refuse a member path that is not a plain relative path below the root."""
    parts = raw.split(b"/")
    if b"\0" in raw or any(part in (b"", b".", b"..") for part in parts):
        # an empty part covers "", "/abs" (leading empty part), "a//b" and "a/"
        raise StateError(f"directory snapshot: {raw!r} is not a path below the root")


# --------------------------------------------------------------------------------------------
# Descriptor-relative file operations. ``dir_fd`` is always a folder below (or at) the root,
# opened by `_open_dir`; ``name`` is one path component (checked by `_check_member`, or listed
# by `os.scandir`), so each call acts on exactly one entry of that folder.

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
# O_NOFOLLOW: fail (ELOOP) rather than open what a link points at. O_NONBLOCK: opening a fifo
# returns at once instead of waiting for a writer; fstat then shows it is no regular file.
_READ_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC
_WRITE_FILE = os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC
_OPEN_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC


def _open_dir(name: str, dir_fd: int) -> int:
    """Open the folder ``name`` in ``dir_fd``; fails (ELOOP or ENOTDIR) if it is a link or no folder."""
    return os.open(name, _OPEN_DIR, dir_fd=dir_fd)


def _kind_of(entry: os.DirEntry[str]) -> bytes | None:
    """`_LINK`, `_DIR` or `_FILE` for a listed entry, None for a fifo, socket or device (no link followed)."""
    if entry.is_symlink():
        return _LINK
    if entry.is_dir(follow_symlinks=False):
        return _DIR
    if entry.is_file(follow_symlinks=False):
        return _FILE
    return None


def _listing(dir_fd: int) -> dict[str, os.DirEntry[str]]:
    """The entries of an open folder, by name."""
    with os.scandir(dir_fd) as it:
        return {entry.name: entry for entry in it}


def _own_file(st: os.stat_result) -> bool:
    """A regular file with one name: reading it reads no other file, changing it changes no other.

    A file with other hard links shares its content and mode with those names, which may be
    outside the root, so it is replaced rather than written or ``chmod``-ed in place.
    """
    return stat.S_ISREG(st.st_mode) and st.st_nlink == 1


def _read_all(fd: int) -> bytes:
    """Everything from ``fd`` to its end."""
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _update_file(dir_fd: int, name: str, entry: _Entry) -> bool:
    """Bring the file ``name`` to ``entry``'s content and mode in place (same inode), if that is safe.

    In place, so a server holding the file open sees the restored content (as before). Safe
    means: opened without following a link, and ``fstat`` on that descriptor shows a regular
    file with a single name; content is rewritten only through a second descriptor that
    ``fstat`` shows is the same file.

    Returns:
        False, having changed nothing, when it is not safe or not possible (another kind of
        entry, another hard link, no permission to read or write it); the caller replaces it.
    """
    try:
        fd = os.open(name, _READ_FILE, dir_fd=dir_fd)
    except PermissionError:
        return False
    try:
        st = os.fstat(fd)
        if not _own_file(st):
            return False
        if st.st_size != len(entry.body) or _read_all(fd) != entry.body:
            try:
                wfd = os.open(name, _WRITE_FILE, dir_fd=dir_fd)
            except PermissionError:  # a read-only file
                return False
            try:
                wst = os.fstat(wfd)
                if not (_own_file(wst) and os.path.samestat(wst, st)):
                    return False  # swapped for another file since the first open
                os.ftruncate(wfd, 0)
                _write_all(wfd, entry.body)
            finally:
                os.close(wfd)
        if stat.S_IMODE(st.st_mode) != entry.mode:
            os.fchmod(fd, entry.mode)  # fd is the checked file itself, not a name that could change
        return True
    finally:
        os.close(fd)


def _create_file(dir_fd: int, name: str, entry: _Entry) -> None:
    """Create the file ``name`` with ``entry``'s content and mode.

    ``O_EXCL`` makes this fail if anything at all (a link included) has appeared at ``name``,
    so the descriptor is always a new file of ours.
    """
    fd = os.open(name, _NEW_FILE, 0o600, dir_fd=dir_fd)
    try:
        _write_all(fd, entry.body)
        os.fchmod(fd, entry.mode)  # exactly the snapshot's bits, whatever the umask
    finally:
        os.close(fd)


def _remove(dir_fd: int, name: str, is_dir: bool) -> None:
    """Remove the entry ``name`` of ``dir_fd``: a link itself (never its target), a file, or a whole folder."""
    if is_dir:
        _remove_tree(dir_fd, name)
    else:
        os.unlink(name, dir_fd=dir_fd)  # fails on a folder: unlink never recurses or follows


def _remove_tree(dir_fd: int, name: str) -> None:
    """Remove the folder ``name`` of ``dir_fd`` and everything in it, following no link.

    A folder the server made read-only is made writable first, through its own descriptor
    (so the ``chmod`` reaches that folder, below the root, and nothing else).
    """
    fd = _open_dir(name, dir_fd)
    try:
        if stat.S_IMODE(os.fstat(fd).st_mode) & 0o700 != 0o700:
            os.fchmod(fd, 0o700)
        for child, entry in _listing(fd).items():
            _remove(fd, child, entry.is_dir(follow_symlinks=False))
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=dir_fd)


class DirectoryState(StateBackend):
    """A directory tree: files, folders, symbolic links and permission bits.

    Links are state like files: a snapshot records a link's target text (it never reads what a
    link points at, inside the root or out), and a restore recreates it. Fifos, sockets and
    devices are left out of snapshots and removed by a restore. No link is followed, and
    nothing outside the root is ever written, ``chmod``-ed or removed; a hard link to a file
    outside is read as the file it is, but replaced, not written in place, on restore (see the
    module docstring for how).

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

        The copy has the same ignore patterns; files, folders, links (as links) and permission
        bits are copied (ignored files too). Anything already under ``dest`` that is not in
        this tree is removed.

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

    def _open_root(self) -> int:
        return os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)

    # Reading

    def _walk(self) -> list[_Entry]:
        """Every member of the tree, sorted by path.

        Raises:
            StateError: The tree could not be read.
        """
        entries: list[_Entry] = []
        try:
            root_fd = self._open_root()
            try:
                self._walk_dir(root_fd, "", entries)
            finally:
                os.close(root_fd)
        except (OSError, RecursionError) as exc:
            raise StateError(f"cannot read directory {self.root}: {exc}") from exc
        entries.sort(key=lambda e: e.path)
        return entries

    def _walk_dir(self, dir_fd: int, prefix: str, out: list[_Entry]) -> None:
        """Append the members of the open folder ``dir_fd`` (at ``prefix``) to ``out``, depth first."""
        for name, entry in sorted(_listing(dir_fd).items()):
            rel = prefix + name
            kind = _kind_of(entry)
            if kind == _LINK:
                out.append(_Entry(rel, _LINK, 0, os.fsencode(os.readlink(name, dir_fd=dir_fd))))
            elif kind == _DIR:
                fd = _open_dir(name, dir_fd)
                try:
                    out.append(_Entry(rel, _DIR, stat.S_IMODE(os.fstat(fd).st_mode), b""))
                    self._walk_dir(fd, rel + "/", out)
                finally:
                    os.close(fd)
            elif kind == _FILE:
                fd = os.open(name, _READ_FILE, dir_fd=dir_fd)
                try:
                    st = os.fstat(fd)
                    if stat.S_ISREG(st.st_mode):  # still a file (not swapped for a fifo since listing)
                        out.append(_Entry(rel, _FILE, stat.S_IMODE(st.st_mode), _read_all(fd)))
                finally:
                    os.close(fd)

    def _ignored(self, rel: str) -> bool:
        return any(fnmatch.fnmatch(rel, pat) for pat in self.ignore)

    def snapshot(self) -> Snapshot:
        """Copy every file, folder and link under the root (links as their target text)."""
        return Snapshot.of(self.kind, _encode_tree(self._walk()))

    # Writing

    def restore(self, snapshot: Snapshot) -> None:
        """Make the tree exactly the snapshot's.

        Extra entries are removed, entries of the wrong type (a link, a fifo, a file where a
        folder was, ...) replaced, files rewritten and modes set; links are recreated as links.
        The snapshot is checked in full before anything changes.

        Raises:
            StateError: The snapshot is not a directory snapshot, is malformed or names a path
                outside the root (nothing is changed then); or the tree could not be written.
        """
        self._check_kind(snapshot)
        children: dict[str, dict[str, _Entry]] = {}  # folder ("" is the root) -> name -> entry
        for e in _decode_tree(snapshot.data):
            parent, _, name = e.path.rpartition("/")
            children.setdefault(parent, {})[name] = e
        try:
            root_fd = self._open_root()
            try:
                self._sync_dir(root_fd, "", children)
            finally:
                os.close(root_fd)
        except (OSError, RecursionError) as exc:
            raise StateError(f"cannot restore directory {self.root}: {exc}") from exc

    def _sync_dir(self, dir_fd: int, path: str, children: dict[str, dict[str, _Entry]]) -> None:
        """Make the open folder ``dir_fd`` (at ``path``) hold exactly ``children[path]``, recursively."""
        wanted = children.get(path, {})
        present = _listing(dir_fd)
        for name, entry in present.items():
            if name not in wanted:
                _remove(dir_fd, name, entry.is_dir(follow_symlinks=False))
        for name, want in sorted(wanted.items()):
            have = _kind_of(present[name]) if name in present else None
            if name in present and have != want.kind:
                _remove(dir_fd, name, have == _DIR)  # wrong type: a link, a fifo, file <-> folder
                have = None
            if want.kind == _LINK:
                target = os.fsdecode(want.body)
                if have == _LINK and os.readlink(name, dir_fd=dir_fd) == target:
                    continue
                if have == _LINK:
                    os.unlink(name, dir_fd=dir_fd)
                os.symlink(target, name, dir_fd=dir_fd)  # made, never followed: the target may be anywhere
            elif want.kind == _DIR:
                if have is None:
                    os.mkdir(name, 0o700, dir_fd=dir_fd)
                fd = _open_dir(name, dir_fd)
                try:
                    mode = stat.S_IMODE(os.fstat(fd).st_mode)
                    if mode & 0o700 != 0o700:  # a read-only folder: let us change what is in it
                        mode |= 0o700
                        os.fchmod(fd, mode)
                    self._sync_dir(fd, want.path, children)
                    if mode != want.mode:
                        os.fchmod(fd, want.mode)  # last, once its content is in place
                finally:
                    os.close(fd)
            else:
                if have == _FILE and _update_file(dir_fd, name, want):
                    continue
                if have == _FILE:
                    os.unlink(name, dir_fd=dir_fd)
                _create_file(dir_fd, name, want)

    # Comparing

    def _fingerprint_entries(self, entries: Iterable[_Entry]) -> str:
        h = hashlib.sha256()
        for e in entries:
            if self._ignored(e.path):
                continue
            if e.kind == _DIR:
                tail = f"{e.mode:o}\x00dir"
            elif e.kind == _FILE:
                tail = f"{e.mode:o}\x00{hashlib.sha256(e.body).hexdigest()}"
            else:  # "link" is no octal mode, so a link never hashes like a file or folder
                tail = f"link\x00{hashlib.sha256(e.body).hexdigest()}"
            h.update(os.fsencode(e.path) + b"\x00" + tail.encode() + b"\n")
        return h.hexdigest()

    def fingerprint(self) -> str:
        """Hash of paths, permission bits, file contents and link targets, ignored patterns left out."""
        return self._fingerprint_entries(self._walk())

    def fingerprint_of(self, snapshot: Snapshot) -> str:
        """Fingerprint of a snapshot without touching the directory."""
        self._check_kind(snapshot)
        return self._fingerprint_entries(_decode_tree(snapshot.data))

    def differing(self, a: Snapshot, b: Snapshot) -> dict[str, tuple[str, ...]]:
        """The paths that differ between two states that should be equal (group ``"files"``).

        A file whose name was minted differs by name: ignoring it does not make a later run
        match, and `loosened` with these paths then still fingerprints the two runs apart.

        Returns:
            ``{"files": sorted paths}``, empty when the fingerprints agree.
        """
        if self.fingerprint_of(a) == self.fingerprint_of(b):
            return {}
        group = self.diff(a, b)["files"]
        return {"files": tuple(sorted({*group.added, *group.removed, *(p for p, _ in group.changed)}))}

    def loosened(self, fields: Mapping[str, Iterable[str]]) -> DirectoryState:
        """A directory state on the same root that also ignores ``fields["files"]`` (for `fingerprint_of`).

        The paths are taken as glob patterns, as ``ignore`` is. Nothing under the root is touched.
        """
        return DirectoryState(self.root, ignore=(*self.ignore, *fields.get("files", ())))

    def spec_lines(self, fields: Mapping[str, Iterable[str]]) -> list[str]:
        """``ignore = [patterns]``: these paths and the patterns declared already."""
        return [f"ignore = {toml_list([*self.ignore, *(p for p in fields.get('files', ()) if p not in self.ignore)])}"]

    def diff(self, a: Snapshot, b: Snapshot) -> StateDiff:
        """Files, folders and links added, removed and changed (content, mode, target or type), by path."""
        self._check_kind(a)
        self._check_kind(b)
        ea = {e.path: e for e in _decode_tree(a.data) if not self._ignored(e.path)}
        eb = {e.path: e for e in _decode_tree(b.data) if not self._ignored(e.path)}
        group = GroupDiff(
            added=tuple(sorted(eb.keys() - ea.keys())),
            removed=tuple(sorted(ea.keys() - eb.keys())),
            changed=tuple((p, p) for p in sorted(ea.keys() & eb.keys()) if ea[p] != eb[p]),
        )
        return StateDiff({"files": group} if group else {})
