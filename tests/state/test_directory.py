"""Directory trees as state: round trips and private copies."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gym_mcp.errors import StateError
from gym_mcp.state import DirectoryState


def _repo(root: Path) -> DirectoryState:
    """A small tree: a file, a sub-folder with a file, an executable script; ``*.log`` ignored."""
    st = DirectoryState(root, ignore=["*.log"])
    (root / "a.txt").write_text("alpha")
    (root / "sub").mkdir()
    (root / "sub" / "b.txt").write_text("beta")
    (root / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(root / "run.sh", 0o755)
    return st


def test_directory_state_round_trip(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    st = _repo(root)
    snap = st.snapshot()
    fp = st.fingerprint()
    (root / "a.txt").write_text("changed")
    (root / "sub" / "b.txt").unlink()
    (root / "new").mkdir()
    (root / "new" / "c.txt").write_text("gamma")
    os.chmod(root / "run.sh", 0o644)
    diff = st.diff(snap, st.snapshot())
    files = diff["files"]
    assert set(files.added) == {"new", "new/c.txt"}
    assert files.removed == ("sub/b.txt",)
    assert {p for p, _ in files.changed} == {"a.txt", "run.sh"}
    st.restore(snap)
    assert st.fingerprint() == fp
    assert (root / "a.txt").read_text() == "alpha"
    assert not (root / "new").exists()
    assert os.stat(root / "run.sh").st_mode & 0o777 == 0o755
    (root / "debug.log").write_text("noise")
    assert st.fingerprint() == fp  # ignored pattern


def test_directory_copy_to_is_equal_then_independent(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    orig = _repo(root)
    (root / "debug.log").write_text("noise")
    copy = orig.copy_to(tmp_path / "copies" / "one")
    assert isinstance(copy, DirectoryState)
    assert copy.location == tmp_path / "copies" / "one"
    assert copy.ignore == orig.ignore
    assert copy.fingerprint() == orig.fingerprint()
    assert copy.snapshot().digest == orig.snapshot().digest  # ignored files copied too
    assert os.stat(copy.root / "run.sh").st_mode & 0o777 == 0o755
    fp = orig.fingerprint()
    (copy.root / "a.txt").write_text("changed")
    (copy.root / "new.txt").write_text("new")
    assert orig.fingerprint() == fp
    assert (root / "a.txt").read_text() == "alpha"
    (root / "sub" / "b.txt").unlink()
    assert (copy.root / "sub" / "b.txt").read_text() == "beta"


def test_directory_copy_to_overlapping_tree_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    st = DirectoryState(root)
    (root / "a.txt").write_text("alpha")
    for dest in (root, root / "inner", tmp_path):
        with pytest.raises(StateError, match="overlap"):
            st.copy_to(dest)
    assert not (root / "inner").exists()
    assert (root / "a.txt").read_text() == "alpha"


def test_directory_copy_to_replaces_existing_content(tmp_path: Path) -> None:
    st = DirectoryState(tmp_path / "src")
    (st.root / "a.txt").write_text("alpha")
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "stale.txt").write_text("old")
    copy = st.copy_to(dest)
    assert not (dest / "stale.txt").exists()
    assert copy.fingerprint() == st.fingerprint()
