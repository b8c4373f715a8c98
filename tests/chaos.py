"""Fault injection for tests and the soak benchmark: SIGKILL an env's server at random moments."""

from __future__ import annotations

import random
import threading

from gym_mcp import MCPEnv
from gym_mcp.transport.processes import kill_group

__all__ = ["Killer"]


class Killer(threading.Thread):
    """SIGKILLs the env's server process at random moments (during restarts too)."""

    def __init__(self, env: MCPEnv, seed: int, low: float, high: float) -> None:
        super().__init__(daemon=True)
        self.env, self.rng, self.low, self.high = env, random.Random(seed), low, high
        self.stop = threading.Event()
        self.kills = 0

    def run(self) -> None:
        while not self.stop.wait(self.rng.uniform(self.low, self.high)):
            live = self.env.live
            pid = live.connection.pid if live is not None else None
            if pid is not None:
                kill_group(pid)
                self.kills += 1
