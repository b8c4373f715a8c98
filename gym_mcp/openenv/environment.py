"""Any gym-mcp environment as an OpenEnv ``Environment``, with sessions drawn from a warm pool.

OpenEnv builds an environment per session (a WebSocket connection, an HTTP ``/mcp`` session, or
one plain HTTP ``/reset`` or ``/step`` request) by calling a factory, and closes it when the
session ends. Building a gym-mcp environment costs ~40 ms (a server connected, its tools
listed); a reset into a warm one costs well under 1 ms (its state restored). So the factory,
`EnvPool.session`, hands out a warm environment from a free list and ``close`` gives it back:
a session costs a reset, not a build. Every environment of a pool is made by the same
`EnvRecipe` (one ``gym.make`` id and its keyword arguments, an optional perturbation mix),
so any one serves any session.

What the agent can do is what OpenEnv's MCP contract gives it: list the tools, call one, or
send a whole assistant turn (see `gym_mcp.openenv.models`). Snapshot, restore and fork are not
actions: they are routes of the server for training infrastructure (`gym_mcp.openenv.app`),
reached with the session's key from ``state`` and the server's token.

Nothing a client sends makes ``step`` raise: a bad call becomes an error observation, counted
as ``info`` counts it; a step before any reset starts an episode first (``metadata
["auto_reset"]``), which is what OpenEnv's stateless HTTP ``/step`` gets: one step of a fresh
episode, not an error 500.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import functools
import gc
import secrets
import threading
import time
import uuid
import weakref
from collections.abc import Callable, Coroutine, Mapping
from typing import Any, TypeVar

import gymnasium as gym
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.mcp_types import Tool, ToolError, ToolErrorType
from openenv.core.env_server.types import EnvironmentMetadata

from gym_mcp.errors import ConfigError, GymMCPError
from gym_mcp.openenv.models import GymMCPAction, GymMCPObservation, GymMCPState
from gym_mcp.transport.runner import get_runner, run_sync

__all__ = ["EnvPool", "EnvRecipe", "GymMCPEnvironment"]

T = TypeVar("T")


@dataclasses.dataclass(frozen=True)
class EnvRecipe:
    """How each session's environment is made: ``gym.make(env_id, **kwargs)``, perturbed by ``perturb``.

    Args:
        env_id: A registered gym-mcp id (``gym_mcp/Banking-v0``, a composition, ``gym_mcp/External-v0``,
            ``gym_mcp/BFCL-MultiTurn-v0``).
        kwargs: Keyword arguments of ``gym.make`` (``tasks=``, ``user=``, ``transport=``, ``spec=``, ...).
        perturb: A perturbation mix (`gym_mcp.wrappers.mix`) applied to every episode, or None.
        seed: The perturbation mix's seed.
    """

    env_id: str
    kwargs: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    perturb: str | None = None
    seed: int = 0

    def make(self) -> gym.Env[Any, Any]:
        """A new environment of this recipe."""
        env: gym.Env[Any, Any] = gym.make(self.env_id, **dict(self.kwargs))
        if self.perturb:
            from gym_mcp.wrappers import Perturb

            env = Perturb(env, self.perturb, seed=self.seed)
        return env


class EnvPool:
    """Warm environments of one recipe, handed to sessions and taken back when they end.

    Args:
        recipe: What every environment is.
        max_idle: Idle environments kept; more are closed when given back.
        max_in_flight: Resets and steps that run at once on gym-mcp's loop; the others wait their
            turn, first come first served. Default: 4 for in-process servers, whose tool calls are
            CPU work on this process's one interpreter (more at once only adds thread switches:
            64 sessions on Banking-v0 made 1,100 steps/s at 1 to 4 in flight, 920 at 64), and 32
            for servers in other processes, whose calls wait on I/O that others can overlap.
        freeze_gc: Keep what lives long out of the garbage collector's full scans (`settle`,
            `tick`). For a process that serves the pool (the CLI's ``serve-openenv`` turns it
            on); it changes the collector for the whole process.
        settle_every_s: With ``freeze_gc``: the least time between two settles of `tick`.
    """

    RECLAIM_GROWTH = 1.5
    """With ``freeze_gc``: a full collection runs when the process's peak memory grew by this factor."""

    def __init__(
        self,
        recipe: EnvRecipe,
        *,
        max_idle: int = 256,
        max_in_flight: int | None = None,
        freeze_gc: bool = False,
        settle_every_s: float = 1.0,
    ) -> None:
        self.recipe = recipe
        self.max_idle = max_idle
        self.freeze_gc = freeze_gc
        self.settle_every_s = settle_every_s
        self._froze = False
        self._settled_at = 0.0  # time.monotonic() of the last settle
        self._rss_base = 0  # the process's peak memory at the first settle or the last reclaim
        self.settles = 0
        self.reclaims = 0
        self._idle: list[gym.Env[Any, Any]] = []
        self._lock = threading.Lock()
        self._sessions: dict[str, GymMCPEnvironment] = {}
        self.built = 0
        # Threads of its own for the blocking work (building an environment, a sync-only stack):
        # each waits on gym-mcp's loop, and the loop in turn needs the default executor (a
        # connection's getaddrinfo); sharing that one deadlocked 16 sessions' first resets
        # over HTTP once its 6 threads were all waiting.
        self.threads = concurrent.futures.ThreadPoolExecutor(16, thread_name_prefix="gym-mcp-openenv")
        in_process = recipe.kwargs.get("transport", "inprocess") == "inprocess" and "spec" not in recipe.kwargs
        self.max_in_flight = max_in_flight or (4 if in_process else 32)
        self._in_flight: asyncio.Semaphore | None = None
        self.snapshots: _SnapshotStore = _SnapshotStore()
        # Sessions' episodes are coroutines on gym-mcp's loop, which gets a thread of its own
        # while the pool lives: so they interleave (see `LoopRunner.pin`); `close` undoes it.
        get_runner().pin()
        self._pinned = True

    def take(self) -> gym.Env[Any, Any]:
        """A warm environment (a new one when none is idle)."""
        return self._take()[0]

    def _take(self) -> tuple[gym.Env[Any, Any], bool]:
        """A warm environment, and whether it was built for this call."""
        with self._lock:
            if self._idle:
                return self._idle.pop(), False
            self.built += 1
        return self.recipe.make(), True

    def settle(self, *, built: bool = False) -> None:
        """Take what lives now out of the collector's full scans (`gc.freeze`), young garbage first.

        A served pool keeps hundreds of environments alive (an MCP server, its database and its
        tools' models each, about 1 MB), each with its episode, and Python's full collections
        scan every object that is not frozen: with 256 Banking-v0 sessions each took 0.45 to
        0.85 s while every session waited (the whole p99 step latency, 1.0 s at 256 sessions)
        when nothing was frozen, and still 50 to 135 ms (every p99 above 250 ms at 256 sessions)
        when only what an environment kept after its first reset was: what the first tool calls
        cache (the ORM's compiled statements) and the live episodes' records were scanned.
        Frozen objects are still freed by reference counting; a cycle that becomes garbage after
        it was frozen waits for `reclaim`. Does nothing unless the pool was made with
        ``freeze_gc``.

        Args:
            built: After a new environment's first reset: the memory it brought is the new base
                of `reclaim`'s trigger (a pool that grows to 256 environments is not leaking).
        """
        if not self.freeze_gc:
            return
        gc.collect(1)
        gc.freeze()
        self._froze = True
        self._settled_at = time.monotonic()
        self.settles += 1
        peak = _peak_rss()
        if built or not self._rss_base:
            self._rss_base = peak
        elif peak > self.RECLAIM_GROWTH * self._rss_base:
            self.reclaim()

    def tick(self) -> None:
        """After a reset or a step: `settle`, when ``settle_every_s`` passed since the last one.

        Every second, what lived through it is frozen before a full collection would scan it
        (a young collection and the freeze: a few ms a second at 256 sessions).
        """
        if self.freeze_gc and time.monotonic() - self._settled_at >= self.settle_every_s:
            self.settle()

    def reclaim(self) -> None:
        """A full collection over the frozen objects too, then freeze again.

        Frozen objects freed by reference counting leave the frozen set; only cycles that became
        garbage after they were frozen stay, and this frees them. gym-mcp's own episodes leave
        none (tests/openenv/test_pool_gc.py), so `settle` runs it only when the process's peak
        memory grew by `RECLAIM_GROWTH` since the last one, or since the pool last built an
        environment (what grows then is another server's or wrapper's cycles): memory stays
        bounded, at the price of one full pause (0.4 to 0.8 s with 256 Banking-v0
        environments). The peak, not the frozen set's size: `gc.get_freeze_count` walks every
        frozen object, tens of ms with 256 environments. Does nothing unless the pool was made
        with ``freeze_gc`` (it would freeze the whole process).
        """
        if not self.freeze_gc:
            return
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self._froze = True
        self._rss_base = _peak_rss()
        self.reclaims += 1

    def give_back(self, env: gym.Env[Any, Any]) -> None:
        """Keep ``env`` for the next session (or close it when enough are idle)."""
        with self._lock:
            if len(self._idle) < self.max_idle:
                self._idle.append(env)
                return
        env.close()

    def in_flight(self) -> asyncio.Semaphore:
        """The bound on resets and steps running at once (on gym-mcp's loop; the rest wait their turn)."""
        if self._in_flight is None:
            self._in_flight = asyncio.Semaphore(self.max_in_flight)
        return self._in_flight

    def warm(self, n: int) -> None:
        """Build ``n`` environments ahead of the sessions that will take them (each started with a reset)."""
        made = []
        for _ in range(n):
            env = self.take()
            env.reset(seed=0)
            made.append(env)
        for env in made:
            self.give_back(env)
        if made:
            self.settle(built=True)

    @property
    def session(self) -> Callable[[], GymMCPEnvironment]:
        """The factory OpenEnv calls for each new session.

        A partial of the class, so that OpenEnv reads the class's concurrency settings from it.
        """
        return functools.partial(GymMCPEnvironment, self)

    def _register(self, key: str, env: GymMCPEnvironment) -> None:
        with self._lock:
            self._sessions[key] = env

    def _unregister(self, key: str) -> None:
        with self._lock:
            self._sessions.pop(key, None)

    def find(self, key: str) -> GymMCPEnvironment | None:
        """The open session whose key is ``key``, or None."""
        with self._lock:
            return self._sessions.get(key)

    @property
    def idle(self) -> int:
        """How many environments wait for a session."""
        return len(self._idle)

    def close(self) -> None:
        """Close every idle environment, and give gym-mcp's loop back to its callers."""
        with self._lock:
            idle, self._idle = self._idle, []
        for env in idle:
            env.close()
        self.threads.shutdown(wait=False)
        if self._froze:
            self._froze = False
            self._rss_base = 0
            gc.unfreeze()
        if self._pinned:
            self._pinned = False
            get_runner().unpin()


class _SnapshotStore:
    """Episode snapshots the infrastructure routes saved, by a random id (bounded, oldest dropped first)."""

    def __init__(self, max_kept: int = 1024) -> None:
        self.max_kept = max_kept
        self._items: dict[str, Any] = {}
        self._lock = threading.Lock()

    def put(self, snap: Any) -> str:
        key = secrets.token_urlsafe(24)
        with self._lock:
            self._items[key] = snap
            while len(self._items) > self.max_kept:
                self._items.pop(next(iter(self._items)))
        return key

    def get(self, key: str) -> Any | None:
        with self._lock:
            return self._items.get(key)


def _peak_rss() -> int:
    """The process's peak resident memory (in the platform's unit: only ratios of it are read)."""
    try:
        import resource
    except ImportError:  # no resource module (Windows): no reclaims
        return 0
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def _tools(openai_tools: list[dict[str, Any]]) -> list[Tool]:
    """OpenAI function schemas as OpenEnv's (MCP-shaped) tools."""
    out = []
    for t in openai_tools:
        fn = t.get("function", t)
        out.append(
            Tool(name=fn["name"], description=fn.get("description") or "", input_schema=fn.get("parameters") or {})
        )
    return out


class GymMCPEnvironment(Environment[GymMCPAction, GymMCPObservation, GymMCPState]):
    """One OpenEnv session over a warm gym-mcp environment of a pool.

    The session's episodes run as coroutines on gym-mcp's own event loop (OpenEnv awaits
    ``reset_async`` and ``step_async``), which the pool gives a thread of its own
    (`gym_mcp.transport.runner.LoopRunner.pin`): one session's tool call runs while another's
    waits. The environment is taken from the pool at the session's first reset or step (never
    on the server's loop: building one blocks), and goes back when the session closes.

    Args:
        pool: The pool the environment comes from and goes back to on ``close``.
    """

    SUPPORTS_CONCURRENT_SESSIONS = True  # each session holds its own environment and server state

    def __init__(self, pool: EnvPool) -> None:
        super().__init__()
        self.pool = pool
        self.key = secrets.token_urlsafe(24)
        self._env: gym.Env[Any, Any] | None = None
        self._face: Any = None  # the layer whose areset/astep run the whole stack, or None
        self._fresh = False  # the environment was built for this session and has not been reset yet
        self._closed = False
        self._lock: asyncio.Lock | None = None  # one reset or step of this session at a time
        self._state = GymMCPState(env_id=pool.recipe.env_id, session=self.key)
        self._started = False
        self._tools: list[Tool] = []
        self._seen = 0  # messages of the conversation already sent to the client
        self.mcp_client = _SessionTools(self)  # OpenEnv's /mcp route (tools/list, tools/call) calls through it
        pool._register(self.key, self)

    # -- OpenEnv's Environment -------------------------------------------------------------------

    async def reset_async(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task_id: str | None = None,
        task_index: int | None = None,
        options: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> GymMCPObservation:
        """Start an episode: the task ``task_id`` or ``task_index`` names, else the next one.

        Args:
            seed: Reseeds the environment's generator (Gymnasium's ``reset(seed=)``).
            episode_id: The id ``state`` reports for this episode (default: a new uuid).
            task_id: The task with this id.
            task_index: The task at this index of the environment's tasks.
            options: Gymnasium's reset options (``{"task_id": ...}``, ``{"task": {...}}``).
            **kwargs: Anything else a client sends; refused with the names it may use.

        Raises:
            ConfigError: An unknown keyword.
            TaskError: An unknown task id or a bad index.
        """
        if kwargs:
            raise ConfigError(
                f"reset got unknown arguments {sorted(kwargs)}: use seed, episode_id, task_id, task_index or options"
            )
        opts = dict(options or {})
        if task_id is not None:
            opts["task_id"] = task_id
        if task_index is not None:
            opts["task_index"] = task_index
        return await _on_gym_loop(self._locked(self._reset(seed, episode_id, opts)))

    async def step_async(
        self, action: GymMCPAction, timeout_s: float | None = None, **kwargs: Any
    ) -> GymMCPObservation:
        """Run one action (see `GymMCPAction`); never raises for what the action holds."""
        return await _on_gym_loop(self._locked(self._step(action)))

    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> GymMCPObservation:
        """`reset_async` from synchronous code (not from a coroutine on gym-mcp's loop)."""
        return run_sync(self.reset_async(seed, episode_id, **kwargs))

    def step(self, action: GymMCPAction, timeout_s: float | None = None, **kwargs: Any) -> GymMCPObservation:
        """`step_async` from synchronous code."""
        return run_sync(self.step_async(action))

    @property
    def state(self) -> GymMCPState:
        """The episode's id, task, step count, counters and reward, and this session's key."""
        return self._state

    def get_metadata(self) -> EnvironmentMetadata:
        """The environment's name and what it serves."""
        return EnvironmentMetadata(
            name=self.pool.recipe.env_id,
            description=f"gym-mcp environment {self.pool.recipe.env_id} (tools over MCP, reward on the final state)",
            version="1",
        )

    def close(self) -> None:
        """End the session: the environment goes back to the pool, warm."""
        self._closed = True
        self.pool._unregister(self.key)
        env, self._env = self._env, None
        if env is not None:
            self.pool.give_back(env)

    # -- training infrastructure (the app's routes, never the agent) -------------------------------

    async def save(self) -> str:
        """Snapshot the episode (server state, conversation, counters); answer the snapshot's id."""
        return await _on_gym_loop(self._locked(self._save()))

    async def _save(self) -> str:
        env = await self._require_env()
        if not self._started:
            await self._reset(None, None, {})
        snap = await env.unwrapped.asnapshot()  # type: ignore[attr-defined]
        return self.pool.snapshots.put((snap, self._state.model_copy(deep=True), self._seen, self._tools))

    async def load(self, snapshot_id: str) -> GymMCPState:
        """Continue from a snapshot this server saved (of this session or another: a fork).

        Raises:
            KeyError: No snapshot with that id.
        """
        item = self.pool.snapshots.get(snapshot_id)
        if item is None:
            raise KeyError(snapshot_id)
        snap, state, seen, tools = item

        async def load() -> GymMCPState:
            env = await self._require_env()
            await env.unwrapped.arestore(snap)  # type: ignore[attr-defined]
            self._state = state.model_copy(update={"session": self.key}, deep=True)
            self._seen, self._tools, self._started = seen, tools, True
            return self._state

        return await _on_gym_loop(self._locked(load()))

    # -- the work (on gym-mcp's loop) --------------------------------------------------------------

    async def _locked(self, work: Coroutine[Any, Any, T]) -> T:
        """``work`` under the session's lock (on gym-mcp's loop): one reset or step at a time."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock, self.pool.in_flight():
            try:
                return await work
            finally:
                self.pool.tick()

    async def _require_env(self) -> gym.Env[Any, Any]:
        if self._closed:
            raise GymMCPError("this session is closed")
        if self._env is None:  # built off the loop: making an environment blocks until its server is up
            env, self._fresh = await asyncio.get_running_loop().run_in_executor(self.pool.threads, self.pool._take)
            self._env, self._face = env, _async_face(env)
            return env
        return self._env

    async def _env_reset(self, seed: int | None, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        env = await self._require_env()
        if self._face is not None:
            result: tuple[str, dict[str, Any]] = await self._face.areset(seed=seed, options=options or None)
            return result
        return await asyncio.get_running_loop().run_in_executor(
            self.pool.threads, lambda: env.reset(seed=seed, options=options or None)
        )

    async def _env_step(self, action: Any) -> tuple[str, Any, bool, bool, dict[str, Any]]:
        env = await self._require_env()
        if self._face is not None:
            result: tuple[str, Any, bool, bool, dict[str, Any]] = await self._face.astep(action)
            return result
        return await asyncio.get_running_loop().run_in_executor(self.pool.threads, env.step, action)

    async def _reset(self, seed: int | None, episode_id: str | None, options: dict[str, Any]) -> GymMCPObservation:
        text, info = await self._env_reset(seed, options)
        if self._fresh:  # what the new environment keeps exists now
            self._fresh = False
            self.pool.settle(built=True)
        self._started = True
        self._tools = _tools(info.get("tools", []))
        counters = _counters(info)
        self._state = GymMCPState(
            episode_id=episode_id or str(uuid.uuid4()),
            step_count=0,
            env_id=self.pool.recipe.env_id,
            task_id=info.get("task_id"),
            session=self.key,
            counters=counters,
        )
        messages = list(info.get("messages", []))
        self._seen = len(messages)
        return GymMCPObservation(text=text, messages=messages, tools=self._tools, metadata=counters)

    async def _step(self, action: GymMCPAction) -> GymMCPObservation:
        auto = not self._started
        if auto:  # OpenEnv's plain HTTP /step: a fresh environment, so a fresh episode first
            await self._reset(None, None, {})
        if action.type == "list_tools":
            return GymMCPObservation(tools=self._tools, done=self._done, metadata={"auto_reset": True} if auto else {})
        if action.type == "call_tool":
            if not action.tool_name:
                return self._refused("a call_tool action needs tool_name", auto)
            gym_action: Any = {"name": action.tool_name, "arguments": action.arguments}
        elif action.message is None:
            return self._refused("a message action needs message (an assistant message or text)", auto)
        else:
            gym_action = action.message
        text, reward, terminated, truncated, info = await self._env_step(gym_action)
        messages = info.get("messages", [])
        new = list(messages[self._seen :])
        self._seen = len(messages)
        counters = _counters(info)
        ended = terminated or truncated
        self._state = self._state.model_copy(
            update={
                "step_count": self._state.step_count + 1,
                "terminated": terminated,
                "truncated": truncated,
                "reward": float(reward) if ended else 0.0,
                "counters": counters,
            }
        )
        metadata = {**counters, **({"auto_reset": True} if auto else {})}
        for key in ("reward_terms", "state_match", "final_fingerprint"):
            if key in info:
                metadata[key] = info[key]
        obs = GymMCPObservation(
            text=text,
            messages=new,
            terminated=terminated,
            truncated=truncated,
            done=ended,
            reward=float(reward),
            metadata=metadata,
        )
        if action.type == "call_tool":
            obs.tool_name = action.tool_name
            obs.result = text
            if _call_failed(info):
                obs.error = ToolError(error_type=ToolErrorType.EXECUTION_ERROR, message=text)
        return obs

    @property
    def _done(self) -> bool:
        return self._state.terminated or self._state.truncated

    def _refused(self, why: str, auto: bool) -> GymMCPObservation:
        """An action the wire type allows but that says nothing to run: an error observation, counted."""
        counters = dict(self._state.counters)
        counters["refused_actions"] = int(counters.get("refused_actions", 0)) + 1
        self._state = self._state.model_copy(update={"counters": counters})
        meta = {**counters, **({"auto_reset": True} if auto else {})}
        return GymMCPObservation(text=f"Error: {why}", done=self._done, metadata=meta)


async def _on_gym_loop(work: Coroutine[Any, Any, T]) -> T:
    """Await ``work`` on gym-mcp's loop, where the environments' servers live.

    ``gym-mcp serve-openenv`` runs the server on that loop, so this is a plain await; an app
    served by another server (``uvicorn server.app:app``) runs on a loop of its own, and the
    work is handed to gym-mcp's (pinned by the pool, so it runs in its own thread).
    """
    loop = get_runner().loop
    if asyncio.get_running_loop() is loop:
        return await work
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, loop))


def _async_face(env: gym.Env[Any, Any]) -> Any:
    """The outermost layer of ``env`` that runs the whole stack as coroutines, or None.

    Gymnasium's own bookkeeping wrappers that ``gym.make`` adds (order enforcing, the passive
    checker) change nothing an episode does, so they are looked through; any other wrapper
    without ``areset``/``astep`` makes the session run the sync stack in a thread.
    """
    from gymnasium.wrappers import OrderEnforcing, PassiveEnvChecker

    layer: Any = env
    while True:
        if callable(getattr(type(layer), "areset", None)) and callable(getattr(type(layer), "astep", None)):
            return layer
        if isinstance(layer, OrderEnforcing | PassiveEnvChecker):
            layer = layer.env
            continue
        return None


def _counters(info: Mapping[str, Any]) -> dict[str, Any]:
    """``info`` without what the observation carries apart (tools, messages, the step's call records)."""
    return {k: v for k, v in info.items() if k not in ("tools", "messages", "calls", "reward_terms") and _plain(v)}


def _plain(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool | list | dict)


def _call_failed(info: Mapping[str, Any]) -> bool:
    """Whether the step's one call did not succeed (its record's status is not ``ok``)."""
    return any(not record.ok for record in info.get("calls") or ())


class _SessionTools:
    """The session's tools as OpenEnv's ``/mcp`` route calls them (``list_tools``, ``call_tool``).

    The route awaits these on the server's loop, which is gym-mcp's: the call is the session's
    own step (counted in its episode, under its lock).
    """

    def __init__(self, env: GymMCPEnvironment) -> None:
        # a weak proxy: the session holds this, and a cycle would leave every closed session
        # (its tools' models, its state: about a hundred objects) to the collector's scans
        self._env = weakref.proxy(env)

    def is_connected(self) -> bool:
        return True

    async def __aenter__(self) -> _SessionTools:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def list_tools(self) -> list[Tool]:
        obs = await self._env.step_async(GymMCPAction(type="list_tools"))
        return list(obs.tools or [])

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        obs = await self._env.step_async(
            GymMCPAction(type="call_tool", tool_name=name, arguments=dict(arguments or {}))
        )
        return {
            "content": [{"type": "text", "text": obs.text}],
            "isError": obs.error is not None,
            "data": obs.text,
            "done": obs.done,
            "reward": obs.reward,
        }
