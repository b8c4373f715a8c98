"""The sync facade: one asyncio event loop per process, driven by whichever thread calls.

Gymnasium's API is synchronous and MCP clients are asynchronous. Every sync call
(`MCPEnv.reset`, `MCPEnv.step`, ...) runs its coroutine on one process-wide loop, so many
environments share one loop and their servers stay connected between calls.

The calling thread drives the loop itself (``run_until_complete``) under a lock, rather than
handing work to a loop thread: a hand-off costs two cross-thread wake-ups per call, which is
most of an in-process tool call. A thread that already runs an event loop (a notebook, an
async app) cannot drive a second loop, so its calls go through a helper thread instead.
Between calls the loop is idle; tasks such as transport readers resume on the next call.

A server that runs many episodes side by side for other processes (``gym-mcp serve-openenv``)
pins the loop instead (`LoopRunner.pin`): one thread of its own drives it from then on, and
every call from any other thread is handed to it, so that the coroutines of concurrent callers
interleave (one episode's tool call waits while another's runs) instead of queueing for the
loop one call at a time.

After ``fork()`` (as `gymnasium.vector.AsyncVectorEnv` does) the child gets a fresh loop.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import os
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

__all__ = ["get_runner", "run_sync"]

T = TypeVar("T")


class LoopRunner:
    """A process-wide event loop that callers drive in turn."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._drive = threading.Lock()
        self._helper: concurrent.futures.ThreadPoolExecutor | None = None
        self._root_task = self.loop.create_task(_root(), name="gym-mcp-root")
        self.closed = False
        self._pinned: threading.Thread | None = None
        self._pins = 0
        self._pin_lock = threading.Lock()
        # let the root task declare itself (from a helper thread when this one runs a loop: an
        # env made first inside `asyncio.run(...)`, a notebook's cell)
        self.run(asyncio.sleep(0))

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine on the loop and return its result (re-raising its exception)."""
        if self.closed:
            coro.close()
            raise RuntimeError("the gym-mcp event loop is closed (interpreter shutting down)")
        pinned = self._pinned
        if pinned is not None:
            if threading.current_thread() is pinned:
                coro.close()
                raise RuntimeError(
                    "a sync gym-mcp call from a coroutine on gym-mcp's own loop would block it: await it"
                )
            return asyncio.run_coroutine_threadsafe(coro, self.loop).result()
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return self._run_here(coro)
        # This thread already runs a loop: drive ours from a helper thread.
        if self._helper is None:
            self._helper = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="gym-mcp-loop")
        return self._helper.submit(self._run_here, coro).result()

    def pin(self) -> None:
        """Drive the loop from a thread of its own from now on; every caller's coroutine is handed to it.

        Call it before other threads use the runner (a server's start-up): a caller already
        waiting to drive the loop itself would wait for good. Pins are counted: the loop's
        thread stops at the `unpin` that matches the first `pin` (or at `close`).
        """
        with self._pin_lock:
            self._pins += 1
            if self._pinned is not None or self.closed:
                return
            started = threading.Event()

            def drive() -> None:
                with self._drive:
                    self.loop.call_soon(started.set)
                    self.loop.run_forever()

            thread = threading.Thread(target=drive, name="gym-mcp-loop", daemon=True)
            thread.start()
            started.wait()
            self._pinned = thread

    def unpin(self, *, all_pins: bool = False) -> None:
        """Undo one `pin` (every one with ``all_pins``); at the last, callers drive the loop themselves again."""
        with self._pin_lock:
            self._pins = 0 if all_pins else max(0, self._pins - 1)
            if self._pins:
                return
            thread, self._pinned = self._pinned, None
            if thread is not None:
                self.loop.call_soon_threadsafe(self.loop.stop)
                thread.join()

    def _run_here(self, coro: Coroutine[Any, Any, T]) -> T:
        with self._drive:
            return self.loop.run_until_complete(coro)

    def close(self) -> None:
        """Run the exit hooks, cancel what is left on the loop and close it."""
        if self.closed:
            return
        self.unpin(all_pins=True)
        with self._drive:
            self.closed = True
            for hook in _exit_hooks:
                with contextlib.suppress(BaseException):
                    self.loop.run_until_complete(asyncio.wait_for(hook(self.loop), 15))
            pending = [t for t in asyncio.all_tasks(self.loop) if not t.done()]
            for task in pending:
                task.cancel()
            with contextlib.suppress(BaseException):
                self.loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            self.loop.close()
        if self._helper is not None:
            self._helper.shutdown(wait=False)


async def _root() -> None:
    """A task that lives as long as the loop and serves as anyio's root task.

    anyio keeps its worker threads (which run in-process tools) alive for as long as the root
    task of the code that asked for them. Each sync call runs in a fresh task; without a
    declared root that outlives them, every call would start and stop a thread (~0.5 ms).
    """
    try:
        from anyio._backends._asyncio import _root_task
    except ImportError:  # pragma: no cover - another anyio: only slower
        pass
    else:
        with contextlib.suppress(Exception):
            _root_task.set(asyncio.current_task())
    await asyncio.Event().wait()


_runner: LoopRunner | None = None
_lock = threading.Lock()
_orphans: list[LoopRunner] = []
_exit_hooks: list[Callable[[asyncio.AbstractEventLoop], Coroutine[Any, Any, None]]] = []


def add_exit_hook(hook: Callable[[asyncio.AbstractEventLoop], Coroutine[Any, Any, None]]) -> None:
    """Run ``hook(loop)`` on the loop when the process exits (e.g. to stop pooled servers)."""
    _exit_hooks.append(hook)


def get_runner() -> LoopRunner:
    """The process-wide loop runner, made on first use."""
    global _runner
    with _lock:
        if _runner is None:
            _runner = LoopRunner()
        return _runner


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine on the shared loop from synchronous code."""
    return get_runner().run(coro)


def current_runner() -> LoopRunner | None:
    """The runner if one was made in this process (None otherwise)."""
    return _runner


def _close_at_exit() -> None:
    if _runner is not None:
        with contextlib.suppress(Exception):
            _runner.close()


def _after_fork_in_child() -> None:
    global _runner, _lock
    if _runner is not None:
        _runner.closed = True  # the parent's loop and its connections belong to the parent:
        _orphans.append(_runner)  # keep it referenced so it is never finalized here
    _runner = None
    _lock = threading.Lock()


# Close before the interpreter joins non-daemon threads: anyio's worker threads (non-daemon)
# live as long as the loop's root task, which only close() ends. concurrent.futures uses the
# same hook; plain atexit would run after the join and never be reached.
_register = getattr(threading, "_register_atexit", None)
if _register is not None:
    _register(_close_at_exit)
atexit.register(_close_at_exit)
os.register_at_fork(after_in_child=_after_fork_in_child)
