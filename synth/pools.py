"""The entities a server's state holds, as pools that arguments are drawn from: `entity_pools`.

Synthesis draws its calls' arguments from them (`gym_mcp.synth.pipeline`), and so does the
check that a reset really resets (`gym_mcp.synth.statecheck`).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from gym_mcp.live import BundledSource, ComposedSource, ServerSource
from gym_mcp.state import CompositeState, DirectoryState, Snapshot
from gym_mcp.synth.graph import EntityPools
from gym_mcp.synth.infer import state_tables

__all__ = ["entity_pools"]


def entity_pools(source: ServerSource, snapshot: Snapshot) -> EntityPools:
    """The entities arguments are drawn from: a database's tables, or a folder server's own view of its tree.

    A composed environment's pools are its parts' pools, each under its part's name.
    """
    from gym_mcp.servers import DirectoryKit

    if isinstance(source, ComposedSource):
        parts = CompositeState.unpack(snapshot)
        return EntityPools.of_parts({name: entity_pools(src, parts[name]) for name, src in source.parts.items()})
    if snapshot.kind == "directory":
        with tempfile.TemporaryDirectory(prefix="gym-mcp-synth-") as tmp:
            root = Path(tmp) / "root"
            root.mkdir()
            state = DirectoryState(root)
            state.restore(snapshot)
            if isinstance(source, BundledSource) and isinstance(source.kit, DirectoryKit):
                return EntityPools(source.kit.entities(root))
            return EntityPools(state_tables("directory", root=root))  # any folder: its files and records
    if snapshot.kind == "json":
        return EntityPools(state_tables("json", data=snapshot.data))
    return EntityPools.from_sqlite(snapshot.data if snapshot.kind == "sqlite" else None)
