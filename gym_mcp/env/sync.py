"""The Gymnasium face of an async episode core: `SyncEnv`.

Gymnasium's API is synchronous; an environment's core (`EpisodeCore`) is async so that many
episodes can run in one event loop. `SyncEnv` runs the core's coroutines on gym-mcp's
background loop (`run_sync`), so ``reset``, ``step``, ``snapshot``, ``restore`` and ``fork``
are plain calls.
"""

from __future__ import annotations

from typing import Any, Generic, Self, SupportsFloat, TypeVar

import gymnasium as gym

from gym_mcp.env.core import EpisodeCore, EpisodeSnapshot
from gym_mcp.env.spaces import UnicodeText
from gym_mcp.episode import Episode
from gym_mcp.errors import ConfigError
from gym_mcp.live.live_server import LiveServer
from gym_mcp.transport.runner import run_sync

__all__ = ["SyncEnv"]

CoreT = TypeVar("CoreT", bound=EpisodeCore)


class SyncEnv(gym.Env[str, Any], Generic[CoreT]):
    """A Gymnasium environment driven by an async `EpisodeCore` (``self.core``).

    Subclasses build their core in ``__init__`` and call `_attach`.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}
    core: CoreT
    render_mode: str | None

    def _attach(self, core: CoreT, render_mode: str | None, max_observation_chars: int, max_action_chars: int) -> None:
        """Hold ``core`` and declare the text spaces."""
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.core = core
        self.render_mode = render_mode
        self.observation_space = UnicodeText(max_observation_chars)
        self.action_space = UnicodeText(max_action_chars)

    def _sizes(self) -> tuple[int, int]:
        observation = self.observation_space
        action = self.action_space
        assert isinstance(observation, UnicodeText)
        assert isinstance(action, UnicodeText)
        return observation.max_length, action.max_length

    def _wrap(self, core: CoreT) -> Self:
        """Another environment of this class over ``core`` (a fork)."""
        env = type(self).__new__(type(self))
        env._attach(core, self.render_mode, *self._sizes())
        env._np_random = core.np_random
        return env

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Start an episode and return its first observation and info.

        The episode's task is the one ``options`` names (``{"task_id": id}``, ``{"task_index": i}``
        into the env's ``tasks``, and what each env adds: ``{"task": Task}`` for MCP envs,
        ``{"entry": id}`` for BFCL); else, with ``task_order="sequential"``, the next task in
        order (wrapping around after the last); else a draw from the env's generator
        ``np_random``.

        Args:
            seed: Reseeds ``np_random`` (as in Gymnasium): ``reset(seed=s)`` draws the same task
                every time and plain ``reset()`` calls continue the generator. It does not move
                the sequential order.
            options: Chooses the task (see above); at most one of ``task``, ``task_id`` and
                ``task_index``.

        Returns:
            The first observation and the info dict (``task_id``, ``tools``, ``messages``, counters).

        Raises:
            TaskError: An unknown task id, a ``task_index`` that is not an int in range, or
                several options that each choose the task.
        """
        super().reset(seed=seed)
        result: tuple[str, dict[str, Any]] = run_sync(self.core.reset(options=options, rng=self.np_random))
        return result

    def step(self, action: Any) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        """Run one action (see the core's ``step``)."""
        result: tuple[str, SupportsFloat, bool, bool, dict[str, Any]] = run_sync(self.core.step(action))  # type: ignore[attr-defined]
        return result

    # -- the async face: the same calls as coroutines, for code that runs on gym-mcp's loop ------
    # (not ``step_async``: in Gymnasium and in `gym_mcp.ray.RemoteEnv` that name sends a step
    # without waiting and returns a handle)

    async def areset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """`reset` as a coroutine, awaited on gym-mcp's own event loop.

        A server that runs many episodes side by side (``gym-mcp serve-openenv``) awaits
        episodes on that loop (`gym_mcp.transport.runner.LoopRunner.pin`) so that one episode's
        tool call runs while another's waits; anywhere else, use `reset`.
        """
        super().reset(seed=seed)
        result: tuple[str, dict[str, Any]] = await self.core.reset(options=options, rng=self.np_random)
        return result

    async def astep(self, action: Any) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        """`step` as a coroutine, awaited on gym-mcp's own event loop (see `areset`)."""
        result: tuple[str, SupportsFloat, bool, bool, dict[str, Any]] = await self.core.step(action)  # type: ignore[attr-defined]
        return result

    async def asnapshot(self) -> EpisodeSnapshot:
        """`snapshot` as a coroutine on gym-mcp's own loop."""
        return await self.core.snapshot()

    async def arestore(self, snap: EpisodeSnapshot) -> None:
        """`restore` as a coroutine on gym-mcp's own loop."""
        await self.core.restore(snap)
        self._np_random = self.core.np_random

    def render(self) -> str | None:
        """The conversation so far as text (``render_mode="ansi"``)."""
        if self.render_mode != "ansi":
            return None
        lines = []
        for m in self.core.messages:
            content = m.get("content") or ""
            if m.get("tool_calls"):
                calls = ", ".join(f"{c['function']['name']}({c['function']['arguments']})" for c in m["tool_calls"])
                content = (content + " " if content else "") + f"-> {calls}"
            lines.append(f"{m['role']}: {content}")
        return "\n".join(lines)

    def close(self) -> None:
        """Give the server back to the warm pool."""
        core = getattr(self, "core", None)
        if core is not None and core.live is not None:
            run_sync(core.close())

    # -- gym-mcp extras ----------------------------------------------------------------------------

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The agent's tools in OpenAI function format."""
        tools: list[dict[str, Any]] = self.core.tools  # type: ignore[attr-defined]
        return tools

    @property
    def live(self) -> LiveServer | None:
        """The warm server this environment holds (its connection and state), or None before one is taken."""
        return self.core.live

    @property
    def counters(self) -> dict[str, int]:
        """This episode's counters as ``info`` reports them (``num_calls``, ``invalid_calls``, ..., ``step``)."""
        return {**self.core.counters, "step": self.core.steps}

    def episode(self) -> Episode:
        """The episode so far, as reward functions see it (the finished `Episode` once it ended).

        Its ``calls`` are every attempted call's `CallRecord`, ``terminated``/``truncated`` say
        how it ended (both False while it runs), ``limits`` which limits it reached.
        """
        return self.core.episode()

    def snapshot(self) -> EpisodeSnapshot:
        """The whole episode now: server state + conversation + counters + RNG and task order position."""
        return run_sync(self.core.snapshot())

    def restore(self, snap: EpisodeSnapshot) -> None:
        """Continue from an episode snapshot."""
        run_sync(self.core.restore(snap))
        self._np_random = self.core.np_random

    def fork(self, n: int) -> list[Self]:
        """``n`` independent environments at exactly this point of the episode."""
        return [self._wrap(c) for c in run_sync(self.core.fork(n))]
