"""The sync facade: one asyncio event loop in a background thread, shared by sync callers.

Gymnasium's API is synchronous and MCP clients are asynchronous. Every sync call
(`MCPEnv.reset`, `MCPEnv.step`, ...) submits a coroutine to this loop and waits for it, so
many environments in one process share one loop and their servers stay connected between
calls. After ``fork()`` (as `gymnasium.vector.AsyncVectorEnv` does) the child gets a fresh
loop: the parent's thread does not exist there.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["get_runner", "run_sync"]

T = TypeVar("T")


class LoopRunner:
    """An event loop running forever in a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="gym-mcp-loop", daemon=True)
        self._started = threading.Event()
        self._thread.start()
        self._started.wait()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.call_soon(self._started.set)
        self.loop.run_forever()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine on the loop and wait for its result (re-raising its exception)."""
        if threading.current_thread() is self._thread:
            coro.close()
            raise RuntimeError(
                "the sync API was called from inside the gym-mcp loop; use the async API there"
            )
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()


_runner: LoopRunner | None = None
_lock = threading.Lock()


def get_runner() -> LoopRunner:
    """The process-wide loop runner, started on first use."""
    global _runner
    with _lock:
        if _runner is None:
            _runner = LoopRunner()
        return _runner


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine on the shared loop from synchronous code."""
    return get_runner().run(coro)


def _after_fork_in_child() -> None:
    global _runner, _lock
    _runner = None
    _lock = threading.Lock()


os.register_at_fork(after_in_child=_after_fork_in_child)
