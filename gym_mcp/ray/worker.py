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

__all__ = ["ENV_METHODS", "RolloutWorker", "make_env"]

ENV_METHODS = frozenset({"reset", "step", "render", "close"})
"""Methods a `RemoteEnv` calls on the worker's environment (its wrappers included)."""

CORE_METHODS = frozenset({"snapshot", "restore", "tools"})
"""What it calls on the unwrapped environment (gym-mcp's extras; wrappers don't forward them)."""


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
        """Call ``method`` of environment ``handle`` (``tools`` is read, not called)."""
        env = self._env(handle)
        if method in ENV_METHODS:
            result = getattr(env, method)(*args, **dict(kwargs or {}))
            if method == "close":
                del self._envs[handle]
            return result
        if method not in CORE_METHODS:
            raise ConfigError(f"a remote environment has no method {method!r}")
        attribute = getattr(env.unwrapped, method)
        return attribute if method == "tools" else attribute(*args, **dict(kwargs or {}))

    def fork(self, handle: int, n: int) -> list[int]:
        """``n`` forks of environment ``handle`` at its present point, held here; their handles."""
        return [self._hold(f) for f in self._env(handle).unwrapped.fork(n)]

    def held(self) -> int:
        """How many environments this worker holds."""
        return len(self._envs)

    # -- whole episodes for WorkerPool.map ---------------------------------------------------------

    def run(self, fn: Callable[[Any], Any], job: Any) -> Any:
        """``fn(job)``: one job (an episode with its policy) played here."""
        return fn(job)
