"""The state of a server whose state we do not track."""

from __future__ import annotations

import os
from pathlib import Path

from gym_mcp.errors import StateError
from gym_mcp.state.base import Snapshot, StateBackend, StateDiff

__all__ = ["NullState"]


class NullState(StateBackend):
    """The state of a server that keeps none we can see (every snapshot is empty)."""

    kind = "none"

    @property
    def location(self) -> Path:
        """A stateless server has no location.

        Raises:
            StateError: Always.
        """
        raise StateError("a server without tracked state has no state location")

    def snapshot(self) -> Snapshot:
        """An empty snapshot."""
        return Snapshot.of(self.kind, b"")

    def restore(self, snapshot: Snapshot) -> None:
        """Nothing to restore."""
        self._check_kind(snapshot)

    def fingerprint(self) -> str:
        """A constant."""
        return "none"

    def fingerprint_of(self, snapshot: Snapshot) -> str:
        """A constant."""
        return "none"

    def diff(self, a: Snapshot, b: Snapshot) -> StateDiff:
        """Never any changes."""
        return StateDiff({})

    def loosened(self, fields: object) -> NullState:
        """Itself: there is nothing to leave out."""
        return self

    def copy_to(self, dest: str | os.PathLike[str]) -> NullState:
        """Another null state."""
        return NullState()
