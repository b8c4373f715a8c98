"""Directory states neither follow nor lose links, and never touch anything outside their root.

Every test builds a real tree under ``tmp_path/repo`` and keeps files the state must never
touch in a sibling ``tmp_path/outside``; each checks that those keep their content and mode.
"""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest

from gym_mcp.errors import StateError
from gym_mcp.state import DirectoryState, Snapshot

_MAGIC = b"GYMMCP-DIR1\n"


def _encode(entries: list[tuple[bytes, str | bytes, int, bytes]]) -> bytes:
    """A directory snapshot made by hand: ``(kind, path, mode, body)`` entries, in this order.

    The format: per entry a kind byte (``d`` directory, ``f`` file, ``l`` link), the path's
    length (4 bytes) and bytes, the mode (4 bytes), the body's length (8 bytes) and bytes.
    """
    out = [_MAGIC]
    for kind, path, mode, body in entries:
        p = path if isinstance(path, bytes) else path.encode()
        out.append(kind + len(p).to_bytes(4, "big") + p + mode.to_bytes(4, "big") + len(body).to_bytes(8, "big") + body)
    return b"".join(out)


def _scan(top: Path) -> dict[str, tuple[int, bytes]]:
    """Every path under ``top`` (``top`` itself as ``"."``): its lstat mode and content or link target."""
    out: dict[str, tuple[int, bytes]] = {".": (os.lstat(top).st_mode, b"")}
    for dirpath, dirnames, filenames in os.walk(top):
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                body = os.readlink(full).encode()
            elif stat.S_ISREG(st.st_mode):
                body = Path(full).read_bytes()
            else:
                body = b""
            out[os.path.relpath(full, top)] = (st.st_mode, body)
    return out


def _setup(tmp_path: Path) -> tuple[DirectoryState, Path, Path]:
    """A state ``repo`` (a file, a folder with a file, a script) and a sibling ``outside`` tree.

    ``outside`` holds ``secret.txt`` (mode 0o640) and ``odir/keep.txt`` (``odir`` mode 0o750),
    contents and modes that differ from everything in ``repo``.
    """
    root = tmp_path / "repo"
    st = DirectoryState(root)
    (root / "a.txt").write_text("alpha")
    os.chmod(root / "a.txt", 0o644)
    (root / "sub").mkdir()
    os.chmod(root / "sub", 0o755)
    (root / "sub" / "b.txt").write_text("beta")
    os.chmod(root / "sub" / "b.txt", 0o644)
    (root / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(root / "run.sh", 0o755)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("classified")
    os.chmod(outside / "secret.txt", 0o640)
    (outside / "odir").mkdir()
    (outside / "odir" / "keep.txt").write_text("kept")
    os.chmod(outside / "odir", 0o750)
    return st, root, outside


# 1. A tool swaps a template file or folder for a link (or hard link) to something outside.


def test_restore_does_not_write_through_a_file_link_to_outside(tmp_path: Path) -> None:
    st, root, outside = _setup(tmp_path)
    snap, fp, before = st.snapshot(), st.fingerprint(), _scan(outside)
    (root / "a.txt").unlink()
    (root / "a.txt").symlink_to(outside / "secret.txt")
    st.restore(snap)
    assert _scan(outside) == before  # content "classified" and mode 0o640 kept
    assert not (root / "a.txt").is_symlink()
    assert (root / "a.txt").read_text() == "alpha"
    assert st.fingerprint() == fp


def test_restore_does_not_write_through_a_folder_link_to_outside(tmp_path: Path) -> None:
    st, root, outside = _setup(tmp_path)
    snap, fp, before = st.snapshot(), st.fingerprint(), _scan(outside)
    (root / "sub" / "b.txt").unlink()
    (root / "sub").rmdir()
    (root / "sub").symlink_to(outside / "odir")
    st.restore(snap)
    assert _scan(outside) == before  # no b.txt written into odir, odir keeps mode 0o750
    assert not (root / "sub").is_symlink()
    assert (root / "sub" / "b.txt").read_text() == "beta"
    assert st.fingerprint() == fp


def test_restore_does_not_write_through_a_hard_link_to_outside(tmp_path: Path) -> None:
    st, root, outside = _setup(tmp_path)
    snap, fp, before = st.snapshot(), st.fingerprint(), _scan(outside)
    (root / "a.txt").unlink()
    os.link(outside / "secret.txt", root / "a.txt")  # same inode as the outside file
    st.restore(snap)
    assert _scan(outside) == before
    assert (root / "a.txt").read_text() == "alpha"
    assert os.lstat(root / "a.txt").st_nlink == 1
    assert st.fingerprint() == fp


# 2. New links are seen by fingerprint() and diff(), and restore removes them (only them).


def test_new_and_retargeted_links_show_in_fingerprint_and_diff(tmp_path: Path) -> None:
    st, root, outside = _setup(tmp_path)
    snap, fp, before = st.snapshot(), st.fingerprint(), _scan(outside)
    (root / "to_file").symlink_to(outside / "secret.txt")
    (root / "sub" / "to_dir").symlink_to(outside / "odir")
    (root / "dangling").symlink_to("nowhere")
    assert st.fingerprint() != fp
    after = st.snapshot()
    assert st.diff(snap, after)["files"].added == ("dangling", "sub/to_dir", "to_file")
    assert st.fingerprint_of(after) == st.fingerprint()

    (root / "dangling").unlink()
    (root / "dangling").symlink_to("elsewhere")  # same path, new target
    retargeted = st.snapshot()
    assert st.fingerprint() != st.fingerprint_of(after)
    assert st.diff(after, retargeted)["files"].changed == (("dangling", "dangling"),)

    st.restore(snap)
    assert st.fingerprint() == fp
    assert not any(p.is_symlink() for p in root.rglob("*"))
    assert _scan(outside) == before  # the links went, not what they point at


# 3. Restore replaces whatever has the wrong type, and reading never follows a link.


@pytest.mark.timeout(20)  # before: reading the fifo at a.txt blocked forever
def test_restore_replaces_entries_of_the_wrong_type(tmp_path: Path) -> None:
    st, root, outside = _setup(tmp_path)
    (root / "inner").mkdir()
    (root / "inner" / "c.txt").write_text("gamma")
    snap, fp, before = st.snapshot(), st.fingerprint(), _scan(outside)
    os.mkfifo(root / "extra.fifo")  # not in the snapshot
    (root / "a.txt").unlink()
    os.mkfifo(root / "a.txt")  # a fifo where a file was
    (root / "run.sh").unlink()
    (root / "run.sh").mkdir()  # a folder where a file was
    (root / "run.sh" / "deep.txt").write_text("x")
    (root / "sub" / "b.txt").unlink()
    (root / "sub").rmdir()
    (root / "sub").write_text("now a file")  # a file where a folder was
    (root / "inner" / "c.txt").unlink()
    (root / "inner").rmdir()
    (root / "inner").symlink_to("sub")  # a link (to a folder inside) where a folder was
    st.restore(snap)
    assert st.fingerprint() == fp
    assert st.snapshot().digest == snap.digest
    assert not (root / "extra.fifo").exists()
    assert stat.S_ISREG(os.lstat(root / "a.txt").st_mode) and (root / "a.txt").read_text() == "alpha"
    assert stat.S_ISREG(os.lstat(root / "run.sh").st_mode) and os.lstat(root / "run.sh").st_mode & 0o777 == 0o755
    assert stat.S_ISDIR(os.lstat(root / "sub").st_mode) and (root / "sub" / "b.txt").read_text() == "beta"
    assert stat.S_ISDIR(os.lstat(root / "inner").st_mode) and (root / "inner" / "c.txt").read_text() == "gamma"
    assert _scan(outside) == before


@pytest.mark.timeout(20)
def test_snapshot_records_links_without_following_them(tmp_path: Path) -> None:
    st, root, outside = _setup(tmp_path)
    os.mkfifo(outside / "pipe")  # reading through a link to it would block
    before = _scan(outside)
    (root / "to_secret").symlink_to(outside / "secret.txt")
    (root / "to_pipe").symlink_to(outside / "pipe")
    (root / "to_odir").symlink_to(outside / "odir")
    snap = st.snapshot()
    assert b"classified" not in snap.data  # the link's target text, never the content
    assert b"kept" not in snap.data
    (root / "to_secret").unlink()
    (root / "to_pipe").unlink()
    (root / "to_odir").unlink()
    (root / "to_odir").mkdir()
    st.restore(snap)
    assert os.readlink(root / "to_secret") == str(outside / "secret.txt")
    assert os.readlink(root / "to_pipe") == str(outside / "pipe")
    assert os.readlink(root / "to_odir") == str(outside / "odir")
    assert st.fingerprint() == st.fingerprint_of(snap)
    assert _scan(outside) == before


# 4. A state that contains links keeps them, as links with the same targets.


def test_links_round_trip_through_restore_and_copy_to(tmp_path: Path) -> None:
    st, root, _ = _setup(tmp_path)
    (root / "rel").symlink_to("a.txt")
    (root / "sub" / "up").symlink_to("../run.sh")
    (root / "dirlink").symlink_to("sub")
    (root / "dangling").symlink_to("missing/file")
    (root / "absolute").symlink_to("/nonexistent/abs")
    links = {p: os.readlink(root / p) for p in ("rel", "sub/up", "dirlink", "dangling", "absolute")}
    snap, fp = st.snapshot(), st.fingerprint()
    assert st.fingerprint_of(snap) == fp
    (root / "rel").unlink()
    (root / "dirlink").unlink()
    (root / "dirlink").symlink_to("a.txt")
    (root / "sub" / "up").unlink()
    (root / "sub" / "up").write_text("a file now")
    (root / "dangling").unlink()
    (root / "dangling").mkdir()
    st.restore(snap)
    assert {p: os.readlink(root / p) for p in links} == links
    assert st.fingerprint() == fp
    assert st.snapshot().digest == snap.digest

    copy = st.copy_to(tmp_path / "copy")
    assert {p: os.readlink(copy.root / p) for p in links} == links
    assert copy.fingerprint() == fp


# 5. Snapshot data that names paths outside the root, or is malformed, is refused.


_FILE = (b"f", "ok.txt", 0o644, b"ok")


@pytest.mark.parametrize(
    "entries",
    [
        pytest.param([(b"f", "../escaped.txt", 0o644, b"pwned")], id="dotdot"),
        pytest.param([(b"d", "d", 0o755, b""), (b"f", "d/../../escaped.txt", 0o644, b"pwned")], id="inner-dotdot"),
        pytest.param([(b"f", "{outside}/escaped.txt", 0o644, b"pwned")], id="absolute"),
        pytest.param([(b"l", "esc", 0, b"{outside}"), (b"f", "esc/escaped.txt", 0o644, b"pwned")], id="through-link"),
        pytest.param([(b"l", "esc", 0, b"../outside"), (b"d", "esc/d", 0o755, b"")], id="dir-through-link"),
        pytest.param([(b"f", "", 0o644, b"pwned")], id="empty"),
        pytest.param([(b"f", "./x", 0o644, b"pwned")], id="dot"),
        pytest.param([(b"f", "a//x", 0o644, b"pwned")], id="empty-part"),
        pytest.param([(b"f", "x\x00y", 0o644, b"pwned")], id="nul"),
    ],
)
def test_restore_refuses_paths_outside_the_root(tmp_path: Path, entries: list[tuple[bytes, str, int, bytes]]) -> None:
    st, root, outside = _setup(tmp_path)
    before, inside = _scan(outside), _scan(root)
    fixed = [
        (k, p.replace("{outside}", str(outside)), m, b.replace(b"{outside}", str(outside).encode()))
        for k, p, m, b in entries
    ]
    with pytest.raises(StateError):
        st.restore(Snapshot.of("directory", _encode([_FILE, *fixed])))
    assert _scan(outside) == before
    assert not (tmp_path / "escaped.txt").exists()
    assert _scan(root) == inside  # refused before anything was changed


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(_encode([_FILE])[:-1], id="truncated-body"),
        pytest.param(_encode([_FILE])[:20], id="truncated-header"),
        pytest.param(_encode([(b"x", "dev", 0o644, b"")]), id="unknown-kind"),
        pytest.param(_encode([(b"f", "big", 0o170644, b"")]), id="mode-with-type-bits"),
        pytest.param(_encode([_FILE, _FILE]), id="duplicate"),
        pytest.param(_encode([(b"f", "nodir/x.txt", 0o644, b"")]), id="parent-missing"),
        pytest.param(_encode([_FILE, (b"f", "ok.txt/x.txt", 0o644, b"")]), id="parent-is-file"),
        pytest.param(_encode([(b"l", "empty-target", 0, b"")]), id="empty-link-target"),
    ],
)
def test_restore_refuses_malformed_snapshots(tmp_path: Path, data: bytes) -> None:
    st, root, outside = _setup(tmp_path)
    before, inside = _scan(outside), _scan(root)
    with pytest.raises(StateError):
        st.restore(Snapshot.of("directory", data))
    assert _scan(root) == inside
    assert _scan(outside) == before


# Other shapes a server can leave behind.


def test_read_only_files_and_folders_round_trip(tmp_path: Path) -> None:
    # Run as root these pass either way; without CAP_DAC_OVERRIDE they failed before.
    st, root, _ = _setup(tmp_path)
    (root / "ro").mkdir()
    (root / "ro" / "x.txt").write_text("x")
    os.chmod(root / "ro" / "x.txt", 0o444)
    os.chmod(root / "ro", 0o555)
    snap, fp = st.snapshot(), st.fingerprint()
    try:
        copy = st.copy_to(tmp_path / "copy")  # before: "ro" was made read-only before x.txt was written
        assert copy.fingerprint() == fp
        os.chmod(root / "ro", 0o755)
        os.chmod(root / "ro" / "x.txt", 0o644)
        (root / "ro" / "x.txt").write_text("changed")
        os.chmod(root / "ro" / "x.txt", 0o444)  # read-only again, with other content
        os.chmod(root / "a.txt", 0o000)  # unreadable
        (root / "ro" / "junk").mkdir()
        (root / "ro" / "junk" / "y.txt").write_text("y")
        os.chmod(root / "ro" / "junk", 0o500)  # a read-only folder to remove
        os.chmod(root / "ro", 0o500)
        st.restore(snap)
        assert st.fingerprint() == fp
        assert (root / "ro" / "x.txt").read_text() == "x"
        assert os.lstat(root / "ro").st_mode & 0o777 == 0o555
    finally:  # let pytest clean up
        for p in (root / "ro", root / "ro" / "junk", tmp_path / "copy" / "ro"):
            if p.is_dir() and not p.is_symlink():
                os.chmod(p, 0o755)


@pytest.mark.timeout(20)
@pytest.mark.parametrize(("name", "target"), [("a.txt", "pipe"), ("run.sh", "secret.txt"), ("sub", "odir")])
def test_links_swapped_in_while_reading_or_restoring_are_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, target: str
) -> None:
    # A server still running could swap a name for a link between the listing of its folder and
    # the use of the name, so the listing (and the types it gives) is stale. Simulate that: the
    # operation fails (it cannot know what the name is now), but never follows the link.
    import gym_mcp.state.directory as directory

    st, root, outside = _setup(tmp_path)
    os.mkfifo(outside / "pipe")  # reading through a link to it would block
    snap, fp, before = st.snapshot(), st.fingerprint(), _scan(outside)
    listing = directory._listing

    def swap_after_listing(dir_fd: int) -> dict[str, os.DirEntry[str]]:
        entries = listing(dir_fd)
        if os.path.samestat(os.fstat(dir_fd), os.stat(root)) and not (root / name).is_symlink():
            if (root / name).is_dir():
                for child in (root / name).iterdir():
                    child.unlink()
                (root / name).rmdir()
            else:
                (root / name).unlink()
            (root / name).symlink_to(outside / target)
        return entries

    for operation in (st.snapshot, lambda: st.restore(snap)):
        with monkeypatch.context() as m:
            m.setattr(directory, "_listing", swap_after_listing)
            with pytest.raises(StateError):
                operation()
        assert _scan(outside) == before
        st.restore(snap)
        assert st.fingerprint() == fp
        assert _scan(outside) == before


def test_names_that_are_not_utf8_round_trip(tmp_path: Path) -> None:
    st, root, _ = _setup(tmp_path)
    name = os.fsdecode(b"caf\xe9.txt")  # Latin-1 bytes on disk
    (root / name).write_text("latin")
    (root / "link").symlink_to(name)
    snap, fp = st.snapshot(), st.fingerprint()
    (root / name).unlink()
    (root / "link").unlink()
    st.restore(snap)
    assert (root / name).read_text() == "latin"
    assert os.readlink(root / "link") == name
    assert st.fingerprint() == fp


def test_sockets_are_left_out_and_removed(tmp_path: Path) -> None:
    st, root, _ = _setup(tmp_path)
    snap, fp = st.snapshot(), st.fingerprint()
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(root / "server.sock"))
        assert st.fingerprint() == fp  # nothing a snapshot could hold
        st.restore(snap)
        assert not os.path.lexists(root / "server.sock")
    finally:
        sock.close()


def test_link_free_snapshots_keep_their_format(tmp_path: Path) -> None:
    # Snapshots taken before links were recorded are still read, and a tree without links
    # snapshots to the same bytes (so digests and fingerprints of old states still match).
    data = _encode(
        [
            (b"f", "a.txt", 0o644, b"alpha"),
            (b"d", "sub", 0o750, b""),
            (b"f", "sub/b.txt", 0o600, b"beta"),
        ]
    )
    st = DirectoryState(tmp_path / "repo")
    st.restore(Snapshot.of("directory", data))
    assert st.snapshot().data == data
    assert st.fingerprint() == "15ca3e077a85ffad3659ccd71833fbb4806b8f2841b14ecdb01b660188732f82"
