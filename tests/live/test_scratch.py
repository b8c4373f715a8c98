"""Private state folders are removed however the process ends: exit, SIGTERM, or SIGKILL and a sweep."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT

SCRIPT = """
import signal, sys, time
# a program started from a shell: default dispositions, even when the tests run under nohup
# (which ignores SIGHUP for every child; the gym then leaves the signal alone, as it should)
signal.signal(signal.SIGHUP, signal.SIG_DFL)
import gymnasium as gym
import gym_mcp  # noqa: F401
env = gym.make("gym_mcp/Banking-v0", transport="stdio")
env.reset(seed=0)
print("ready", flush=True)
if sys.argv[1] == "exit":
    sys.exit(0)  # the env is never closed
time.sleep(60)
"""


def _run(tmp_path: Path, mode: str) -> subprocess.Popen[str]:
    env = {**os.environ, "TMPDIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, mode], stdout=subprocess.PIPE, text=True, env=env, cwd=tmp_path
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    return proc


def _scratch(tmp_path: Path) -> list[Path]:
    return sorted(p for p in tmp_path.iterdir() if p.name.startswith("gym-mcp-"))


def test_an_env_never_closed_leaves_no_folder_at_exit(tmp_path: Path) -> None:
    proc = _run(tmp_path, "exit")
    assert proc.wait(timeout=30) == 0
    assert _scratch(tmp_path) == []


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_terminated_process_leaves_no_folder(tmp_path: Path, sig: signal.Signals) -> None:
    proc = _run(tmp_path, "sleep")
    assert len(_scratch(tmp_path)) == 1
    proc.send_signal(sig)
    assert proc.wait(timeout=30) == -sig  # the default action still ends the process
    assert _scratch(tmp_path) == []


def test_folders_of_a_killed_process_are_swept_by_the_next_one(tmp_path: Path) -> None:
    proc = _run(tmp_path, "sleep")
    orphan = _scratch(tmp_path)
    assert len(orphan) == 1
    proc.kill()
    proc.wait(timeout=30)
    time.sleep(0.2)
    assert _scratch(tmp_path) == orphan  # nothing could run at SIGKILL
    nxt = _run(tmp_path, "exit")
    assert nxt.wait(timeout=30) == 0
    assert _scratch(tmp_path) == []


def test_the_sweep_removes_only_folders_the_gym_made(tmp_path: Path) -> None:
    """A folder named like ours but not made by the gym (no marker) is never swept, dead "pid" or not."""
    from gym_mcp.live.scratch import sweep_orphans
    from gym_mcp.servers.kit import SCRATCH_MARKER

    dead = _dead_pid()
    theirs = tmp_path / "gym-mcp-2024-results"  # someone's results folder: "2024" is no live process
    theirs.mkdir()
    (theirs / "table.csv").write_text("a,b\n")
    lookalike = tmp_path / f"gym-mcp-{dead}-banking-x1y2"  # our name shape, no marker
    lookalike.mkdir()
    forged = tmp_path / f"gym-mcp-{dead}-crm-abcd"  # a marker naming another process
    forged.mkdir()
    (forged / SCRATCH_MARKER).write_text(f"gym-mcp scratch folder of process {os.getpid()}\n")
    made = subprocess.run(  # a process that makes its folder and ends without removing it
        [
            sys.executable,
            "-c",
            "import os; from gym_mcp.servers.kit import marked_folder; "
            "print(marked_folder(f'gym-mcp-{os.getpid()}-notes-'))",
        ],
        env={**os.environ, "TMPDIR": str(tmp_path), "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    ours = Path(made.stdout.strip())
    assert ours.parent == tmp_path and (ours / SCRATCH_MARKER).exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".gym-mcp-")]  # no staging folder left
    removed = sweep_orphans(tmp_path)
    assert removed == [ours] and not ours.exists()
    assert (theirs / "table.csv").read_text() == "a,b\n" and lookalike.exists() and forged.exists()


def _dead_pid() -> int:
    """The pid of a process that has ended."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait(timeout=30)
    return proc.pid
