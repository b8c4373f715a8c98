"""Playing a task through an environment: the one loop that the demo, synthesis and training share.

- `play` takes a list of actions through an environment from a task's initial state (a test's
  or a benchmark's scripted agent).
- `replay` plays a task's reference calls through an environment (``env.step``, as an agent
  would), stopping at the first call that fails, and reports the final state's fingerprint and
  the conversation. Synthesis verifies tasks with it, the demo computes its tasks' expected
  fingerprints, and the trainer builds its SFT conversations from it.

Both drive an environment through its public API only: ``reset``/``step`` (through any
wrappers, e.g. `gym_mcp.wrappers.Perturb`), the step's own records in ``info["calls"]`` and the
state of ``env.unwrapped``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

from gym_mcp.env.mcp import MCPEnv
from gym_mcp.episode import CallRecord, shown_call
from gym_mcp.errors import ConfigError
from gym_mcp.tasks import Task
from gym_mcp.tasks.flows import carried, decoded

__all__ = ["RETRIES", "Replay", "play", "replay"]

RETRIES = 3
"""How often `play` retries a call that failed transiently (`CallRecord.transient`)."""


@dataclass(frozen=True)
class Replay:
    """What replaying a task's reference calls gave.

    Attributes:
        ok: Every call ran without error.
        fingerprint: The state's fingerprint after the calls (after the failing one, if any).
        failed: The record of the first call that failed, or None.
        info: The ``info`` of the last step (``messages``, ``tools``, ``calls``, counters...).
    """

    ok: bool
    fingerprint: str
    failed: CallRecord | None
    info: Mapping[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The conversation as the agent saw it."""
        return list(self.info["messages"])


def _mcp_env(env: gym.Env[Any, Any]) -> MCPEnv:
    inner = env.unwrapped
    if not isinstance(inner, MCPEnv):
        raise ConfigError(f"play and replay drive gym-mcp environments over MCP servers, got {type(inner).__name__}")
    return inner


def play(
    env: gym.Env[Any, Any], task: Task, actions: Sequence[Any], *, flows: Sequence[Mapping[str, Any]] = ()
) -> Replay:
    """Reset ``env`` to ``task`` and take ``actions``, one step each.

    Stops at the first call that fails or when the episode ends. Under a `Perturb` wrapper the
    calls go under the names shown, and a call that failed transiently is retried.

    Args:
        env: A gym-mcp environment over MCP servers (`MCPEnv`, or one wrapped by Gymnasium).
        task: The task (it need not be one of the environment's tasks).
        actions: Environment actions: calls, or text (a message to the user, or a final answer).
        flows: Values carried from one call's output into a later call's argument (see
            `gym_mcp.tasks.flows`), by action index: for reference calls, one action per call.

    Returns:
        The `Replay`: the fingerprint is the state's after the last action taken.

    Raises:
        ConfigError: ``env`` is not an environment over MCP servers.
    """
    inner = _mcp_env(env)
    _, info = env.reset(options={"task": task})
    renames = info.get("perturbations") or ()  # under a Perturb wrapper, the calls use the names shown
    failed = None
    outputs: list[Any] = []
    for i, action in enumerate(actions):
        if flows and isinstance(action, Mapping):  # a value minted this run, not the recorded one
            action = carried(action, i, flows, outputs)
        if renames and isinstance(action, Mapping):
            action = shown_call(action, renames)
        _, _, terminated, truncated, info = env.step(action)
        for _ in range(RETRIES):  # a failure that says it is transient is retried, as a careful agent does
            if not (info["calls"] and info["calls"][-1].transient):
                break
            _, _, terminated, truncated, info = env.step(action)
        if info["calls"] and not info["calls"][-1].ok:
            failed = info["calls"][-1]
            break
        if flows:
            outputs.append(decoded(info["calls"][-1].output) if info["calls"] else None)
        if terminated or truncated:
            break
    return Replay(failed is None, inner.state.fingerprint(), failed, info)


def replay(env: gym.Env[Any, Any], task: Task, *, answer: str | None = None) -> Replay:
    """Reset ``env`` to ``task`` and play its reference calls, one step each (see `play`).

    In an environment with a simulated user it plays the task's reference dialogue instead
    (`Task.reference_dialogue`): its calls and its messages to the user. A task's
    ``metadata["flows"]`` are followed: a value an earlier call minted on this run (a new note's
    id) is passed, not the one recorded (not yet in a reference dialogue).

    Args:
        env: A gym-mcp environment over MCP servers (`MCPEnv`, or one wrapped by Gymnasium).
        task: The task (it need not be one of the environment's tasks).
        answer: A final answer to give after the calls (ends the episode); None to stop after them.
            Not used for a dialogue, which has its own closing message.

    Returns:
        The `Replay`; the environment is left where the calls (or the answer) took it. The
        fingerprint is the state's after the calls.

    Raises:
        ConfigError: ``env`` is not an environment over MCP servers.
    """
    if _mcp_env(env).user is not None and task.reference_calls:
        return play(env, task, task.reference_dialogue())
    result = play(
        env,
        task,
        [{"name": c["name"], "arguments": dict(c.get("arguments", {}))} for c in task.reference_calls],
        flows=task.metadata.get("flows", ()),
    )
    if answer is None or not result.ok:
        return result
    _, _, _, _, info = env.step(answer)
    return Replay(True, result.fingerprint, None, info)
