"""State backends: exact snapshots, restores, fingerprints and diffs of a server's state.

A backend owns the state a live server reads and writes. The environment snapshots and
restores it from *outside* the server: no tool call can reach these operations.

- `base`: `Snapshot` (immutable bytes + content hash), `StateDiff` / `GroupDiff`, and the
  `StateBackend` interface (``snapshot``, ``restore``, ``fingerprint``, ``diff``, ``copy_to``);
- one backend per module: `SQLiteState` (sqlite), `DirectoryState` (directory),
  `JSONFileState` (jsonfile), `CompositeState` (composite: named parts), `NullState` (null:
  a server whose state we do not track). BFCL's backends have theirs in `gym_mcp.bfcl`.
"""

from __future__ import annotations

from gym_mcp.state.base import GroupDiff, Snapshot, StateBackend, StateDiff
from gym_mcp.state.composite import CompositeState
from gym_mcp.state.directory import DirectoryState
from gym_mcp.state.jsonfile import JSONFileState
from gym_mcp.state.null import NullState
from gym_mcp.state.sqlite import SQLiteState

__all__ = [
    "CompositeState",
    "DirectoryState",
    "GroupDiff",
    "JSONFileState",
    "NullState",
    "SQLiteState",
    "Snapshot",
    "StateBackend",
    "StateDiff",
]
