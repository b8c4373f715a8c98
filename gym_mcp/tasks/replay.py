"""Replaying a task's reference calls: the one loop that env, demo, synth and train share.

- `replay` plays a task's reference calls through an environment (``env.step``, as an agent
  would), stopping at the first call that fails, and reports the final state's fingerprint and
  the conversation. Synthesis verifies tasks with it, the demo computes its tasks' expected
  fingerprints, and the trainer builds its SFT conversations from it.
- `reference_fingerprint` computes the fingerprint a task's reference calls produce, on a second
  warm server (the environment does this for hand-written tasks that carry none; cached).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gym_mcp.tasks.task import Task

if TYPE_CHECKING:
    from gym_mcp.live.pool import ServerPool
    from gym_mcp.live.server import ServerSource
    from gym_mcp.rewards.episode import CallRecord

__all__ = ["Replay", "reference_fingerprint", "replay"]


@dataclass(frozen=True)
class Replay:
    """What replaying a task's reference calls gave.

    Attributes:
        ok: Every call ran without error.
        fingerprint: The state's fingerprint after the calls (after the failing one, if any).
        failed: The record of the first call that failed, or None.
        info: The ``info`` of the last step (``messages``, ``tools``, counters...).
    """

    ok: bool
    fingerprint: str
    failed: CallRecord | None
    info: Mapping[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The conversation as the agent saw it."""
        return list(self.info["messages"])


def replay(env: Any, task: Task, *, answer: str | None = None) -> Replay:
    """Reset ``env`` to ``task`` and play its reference calls, one step each.

    In an environment with a simulated user it plays the task's reference dialogue instead
    (`Task.reference_dialogue`): its calls and its messages to the user, each a step, stopping
    at the first call that fails or when the episode ends.

    Args:
        env: A gym-mcp environment (`MCPEnv`, or one wrapped by Gymnasium).
        task: The task (it need not be one of the environment's tasks).
        answer: A final answer to give after the calls (ends the episode); None to stop after them.

    Returns:
        The `Replay`; the environment is left where the calls (or the answer) took it.
    """
    core = env.unwrapped.core
    _, info = env.reset(options={"task": task})
    failed = None
    if getattr(core, "user", None) is not None and task.reference_calls:
        ended = False
        for turn in task.reference_dialogue():
            if "say" in turn:
                _, _, terminated, truncated, info = env.step(str(turn["say"]))
                ended = terminated or truncated
            else:
                _, _, terminated, truncated, info = env.step(
                    {"name": turn["name"], "arguments": dict(turn.get("arguments", {}))}
                )
                ended = terminated or truncated
                if core.calls[-1].status != "ok":
                    failed = core.calls[-1]
                    break
            if ended:
                break
        return Replay(failed is None, core.state.fingerprint(), failed, info)
    for call in task.reference_calls:
        _, _, _, _, info = env.step({"name": call["name"], "arguments": dict(call.get("arguments", {}))})
        record = core.calls[-1]
        if record.status != "ok":
            failed = record
            break
    fingerprint = core.state.fingerprint()
    if answer is not None and failed is None:
        _, _, _, _, info = env.step(answer)
    return Replay(failed is None, fingerprint, failed, info)


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
