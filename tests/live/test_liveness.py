"""The per-call liveness check of a server process we run: exact, and it reaps nothing."""

from __future__ import annotations

import subprocess
import sys
import time

from gym_mcp.transport.processes import child_alive, pid_alive


def test_child_alive_tells_running_exited_and_reaped_children_apart() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert child_alive(proc.pid) and pid_alive(proc.pid)
        proc.kill()
        deadline = time.monotonic() + 5
        while child_alive(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not child_alive(proc.pid)  # a zombie is dead...
        assert not pid_alive(proc.pid)
        assert proc.poll() is not None  # ...and still there for its owner to reap (WNOWAIT)
        assert not child_alive(proc.pid)  # reaped: dead too
    finally:
        proc.kill()
        proc.wait()
