"""A journal of the initial state of a file that episodes use in place (a server someone else runs).

A spec with a ``url`` and no ``command`` points at a server whose state file (``serve --db
live.db``) the gym cannot copy: episodes reset it in place. A process killed mid-episode leaves
its writes in that file, and the next process would take the altered file as its initial state.
So before the first episode the file's state is written to a journal (in the gym's home, one
per file, naming the owning process), and:

- a process that starts while a journal of a process that no longer runs is there restores the
  file from it (the killed episode's writes are undone, and a warning says so), then owns it;
- a process that ends normally restores the file to its initial state and removes the journal:
  the file is left as it was found;
- while the owner runs, another process using the same file takes the journal's state as its
  initial state too.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import os
import threading
import warnings
from pathlib import Path

from gym_mcp.state import DirectoryState, JSONFileState, Snapshot, SQLiteState, StateBackend
from gym_mcp.transport.processes import pid_alive

__all__ = ["StateRestoredWarning", "adopt_in_place", "journal_dir"]

_lock = threading.Lock()
_owned: dict[Path, tuple[StateBackend, Snapshot]] = {}


class StateRestoredWarning(UserWarning):
    """A state used in place was found altered by a process that was killed mid-episode, and restored."""


def journal_dir() -> Path:
    """Where journals are kept: ``$GYM_MCP_HOME/journals`` (default ``~/.cache/gym-mcp/journals``)."""
    home = os.environ.get("GYM_MCP_HOME")
    return (Path(home) if home else Path(os.path.expanduser("~/.cache/gym-mcp"))) / "journals"


def adopt_in_place(state: StateBackend, name: str) -> Snapshot:
    """The initial state of a state used in place, journaled so a killed process cannot change it.

    Args:
        state: The state the server keeps (its file or folder is used in place).
        name: The server's name, for the warning.

    Returns:
        The initial state: the journal's when one is there, else the state as it is now.
    """
    location = Path(state.location).resolve()
    path = journal_dir() / f"{hashlib.sha256(str(location).encode()).hexdigest()[:24]}.state"
    with _lock:
        if path in _owned:
            return _owned[path][1]
        found = _read(path)
        if found is not None and found[0] != os.getpid() and pid_alive(found[0]):
            return found[1]  # another live process owns it: its initial state is ours too
        if found is not None:
            initial = found[1]
            if state.snapshot().digest != initial.digest:
                state.restore(initial)
                warnings.warn(
                    f"{name}: {location} was left altered by process {found[0]}, which ended mid-episode; "
                    "restored to the initial state it recorded",
                    StateRestoredWarning,
                    stacklevel=3,
                )
        else:
            initial = state.snapshot()
        _write(path, location, initial)
        if not _owned:
            atexit.register(_release_all)
        _owned[path] = (_own_handle(state), initial)  # the caller's closes with its server
        return initial


def _own_handle(state: StateBackend) -> StateBackend:
    """A backend of our own on the same file or folder, for the restore at exit."""
    for kind in (SQLiteState, DirectoryState, JSONFileState):
        if type(state) is kind:
            return kind(state.location)
    return state


def _read(path: Path) -> tuple[int, Snapshot] | None:
    try:
        raw = path.read_bytes()
        header, data = raw.split(b"\n", 1)
        meta = json.loads(header)
        return int(meta["pid"]), Snapshot.of(str(meta["kind"]), data)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write(path: Path, location: Path, snapshot: Snapshot) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    header = json.dumps({"pid": os.getpid(), "kind": snapshot.kind, "location": str(location)}).encode()
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(header + b"\n" + snapshot.data)
    tmp.replace(path)


def _release_all() -> None:
    """At a normal exit: each state used in place back to its initial state, its journal removed."""
    with _lock:
        owned = list(_owned.items())
        _owned.clear()
    for path, (state, initial) in owned:
        try:
            if state.snapshot().digest != initial.digest:
                state.restore(initial)
        except Exception:  # the journal stays: the next process restores from it
            continue
        with contextlib.suppress(OSError):
            path.unlink()
        with contextlib.suppress(Exception):
            state.close()
