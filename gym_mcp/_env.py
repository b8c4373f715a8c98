"""The environments: `AsyncMCPEnv` (the async core) and `MCPEnv` (the Gymnasium env).

One episode: ``reset`` restores the task's initial state into a warm server and returns the
instruction; each ``step`` takes tool calls (structured or as model text), runs them on the
live server and returns their results; a text with no call is the final answer and ends the
episode; the reward is computed from the finished episode.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium.utils import seeding
from mcp.types import Tool

from gym_mcp._live import BundledSource, LiveServer, ServerPool, ServerSource, Transport, get_pool
from gym_mcp._runner import run_sync
from gym_mcp._schema import check_arguments, openai_tools
from gym_mcp._spaces import UnicodeText
from gym_mcp._state import Snapshot, StateBackend
from gym_mcp.errors import ConfigError, TaskError
from gym_mcp.parsing import ParsedAction, Parser, ToolCall, auto_parser, parse_action
from gym_mcp.rewards import CallRecord, Episode, RewardFn, state_match
from gym_mcp.tasks import Task, load_tasks

__all__ = ["AsyncMCPEnv", "CoreDrivenEnv", "EnvConfig", "EpisodeSnapshot", "MCPEnv", "TaskSource"]

TaskSource = str | os.PathLike[str] | Sequence[Task] | Sequence[Mapping[str, Any]] | None
"""Where an environment's tasks come from: a JSONL path, tasks, task dicts, or None (free play)."""


@dataclass(frozen=True)
class EnvConfig:
    """Settings of an environment (all have defaults).

    Attributes:
        max_steps: Steps before the episode is truncated.
        call_timeout: Seconds a tool call may take.
        max_action_chars: Longest action accepted (longer ones are an error observation).
        max_observation_chars: Longest observation; longer tool output is cut with a note.
        max_calls_per_step: Most calls one action may make.
    """

    max_steps: int = 20
    call_timeout: float = 30.0
    max_action_chars: int = 32_000
    max_observation_chars: int = 16_000
    max_calls_per_step: int = 8

    def __post_init__(self) -> None:
        if self.max_steps < 1:
            raise ConfigError(f"max_steps must be at least 1, got {self.max_steps}")
        if self.call_timeout <= 0:
            raise ConfigError(f"call_timeout must be positive, got {self.call_timeout}")
        if self.max_observation_chars < 256 or self.max_action_chars < 256:
            raise ConfigError("max_observation_chars and max_action_chars must be at least 256")


@dataclass(frozen=True)
class EpisodeSnapshot:
    """A whole episode at one point: server state, conversation, counters and RNG.

    Restoring it (into the same or another environment of the same server) continues the
    episode exactly from there.
    """

    state: Snapshot
    task: Task
    messages: tuple[Mapping[str, Any], ...]
    calls: tuple[CallRecord, ...]
    counters: Mapping[str, int]
    steps: int
    done: bool
    final_answer: str | None
    initial_fingerprint: str
    rng_state: Mapping[str, Any] | None = field(default=None, repr=False)


def _default_task(server: str) -> Task:
    return Task(
        id=f"{server}-free-play",
        server=server,
        instruction=(
            f"You are connected to the {server} service through its tools. Explore it and answer "
            "with a short summary of what you found."
        ),
    )


def _coerce_tasks(tasks: TaskSource, server: str) -> list[Task]:
    if tasks is None:
        return [_default_task(server)]
    if isinstance(tasks, str | os.PathLike):
        return load_tasks(tasks)
    out = [t if isinstance(t, Task) else Task.from_dict(t) for t in tasks]
    if not out:
        raise TaskError("the task list is empty")
    return out


def episode_rng(
    current: np.random.Generator, *, seed: int | None, rng: np.random.Generator | None
) -> np.random.Generator:
    """The generator an episode draws from: the one passed in, a new one from ``seed``, or ``current``."""
    if rng is not None:
        return rng
    return seeding.np_random(seed)[0] if seed is not None else current


def rng_from_state(state: Mapping[str, Any]) -> np.random.Generator:
    """A generator continuing exactly from a saved ``bit_generator.state``."""
    rng = np.random.Generator(np.random.PCG64())
    rng.bit_generator.state = copy.deepcopy(dict(state))
    return rng


def reject_action(
    parsed: ParsedAction, messages: list[dict[str, Any]], calls: list[CallRecord], counters: dict[str, int], step: int
) -> str:
    """Log an action that tried to call tools but could not be read; returns the error observation."""
    counters["invalid_calls"] += len(parsed.errors)
    text = "Error: " + "; ".join(parsed.errors)
    messages.append({"role": "assistant", "content": parsed.text or None})
    messages.append({"role": "user", "content": text})
    for err in parsed.errors:
        calls.append(CallRecord("", None, f"Error: {err}", "invalid", step))
    return text


_REFERENCE_FINGERPRINTS: dict[tuple[str, int, str], str] = {}


def _reward_terms(reward_fn: RewardFn, episode: Episode) -> dict[str, float]:
    """Every reward term of a finished episode (the reward function's own, if it reports them)."""
    own = getattr(reward_fn, "terms", None)
    if callable(own):
        return dict(own(episode))
    from gym_mcp import rewards

    all_terms = getattr(rewards, "all_terms", None)
    return dict(all_terms(episode)) if callable(all_terms) else {}


class AsyncMCPEnv:
    """The async core of an environment over one live server.

    Use it directly to run many episodes concurrently in one event loop; `MCPEnv` wraps it for
    Gymnasium's sync API.

    Args:
        source: Where the server comes from (e.g. `BundledSource("banking", "stdio")`).
        tasks: Tasks to draw from (a JSONL path, `Task`s or dicts); None for free play.
        reward: Reward function of the finished episode (default: `state_match`).
        parser: Reads tool calls from text actions (default: `auto_parser`).
        config: Limits and timeouts.
        pool: Pool of warm servers (default: the running loop's).
        hide_tools: Tools the agent never sees nor can call (names as the server lists them).
        rename_tools: ``{server name: name the agent sees}``, e.g. to resolve a clash.
    """

    def __init__(
        self,
        source: ServerSource,
        *,
        tasks: TaskSource = None,
        reward: RewardFn | None = None,
        parser: Parser | None = None,
        config: EnvConfig | None = None,
        pool: ServerPool | None = None,
        hide_tools: Iterable[str] = (),
        rename_tools: Mapping[str, str] | None = None,
    ) -> None:
        self.source = source
        self.hide_tools = frozenset(hide_tools)
        self.rename_tools = dict(rename_tools or {})
        self.tasks = _coerce_tasks(tasks, source.name)
        self._task_index = {t.id: t for t in self.tasks}
        self.reward_fn: RewardFn = reward or state_match
        self.parser: Parser = parser or auto_parser
        self.config = config or EnvConfig()
        self._pool = pool
        self.live: LiveServer | None = None
        self.np_random: np.random.Generator = seeding.np_random(None)[0]
        self._tools_by_name: dict[str, Tool] = {}
        self._route: dict[str, str] = {}
        self._openai_tools: list[dict[str, Any]] = []
        self._reset_episode(self.tasks[0])
        self._restarts_seen = 0

    # -- episode bookkeeping ----------------------------------------------------------------

    def _reset_episode(self, task: Task) -> None:
        self.task = task
        self.messages: list[dict[str, Any]] = [{"role": "user", "content": task.instruction}]
        self.calls: list[CallRecord] = []
        self.counters: dict[str, int] = {
            "num_calls": 0,
            "invalid_calls": 0,
            "tool_errors": 0,
            "timeouts": 0,
            "server_restarts": 0,
        }
        self.steps = 0
        self.done = False
        self.final_answer: str | None = None
        self.initial_fingerprint = ""

    @property
    def state(self) -> StateBackend:
        """The live server's state backend."""
        return self._require_live().state

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The agent's tools in OpenAI function format (with the task's distractor tools, if any)."""
        extra = self.task.metadata.get("distractor_tools") or []
        if not extra:
            return list(self._openai_tools)
        names = {t["function"]["name"] for t in self._openai_tools}
        return [*self._openai_tools, *(t for t in extra if t.get("function", {}).get("name") not in names)]

    def _require_live(self) -> LiveServer:
        if self.live is None:
            raise ConfigError("the environment has no live server yet: call reset() first")
        return self.live

    async def _ensure_live(self) -> LiveServer:
        if self.live is None or self.live.closed:
            pool = self._pool or get_pool()
            self.live = await pool.acquire(self.source, call_timeout=self.config.call_timeout)
            self._restarts_seen = self.live.restarts
            self._tools_by_name, self._route = self._tool_view(self.live.tools)
            self._openai_tools = openai_tools(list(self._tools_by_name.values()))
        return self.live

    def _tool_view(self, tools: list[Tool]) -> tuple[dict[str, Tool], dict[str, str]]:
        """The tools as the agent sees them (hidden ones dropped, renamed ones renamed)."""
        names = {t.name for t in tools}
        unknown = sorted((self.hide_tools | set(self.rename_tools)) - names)
        if unknown:
            raise ConfigError(
                f"{self.source.name}: cannot hide or rename unknown tool(s) {', '.join(unknown)}; "
                f"the server lists: {', '.join(sorted(names))}"
            )
        view: dict[str, Tool] = {}
        route: dict[str, str] = {}
        for tool in tools:
            if tool.name in self.hide_tools:
                continue
            exposed = self.rename_tools.get(tool.name, tool.name)
            if exposed in view:
                raise ConfigError(f"{self.source.name}: two tools would be called {exposed!r}; rename one")
            view[exposed] = tool if exposed == tool.name else tool.model_copy(update={"name": exposed})
            route[exposed] = tool.name
        return view, route

    async def _check_server(self) -> None:
        """Restart a dead server before the next call and count restarts in this episode."""
        live = self._require_live()
        await live.ensure_alive()
        self._sync_restarts()

    def _sync_restarts(self) -> None:
        live = self._require_live()
        new = live.restarts - self._restarts_seen
        if new > 0:
            self.counters["server_restarts"] += new
            self._restarts_seen = live.restarts

    def info(self) -> dict[str, Any]:
        """What `reset` and `step` return as ``info``."""
        return {
            "task_id": self.task.id,
            "tools": self.tools,
            "messages": list(self.messages),  # messages are append-only: never mutate them
            "step": self.steps,
            **self.counters,
        }

    # -- the Gymnasium-shaped API --------------------------------------------------------------

    async def reset(
        self,
        *,
        seed: int | None = None,
        options: Mapping[str, Any] | None = None,
        rng: np.random.Generator | None = None,
    ) -> tuple[str, dict[str, Any]]:
        """Start an episode: pick a task, restore its initial state, return the instruction.

        Args:
            seed: Seeds the task choice (as in Gymnasium).
            options: ``{"task_id": ...}`` or ``{"task": Task | dict}`` to choose the task.
            rng: Generator to draw the task from (the sync wrapper passes its own).

        Returns:
            The instruction and the info dict (``tools``, ``messages``, counters).
        """
        self.np_random = episode_rng(self.np_random, seed=seed, rng=rng)
        task = self._choose_task(options or {})
        self._reset_episode(task)
        live = await self._ensure_live()
        await self._check_server()  # a server that died between episodes is restarted here
        initial = self.source.initial_snapshot(task.data_seed)
        live.state.restore(initial)
        self.initial_fingerprint = live.state.fingerprint_of(initial)  # cached: restores are exact
        return self._clip(task.instruction), self.info()

    def _choose_task(self, options: Mapping[str, Any]) -> Task:
        if "task" in options:
            t = options["task"]
            return t if isinstance(t, Task) else Task.from_dict(t)
        if "task_id" in options:
            try:
                return self._task_index[str(options["task_id"])]
            except KeyError:
                raise TaskError(f"no task with id {options['task_id']!r}") from None
        if len(self.tasks) == 1:
            return self.tasks[0]
        return self.tasks[int(self.np_random.integers(len(self.tasks)))]

    async def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Run one action: tool calls on the live server, or a final answer.

        Never raises for a malformed action: it becomes an error observation, counted in
        ``info["invalid_calls"]``.

        Returns:
            ``(observation, reward, terminated, truncated, info)``.
        """
        if self.done:
            return (
                "Error: the episode is over; call reset() to start a new one.",
                0.0,
                True,
                False,
                self.info(),
            )
        self.steps += 1
        parsed = self._parse(action)
        if parsed.calls:
            observation = await self._run_calls(parsed)
            terminated = False
        elif parsed.errors:
            observation = reject_action(parsed, self.messages, self.calls, self.counters, self.steps)
            terminated = False
        else:
            self.final_answer = parsed.text
            self.messages.append({"role": "assistant", "content": parsed.text})
            observation = ""
            terminated = True
        truncated = not terminated and self.steps >= self.config.max_steps
        reward = 0.0
        info = self.info()
        if terminated or truncated:
            self.done = True
            if self.task.expected_fingerprint is None and self.task.reference_calls:
                self.task = await self._with_reference_fingerprint(self.task)
            episode = self.episode(terminated=terminated, truncated=truncated)
            reward = float(self.reward_fn(episode))
            info["reward_terms"] = {**_reward_terms(self.reward_fn, episode), "reward": reward}
            info["final_fingerprint"] = episode.final_fingerprint
            if self.task.expected_fingerprint is not None:
                info["state_match"] = episode.final_fingerprint == self.task.expected_fingerprint
        return self._clip(observation), reward, terminated, truncated, info

    async def _with_reference_fingerprint(self, task: Task) -> Task:
        """The task with the fingerprint its reference calls produce from its initial state.

        Computed once per task (and data seed) by replaying the calls on a second warm server,
        so hand-written tasks need no precomputed fingerprint.
        """
        key = (task.id, task.data_seed, json.dumps([dict(c) for c in task.reference_calls], sort_keys=True))
        fingerprint = _REFERENCE_FINGERPRINTS.get(key)
        if fingerprint is None:
            pool = self._pool or get_pool()
            live = await pool.acquire(self.source, call_timeout=self.config.call_timeout)
            try:
                live.state.restore(self.source.initial_snapshot(task.data_seed))
                for call in task.reference_calls:
                    name = self._route.get(str(call["name"]), str(call["name"]))
                    await live.call_tool(name, dict(call.get("arguments", {})))
                fingerprint = live.state.fingerprint()
            finally:
                await pool.release(live)
            _REFERENCE_FINGERPRINTS[key] = fingerprint
        return Task.from_dict({**task.to_dict(), "expected_fingerprint": fingerprint})

    def episode(self, *, terminated: bool, truncated: bool) -> Episode:
        """The episode so far, as reward functions see it."""
        return Episode(
            task=self.task,
            calls=tuple(self.calls),
            messages=tuple(copy.deepcopy(self.messages)),
            final_answer=self.final_answer,
            final_fingerprint=self.state.fingerprint(),
            terminated=terminated,
            truncated=truncated,
        )

    # -- actions -------------------------------------------------------------------------------

    def _parse(self, action: Any) -> ParsedAction:
        return parse_action(action, self.parser, self.config.max_action_chars)

    async def _run_calls(self, parsed: ParsedAction) -> str:
        calls = list(parsed.calls)
        ids = [c.id or f"call_{self.steps}_{i}" for i, c in enumerate(calls)]
        calls = [ToolCall(c.name, c.arguments, ids[i]) for i, c in enumerate(calls)]
        self.messages.append(
            {
                "role": "assistant",
                "content": parsed.text or None,
                "tool_calls": [c.to_openai() for c in calls],
            }
        )
        outputs: list[tuple[str, str]] = []
        extra_errors = list(parsed.errors)
        if len(calls) > self.config.max_calls_per_step:
            extra_errors.append(
                f"{len(calls)} calls in one action; only the first {self.config.max_calls_per_step} were run"
            )
        for i, call in enumerate(calls):
            if i >= self.config.max_calls_per_step:
                output = "Error: not run (too many calls in one action)"
                self.counters["invalid_calls"] += 1
                self.calls.append(CallRecord(call.name, call.arguments, output, "invalid", self.steps))
            else:
                output = await self._run_one(call)
            self.messages.append({"role": "tool", "tool_call_id": call.id, "content": output})
            outputs.append((call.name, output))
        for err in parsed.errors:
            self.counters["invalid_calls"] += 1
            self.calls.append(CallRecord("", None, f"Error: {err}", "invalid", self.steps))
        if len(outputs) == 1 and not extra_errors:
            return outputs[0][1]
        lines = [f"[{name}] {out}" for name, out in outputs]
        lines += [f"Error: {e}" for e in extra_errors]
        return "\n".join(lines)

    async def _run_one(self, call: ToolCall) -> str:
        tool = self._tools_by_name.get(call.name)
        if tool is None:
            names = ", ".join(sorted(self._tools_by_name)) or "none"
            return self._invalid(call, f"unknown tool {call.name!r}; available tools: {names}", known_name=False)
        problem = check_arguments(call.arguments, tool.input_schema)
        if problem:
            return self._invalid(call, f"{call.name}: {problem}", known_name=True)
        self.counters["num_calls"] += 1
        # call_tool restarts a dead server first; _sync_restarts counts it for this episode.
        result = await self._require_live().call_tool(self._route[call.name], call.arguments)
        self._sync_restarts()
        output = self._clip_output(result.text)
        if result.timed_out:
            status = "timeout"
            self.counters["timeouts"] += 1
        elif result.crashed:
            status = "crash"
        elif result.is_error:
            status = "tool_error"
        else:
            status = "ok"
        if result.is_error:
            self.counters["tool_errors"] += 1
            if not output.startswith("Error"):
                output = f"Error: {output}"
        self.calls.append(CallRecord(call.name, call.arguments, output, status, self.steps, True, True))
        return output

    def _invalid(self, call: ToolCall, message: str, *, known_name: bool) -> str:
        self.counters["invalid_calls"] += 1
        output = f"Error: {message}"
        self.calls.append(CallRecord(call.name, call.arguments, output, "invalid", self.steps, known_name, False))
        return output

    def _clip_output(self, text: str) -> str:
        limit = self.config.max_observation_chars // 2
        if len(text) <= limit:
            return text
        return text[:limit] + f"... [cut: {len(text) - limit} more characters]"

    def _clip(self, text: str) -> str:
        limit = self.config.max_observation_chars
        if len(text) <= limit:
            return text
        note = f"... [cut: {len(text)} characters in all]"
        return text[: limit - len(note)] + note

    # -- snapshots and forks -------------------------------------------------------------------

    async def snapshot(self) -> EpisodeSnapshot:
        """The whole episode now: server state, conversation, counters, RNG."""
        live = self._require_live()
        return EpisodeSnapshot(
            state=live.state.snapshot(),
            task=self.task,
            messages=tuple(copy.deepcopy(self.messages)),
            calls=tuple(self.calls),
            counters=dict(self.counters),
            steps=self.steps,
            done=self.done,
            final_answer=self.final_answer,
            initial_fingerprint=self.initial_fingerprint,
            rng_state=copy.deepcopy(self.np_random.bit_generator.state),
        )

    async def restore(self, snap: EpisodeSnapshot) -> None:
        """Continue from a snapshot (taken in this or another env of the same server)."""
        live = await self._ensure_live()
        await self._check_server()
        live.state.restore(snap.state)
        self.task = snap.task
        self.messages = [dict(m) for m in copy.deepcopy(snap.messages)]
        self.calls = list(snap.calls)
        self.counters = dict(snap.counters)
        self.steps = snap.steps
        self.done = snap.done
        self.final_answer = snap.final_answer
        self.initial_fingerprint = snap.initial_fingerprint
        if snap.rng_state is not None:
            self.np_random = rng_from_state(snap.rng_state)

    def _clone_empty(self) -> AsyncMCPEnv:
        return AsyncMCPEnv(
            self.source,
            tasks=self.tasks,
            reward=self.reward_fn,
            parser=self.parser,
            config=self.config,
            pool=self._pool,
            hide_tools=self.hide_tools,
            rename_tools=self.rename_tools,
        )

    async def fork(self, n: int) -> list[AsyncMCPEnv]:
        """``n`` independent environments at exactly this point of the episode.

        Each gets its own warm server and state; what one does never shows in another.
        """
        if n < 1:
            raise ConfigError(f"fork needs n >= 1, got {n}")
        snap = await self.snapshot()
        forks = []
        for _ in range(n):
            env = self._clone_empty()
            await env.restore(snap)
            forks.append(env)
        return forks

    async def close(self) -> None:
        """Give the server back to the pool (it stays warm for the next environment)."""
        live, self.live = self.live, None
        if live is not None:
            await (self._pool or get_pool()).release(live)


class CoreDrivenEnv(gym.Env[str, Any]):
    """The Gymnasium face of an async core: ``reset``, ``step`` and ``close`` run its coroutines.

    Subclasses set ``self.core`` (an object with async ``reset``/``step``/``close`` and a
    ``messages`` list in OpenAI chat format) and ``self.render_mode``.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}
    core: Any
    render_mode: str | None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Start an episode (see the core's ``reset``)."""
        super().reset(seed=seed)
        result: tuple[str, dict[str, Any]] = run_sync(self.core.reset(options=options, rng=self.np_random))
        return result

    def step(self, action: Any) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        """Run one action (see the core's ``step``)."""
        result: tuple[str, SupportsFloat, bool, bool, dict[str, Any]] = run_sync(self.core.step(action))
        return result

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


class MCPEnv(CoreDrivenEnv):
    """A Gymnasium environment over a live MCP server.

    ``reset()`` returns the task's instruction; ``info["tools"]`` holds the tools in OpenAI
    function format and ``info["messages"]`` the conversation in OpenAI chat format.
    ``step(action)`` takes a call dict (``{"name": ..., "arguments": {...}}``), a list of them,
    an OpenAI assistant message with ``tool_calls``, or model text (Hermes ``<tool_call>``
    tags, bare JSON, ...). Text without a call is the final answer and ends the episode.

    Args:
        server: A bundled server name (``"banking"``, ...) or a `ServerSource`.
        transport: ``"inprocess"``, ``"stdio"`` or ``"http"`` for bundled servers.
        tasks: A JSONL path, or `Task`s; None for a free-play task.
        max_steps: Steps before truncation.
        reward: Reward function of the finished episode (default `state_match`).
        parser: Text parser (default `auto_parser`).
        call_timeout: Seconds a tool call may take.
        max_action_chars: Longest action accepted.
        max_observation_chars: Longest observation.
        render_mode: ``"ansi"`` to render the conversation as text.
        hide_tools: Tools the agent never sees nor can call.
        rename_tools: ``{server name: name the agent sees}``.
    """

    core: AsyncMCPEnv

    def __init__(
        self,
        server: str | ServerSource = "banking",
        *,
        transport: Transport = "inprocess",
        tasks: TaskSource = None,
        max_steps: int = 20,
        reward: RewardFn | None = None,
        parser: Parser | None = None,
        call_timeout: float = 30.0,
        max_action_chars: int = 32_000,
        max_observation_chars: int = 16_000,
        render_mode: str | None = None,
        hide_tools: Iterable[str] = (),
        rename_tools: Mapping[str, str] | None = None,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        source = server if isinstance(server, ServerSource) else BundledSource(server, transport)
        config = EnvConfig(
            max_steps=max_steps,
            call_timeout=call_timeout,
            max_action_chars=max_action_chars,
            max_observation_chars=max_observation_chars,
        )
        self.core = AsyncMCPEnv(
            source,
            tasks=tasks,
            reward=reward,
            parser=parser,
            config=config,
            hide_tools=hide_tools,
            rename_tools=rename_tools,
        )
        self.render_mode = render_mode
        self.observation_space = UnicodeText(max_observation_chars)
        self.action_space = UnicodeText(max_action_chars)
        run_sync(self.core._ensure_live())

    @classmethod
    def _from_core(cls, core: AsyncMCPEnv, render_mode: str | None) -> MCPEnv:
        env = cls.__new__(cls)
        env.core = core
        env.render_mode = render_mode
        env.observation_space = UnicodeText(core.config.max_observation_chars)
        env.action_space = UnicodeText(core.config.max_action_chars)
        env._np_random = core.np_random
        return env

    # -- gym-mcp extras ------------------------------------------------------------------------

    @property
    def state(self) -> StateBackend:
        """The live server's state backend (fingerprint, snapshot, diff)."""
        return self.core.state

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The agent's tools in OpenAI function format."""
        return self.core.tools

    def snapshot(self) -> EpisodeSnapshot:
        """The whole episode now: server state + conversation + counters."""
        return run_sync(self.core.snapshot())

    def restore(self, snap: EpisodeSnapshot) -> None:
        """Continue from an episode snapshot."""
        run_sync(self.core.restore(snap))
        self._np_random = self.core.np_random

    def fork(self, n: int) -> list[MCPEnv]:
        """``n`` independent environments at exactly this point of the episode."""
        cores = run_sync(self.core.fork(n))
        return [MCPEnv._from_core(c, self.render_mode) for c in cores]
