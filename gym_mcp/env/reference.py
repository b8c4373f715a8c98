"""`reference_fingerprint`: the state a task's reference calls produce, for tasks that carry none.

A hand-written task may give its reference calls without the fingerprint of the state they
lead to; the environment then replays them on a second warm server (the episode's own server is
not touched) and judges the episode's final state against that.

It replays them *twice*, each time from a fresh copy of the initial state, because one replay
proves nothing about a server that mints values: a new note's random id or a ``created_at`` of
``now()`` make every run's state different, and an episode judged against one replay's
fingerprint would score 0 whatever the agent did. When the two replays disagree, the parts they
disagree on (`StateBackend.differing`: table columns, JSON keys, files) are judged as volatile for
this task, and one `NondeterministicTaskWarning` names the task, the parts and the spec lines
that declare them. A value an earlier call minted and a later call takes flows as the task's
``metadata["flows"]`` say (`gym_mcp.tasks.flows`).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gym_mcp.errors import NondeterministicTaskWarning
from gym_mcp.live.live_server import LiveServer, ServerSource
from gym_mcp.live.warm_pool import ServerPool
from gym_mcp.state import Snapshot
from gym_mcp.tasks import Task
from gym_mcp.tasks.flows import carried, decoded

__all__ = ["ReferenceState", "reference_fingerprint", "reference_state"]


@dataclass(frozen=True)
class ReferenceState:
    """What a task's reference calls reach, replayed twice.

    Attributes:
        fingerprint: The expected fingerprint (with ``volatile`` left out, when there is any).
        volatile: ``{state group: fields}`` the two replays disagreed on (empty: they agreed).
    """

    fingerprint: str
    volatile: dict[str, tuple[str, ...]] = field(default_factory=dict)


_STATES: dict[tuple[Any, ...], ReferenceState] = {}


async def _play(
    live: LiveServer, task: Task, source: ServerSource, route: Callable[[str], str], initial: Snapshot
) -> Snapshot:
    """Restore ``initial``, send the reference calls (minted values carried), snapshot the end."""
    live.state.restore(initial)
    flows = task.metadata.get("flows", ())
    outputs: list[Any] = []
    for i, call in enumerate(task.reference_calls):
        sent = carried(call, i, flows, outputs) if flows else call
        result = await live.call_tool(route(str(sent["name"])), dict(sent.get("arguments", {})))
        outputs.append(decoded(result.text) if flows else None)
    return live.state.snapshot()


async def reference_state(
    task: Task, source: ServerSource, pool: ServerPool, route: Callable[[str], str] = str, *, call_timeout: float = 30.0
) -> ReferenceState:
    """The state ``task``'s reference calls reach from its initial state, replayed twice.

    Replays the calls on a second warm server from ``pool`` (the caller's server is not
    touched), twice from fresh copies of the initial state, once per task, data seed and source;
    later calls are answered from a cache (so the warning below comes once per task).

    Args:
        task: The task.
        source: The server source the task runs on.
        pool: Where the second server comes from (and goes back to).
        route: Maps a call's name (as the agent sees it) to the server's tool name.
        call_timeout: Seconds a call may take.

    Returns:
        The expected fingerprint and the parts the two replays disagreed on.

    Warns:
        NondeterministicTaskWarning: The two replays reached different states.
    """
    calls = json.dumps([dict(c) for c in task.reference_calls], sort_keys=True)
    flows = json.dumps(task.metadata.get("flows", ()), sort_keys=True)
    key = (source.key, task.id, task.data_seed, calls, flows)
    found = _STATES.get(key)
    if found is not None:
        return found
    live = await pool.acquire(source, call_timeout=call_timeout)
    try:
        initial = source.initial_snapshot(task.data_seed)
        first = await _play(live, task, source, route, initial)
        second = await _play(live, task, source, route, initial)
        fields, fingerprint = live.state.reconcile(first, second)
        lines = live.state.spec_lines(fields) if fields else []
        # agreeing replays give the shared fingerprint; parts that cannot be left out, the first's
        judged = fingerprint or live.state.fingerprint_of(first)
    finally:
        await pool.release(live)
    found = ReferenceState(judged, fields if fingerprint is not None else {})
    _STATES[key] = found
    if fields:
        where = "; ".join(f"{group}: {', '.join(f) or '(whole group)'}" for group, f in sorted(fields.items()))
        how = (
            "judged with those left out; declare them in the server's spec under [state]: " + " ".join(lines)
            if fingerprint is not None
            else "leaving them out does not make the two agree, so it is judged against the first replay's state"
        )
        warnings.warn(
            f"task {task.id!r} on {source.name!r}: its reference calls, replayed twice from the same initial state, "
            f"reached different states ({where}); {how}",
            NondeterministicTaskWarning,
            stacklevel=2,
        )
    return found


async def reference_fingerprint(
    task: Task, source: ServerSource, pool: ServerPool, route: Callable[[str], str] = str, *, call_timeout: float = 30.0
) -> str:
    """The fingerprint ``task``'s reference calls produce from its initial state (see `reference_state`)."""
    return (await reference_state(task, source, pool, route, call_timeout=call_timeout)).fingerprint
