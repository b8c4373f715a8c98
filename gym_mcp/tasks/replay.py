"""Replaying a task's reference calls: the one loop that env, demo, synth and train share.

- `play` takes a list of actions through an environment from a task's initial state (a test's
  or a benchmark's scripted agent).
- `replay` plays a task's reference calls through an environment (``env.step``, as an agent
  would), stopping at the first call that fails, and reports the final state's fingerprint and
  the conversation. Synthesis verifies tasks with it, the demo computes its tasks' expected
  fingerprints, and the trainer builds its SFT conversations from it.
- `reference_fingerprint` computes the fingerprint a task's reference calls produce, on a second
  warm server (the environment does this for hand-written tasks that carry none; cached).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gym_mcp.tasks.task import Task

if TYPE_CHECKING:
    from gym_mcp.live.live_server import ServerSource
    from gym_mcp.live.warm_pool import ServerPool
    from gym_mcp.rewards.episode import CallRecord

__all__ = ["RETRIES", "TRANSIENT_MARKER", "Replay", "play", "reference_fingerprint", "replay", "shown_call"]


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


TRANSIENT_MARKER = "(transient)"
"""Every injected failure that goes away on retry says so (see `gym_mcp.wrappers`): retry the call."""
RETRIES = 3
"""How often `play` retries a call that failed transiently."""


def shown_call(call: Mapping[str, Any], injections: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``call`` under the names a perturbation shows the agent (renamed tools and parameters).

    Args:
        call: A call under the server's names (``{"name": ..., "arguments": {...}}``).
        injections: ``info["perturbations"]`` of a `gym_mcp.wrappers.Perturb` episode; its
            ``renamed_tool`` and ``renamed_param`` records are applied in the order they were made.
    """
    name, arguments = str(call.get("name", "")), dict(call.get("arguments") or {})
    for injection in injections:
        kind, original = injection.get("kind"), injection.get("original")
        if kind == "renamed_tool" and original == name:
            name = str(injection["shown"])
        elif kind == "renamed_param" and injection.get("tool") == name and original in arguments:
            arguments[str(injection["shown"])] = arguments.pop(str(original))
    return {**call, "name": name, "arguments": arguments}


def play(env: Any, task: Task, actions: Sequence[Any]) -> Replay:
    """Reset ``env`` to ``task`` and take ``actions``, one step each.

    Stops at the first call that fails or when the episode ends. Under a `Perturb` wrapper the
    calls go under the names shown, and a call that failed transiently is retried.

    Args:
        env: A gym-mcp environment (`MCPEnv`, or one wrapped by Gymnasium).
        task: The task (it need not be one of the environment's tasks).
        actions: Environment actions: calls, or text (a message to the user, or a final answer).

    Returns:
        The `Replay`: the fingerprint is the state's after the last action taken.
    """
    core = env.unwrapped.core
    _, info = env.reset(options={"task": task})
    renames = info.get("perturbations") or ()  # under a Perturb wrapper, the calls use the names shown
    failed = None
    for action in actions:
        if renames and isinstance(action, Mapping):
            action = shown_call(action, renames)
        calls_before = len(core.calls)
        observation, _, terminated, truncated, info = env.step(action)
        for _ in range(RETRIES):  # a failure that says it is transient is retried, as a careful agent does
            if not (str(observation).startswith("Error") and TRANSIENT_MARKER in str(observation)):
                break
            calls_before = len(core.calls)
            observation, _, terminated, truncated, info = env.step(action)
        if len(core.calls) > calls_before and core.calls[-1].status != "ok":
            failed = core.calls[-1]
            break
        if terminated or truncated:
            break
    return Replay(failed is None, core.state.fingerprint(), failed, info)


def replay(env: Any, task: Task, *, answer: str | None = None) -> Replay:
    """Reset ``env`` to ``task`` and play its reference calls, one step each (see `play`).

    In an environment with a simulated user it plays the task's reference dialogue instead
    (`Task.reference_dialogue`): its calls and its messages to the user.

    Args:
        env: A gym-mcp environment (`MCPEnv`, or one wrapped by Gymnasium).
        task: The task (it need not be one of the environment's tasks).
        answer: A final answer to give after the calls (ends the episode); None to stop after them.
            Not used for a dialogue, which has its own closing message.

    Returns:
        The `Replay`; the environment is left where the calls (or the answer) took it. The
        fingerprint is the state's after the calls.
    """
    if getattr(env.unwrapped.core, "user", None) is not None and task.reference_calls:
        return play(env, task, task.reference_dialogue())
    result = play(
        env, task, [{"name": c["name"], "arguments": dict(c.get("arguments", {}))} for c in task.reference_calls]
    )
    if answer is None or not result.ok:
        return result
    _, _, _, _, info = env.step(answer)
    return Replay(True, result.fingerprint, None, info)


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
