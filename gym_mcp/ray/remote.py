"""`RemoteEnv`: an environment on a Ray worker, with the Gymnasium API.

``reset``, ``step``, ``render`` and ``close`` go to the worker's environment (its wrappers
included); ``snapshot``, ``restore``, ``fork`` and ``tools`` to the unwrapped one, as on a local
gym-mcp environment. Observations, rewards and infos are the worker's own, so an episode played
through a `RemoteEnv` is the episode a local environment plays (same seed, same actions: same
observations, rewards and final fingerprint).

Each call is one Ray round trip. The conversation (``info["messages"]``) travels as a delta, the
messages this side does not have yet, so a step costs the same early and late in an episode.
``step_async`` sends a step without waiting, so a loop over many environments (a GRPO group) can
step them side by side.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any, SupportsFloat

import gymnasium as gym

from gym_mcp.errors import DependencyMissing, WorkerLostError
from gym_mcp.ray.handles import WorkerHandle, Workers
from gym_mcp.ray.worker import MESSAGES_FROM

try:
    import ray
    from ray.exceptions import RayActorError
except ImportError as exc:  # pragma: no cover - the [ray] extra is missing
    raise DependencyMissing("gym_mcp.ray needs Ray: pip install 'gym-mcp[ray]'", extra="ray") from exc

__all__ = ["PendingStep", "RemoteEnv"]

StepResult = tuple[str, SupportsFloat, bool, bool, dict[str, Any]]


class PendingStep:
    """A step sent to a worker and not yet answered (see `RemoteEnv.step_async`)."""

    def __init__(self, env: RemoteEnv, ref: Any) -> None:
        self._env = env
        self._ref = ref

    def result(self) -> StepResult:
        """Wait for the step's result.

        Raises:
            WorkerLostError: The worker died (the episode is lost).
        """
        result: StepResult = self._env._get(self._ref)
        return result


class RemoteEnv(gym.Env[str, Any]):
    """An environment held by a `RolloutWorker` (make one with `WorkerPool.make`).

    Args:
        pool: The worker pool.
        env_id: A registered environment id.
        kwargs: ``gym.make`` options (they must pickle).
        perturb: A perturbation mix applied on the worker.
        perturb_seed: The mix's seed.
        worker: The worker to hold it (default: the pool's next, round robin).
        handle: An environment the worker holds already (a fork), instead of making one.
        spaces: Its observation and action spaces (with ``handle``).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        pool: Workers,
        env_id: str,
        kwargs: Mapping[str, Any],
        *,
        perturb: Any = None,
        perturb_seed: int | None = None,
        worker: WorkerHandle | None = None,
        handle: int | None = None,
        spaces: tuple[Any, Any] | None = None,
    ) -> None:
        self.pool = pool
        self.env_id = env_id
        self._kwargs = dict(kwargs)
        self._perturb = perturb
        self._perturb_seed = perturb_seed
        self.render_mode = self._kwargs.get("render_mode")
        self._handle: int | None = None
        self._messages: list[Any] = []  # the conversation so far (the worker sends only what is new)
        self._tools: list[dict[str, Any]] | None = None  # the latest tools (sent only when they change)
        if handle is not None and worker is not None and spaces is not None:
            self._worker = worker
            self._handle = handle
            self.observation_space, self.action_space = spaces
        else:
            self._place(worker)

    def _place(self, worker: WorkerHandle | None = None) -> None:
        """Make the environment on ``worker`` (or the pool's next live one)."""
        while True:
            self._worker = worker if worker is not None and worker.alive else self.pool.next_worker()
            ref = self._worker.actor.make.remote(self.env_id, self._kwargs, self._perturb, self._perturb_seed)
            try:
                self._handle, self.observation_space, self.action_space = ray.get(ref)
                return
            except RayActorError as exc:  # it died before it could hold anything: try a live one
                self.pool.worker_died(self._worker, exc)
                worker = None

    @property
    def worker(self) -> dict[str, Any]:
        """The worker that holds this environment: index, pid and host."""
        return dict(self._worker.info)

    def _send(self, method: str, *args: Any, **kwargs: Any) -> Any:
        if not self._worker.alive or self._handle is None:
            raise WorkerLostError(
                f"the worker that held this {self.env_id} environment died; reset() moves it to a live worker"
            )
        return self._worker.actor.call.remote(self._handle, method, args, kwargs)

    def _get(self, ref: Any) -> Any:
        try:
            result = ray.get(ref)
        except RayActorError as exc:
            self.pool.worker_died(self._worker, exc)
            self._handle = None
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise WorkerLostError(f"rollout worker {self._worker.index} died: the episode is lost ({first})") from exc
        if isinstance(result, tuple) and result and isinstance(result[-1], dict) and MESSAGES_FROM in result[-1]:
            result = (*result[:-1], self._merge(result[-1]))
        return result

    def _merge(self, info: dict[str, Any]) -> dict[str, Any]:
        """Rebuild ``info["messages"]`` from the worker's delta and the conversation held here."""
        start, new, tools = info.pop(MESSAGES_FROM)
        del self._messages[start:]
        self._messages.extend(new)
        info["messages"] = list(self._messages)
        if tools is not None:
            self._tools = tools
        if self._tools is not None:
            info["tools"] = self._tools
        return info

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        return self._get(self._send(method, *args, **kwargs))

    # -- the Gymnasium API -------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Start an episode on the worker (on a live one when this one's worker died)."""
        super().reset(seed=seed)
        if not self._worker.alive or self._handle is None:
            self._place()
        result: tuple[str, dict[str, Any]] = self._call("reset", seed=seed, options=options)
        return result

    def step(self, action: Any) -> StepResult:
        """One action, played on the worker.

        Raises:
            WorkerLostError: The worker died (the episode is lost; ``reset`` starts a new one).
        """
        result: StepResult = self._call("step", action)
        return result

    def step_async(self, action: Any) -> PendingStep:
        """Send a step and return at once; ``.result()`` waits for it."""
        return PendingStep(self, self._send("step", action))

    def render(self) -> Any:
        """The worker environment's render."""
        return self._call("render")

    def close(self) -> None:
        """Close the environment on the worker (its server goes back to the worker's warm pool)."""
        if self._handle is None or not self._worker.alive:
            self._handle = None
            return
        with contextlib.suppress(WorkerLostError):  # a dead worker leaves nothing to close
            self._call("close")
        self._handle = None

    # -- gym-mcp extras ----------------------------------------------------------------------------

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The agent's tools in OpenAI function format."""
        tools: list[dict[str, Any]] = self._call("tools")
        return tools

    def snapshot(self) -> Any:
        """The whole episode now (an `EpisodeSnapshot`; it pickles, so it can go to another worker)."""
        return self._call("snapshot")

    def restore(self, snap: Any) -> None:
        """Continue from an episode snapshot (taken here or on any worker of the same server)."""
        self._call("restore", snap)

    def fork(self, n: int) -> list[RemoteEnv]:
        """``n`` independent environments at exactly this point of the episode, on the same worker."""
        if not self._worker.alive or self._handle is None:
            raise WorkerLostError(f"the worker that held this {self.env_id} environment died")
        handles: list[int] = self._get(self._worker.actor.fork.remote(self._handle, n))
        spaces = (self.observation_space, self.action_space)
        forks = [
            RemoteEnv(self.pool, self.env_id, self._kwargs, worker=self._worker, handle=h, spaces=spaces)
            for h in handles
        ]
        for fork in forks:
            fork._messages = list(self._messages)
            fork._tools = self._tools
        return forks
