"""Every state backend: locations and the base class's defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from gym_mcp.errors import StateError
from gym_mcp.state import CompositeState, DirectoryState, JSONFileState, Snapshot, SQLiteState, StateBackend


def test_location_of_each_backend(tmp_path: Path) -> None:
    db = SQLiteState(tmp_path / "s.db")
    assert db.location == tmp_path / "s.db"
    assert DirectoryState(tmp_path / "d").location == tmp_path / "d"
    assert JSONFileState(tmp_path / "c.json").location == tmp_path / "c.json"
    with pytest.raises(StateError, match="in-memory"):
        _ = SQLiteState(None).location
    with pytest.raises(StateError, match="composite"):
        _ = CompositeState({"db": db}).location


def test_base_class_defaults_raise(tmp_path: Path) -> None:
    class Minimal(StateBackend):
        kind = "minimal"

        def snapshot(self) -> Snapshot:
            return Snapshot.of(self.kind, b"")

        def restore(self, snapshot: Snapshot) -> None:
            pass

        def fingerprint(self) -> str:
            return ""

        def fingerprint_of(self, snapshot: Snapshot) -> str:
            return ""

        def diff(self, a: Snapshot, b: Snapshot):  # type: ignore[no-untyped-def]
            raise NotImplementedError

    with pytest.raises(StateError):
        _ = Minimal().location
    with pytest.raises(StateError):
        Minimal().copy_to(tmp_path / "x")
