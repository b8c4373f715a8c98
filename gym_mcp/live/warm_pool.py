"""The pool that keeps live servers warm.

The `ServerPool` keeps servers that environments have closed, so that the next environment (or a
fork) restores state into a warm server instead of spawning a process (~1 s for a Python MCP server).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import weakref
from collections.abc import Hashable

from gym_mcp.live.live_server import LiveServer, ServerSource
from gym_mcp.transport.connection import OPEN_CONNECTIONS
from gym_mcp.transport.runner import add_exit_hook

__all__ = ["ServerPool", "get_pool"]


class ServerPool:
    """Warm servers waiting for an environment, by source key.

    Args:
        max_idle: Idle servers kept per key; more are closed when released.
    """

    def __init__(self, max_idle: int = 16) -> None:
        self.max_idle = max_idle
        self._idle: dict[Hashable, list[LiveServer]] = {}
        self.launched = 0
        self.reused = 0

    async def acquire(self, source: ServerSource, *, call_timeout: float) -> LiveServer:
        """A warm server for ``source`` if a healthy one is idle, else a newly launched one.

        Idle servers that are no longer `LiveServer.healthy` (a process died, or the state was
        closed while the server was out) are closed and skipped, never handed out.
        """
        idle = self._idle.get(source.key, [])
        while idle:
            live = idle.pop()
            if live.healthy:
                for part in live.parts:
                    part.connection.call_timeout = call_timeout
                self.reused += 1
                return live
            await live.close()
        self.launched += 1
        return await source.launch(call_timeout=call_timeout)

    async def release(self, live: LiveServer) -> None:
        """Give a server back; it stays warm unless the pool for its key is full or it is unhealthy.

        An unhealthy server (see `LiveServer.healthy`: a dead process, a closed state) is closed.
        """
        if live.closed:
            return
        idle = self._idle.setdefault(live.key, [])
        if len(idle) < self.max_idle and live.healthy:
            idle.append(live)
        else:
            await live.close()

    def idle_count(self, key: Hashable | None = None) -> int:
        """Idle servers (for one key, or in all)."""
        if key is not None:
            return len(self._idle.get(key, []))
        return sum(len(v) for v in self._idle.values())

    async def close(self) -> None:
        """Close every idle server."""
        servers = [s for group in self._idle.values() for s in group]
        self._idle.clear()
        for live in servers:
            with contextlib.suppress(Exception):
                await live.close()


_pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, ServerPool] = weakref.WeakKeyDictionary()


def get_pool() -> ServerPool:
    """The pool of the running event loop (servers are bound to the loop they started on)."""
    loop = asyncio.get_running_loop()
    pool = _pools.get(loop)
    if pool is None:
        pool = _pools[loop] = ServerPool()
    return pool


async def _close_pool_at_exit(loop: asyncio.AbstractEventLoop) -> None:
    """Stop the pooled servers of the sync API's loop when the interpreter exits."""
    pool = _pools.get(loop)
    if pool is not None:
        await pool.close()
    for connection in list(OPEN_CONNECTIONS):  # servers of environments never closed
        if connection.loop is loop:
            with contextlib.suppress(Exception):
                await connection.close()


def _after_fork_in_child() -> None:
    # The parent's servers belong to the parent: forget them without closing them.
    _pools.clear()


add_exit_hook(_close_pool_at_exit)
os.register_at_fork(after_in_child=_after_fork_in_child)
