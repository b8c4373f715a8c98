"""The Ray actor that holds environments and plays episodes: `RolloutWorker`.

A worker is one process (one Ray actor) with warm servers in its own `ServerPool`. It holds
environments by handle (an integer) for `RemoteEnv`, and runs whole episodes for
`WorkerPool.map`. Nothing here is Ray-specific but the process it runs in: the class is a plain
class that `WorkerPool` turns into an actor with ``ray.remote``.
"""

from __future__ import annotations

import itertools
import os
import socket
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium as gym

from gym_mcp.errors import ConfigError

__all__ = ["ENV_METHODS", "MESSAGES_FROM", "RolloutWorker", "make_env"]

ENV_METHODS = frozenset({"reset", "step", "render", "close"})
"""Methods a `RemoteEnv` calls on the worker's environment (its wrappers included)."""

CORE_METHODS = frozenset({"snapshot", "restore", "tools"})
"""What it calls on the unwrapped environment (gym-mcp's extras; wrappers don't forward them)."""

MESSAGES_FROM = "_messages_from"
"""The info key that carries a delta, ``(start, new messages, tools or None when unchanged)``,
in place of ``messages`` and ``tools``."""


def make_env(env_id: str, kwargs: Mapping[str, Any], perturb: Any = None, perturb_seed: int | None = None) -> Any:
    """``gym.make(env_id, **kwargs)``, under a `Perturb` wrapper when ``perturb`` is a mix."""
    env = gym.make(env_id, **dict(kwargs))
    if perturb is None:
        return env
    from gym_mcp.wrappers.perturb import Perturb

    return Perturb(env, perturb, seed=perturb_seed or 0)


class RolloutWorker:
    """Environments and episodes on one worker process (a Ray actor; see `WorkerPool`).

    Args:
        index: The worker's number in its pool (for reports).
        warm: ``(env_id, kwargs)`` pairs to start a server for now, so the first episode of
            each finds one warm in the worker's server pool.
    """

    def __init__(self, index: int, warm: Sequence[tuple[str, Mapping[str, Any]]] = ()) -> None:
        self.index = index
        self._envs: dict[int, Any] = {}
        self._sent: dict[int, int] = {}  # per environment, how many messages its caller has
        self._tools: dict[int, Any] = {}  # per environment, the tools its caller has
        self._handles = itertools.count()
        for env_id, kwargs in warm:
            env = make_env(env_id, kwargs)
            env.reset(seed=0)
            env.close()  # its server goes back to the warm pool

    def describe(self) -> dict[str, Any]:
        """Where this worker runs: its index, process id and host."""
        return {"worker": self.index, "pid": os.getpid(), "host": socket.gethostname()}

    # -- environments held for RemoteEnv -----------------------------------------------------------

    def make(
        self, env_id: str, kwargs: Mapping[str, Any], perturb: Any = None, perturb_seed: int | None = None
    ) -> tuple[int, Any, Any]:
        """Make an environment; returns its handle and its observation and action spaces."""
        env = make_env(env_id, kwargs, perturb, perturb_seed)
        return self._hold(env), env.observation_space, env.action_space

    def _hold(self, env: Any) -> int:
        handle = next(self._handles)
        self._envs[handle] = env
        return handle

    def _env(self, handle: int) -> Any:
        env = self._envs.get(handle)
        if env is None:
            raise ConfigError(f"worker {self.index} holds no environment {handle} (closed already?)")
        return env

    def call(self, handle: int, method: str, args: Sequence[Any] = (), kwargs: Mapping[str, Any] | None = None) -> Any:
        """Call ``method`` of environment ``handle`` (``tools`` is read, not called).

        ``reset`` and ``step`` return their info with the conversation as a delta (see
        `MESSAGES_FROM`): the messages the caller does not have yet, not all of them, so a step
        costs the same at the start of an episode and a thousand messages in.
        """
        env = self._env(handle)
        if method in ENV_METHODS:
            result = getattr(env, method)(*args, **dict(kwargs or {}))
            if method == "close":
                del self._envs[handle]
                self._sent.pop(handle, None)
                self._tools.pop(handle, None)
            elif method == "reset":
                self._sent[handle] = 0
                self._tools.pop(handle, None)
                result = (result[0], self._delta(handle, result[1]))
            elif method == "step":
                result = (*result[:4], self._delta(handle, result[4]))
            return result
        if method not in CORE_METHODS:
            raise ConfigError(f"a remote environment has no method {method!r}")
        attribute = getattr(env.unwrapped, method)
        if method == "tools":
            return attribute
        if method == "restore":
            self._sent[handle] = 0  # the conversation changed wholesale: send it all next time
        return attribute(*args, **dict(kwargs or {}))

    def _delta(self, handle: int, info: Mapping[str, Any]) -> dict[str, Any]:
        """``info`` with its ``messages`` cut to those after the ones already sent for ``handle``.

        Its ``tools`` go only when they differ from the last ones sent (they rarely change
        within an episode, and they are the biggest part of an info).
        """
        out = dict(info)
        messages = out.pop("messages", None)
        if messages is None:
            return out
        start = self._sent.get(handle, 0)
        if start > len(messages):
            start = 0
        tools = out.pop("tools", None)
        same = tools is not None and self._tools.get(handle) == tools
        if tools is not None:
            self._tools[handle] = tools
        out[MESSAGES_FROM] = (start, list(messages[start:]), None if same else tools)
        self._sent[handle] = len(messages)
        return out

    def fork(self, handle: int, n: int) -> list[int]:
        """``n`` forks of environment ``handle`` at its present point, held here; their handles."""
        handles = [self._hold(f) for f in self._env(handle).unwrapped.fork(n)]
        for h in handles:  # a fork's caller starts from the parent's conversation and tools
            self._sent[h] = self._sent.get(handle, 0)
            if handle in self._tools:
                self._tools[h] = self._tools[handle]
        return handles

    def held(self) -> int:
        """How many environments this worker holds."""
        return len(self._envs)

    # -- whole episodes for WorkerPool.map ---------------------------------------------------------

    def run(self, fn: Callable[[Any], Any], job: Any) -> Any:
        """``fn(job)``: one job (an episode with its policy) played here."""
        return fn(job)
