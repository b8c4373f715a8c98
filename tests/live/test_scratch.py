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
import sys, time
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
