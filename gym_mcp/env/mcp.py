"""The environment over MCP servers: `AsyncMCPEnv` (the async core) and `MCPEnv` (Gymnasium).

One episode: ``reset`` restores the task's initial state into a warm server and returns the
instruction; each ``step`` takes tool calls (structured or as model text), runs them on the
live server and returns their results; a text with no call is the final answer and ends the
episode; the reward is computed from the finished episode.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from mcp.types import Tool

from gym_mcp.actions.parsing import ParsedAction, Parser, ToolCall, auto_parser, parse_action
from gym_mcp.actions.schema import check_arguments, openai_tools
from gym_mcp.env.config import EnvConfig, TaskOrder, TaskSource, coerce_tasks
from gym_mcp.env.core import OVER, EpisodeCore, EpisodeSnapshot, reward_terms
from gym_mcp.env.hooks import CallHook
from gym_mcp.env.reference import reference_state
from gym_mcp.env.sync import SyncEnv
from gym_mcp.env.tools import ToolView
from gym_mcp.episode import RewardFn
from gym_mcp.errors import ConfigError, StateError, StateLostError, TaskError
from gym_mcp.live.live_server import LiveServer, ServerSource, Transport
from gym_mcp.live.sources import bundled_source
from gym_mcp.live.warm_pool import ServerPool
from gym_mcp.rewards.outcome import completion, state_match
from gym_mcp.state.base import StateBackend
from gym_mcp.tasks import Task
from gym_mcp.tasks.dialogue import confirmation_note
from gym_mcp.transport import ToolResult
from gym_mcp.transport.runner import run_sync
from gym_mcp.users import User, UserSpec, make_user

__all__ = ["AsyncMCPEnv", "MCPEnv", "MCPEpisodeSnapshot"]


@dataclass(frozen=True, kw_only=True)
class MCPEpisodeSnapshot(EpisodeSnapshot):
    """An `EpisodeSnapshot` of an MCP episode: with its task and initial fingerprint."""

    task: Task
    initial_fingerprint: str


class AsyncMCPEnv(EpisodeCore):
    """The async core of an environment over one live server.

    Use it directly to run many episodes concurrently in one event loop; `MCPEnv` wraps it for
    Gymnasium's sync API.

    How ``reset`` picks the episode's task: the ``task``, ``task_id`` or ``task_index`` option
    if one is given (at most one); else, with ``task_order="sequential"``, the next task of
    ``tasks`` in order; else a draw from the env's seeded generator ``np_random`` (so
    ``reset(seed=s)`` is reproducible and a plain ``reset()`` continues the generator).

    Attributes:
        tasks: The env's tasks in the order given (file order for a JSONL path); one free-play
            task when none were given.
        task: The current episode's task; before the first reset, ``tasks[0]`` (the env is set
            up with it; with ``task_order="random"`` the first reset draws its own).

    Args:
        source: Where the server comes from (e.g. `BundledSource("banking", "stdio")`).
        tasks: The tasks to play (a JSONL path, `Task`s or dicts); None for free play.
        reward: Reward function of the finished episode (default: `state_match`).
        parser: Reads tool calls from text actions (default: `auto_parser`).
        config: Limits and timeouts.
        pool: Pool of warm servers (default: the running loop's).
        hide_tools: Tools the agent never sees nor can call (names as the server lists them).
        rename_tools: ``{server name: name the agent sees}``, e.g. to resolve a clash.
        user: A simulated user (``"scripted"``, ``"openai:URL"`` or a `User`): the episode becomes
            a dialogue and the default reward `completion` (see `gym_mcp.users`).
        task_order: How a ``reset`` that names no task picks one: ``"random"`` (the default)
            draws it from the env's seeded generator; ``"sequential"`` takes ``tasks[0]``,
            ``tasks[1]``, ... and wraps around after the last. The seed does not move the
            sequential order, and a reset that names its task does not advance it. The position
            in the order travels in snapshots: a restore or a fork continues it exactly.

    Raises:
        ConfigError: A ``task_order`` other than ``"random"`` or ``"sequential"``.
        TaskError: An empty task list, or a task that does not parse.
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
        user: UserSpec = None,
        task_order: TaskOrder = "random",
    ) -> None:
        self.source = source
        self.view = ToolView(source.name, hide=hide_tools, rename=rename_tools)
        self.tasks = coerce_tasks(tasks, source.name)
        self._tasks_by_id = {t.id: t for t in self.tasks}
        resolved_user = make_user(user)
        self.reward_fn: RewardFn = reward or (completion if resolved_user is not None else state_match)
        self.parser: Parser = parser or auto_parser
        self.config = config or EnvConfig()
        self._openai_tools: list[dict[str, Any]] = []
        self._restarts_seen = 0
        self.task = self.tasks[0]
        self.initial_fingerprint = ""
        super().__init__(pool, resolved_user, task_order=task_order)
        self._start(self.task)

    @property
    def hide_tools(self) -> frozenset[str]:
        """Tools the agent never sees (server names)."""
        return self.view.hide

    @property
    def rename_tools(self) -> dict[str, str]:
        """``{server name: agent name}``."""
        return dict(self.view.rename)

    def _start(self, task: Task) -> None:
        self._new_episode()
        # 1 when this episode's reset started the server anew (a spec's restart_on_reset); crash
        # restarts are counted apart, in server_restarts
        self.counters["restarts_on_reset"] = 0
        self.task = task
        self.messages.append({"role": "user", "content": self._opening(task)})
        self.initial_fingerprint = ""

    def _opening(self, task: Task) -> str:
        return self.user.opening(task) if self.user is not None else task.instruction

    @property
    def state(self) -> StateBackend:
        """The live server's state backend."""
        return self._require_live().state

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The agent's tools in OpenAI function format (with the task's distractor tools, if any)."""
        tools = self._own_tools()
        return tools if self.call_hook is None else self.call_hook.present_tools(tools)

    def _own_tools(self) -> list[dict[str, Any]]:
        """The tools before a hook presents them: the view's, and the task's distractors."""
        extra = self.task.metadata.get("distractor_tools") or []
        tools = list(self._openai_tools)
        if extra:
            names = {t["function"]["name"] for t in self._openai_tools}
            tools += [t for t in extra if t.get("function", {}).get("name") not in names]
        return tools

    async def _ensure_live(self) -> LiveServer:
        if self.live is None or self.live.closed:
            self.live = await self.pool.acquire(self.source, call_timeout=self.config.call_timeout)
            self._restarts_seen = self.live.restarts
            self.view.bind(self.live.tools)
            self._openai_tools = openai_tools(list(self.view.tools.values()))
            if self.user is not None:  # with someone to ask, irreversible tools say to ask first
                for schema, tool in zip(self._openai_tools, self.view.tools.values(), strict=True):
                    rule = (tool.meta or {}).get("gym_mcp/confirm")
                    if isinstance(rule, str) and rule:
                        fn = schema["function"]
                        fn["description"] = f"{confirmation_note(rule)} {fn['description']}".strip()
        return self.live

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
        return {"task_id": self.task.id, "tools": self.tools, **self._counts()}

    # -- the Gymnasium-shaped API --------------------------------------------------------------

    async def _begin(self, options: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """Pick the task (see `_choose_task`), restore its initial state."""
        task = self._choose_task(options)
        self._start(task)
        live = await self._ensure_live()
        self._check_reference(task, live)
        await self._check_server()  # a server that died between episodes is restarted here
        initial = self.source.initial_snapshot(task.data_seed)
        # A server that keeps state in memory (restart_on_reset) is stopped, its state restored,
        # and started anew on it; any other only has its state restored, warm.
        if await live.relaunch(lambda: live.state.restore(initial)):
            self.counters["restarts_on_reset"] += 1
        self.initial_fingerprint = live.state.fingerprint_of(initial)  # cached: restores are exact
        self._sync_restarts()  # a session the server had ended is reopened by that restore: counted here
        opening = self._opening(task)
        if self.call_hook is not None:  # the hook shows its own instruction; the conversation records it
            self.call_hook.start(task, self._own_tools(), self.view.tools)
            opening = self.call_hook.present_instruction(opening)
            self.messages[0]["content"] = opening  # no view of this episode's messages was given out yet
        return self._clip(opening), self.info()

    def _check_reference(self, task: Task, live: LiveServer) -> None:
        """Refuse a task whose reference calls name tools the server lacks (its reward could not be judged)."""
        for i, call in enumerate(task.reference_calls, 1):
            name = str(call.get("name", ""))
            if not live.has_tool(self.view.server_name(name)):
                raise TaskError(
                    f"task {task.id!r}: reference call {i} names tool {name!r}, which the "
                    f"{self.source.name} server does not have"
                )

    def _choose_task(self, options: Mapping[str, Any]) -> Task:
        """The episode's task: the one the options name, else the next in the task order.

        ``options["task"]`` (a `Task` or dict, need not be one of ``tasks``), the task with id
        ``options["task_id"]`` or ``tasks[options["task_index"]]``; else `_next_task`.

        Raises:
            TaskError: More than one of those options, an unknown id, or a bad index.
        """
        named = [k for k in ("task", "task_id", "task_index") if k in options]
        if len(named) > 1:
            raise TaskError(f"reset options {', '.join(named)} each choose the task: give only one of them")
        if "task" in options:
            t = options["task"]
            return t if isinstance(t, Task) else Task.from_dict(t)
        if "task_id" in options:
            try:
                return self._tasks_by_id[str(options["task_id"])]
            except KeyError:
                raise TaskError(f"no task with id {options['task_id']!r}") from None
        if "task_index" in options:
            return self.tasks[self._task_index_option(options["task_index"], len(self.tasks))]
        return self._next_task(self.tasks)

    async def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Run one action: tool calls on the live server, or a final answer (a message to the user).

        Never raises for a malformed action: it becomes an error observation, counted in
        ``info["invalid_calls"]``. With a user, text without a call goes to the user and its
        reply is the observation; the user's stop ends the episode.

        Returns:
            ``(observation, reward, terminated, truncated, info)``.
        """
        self._begin_step()
        if self.done:
            return OVER, 0.0, True, False, self.info()
        self.steps += 1
        self.turn_steps += 1
        parsed = parse_action(action, self.parser, self.config.max_action_chars)
        truncated = False
        if parsed.calls:
            observation = await self._run_calls(parsed)
            terminated = False
        elif parsed.errors:
            observation = self._reject(parsed)
            terminated = False
        elif self.user is not None:
            observation, terminated, truncated = await self._to_user(self.task, parsed.text, self.config.max_user_turns)
        else:
            self.final_answer = parsed.text
            self.messages.append({"role": "assistant", "content": parsed.text})
            observation = ""
            terminated = True
        if not (terminated or truncated):
            truncated = bool({"server_down", "state_lost"} & set(self.limits)) or self._limit_reached(
                self.config.max_steps, self.config.max_steps_per_turn
            )
        reward = 0.0
        info = self.info()
        if terminated or truncated:
            self._end(terminated, truncated)
            if self.task.expected_fingerprint is None and self.task.reference_calls:
                found = await reference_state(
                    self.task, self.source, self.pool, self.view.server_name, call_timeout=self.config.call_timeout
                )
                changes: dict[str, Any] = {"expected_fingerprint": found.fingerprint}
                if found.volatile:  # two replays disagreed there: judged as volatile (warned once)
                    found_here = {g: list(f) for g, f in found.volatile.items()}
                    volatile = {**self.task.metadata.get("volatile", {}), **found_here}
                    changes["metadata"] = {**self.task.metadata, "volatile": volatile}
                self.task = Task.from_dict({**self.task.to_dict(), **changes})
            episode = self.episode()
            reward = float(self.reward_fn(episode))
            info["reward_terms"] = {**reward_terms(self.reward_fn, episode), "reward": reward}
            info["final_fingerprint"] = episode.final_fingerprint
            if self.task.expected_fingerprint is not None:
                info["state_match"] = episode.final_fingerprint == self.task.expected_fingerprint
        return self._clip(observation), reward, terminated, truncated, info

    def _episode_task(self) -> Task:
        return self.task

    # -- actions -------------------------------------------------------------------------------

    async def _run_calls(self, parsed: ParsedAction) -> str:
        calls = self._assistant_calls(parsed)
        outputs: list[tuple[str, str]] = []
        extra_errors = list(parsed.errors)
        limit = self.config.max_calls_per_step
        if len(calls) > limit:
            extra_errors.append(f"{len(calls)} calls in one action; only the first {limit} were run")
        for i, call in enumerate(calls):
            if i >= limit:
                output = self._invalid(call, "Error: not run (too many calls in one action)", known_name=False)
            else:
                output = await self._run_one(call)
            self.messages.append({"role": "tool", "tool_call_id": call.id, "content": output})
            outputs.append((call.name, output))
        self._record_parse_errors(parsed.errors)
        if len(outputs) == 1 and not extra_errors:
            return outputs[0][1]
        lines = [f"[{name}] {out}" for name, out in outputs]
        lines += [f"Error: {e}" for e in extra_errors]
        return "\n".join(lines)

    async def _run_one(self, call: ToolCall) -> str:
        hook = self.call_hook
        # the names the agent may call: the server's (through the view), or the names a perturbation shows
        shown = self.view.tools.keys() if hook is None else {t["function"]["name"] for t in self.tools}

        def unknown() -> str:
            names = ", ".join(sorted(shown)) or "none"
            return self._invalid(call, f"Error: unknown tool {call.name!r}; available tools: {names}", known_name=False)

        if hook is not None:  # a perturbation's names are mapped back; it may answer in the server's place
            if call.name not in shown:  # e.g. a tool's name from before a perturbation renamed it
                return unknown()
            name, arguments = hook.route_call(call.name, call.arguments)
            call = ToolCall(name, arguments, call.id)
            injected = hook.before_call(call.name, call.arguments)
            if injected is not None:  # the call is not sent
                return self._record_result(call, ToolResult(injected, is_error=True), injected)
        tool = self.view.tools.get(call.name)
        if tool is None:
            return unknown()
        problem = check_arguments(call.arguments, tool.input_schema)
        if problem:
            return self._invalid(call, f"Error: {call.name}: {problem}", known_name=True)
        live = self._require_live()
        # A call the agent is told failed must leave no write behind, whatever the server did
        # (wrote and then refused, died after committing, timed out half-way): keep the state
        # from before the call and put it back after any error. Tools that say they only read
        # (the MCP readOnlyHint) are trusted and skip the copy.
        try:
            checkpoint = None if _read_only(tool) else live.state.snapshot()
        except StateLostError as exc:  # the state is gone (a sessions server ended the session): nothing to call on
            checkpoint = None
            text = f"Error: {exc}; {call.name!r} did not run"
            result = ToolResult(text, is_error=True, crashed=True, state_lost=True)
        else:
            # call_tool restarts a dead server (or reopens an ended session) first; _sync_restarts
            # counts it for this episode.
            result = await live.call_tool(self.view.server_name(call.name), call.arguments)
            self._sync_restarts()
        if result.is_error and checkpoint is not None:
            try:
                live.state.restore(checkpoint)
                self.counters["rolled_back"] += 1
            except StateError:  # e.g. a tool made the state unwritable: the episode cannot go on
                self.limits.append("state_lost")
        if result.state_lost and "state_lost" not in self.limits:  # never go on in a world that is not this one
            self.limits.append("state_lost")
        if result.down:
            self.limits.append("server_down")
        output = self._clip_output(result.text)
        if result.is_error and not output.startswith("Error"):
            output = f"Error: {output}"
        if hook is not None:
            output = hook.after_call(call.name, call.arguments, output, result.is_error)
        return self._record_result(call, result, output)

    def _clip_output(self, text: str) -> str:
        """One tool result as the conversation records it: at most ``max_observation_chars``."""
        return self._clip(text)

    def _clip(self, text: str) -> str:
        """An observation: at most ``max_observation_chars``, the cut said at the end."""
        limit = self.config.max_observation_chars
        if len(text) <= limit:
            return text
        note = f"... [cut: {len(text)} characters in all]"
        return text[: limit - len(note)] + note

    # -- snapshots and forks -------------------------------------------------------------------

    async def snapshot(self) -> MCPEpisodeSnapshot:
        """The whole episode now: server state, conversation, counters, RNG."""
        return MCPEpisodeSnapshot(
            **self._snapshot_fields(), task=self.task, initial_fingerprint=self.initial_fingerprint
        )

    async def restore(self, snap: MCPEpisodeSnapshot) -> None:
        """Continue from a snapshot (taken in this or another env of the same server)."""
        live = await self._ensure_live()
        await self._check_server()
        await live.relaunch(lambda: self._restore_fields(snap))  # restart_on_reset: a new process on the restored state
        if live.restart_on_reset:
            self.counters["restarts_on_reset"] = self.counters.get("restarts_on_reset", 0) + 1
        self.task = snap.task
        self.initial_fingerprint = snap.initial_fingerprint

    def _clone_empty(self) -> AsyncMCPEnv:
        return AsyncMCPEnv(
            self.source,
            tasks=self.tasks,
            reward=self.reward_fn,
            parser=self.parser,
            config=self.config,
            pool=self._pool,
            hide_tools=self.view.hide,
            rename_tools=self.view.rename,
            user=self.user,
            task_order=self.task_order,
        )


class MCPEnv(SyncEnv[AsyncMCPEnv]):
    """A Gymnasium environment over a live MCP server.

    ``reset()`` returns the task's instruction; ``info["tools"]`` holds the tools in OpenAI
    function format and ``info["messages"]`` the conversation in OpenAI chat format.
    ``step(action)`` takes a call dict (``{"name": ..., "arguments": {...}}``), a list of them,
    an OpenAI assistant message with ``tool_calls``, or model text (Hermes ``<tool_call>``
    tags, bare JSON, ...). Text without a call is the final answer and ends the episode.

    ``reset`` plays the task its options name (``{"task_id": id}``, ``{"task_index": i}`` into
    `tasks`, or ``{"task": Task}``); else, with ``task_order="sequential"``, the next of `tasks`
    in order; else one drawn from the env's seeded generator (``reset(seed=s)`` always draws
    the same; plain ``reset()`` calls continue the generator). `task` is the task being played.

    Args:
        server: A bundled server name (``"banking"``, ...), a named composition of them
            (``"shop_bank"``, see `gym_mcp.servers.compositions`) or a `ServerSource`.
        transport: ``"inprocess"``, ``"stdio"`` or ``"http"`` for bundled servers.
        tasks: A JSONL path, or `Task`s; None for a free-play task.
        task_order: ``"random"`` (default): a reset that names no task draws one from the env's
            seeded generator. ``"sequential"``: it takes the tasks one after another in order
            (file order for a JSONL path), wrapping around after the last; the seed does not
            move that order, a reset that names its task does not advance it, and snapshots
            carry it (a restore or a fork continues it exactly).
        max_steps: Steps before truncation.
        reward: Reward function of the finished episode (default `state_match`).
        parser: Text parser (default `auto_parser`).
        call_timeout: Seconds a tool call may take.
        max_action_chars: Longest action accepted.
        max_observation_chars: Longest observation.
        max_calls_per_step: Most tool calls one action may make (the rest are refused, named).
        render_mode: ``"ansi"`` to render the conversation as text.
        hide_tools: Tools the agent never sees nor can call.
        rename_tools: ``{server name: name the agent sees}``.
        user: A simulated user: ``"scripted"``, ``"openai:URL"`` (``"openai:URL@model"``) or a
            `gym_mcp.users.User`. Text without a call then goes to the user, whose reply is the
            next observation; the user's stop ends the episode. None: text ends the episode.
        max_user_turns: The user's replies before the episode is truncated.
        max_steps_per_turn: Agent steps between two user messages before truncation.
        url: With ``sessions=True``: the MCP endpoint of a sessions server
            (``gym-mcp serve NAME --transport http --sessions``), e.g. ``"http://127.0.0.1:8000/mcp"``.
        sessions: Open a session on the server at ``url`` instead of starting a server process:
            its state is private to this env, and reset, snapshot, restore and fork go through the
            server's control channel (see `gym_mcp.sessions.client`). Needs ``transport="http"``.
        token: The sessions server's bearer token (default: ``$GYM_MCP_TOKEN``).

    Raises:
        ConfigError: A bad setting, e.g. a ``task_order`` other than ``"random"`` or ``"sequential"``.
    """

    def __init__(
        self,
        server: str | ServerSource = "banking",
        *,
        transport: Transport = "inprocess",
        tasks: TaskSource = None,
        task_order: TaskOrder = "random",
        max_steps: int = 20,
        reward: RewardFn | None = None,
        parser: Parser | None = None,
        call_timeout: float = 30.0,
        max_action_chars: int = 32_000,
        max_observation_chars: int = 16_000,
        max_calls_per_step: int = 8,
        render_mode: str | None = None,
        hide_tools: Iterable[str] = (),
        rename_tools: Mapping[str, str] | None = None,
        user: UserSpec = None,
        max_user_turns: int = 10,
        max_steps_per_turn: int = 10,
        url: str | None = None,
        sessions: bool = False,
        token: str | None = None,
    ) -> None:
        source = _source(server, transport, url=url, sessions=sessions, token=token)
        config = EnvConfig(
            max_steps=max_steps,
            call_timeout=call_timeout,
            max_action_chars=max_action_chars,
            max_observation_chars=max_observation_chars,
            max_calls_per_step=max_calls_per_step,
            max_user_turns=max_user_turns,
            max_steps_per_turn=max_steps_per_turn,
        )
        core = AsyncMCPEnv(
            source,
            tasks=tasks,
            reward=reward,
            parser=parser,
            config=config,
            hide_tools=hide_tools,
            rename_tools=rename_tools,
            user=user,
            task_order=task_order,
        )
        self._attach(core, render_mode, max_observation_chars, max_action_chars)
        run_sync(self.core._ensure_live())

    @classmethod
    def from_async(cls, env: AsyncMCPEnv, *, render_mode: str | None = None) -> MCPEnv:
        """The Gymnasium face of an `AsyncMCPEnv` built by hand: both drive the same server and episode.

        Args:
            env: The async environment (its settings, tasks, user and server are kept).
            render_mode: ``"ansi"`` to render the conversation as text.
        """
        made = cls.__new__(cls)
        made._attach(env, render_mode, env.config.max_observation_chars, env.config.max_action_chars)
        run_sync(env._ensure_live())
        return made

    @property
    def state(self) -> StateBackend:
        """The live server's state backend (fingerprint, snapshot, diff)."""
        return self.core.state

    @property
    def task(self) -> Task:
        """The current episode's task (what ``info["task_id"]`` names).

        Before the first reset it is ``tasks[0]``, the task the env is set up with (with
        ``task_order="random"`` the first reset draws its own). A task given with
        ``reset(options={"task": ...})`` need not be one of `tasks`. Once an episode ends with a
        reward computed from reference calls, it carries the ``expected_fingerprint`` found.
        """
        return self.core.task

    @property
    def tasks(self) -> tuple[Task, ...]:
        """The env's tasks in the order given (file order for a JSONL path; one free-play task when none).

        ``reset(options={"task_index": i})`` plays ``tasks[i]``; ``task_order="sequential"``
        plays them in this order.
        """
        return tuple(self.core.tasks)

    @property
    def source(self) -> ServerSource:
        """Where the environment's server comes from (its launch, its seed states)."""
        return self.core.source

    @property
    def user(self) -> User | None:
        """The simulated user the agent talks to, or None (text then ends the episode)."""
        return self.core.user

    @property
    def mcp_tools(self) -> Mapping[str, Tool]:
        """The MCP tools behind `tools`, by the names the agent sees (hidden ones left out, renamed ones renamed).

        Their annotations (``readOnlyHint``, ...) and ``_meta`` are the server's. A perturbation
        may show the agent other names (`tools`); calls are recorded under these.
        """
        return dict(self.core.view.tools)

    @property
    def server_tool_names(self) -> frozenset[str]:
        """Every tool name the server lists, hidden and renamed ones included."""
        live = self.core.live
        return frozenset(t.name for t in live.tools) if live is not None else frozenset()

    @property
    def call_hook(self) -> CallHook | None:
        """The hook the environment asks at reset and around each call (see `set_call_hook`)."""
        return self.core.call_hook

    def set_call_hook(self, hook: CallHook | None) -> None:
        """Install a `CallHook` (None removes it): what wrappers such as `Perturb` use to act on calls.

        The environment asks it, at each reset, what tools and instruction the agent is shown,
        and, at each call, what the call means and what the agent reads of the result. Forks
        get the hook's own fork.
        """
        self.core.set_call_hook(hook)


def _source(
    server: str | ServerSource, transport: Transport, *, url: str | None, sessions: bool, token: str | None
) -> ServerSource:
    """The source `MCPEnv` runs: the one given, a session on a sessions server, or a bundled server.

    Raises:
        ConfigError: ``url``/``token`` without ``sessions``, or ``sessions`` without ``url`` or
            with a transport other than http.
    """
    if sessions:
        if isinstance(server, ServerSource):
            raise ConfigError("sessions=True takes a bundled server name, not a ServerSource")
        if transport != "http" or not url:
            raise ConfigError(
                "sessions=True needs transport='http' and url='http://HOST:PORT/mcp' of a sessions server"
            )
        from gym_mcp.sessions.client import SessionsSource

        return SessionsSource(server, url, token=token)
    if url is not None or token is not None:
        raise ConfigError(
            "url= and token= go with sessions=True (a sessions server); for any other server at a URL, "
            "use gym_mcp/External-v0"
        )
    return server if isinstance(server, ServerSource) else bundled_source(server, transport)


def _read_only(tool: Tool) -> bool:
    """True when the tool declares that it only reads (MCP ``readOnlyHint``)."""
    return tool.annotations is not None and tool.annotations.read_only_hint is True
