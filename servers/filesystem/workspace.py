"""The workspace: a directory tree that every tool is confined to.

Every path a tool receives is relative to the workspace root (``/`` and ``.`` mean the root, a
leading ``/`` is the root too, never the host's). `Workspace.resolve` is the one gate:

- NUL bytes, names over 255 bytes and paths over 4096 bytes are refused;
- ``..`` is applied lexically and refused when it would climb above the root;
- the joined path is resolved with `os.path.realpath`, and refused unless the result is the root
  or below it, so a symbolic link (at any depth, dangling or not) that points outside the root
  is never followed; a link that stays inside is followed like the real thing;
- the trash folder (`TRASH`) is reachable only through the trash tools.

Files are then opened with ``O_NOFOLLOW`` on the resolved path (a link swapped in after the check
makes the call fail instead of being followed), writes refuse files with other hard links, and
every write is held to the size quota (`Workspace.check_quota`).
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

from mcp.server.mcpserver.exceptions import ToolError

__all__ = ["MAX_NAME_BYTES", "MAX_PATH_BYTES", "TRASH", "Workspace", "shown"]

TRASH = ".trash"
"""The trash folder under the root, hidden from listings and searches."""

MAX_NAME_BYTES = 255
"""Longest file or folder name, in UTF-8 bytes."""

MAX_PATH_BYTES = 4096
"""Longest path argument, in UTF-8 bytes."""

_EXAMPLE = "paths are relative to the workspace root, e.g. 'docs/readme.md'"
_READ_CHUNK = 1 << 16


def shown(path: str, limit: int = 80) -> str:
    """A path argument as quoted in an error message (long ones cut, so messages stay short)."""
    return repr(path if len(path) <= limit else path[:limit] + "...")


def _nbytes(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


class Workspace:
    """A root folder, its quota and the lock that serializes the tool calls on it.

    Args:
        root: The workspace root (an existing folder; a link to one works, the link is
            configuration, not state).
        quota_bytes: The most bytes the regular files under the root (trash included) may hold.
    """

    def __init__(self, root: str | os.PathLike[str], quota_bytes: int) -> None:
        real = os.path.realpath(root)
        if not os.path.isdir(real):
            raise ValueError(f"workspace root {os.fspath(root)!r} is not a folder")
        if quota_bytes < 0:
            raise ValueError("quota_bytes must be >= 0")
        self.root = real
        self.quota_bytes = quota_bytes
        self.lock = threading.RLock()

    # -- paths -------------------------------------------------------------------------------

    def parts(self, path: str, *, arg: str = "path") -> list[str]:
        """Check a path argument and return its normalized components (``[]`` for the root).

        Raises:
            ToolError: A NUL byte, an over-long name or path, or ``..`` above the root.
        """
        if not isinstance(path, str):
            raise ToolError(f"{arg} must be a string such as 'docs/readme.md'")
        if "\x00" in path:
            raise ToolError(f"{arg} contains a NUL byte; remove it, {_EXAMPLE}")
        size = _nbytes(path)
        if size > MAX_PATH_BYTES:
            raise ToolError(f"{arg} is {size} bytes long; a path may have at most {MAX_PATH_BYTES} bytes")
        out: list[str] = []
        for part in path.split("/"):
            if part in ("", "."):
                continue
            if part == "..":
                if not out:
                    raise ToolError(f"{arg} {shown(path)} leaves the workspace; {_EXAMPLE}")
                out.pop()
                continue
            if _nbytes(part) > MAX_NAME_BYTES:
                raise ToolError(
                    f"{arg} has a name of {_nbytes(part)} bytes ({shown(part, 40)}); "
                    f"a file or folder name may have at most {MAX_NAME_BYTES} bytes"
                )
            out.append(part)
        return out

    def inside(self, real: str) -> bool:
        """Whether a host path is the root or below it."""
        return real == self.root or real.startswith(self.root + os.sep)

    def rel(self, real: str) -> str:
        """The workspace path of a host path below the root (``/`` for the root)."""
        if real == self.root:
            return "/"
        return os.path.relpath(real, self.root).replace(os.sep, "/")

    def resolve(self, path: str, *, arg: str = "path", follow: bool = True, trash: bool = False) -> str:
        """Turn a path argument into a host path inside the root (which need not exist).

        Args:
            path: The workspace path the model gave.
            arg: The argument's name, for messages.
            follow: Resolve a symbolic link in the last component too; False resolves only the
                parent folders (to act on a link itself: stat, read_link, delete).
            trash: Allow paths into the trash folder (the trash tools only).

        Returns:
            The host path (symbolic links resolved as asked).

        Raises:
            ToolError: The path is malformed, leaves the root, passes through a link that points
                outside the root, or reaches into the trash.
        """
        parts = self.parts(path, arg=arg)
        if not trash and parts and parts[0] == TRASH:
            raise ToolError(
                f"{arg} {shown(path)} is inside the trash; use list_trash, restore_from_trash or empty_trash for it"
            )
        if follow or not parts:
            real = os.path.realpath(os.path.join(self.root, *parts))
        else:
            real = os.path.join(os.path.realpath(os.path.join(self.root, *parts[:-1])), parts[-1])
        if not self.inside(real if follow or not parts else os.path.dirname(real)):
            raise ToolError(
                f"{arg} {shown(path)} passes through a symbolic link that points outside the workspace; "
                f"only links to places inside the workspace can be followed ({_EXAMPLE})"
            )
        if not trash and self.rel(real).split("/")[0] == TRASH:
            raise ToolError(f"{arg} {shown(path)} leads into the trash; use list_trash or restore_from_trash")
        return real

    def missing(self, path: str, arg: str = "path") -> ToolError:
        """The error for a path that does not exist."""
        rel = "/".join(self.parts(path, arg=arg)) or "/"
        return ToolError(
            f"{arg} {shown(rel)} does not exist in the workspace ({_EXAMPLE}; '/' is the workspace root, "
            "not the host's); use list_directory or search_files to find the right path"
        )

    def lstat(self, real: str, path: str, arg: str = "path") -> os.stat_result:
        """`os.lstat` of a resolved path, or the "does not exist" error."""
        try:
            return os.lstat(real)
        except FileNotFoundError:
            raise self.missing(path, arg) from None
        except NotADirectoryError:
            raise ToolError(f"{arg} {shown(path)} goes through a file as if it were a folder") from None

    def file(self, path: str, arg: str = "path") -> str:
        """Resolve a path that must be an existing regular file."""
        real = self.resolve(path, arg=arg)
        st = self.lstat(real, path, arg)
        if stat.S_ISDIR(st.st_mode):
            raise ToolError(f"{arg} {shown(path)} is a folder, not a file; use list_directory to see what it holds")
        if not stat.S_ISREG(st.st_mode):
            raise ToolError(f"{arg} {shown(path)} is not a regular file")
        return real

    def folder(self, path: str, arg: str = "path") -> str:
        """Resolve a path that must be an existing folder."""
        real = self.resolve(path, arg=arg)
        st = self.lstat(real, path, arg)
        if not stat.S_ISDIR(st.st_mode):
            raise ToolError(f"{arg} {shown(path)} is a file, not a folder")
        return real

    def new(self, path: str, arg: str = "path", *, exist_ok: bool = False) -> str:
        """Resolve the path of something to create: its parent folder must exist.

        Raises:
            ToolError: The path is the root, its parent is missing, or it exists (unless
                ``exist_ok``).
        """
        real = self.resolve(path, arg=arg)
        if real == self.root:
            raise ToolError(f"{arg} must name something inside the workspace, not the root itself")
        parent = os.path.dirname(real)
        if not os.path.isdir(parent):
            raise ToolError(
                f"the parent folder {shown(self.rel(parent))} of {arg} does not exist; create it first with "
                "create_directory"
            )
        if not exist_ok and os.path.lexists(real):
            raise ToolError(f"{arg} {shown(self.rel(real))} already exists; choose another path or delete it first")
        return real

    # -- reading and writing -----------------------------------------------------------------

    def read_bytes(self, real: str, limit: int | None = None) -> bytes:
        """Read a regular file without following a link in its last component."""
        fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ToolError(f"{shown(self.rel(real))} is not a regular file")
            chunks = []
            total = 0
            while limit is None or total < limit:
                chunk = os.read(fd, _READ_CHUNK if limit is None else min(_READ_CHUNK, limit - total))
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)

    def read_text(self, real: str) -> str:
        """Read a text (UTF-8) file; a binary file is refused with a hint."""
        data = self.read_bytes(real)
        if b"\x00" in data[:8192]:
            raise ToolError(
                f"{shown(self.rel(real))} is a binary file; use file_hash, stat or (for a .zip) list_archive"
            )
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise ToolError(f"{shown(self.rel(real))} is not UTF-8 text; use file_hash or stat") from None

    def file_size(self, real: str) -> int:
        """The size of a regular file at ``real``, 0 when there is none (or it is something else)."""
        try:
            st = os.lstat(real)
        except OSError:
            return 0
        return st.st_size if stat.S_ISREG(st.st_mode) else 0

    def check_quota(self, adding: int, freeing: int = 0) -> None:
        """Refuse a change that would push the bytes under the root over the quota.

        Args:
            adding: Bytes the change writes.
            freeing: Bytes it replaces (an overwritten file's old size).
        """
        used = self.usage()
        if used - freeing + adding > self.quota_bytes:
            free = max(self.quota_bytes - used, 0)
            raise ToolError(
                f"this would write {adding} bytes but only {free + freeing} bytes are free "
                f"(quota {self.quota_bytes} bytes, {used} used); delete files and empty_trash to free space"
            )

    def writable(self, real: str) -> None:
        """Refuse writing a file whose owner-write bit is off (whoever the server runs as)."""
        try:
            st = os.lstat(real)
        except FileNotFoundError:
            return
        if stat.S_ISREG(st.st_mode) and not st.st_mode & stat.S_IWUSR:
            raise ToolError(
                f"{shown(self.rel(real))} is read-only (mode {oct(stat.S_IMODE(st.st_mode))}); "
                "chmod it to e.g. '644' first"
            )

    def write_bytes(self, real: str, data: bytes, *, append: bool = False) -> None:
        """Write (or append to) a regular file, held to the quota, never through a link."""
        self.writable(real)
        old = self.file_size(real)
        self.check_quota(len(data), 0 if append else old)
        flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | (os.O_APPEND if append else 0)
        fd = os.open(real, flags, 0o644)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise ToolError(f"{shown(self.rel(real))} is not a regular file")
            if st.st_nlink > 1:
                raise ToolError(f"{shown(self.rel(real))} has other hard links; it cannot be written")
            if not append:
                os.ftruncate(fd, 0)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)

    # -- walking -----------------------------------------------------------------------------

    def walk(self, real: str) -> Iterator[tuple[str, os.stat_result]]:
        """Everything below a folder, depth first and sorted by name, links not followed, trash left out.

        Yields:
            (host path, its lstat) pairs.
        """
        try:
            names = sorted(os.listdir(real))
        except OSError:
            return
        for name in names:
            child = os.path.join(real, name)
            if real == self.root and name == TRASH:
                continue
            try:
                st = os.lstat(child)
            except OSError:
                continue
            yield child, st
            if stat.S_ISDIR(st.st_mode):
                yield from self.walk(child)

    def usage(self) -> int:
        """Bytes held by the regular files under the root, the trash included."""
        total = 0
        for dirpath, _dirs, files in os.walk(self.root):
            for name in files:
                try:
                    st = os.lstat(os.path.join(dirpath, name))
                except OSError:
                    continue
                if stat.S_ISREG(st.st_mode):
                    total += st.st_size
        return total

    @property
    def trash_dir(self) -> Path:
        """The trash folder's host path (it may not exist yet)."""
        return Path(self.root) / TRASH
