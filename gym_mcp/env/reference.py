"""`reference_fingerprint`: the state a task's reference calls produce, for tasks that carry none.

A hand-written task may give its reference calls without the fingerprint of the state they
lead to; the environment then replays them once on a second warm server (the episode's own
server is not touched) and judges the episode's final state against that.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from gym_mcp.live.live_server import ServerSource
from gym_mcp.live.warm_pool import ServerPool
from gym_mcp.tasks import Task

__all__ = ["reference_fingerprint"]

_FINGERPRINTS: dict[tuple[Any, ...], str] = {}


async def reference_fingerprint(
    task: Task, source: ServerSource, pool: ServerPool, route: Callable[[str], str] = str, *, call_timeout: float = 30.0
) -> str:
    """The fingerprint ``task``'s reference calls produce from its initial state.

    Replays the calls on a second warm server from ``pool`` (the caller's server is not
    touched), once per task, data seed and source; later calls are answered from a cache.

    Args:
        task: The task.
        source: The server source the task runs on.
        pool: Where the second server comes from (and goes back to).
        route: Maps a call's name (as the agent sees it) to the server's tool name.
        call_timeout: Seconds a call may take.
    """
    calls = json.dumps([dict(c) for c in task.reference_calls], sort_keys=True)
    key = (source.key, task.id, task.data_seed, calls)
    fingerprint = _FINGERPRINTS.get(key)
    if fingerprint is None:
        live = await pool.acquire(source, call_timeout=call_timeout)
        try:
            live.state.restore(source.initial_snapshot(task.data_seed))
            for call in task.reference_calls:
                await live.call_tool(route(str(call["name"])), dict(call.get("arguments", {})))
            fingerprint = live.state.fingerprint()
        finally:
            await pool.release(live)
        _FINGERPRINTS[key] = fingerprint
    return fingerprint
