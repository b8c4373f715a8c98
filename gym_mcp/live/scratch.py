"""Private scratch folders for live servers, removed however the process ends.

Each server that runs in its own process works on a private copy of its state in a folder made
here. `LiveServer.close` removes it; an environment that is never closed leaves it to this
module, which removes what is left:

- at interpreter exit (``atexit``), including after Ctrl-C;
- on SIGTERM and SIGHUP, when the program has not set its own handler for them (the folders are
  removed, then the signal's default action runs, so the exit status is the same);
- after SIGKILL nothing can run, so the next process that makes a folder sweeps the folders of
  processes that no longer exist (their names carry the owner's pid).

The sweep removes only what the gym can prove it made: a folder is put in place whole, by a
rename, with a marker file inside (``.gym-mcp-scratch``, naming its owner's pid), so a folder of
anyone else's whose name happens to look like ours (``gym-mcp-2024-results``) is never touched.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import shutil
import signal
import tempfile
import threading
from pathlib import Path
from types import FrameType

from gym_mcp.transport.processes import pid_alive

__all__ = ["make_scratch", "remove_scratch"]

PREFIX = "gym-mcp-"
_NAME = re.compile(r"^\.?gym-mcp-(\d+)-")

_lock = threading.Lock()
_live: set[Path] = set()
_armed_pid = 0  # the process that installed the hooks (a forked child installs its own)


def make_scratch(name: str) -> Path:
    """Make a private folder ``gym-mcp-<pid>-<name>-<random>`` in the temp dir, removed at exit.

    Args:
        name: A short name for the folder (the server's), safe for a file name.
    """
    _arm()
    from gym_mcp.servers.kit import marked_folder

    path = marked_folder(f"{PREFIX}{os.getpid()}-{name}-")
    with _lock:
        _live.add(path)
    return path


def _marked(folder: Path, pid: int) -> bool:
    """Whether ``folder`` holds the marker the gym puts in its folders, naming ``pid``."""
    from gym_mcp.servers.kit import SCRATCH_MARKER

    try:
        return (folder / SCRATCH_MARKER).read_text().split()[-1:] == [str(pid)]
    except (OSError, UnicodeDecodeError):
        return False


def remove_scratch(path: Path) -> None:
    """Remove a folder made by `make_scratch` (never raises)."""
    with _lock:
        _live.discard(path)
    shutil.rmtree(path, ignore_errors=True)


def remove_all() -> None:
    """Remove every folder this process made and has not removed yet."""
    with _lock:
        paths = [p for p in _live if _armed_pid == os.getpid()]
        _live.clear()
    for path in paths:
        shutil.rmtree(path, ignore_errors=True)


def sweep_orphans(root: Path | None = None) -> list[Path]:
    """Remove scratch folders whose owner process no longer exists and that hold the gym's marker.

    Args:
        root: Where to look (the temp dir by default).

    Returns:
        The folders removed.
    """
    root = Path(root or tempfile.gettempdir())
    removed: list[Path] = []
    try:
        entries = list(root.iterdir())
    except OSError:
        return removed
    for entry in entries:
        match = _NAME.match(entry.name)
        if match is None or not entry.is_dir() or entry.is_symlink():
            continue
        pid = int(match.group(1))
        if pid_alive(pid) or not _marked(entry, pid):
            continue
        shutil.rmtree(entry, ignore_errors=True)
        removed.append(entry)
    return removed


def _arm() -> None:
    """Install the exit and signal hooks once per process, and sweep orphans of dead processes."""
    global _armed_pid
    with _lock:
        if _armed_pid == os.getpid():
            return
        _armed_pid = os.getpid()
        _live.clear()  # a forked child does not own its parent's folders
    atexit.register(remove_all)
    with contextlib.suppress(ValueError):  # signal handlers can only be set from the main thread
        for sig in (signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(sig) is signal.SIG_DFL:
                signal.signal(sig, _on_signal)
    sweep_orphans()


def _on_signal(signum: int, frame: FrameType | None) -> None:
    remove_all()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
