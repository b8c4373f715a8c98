"""The episode core every environment shares: its bookkeeping, its server, snapshots and forks.

An environment's async core (`AsyncMCPEnv`, `AsyncBFCLEnv`) is an `EpisodeCore` plus the rules
of its episodes: how ``reset`` picks and sets up an episode and what ``step`` does with an
action. The core holds what they have in common:

- the conversation (``messages``, OpenAI chat format), the record of every attempted call
  (``calls``), the counters reported in ``info``, the step count, and the final answer;
- what a step did, in ``info``: ``info["calls"]`` the `CallRecord`s it made and
  ``info["messages"]`` the conversation so far (a `Conversation` view, not a copy), and the
  finished `Episode` the rewards read (`episode`);
- the `CallHook` a wrapper installs (`set_call_hook`), which the environment asks what the
  agent is shown and what a call means;
- the simulated user, when there is one (`gym_mcp.users`): a message to it, its reply, its
  record (``user_turns``) and the limits on a dialogue;
- the warm server it borrows from a `ServerPool` and gives back at ``close``;
- how an action that cannot be read, an invalid call and a call's result are recorded;
- how a ``reset`` that names no task picks one (``task_order``: a seeded draw or the next in
  order) and the ``task_index`` option;
- ``snapshot``/``restore`` of all of that together with the server's state, and ``fork(n)``.
"""

from __future__ import annotations

import copy
import pickle
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Self, TypeVar

import numpy as np
from gymnasium.utils import seeding

from gym_mcp.actions.parsing import ParsedAction, ToolCall
from gym_mcp.env.config import TaskOrder, check_task_order
from gym_mcp.env.conversation import Conversation
from gym_mcp.env.hooks import CallHook
from gym_mcp.episode import CallRecord, CallStatus, Episode, Limit, RewardFn, UserTurn
from gym_mcp.errors import ConfigError, StateLostError, TaskError
from gym_mcp.live.live_server import LiveServer
from gym_mcp.live.warm_pool import ServerPool, get_pool
from gym_mcp.state.base import Snapshot
from gym_mcp.tasks import Task
from gym_mcp.transport import ToolResult
from gym_mcp.users import FALLBACK, User, UserReply, UserView

__all__ = ["EpisodeCore", "EpisodeSnapshot", "reward_terms"]

T = TypeVar("T")

OVER = "Error: the episode is over; call reset() to start a new one."
"""The observation of a step after the episode ended."""


@dataclass(frozen=True, kw_only=True)
class EpisodeSnapshot:
    """A whole episode at one point: server state, conversation, counters and RNG.

    Restoring it (into the same or another environment of the same server) continues the
    episode exactly from there. Each environment adds what its episodes need (the task, the
    turn, ...).

    ``rng_state`` and ``task_cursor`` (the position in the task order, see
    `EpisodeCore.task_order`) make the resets after a restore or fork pick the same tasks as
    the resets after the snapshot in the original environment.
    """

    state: Snapshot
    messages: tuple[Mapping[str, Any], ...]
    calls: tuple[CallRecord, ...]
    counters: Mapping[str, int]
    steps: int
    done: bool
    final_answer: str | None
    rng_state: Mapping[str, Any] | None = field(default=None, repr=False)
    user_turns: tuple[UserTurn, ...] = ()
    turn_steps: int = 0
    limits: tuple[Limit, ...] = ()
    task_cursor: int = 0
    outcome: tuple[bool, bool] | None = None


def _copied(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A deep copy of a conversation, through pickle where it can (5x faster than `copy.deepcopy`).

    Every final step copies the episode's messages for the reward functions (what they see must
    not be what the env goes on to change): 40 messages of a Banking episode took 120 us with
    `copy.deepcopy`, a quarter of that step. Messages that pickle cannot take (a caller's own
    objects in them) are deep-copied as before.
    """
    try:
        copied: list[dict[str, Any]] = pickle.loads(pickle.dumps(list(messages), pickle.HIGHEST_PROTOCOL))
    except Exception:  # anything pickle refuses: what deepcopy does with it is the contract
        deep: list[dict[str, Any]] = copy.deepcopy([dict(m) for m in messages])
        return deep
    return copied


def reward_terms(reward_fn: RewardFn, episode: Episode) -> dict[str, float]:
    """Every reward term of a finished episode (the reward function's own, if it reports them)."""
    own = getattr(reward_fn, "terms", None)
    if callable(own):
        return dict(own(episode))
    from gym_mcp.rewards.composite import all_terms

    return dict(all_terms(episode))


class EpisodeCore(ABC):
    """Bookkeeping, server and snapshots of one environment's episodes (see the module docstring).

    Subclasses call `_new_episode` when an episode starts, `_acquire` for a server, and
    implement ``reset``, ``step``, ``snapshot``, ``restore`` (using `_snapshot_fields` and
    `_restore_fields`) and `_clone_empty` (an environment like this one, at no episode). A
    ``reset`` that names no task takes `_next_task` of the environment's tasks; one that gives
    ``{"task_index": i}`` takes the task at `_task_index_option`.

    Attributes:
        task_order: How a ``reset`` that names no task picks one: ``"random"`` draws it from
            ``np_random`` (seeded by ``reset(seed=...)``), ``"sequential"`` takes the tasks one
            after another in order, wrapping around after the last.
    """

    def __init__(self, pool: ServerPool | None, user: User | None = None, *, task_order: TaskOrder = "random") -> None:
        self._pool = pool
        self.user = user
        self.task_order: TaskOrder = check_task_order(task_order)
        self._task_cursor = 0  # with task_order="sequential": the index of the next plain reset's task
        self.live: LiveServer | None = None
        self.call_hook: CallHook | None = None  # see set_call_hook
        self.np_random: np.random.Generator = seeding.np_random(None)[0]
        self._new_episode()

    # -- bookkeeping -------------------------------------------------------------------------------

    def _new_episode(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.calls: list[CallRecord] = []
        self.counters: dict[str, int] = {
            "num_calls": 0,
            "invalid_calls": 0,
            "tool_errors": 0,
            "timeouts": 0,
            "crashes": 0,
            "server_restarts": 0,
            "rolled_back": 0,
        }
        self.steps = 0
        self.done = False
        self.final_answer: str | None = None
        self.user_turns: list[UserTurn] = []
        self.turn_steps = 0  # the agent's steps since the user last spoke
        self.limits: list[Limit] = []  # the limits this episode reached
        self.outcome: tuple[bool, bool] | None = None  # (terminated, truncated) once the episode ended
        self._step_from = 0  # calls[_step_from:] are the ones the current step made

    def set_call_hook(self, hook: CallHook | None) -> None:
        """Install the hook asked at reset and around every call (None removes it); see `CallHook`."""
        self.call_hook = hook

    def _begin_step(self) -> None:
        """A step starts: the calls it makes are recorded from here (``info["calls"]``)."""
        self._step_from = len(self.calls)

    async def reset(
        self,
        *,
        seed: int | None = None,
        options: Mapping[str, Any] | None = None,
        rng: np.random.Generator | None = None,
    ) -> tuple[str, dict[str, Any]]:
        """Start an episode from its initial state and return its first observation.

        The task is the one ``options`` names (``{"task_id": id}``, ``{"task_index": i}``, and
        what each environment adds: ``{"task": Task}`` for MCP environments, ``{"entry": id}``
        for BFCL); else, with ``task_order="sequential"``, the next task in order; else a draw
        from the environment's generator ``np_random``.

        Args:
            seed: Reseeds the generator the task is drawn from (as in Gymnasium): ``reset(seed=s)``
                draws the same task every time, and plain resets after it continue the generator.
                It does not move the sequential order.
            options: Chooses the task (see above).
            rng: Generator to draw the task from (the sync wrapper passes its own).

        Returns:
            The first observation and the info dict (``tools``, ``messages``, counters).
        """
        if rng is not None:
            self.np_random = rng
        elif seed is not None:
            self.np_random = seeding.np_random(seed)[0]
        return await self._begin(options or {})

    @abstractmethod
    async def _begin(self, options: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """Choose the episode's task from ``options``, restore its initial state, return ``(obs, info)``."""

    def _draw(self, items: Sequence[Any]) -> Any:
        """One of ``items``, uniformly from the episode's generator (no draw when there is one)."""
        if len(items) == 1:
            return items[0]
        return items[int(self.np_random.integers(len(items)))]

    def _next_task(self, items: Sequence[T]) -> T:
        """The task of a ``reset`` that names none: the next in order (``task_order="sequential"``) or a draw.

        The sequential cursor moves only here: a reset that names its task leaves it where it is.
        """
        if self.task_order == "sequential":
            i = self._task_cursor % len(items)  # a restored cursor may come from a longer task list
            self._task_cursor = (i + 1) % len(items)
            return items[i]
        drawn: T = self._draw(items)
        return drawn

    @staticmethod
    def _task_index_option(value: object, count: int) -> int:
        """The ``task_index`` reset option checked: an int from 0 to ``count - 1``.

        Raises:
            TaskError: Not an int (a bool is not one), or out of range.
        """
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            raise TaskError(f"task_index must be an int from 0 to {count - 1} ({count} tasks), got {value!r}")
        if not 0 <= int(value) < count:
            raise TaskError(f"task_index {value} is out of range: the env has {count} tasks (0 to {count - 1})")
        return int(value)

    def _counts(self) -> dict[str, Any]:
        """The ``info`` entries every environment reports (and ``user`` when there is one).

        ``messages`` is a view of the conversation so far, made in O(1) (the list only grows
        within an episode; see `Conversation`); ``calls`` the records of this step's calls.
        """
        out = {
            "messages": Conversation(self.messages),
            "calls": tuple(self.calls[self._step_from :]),
            "step": self.steps,
            **self.counters,
            "limits": list(self.limits),
        }
        if self.user is not None:
            out["user"] = self._user_info()
        return out

    def _user_info(self) -> dict[str, Any]:
        guards: dict[str, int] = {}
        kinds: dict[str, int] = {}
        for turn in self.user_turns:
            kinds[turn.kind] = kinds.get(turn.kind, 0) + 1
            for g in turn.guards:
                guards[g] = guards.get(g, 0) + 1
        return {
            "name": self.user.name if self.user is not None else None,
            "turns": len(self.user_turns),
            "stopped": any(t.kind == "stop" for t in self.user_turns),
            "kinds": kinds,
            "guards": guards,
            "needless_questions": sum(t.needless for t in self.user_turns),
        }

    # -- the user ----------------------------------------------------------------------------

    async def _to_user(self, task: Task, text: str, max_user_turns: int) -> tuple[str, bool, bool]:
        """Send the agent's message to the user; returns ``(reply, terminated, truncated)``.

        A user that raises (a bug in a custom user) gives the fixed fallback reply, with the
        guard ``error``: nothing escapes ``step()``.
        """
        assert self.user is not None
        self.final_answer = text
        self.messages.append({"role": "assistant", "content": text})
        view = UserView(task, text, tuple(self.messages), tuple(self.calls), tuple(self.user_turns), self.steps)
        try:
            reply = await self.user.reply(view)
        except Exception as exc:  # a custom user's bug becomes a counted guard, not a crash of step()
            reply = UserReply(FALLBACK, "other", guards=(f"error:{type(exc).__name__}",))
        turn = UserTurn(self.steps, reply.text, reply.kind, reply.slot, reply.needless, reply.guards)
        self.user_turns.append(turn)
        self.messages.append({"role": "user", "content": reply.text})
        self.turn_steps = 0
        if reply.stop:
            return reply.text, True, False
        if len(self.user_turns) >= max_user_turns:
            self.limits.append("max_user_turns")
            return reply.text, False, True
        return reply.text, False, False

    def _limit_reached(self, max_steps: int | None, max_steps_per_turn: int) -> bool:
        """Whether the episode must be truncated now (the limit reached is named in ``limits``)."""
        if max_steps is not None and self.steps >= max_steps:
            self.limits.append("max_steps")
            return True
        if self.user is not None and self.turn_steps >= max_steps_per_turn:
            self.limits.append("max_steps_per_turn")
            return True
        return False

    # -- recording actions and calls ------------------------------------------------------------

    def _reject(self, parsed: ParsedAction) -> str:
        """Log an action that tried to call tools but could not be read; returns the error observation."""
        text = "Error: " + "; ".join(parsed.errors)
        self.messages.append({"role": "assistant", "content": parsed.text or None})
        self.messages.append({"role": "user", "content": text})
        self._record_parse_errors(parsed.errors)
        return text

    def _record_parse_errors(self, errors: Sequence[str]) -> None:
        """Count and record the calls of an action that could not be read."""
        self.counters["invalid_calls"] += len(errors)
        for err in errors:
            self.calls.append(CallRecord("", None, f"Error: {err}", "invalid", self.steps))

    def _end(self, terminated: bool, truncated: bool) -> None:
        """The episode is over: no step runs now, and `episode` reports how it ended."""
        self.done = True
        self.outcome = (terminated, truncated)

    def _assistant_calls(self, parsed: ParsedAction) -> list[ToolCall]:
        """The action's calls with ids (``call_<step>_<i>`` where the agent gave none), logged as its turn."""
        calls = [
            c if c.id else ToolCall(c.name, c.arguments, f"call_{self.steps}_{i}") for i, c in enumerate(parsed.calls)
        ]
        self.messages.append(
            {"role": "assistant", "content": parsed.text or None, "tool_calls": [c.to_openai() for c in calls]}
        )
        return calls

    def _invalid(self, call: ToolCall, output: str, *, known_name: bool) -> str:
        """Record a call that did not run (or does not count as valid); returns its observation."""
        self.counters["invalid_calls"] += 1
        self.calls.append(CallRecord(call.name, call.arguments, output, "invalid", self.steps, known_name, False))
        return output

    def _record_result(self, call: ToolCall, result: ToolResult, output: str) -> str:
        """Record a call that ran on the server: its status, counters and output (``Error: ...`` if it failed)."""
        self.counters["num_calls"] += 1
        status: CallStatus
        if result.timed_out:
            status = "timeout"
            self.counters["timeouts"] += 1
        elif result.crashed:
            status = "crash"
            self.counters["crashes"] += 1
        elif result.is_error:
            status = "tool_error"
        else:
            status = "ok"
        if result.is_error:
            self.counters["tool_errors"] += 1
        self.calls.append(CallRecord(call.name, call.arguments, output, status, self.steps, True, True))
        return output

    # -- the server ------------------------------------------------------------------------------

    @property
    def pool(self) -> ServerPool:
        """The pool this environment borrows servers from (the running loop's by default)."""
        return self._pool or get_pool()

    def _require_live(self) -> LiveServer:
        if self.live is None:
            raise ConfigError("the environment has no live server yet: call reset() first")
        return self.live

    async def close(self) -> None:
        """Give the server back to the pool (it stays warm for the next environment)."""
        live, self.live = self.live, None
        if live is not None:
            await self.pool.release(live)

    # -- snapshots and forks -----------------------------------------------------------------------

    def _snapshot_fields(self) -> dict[str, Any]:
        """The `EpisodeSnapshot` fields of the episode now."""
        return {
            "state": self._require_live().state.snapshot(),
            "messages": tuple(_copied(self.messages)),
            "calls": tuple(self.calls),
            "counters": dict(self.counters),
            "steps": self.steps,
            "done": self.done,
            "final_answer": self.final_answer,
            "rng_state": copy.deepcopy(self.np_random.bit_generator.state),
            "user_turns": tuple(self.user_turns),
            "turn_steps": self.turn_steps,
            "limits": tuple(self.limits),
            "task_cursor": self._task_cursor,
            "outcome": self.outcome,
        }

    def _restore_fields(self, snap: EpisodeSnapshot) -> None:
        """Restore the server's state and the shared bookkeeping from ``snap`` (the server must be live)."""
        self._require_live().state.restore(snap.state)
        self.messages = [dict(m) for m in _copied(snap.messages)]
        self.calls = list(snap.calls)
        self.counters = dict(snap.counters)
        self.steps = snap.steps
        self.done = snap.done
        self.final_answer = snap.final_answer
        self.user_turns = list(snap.user_turns)
        self.turn_steps = snap.turn_steps
        self.limits = list(snap.limits)
        self._task_cursor = snap.task_cursor
        self.outcome = getattr(snap, "outcome", None)  # snapshots pickled before it existed lack it
        self._step_from = len(self.calls)
        if snap.rng_state is not None:
            rng = np.random.Generator(np.random.PCG64())
            rng.bit_generator.state = copy.deepcopy(dict(snap.rng_state))
            self.np_random = rng

    # -- the episode record ----------------------------------------------------------------------

    @abstractmethod
    def _episode_task(self) -> Task:
        """The task of the episode being played (what `Episode.task` reports)."""

    def episode(self, *, terminated: bool | None = None, truncated: bool | None = None) -> Episode:
        """The episode so far as reward functions see it: its task, calls, conversation, final state.

        Args:
            terminated: Override how it ended (default: as it ended, or False while it runs).
            truncated: The same for truncation.
        """
        ended = self.outcome or (False, False)
        return Episode(
            task=self._episode_task(),
            calls=tuple(self.calls),
            messages=tuple(_copied(self.messages)),
            final_answer=self.final_answer,
            # parts a task's replay found minted (metadata["volatile"]) are judged as volatile
            final_fingerprint=self._final_fingerprint(),
            terminated=ended[0] if terminated is None else terminated,
            truncated=ended[1] if truncated is None else truncated,
            user_turns=tuple(self.user_turns),
            with_user=self.user is not None,
            limits=tuple(self.limits),
        )

    def _final_fingerprint(self) -> str:
        """The fingerprint the episode is judged by; ``""`` (which matches nothing) when the state was lost."""
        # parts a task's replay found minted (metadata["volatile"]) are judged as volatile
        try:
            return self._require_live().state.fingerprint_without(self._episode_task().metadata.get("volatile"))
        except StateLostError:
            if "state_lost" not in self.limits:
                self.limits.append("state_lost")
            return ""

    @abstractmethod
    async def snapshot(self) -> EpisodeSnapshot:
        """The whole episode now."""

    @abstractmethod
    async def restore(self, snap: Any) -> None:
        """Continue from a snapshot (taken in this or another environment of the same kind)."""

    @abstractmethod
    def _clone_empty(self) -> Self:
        """A new environment with this one's settings, at no episode yet."""

    async def fork(self, n: int) -> list[Self]:
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
            if self.call_hook is not None:  # a perturbed episode's forks stay perturbed the same way
                env.call_hook = self.call_hook.fork()
            forks.append(env)
        return forks
