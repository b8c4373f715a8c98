"""BFCL multi-turn entries as Gymnasium episodes over live MCP servers.

An episode is one entry, turn by turn, as BFCL's function-calling inference loop runs it:

- each user turn is an observation (``info["messages"]`` holds the whole conversation and
  ``info["tools"]`` the tools listed by the server at that moment);
- the agent calls tools (one or more calls per step); a step without calls is its reply and
  ends the turn; the next user turn is the next observation;
- in ``miss_func`` entries the held-out functions appear on the server at the turn BFCL
  reveals them, with BFCL's "I have updated some more functions" message;
- a turn whose call steps exceed BFCL's limit (20) is force-quit, which ends the episode;
- after the last turn the record of every attempted call is scored with BFCL's checker:
  reward 1 or 0, and ``info["bfcl"]`` gives the verdict and the first failing turn.

A malformed action is an error observation (counted in ``info["invalid_calls"]``); it counts
toward the turn's step limit but is not part of the record, as BFCL drops steps it cannot
decode.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from gymnasium.utils import seeding

from gym_mcp._env import CoreDrivenEnv, episode_rng, reject_action, rng_from_state
from gym_mcp._live import LiveServer, ServerPool, get_pool
from gym_mcp._runner import run_sync
from gym_mcp._schema import openai_tools as mcp_to_openai
from gym_mcp._spaces import UnicodeText
from gym_mcp._state import Snapshot
from gym_mcp.bfcl._backend import BFCLSource, BFCLState
from gym_mcp.bfcl._data import (
    MAX_STEPS_PER_TURN,
    check_entry_id,
    entries,
    ground_truth,
    ground_truth_calls,
    shared_entry,
)
from gym_mcp.bfcl._score import Verdict, score
from gym_mcp.errors import ConfigError, TaskError
from gym_mcp.parsing import ParsedAction, Parser, auto_parser, parse_action
from gym_mcp.rewards import CallRecord
from gym_mcp.tasks import Task

__all__ = ["AsyncBFCLEnv", "BFCLEpisodeSnapshot", "BFCLMultiTurnEnv", "bfcl_tasks"]

MAX_ACTION_CHARS = 64_000
MAX_OBSERVATION_CHARS = 1_000_000  # BFCL shows results uncut; long-context listings are long


def bfcl_tasks(category: str, limit: int | None = None) -> list[Task]:
    """A category's entries as `Task`s, for the evaluation harness.

    Each task's id is the entry id, its instruction the first user turn, its reference calls
    the ground truth flattened, and ``metadata["reference_turns"]`` the ground truth per turn
    (what `ReferencePolicy` replays turn by turn).

    Args:
        category: ``"base"``, ``"miss_func"``, ``"miss_param"`` or ``"long_context"``.
        limit: Only the first ``limit`` entries.
    """
    tasks = []
    for e in entries(category)[:limit]:
        turns = [ground_truth_calls(t, e["involved_classes"]) for t in ground_truth(e["id"])]
        first = "\n\n".join(str(m.get("content", "")) for m in e["question"][0] if m.get("role") == "user")
        tasks.append(
            Task(
                id=e["id"],
                server="bfcl-" + category.removeprefix("multi_turn_"),
                instruction=first,
                reference_calls=tuple(c for t in turns for c in t),
                split="test",
                difficulty=len(turns),
                variant=category.removeprefix("multi_turn_"),
                metadata={"bfcl_entry": e["id"], "reference_turns": turns},
            )
        )
    return tasks


@dataclass(frozen=True)
class BFCLEpisodeSnapshot:
    """A BFCL episode at one point: backend state, turn, record and conversation."""

    state: Snapshot
    entry_id: str
    turn: int
    steps_in_turn: int
    record: tuple[tuple[tuple[Mapping[str, str], ...], ...], ...]
    messages: tuple[Mapping[str, Any], ...]
    calls: tuple[CallRecord, ...]
    counters: Mapping[str, int]
    steps: int
    done: bool
    final_answer: str | None
    verdict: Verdict | None
    rng_state: Mapping[str, Any] | None = field(default=None, repr=False)


class AsyncBFCLEnv:
    """The async core of the BFCL multi-turn environment.

    Args:
        category: The entries to draw from (``"base"``, ``"miss_func"``, ``"miss_param"``,
            ``"long_context"``).
        entry: One entry: an id (``"multi_turn_base_3"``) or an index into the category; or a list of ids.
        tasks: Tasks from `bfcl_tasks` (their ids are entry ids); overrides ``category``.
        max_steps: Steps in the whole episode before it is truncated (None: only BFCL's limit per turn).
        max_steps_per_turn: BFCL's step limit per turn.
        parser: Reads tool calls from text actions.
        call_timeout: Seconds a tool call may take.
        pool: Pool of warm servers (default: the running loop's).
    """

    def __init__(
        self,
        category: str = "base",
        *,
        entry: str | int | Sequence[str] | None = None,
        tasks: Sequence[Task] | None = None,
        max_steps: int | None = None,
        max_steps_per_turn: int = MAX_STEPS_PER_TURN,
        parser: Parser | None = None,
        call_timeout: float = 30.0,
        pool: ServerPool | None = None,
    ) -> None:
        if max_steps is not None and max_steps < 1:
            raise ConfigError(f"max_steps must be at least 1, got {max_steps}")
        if max_steps_per_turn < 1:
            raise ConfigError(f"max_steps_per_turn must be at least 1, got {max_steps_per_turn}")
        ids = self._entry_ids(category, entry, tasks)
        self.entry_ids = ids
        self._tasks = {t.id: t for t in tasks or ()}
        self.max_steps = max_steps
        self.max_steps_per_turn = max_steps_per_turn
        self.parser: Parser = parser or auto_parser
        self.call_timeout = call_timeout
        self._pool = pool
        self.live: LiveServer | None = None
        self.source: BFCLSource | None = None
        self.np_random: np.random.Generator = seeding.np_random(None)[0]
        self.entry: Mapping[str, Any] = {}
        self.task: Task | None = None
        self._tools: list[dict[str, Any]] = []
        self._start(ids[0])

    @staticmethod
    def _entry_ids(category: str, which: str | int | Sequence[str] | None, tasks: Sequence[Task] | None) -> list[str]:
        if tasks is not None:
            ids = [str(t.metadata.get("bfcl_entry", t.id)) for t in tasks]
        elif which is None or isinstance(which, int):
            all_ids = [e["id"] for e in entries(category)]
            if which is None:
                return all_ids
            if not 0 <= which < len(all_ids):
                raise ConfigError(f"entry index {which} is out of range: {category} has {len(all_ids)} entries")
            return [all_ids[which]]
        else:
            ids = [which] if isinstance(which, str) else [str(w) for w in which]
        if not ids:
            raise TaskError("no entries to play")
        for entry_id in ids:
            check_entry_id(entry_id)
        return ids

    def _start(self, entry_id: str) -> None:
        """Bookkeeping of a new episode (no server work)."""
        self.entry = shared_entry(entry_id)
        self.task = self._tasks.get(entry_id)
        self.turn = 0
        self.steps_in_turn = 0
        self.record: list[list[list[dict[str, str]]]] = [[]]
        self.messages: list[dict[str, Any]] = []
        self.calls: list[CallRecord] = []
        self.counters = {"num_calls": 0, "invalid_calls": 0, "tool_errors": 0, "timeouts": 0, "server_restarts": 0}
        self.steps = 0
        self.done = False
        self.final_answer: str | None = None
        self.verdict: Verdict | None = None

    # -- server ----------------------------------------------------------------------------------

    async def _ensure_live(self) -> LiveServer:
        source = BFCLSource(self.entry["involved_classes"])
        if self.live is not None and (self.live.closed or self.live.key != source.key):
            await (self._pool or get_pool()).release(self.live)
            self.live = None
        if self.live is None:
            self.live = await (self._pool or get_pool()).acquire(source, call_timeout=self.call_timeout)
        self.source = source
        return self.live

    @property
    def state(self) -> BFCLState:
        """The backend state of the live server."""
        if self.live is None:
            raise ConfigError("the environment has no live server yet: call reset() first")
        state = self.live.state
        assert isinstance(state, BFCLState)
        return state

    async def _refresh_tools(self) -> None:
        """List the tools anew from the server (the list changes in ``miss_func`` entries)."""
        assert self.live is not None
        self._tools = mcp_to_openai(await self.live.connection.list_tools())

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The tools the server lists now, in OpenAI function format."""
        return list(self._tools)

    @property
    def turns(self) -> int:
        """Number of user turns in the entry."""
        return len(self.entry["question"])

    def info(self) -> dict[str, Any]:
        """What `reset` and `step` return as ``info``."""
        return {
            "task_id": self.entry["id"],
            "entry_id": self.entry["id"],
            "turn": self.turn,
            "turns": self.turns,
            "tools": self.tools,
            "messages": list(self.messages),
            "step": self.steps,
            "steps_in_turn": self.steps_in_turn,
            **self.counters,
        }

    # -- episode ---------------------------------------------------------------------------------

    async def reset(
        self,
        *,
        seed: int | None = None,
        options: Mapping[str, Any] | None = None,
        rng: np.random.Generator | None = None,
    ) -> tuple[str, dict[str, Any]]:
        """Start an entry from its initial state and return its first user turn.

        Args:
            seed: Seeds the entry choice.
            options: ``{"entry": id}`` or ``{"task_id": id}`` picks the entry.
            rng: Generator to draw the entry from (the sync wrapper passes its own).
        """
        self.np_random = episode_rng(self.np_random, seed=seed, rng=rng)
        options = options or {}
        wanted = options.get("entry", options.get("task_id"))
        if wanted is not None:
            if str(wanted) not in self.entry_ids:
                raise TaskError(f"no entry {wanted!r} in this environment ({len(self.entry_ids)} entries)")
            entry_id = str(wanted)
        elif len(self.entry_ids) == 1:
            entry_id = self.entry_ids[0]
        else:
            entry_id = self.entry_ids[int(self.np_random.integers(len(self.entry_ids)))]
        self._start(entry_id)
        live = await self._ensure_live()
        await live.ensure_alive()
        assert self.source is not None
        live.state.restore(self.source.entry_snapshot(self.entry))
        return await self._begin_turn(), self.info()

    async def _begin_turn(self) -> str:
        """Show the current turn's user message (revealing held-out functions first)."""
        messages = list(self.entry["question"][self.turn])
        held_out = self.entry.get("missed_function", {}).get(str(self.turn))
        if held_out:
            from bfcl_eval.constants.default_prompts import DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC

            self.state.world.reveal(held_out)
            messages = [{"role": "user", "content": DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC}]
        await self._refresh_tools()
        self.messages.extend(copy.deepcopy(messages))
        return "\n\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "user")

    async def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """One agent step: tool calls, or a reply that ends the turn.

        Never raises for a malformed action: it becomes an error observation.

        Returns:
            ``(observation, reward, terminated, truncated, info)``; the reward is BFCL's verdict
            (1 or 0) at the end of the episode, else 0.
        """
        if self.done:
            return "Error: the episode is over; call reset() to start a new one.", 0.0, True, False, self.info()
        self.steps += 1
        parsed = parse_action(action, self.parser, MAX_ACTION_CHARS)
        terminated = truncated = False
        if parsed.calls:
            observation = await self._run_calls(parsed)
            self.steps_in_turn += 1
            truncated = self.steps_in_turn > self.max_steps_per_turn  # BFCL: count > MAXIMUM_STEP_LIMIT
        elif parsed.errors:
            observation = reject_action(parsed, self.messages, self.calls, self.counters, self.steps)
            self.steps_in_turn += 1
            truncated = self.steps_in_turn > self.max_steps_per_turn
        else:
            self.final_answer = parsed.text
            self.messages.append({"role": "assistant", "content": parsed.text})
            self.turn += 1
            self.steps_in_turn = 0
            if self.turn >= self.turns:
                observation, terminated = "", True
            else:
                self.record.append([])
                observation = await self._begin_turn()
        if not terminated and self.max_steps is not None and self.steps >= self.max_steps:
            truncated = True
        info = self.info()
        reward = 0.0
        if terminated or truncated:
            self.done = True
            self.verdict = score(self.entry, self.record)
            reward = 1.0 if self.verdict.valid else 0.0
            info["bfcl"] = self.verdict.to_dict()
            info["first_failing_turn"] = self.verdict.failing_turn
            info["reward_terms"] = {"success": reward, "reward": reward}
            info["record"] = copy.deepcopy(self.record)
        return observation, reward, terminated, truncated, info

    async def _run_calls(self, parsed: ParsedAction) -> str:
        assert self.live is not None
        calls = [
            c if c.id else type(c)(c.name, c.arguments, f"call_{self.steps}_{i}") for i, c in enumerate(parsed.calls)
        ]
        self.messages.append(
            {"role": "assistant", "content": parsed.text or None, "tool_calls": [c.to_openai() for c in calls]}
        )
        # The record keeps each call as BFCL's handler does: {name: raw JSON arguments}.
        self.record[-1].append([{c.name: json.dumps(c.arguments, ensure_ascii=False)} for c in calls])
        listed = {t["function"]["name"] for t in self._tools}
        outputs = []
        for call in calls:
            # Everything goes to the server, which answers as BFCL's executor would (a held-out
            # function runs there too); a call to an unlisted name still counts as invalid.
            if not isinstance(call.arguments, dict):  # BFCL's decoder cannot read it either
                output = (
                    f"Error during execution: the arguments must be a JSON object, got {type(call.arguments).__name__}"
                )
                self.counters["invalid_calls"] += 1
                self.calls.append(
                    CallRecord(call.name, call.arguments, output, "invalid", self.steps, call.name in listed)
                )
                self.messages.append({"role": "tool", "tool_call_id": call.id, "content": output})
                outputs.append((call.name, output))
                continue
            result = await self.live.connection.call_tool(call.name, call.arguments)
            output = result.text
            if call.name not in listed:
                self.counters["invalid_calls"] += 1
                self.calls.append(CallRecord(call.name, call.arguments, output, "invalid", self.steps))
            else:
                self.counters["num_calls"] += 1
                status = "timeout" if result.timed_out else "crash" if result.crashed else "ok"
                if result.timed_out:
                    self.counters["timeouts"] += 1
                if result.is_error:
                    self.counters["tool_errors"] += 1
                    status = status if status != "ok" else "tool_error"
                self.calls.append(CallRecord(call.name, call.arguments, output, status, self.steps, True, True))
            self.messages.append({"role": "tool", "tool_call_id": call.id, "content": output})
            outputs.append((call.name, output))
        for err in parsed.errors:
            self.counters["invalid_calls"] += 1
            self.calls.append(CallRecord("", None, f"Error: {err}", "invalid", self.steps))
            outputs.append(("error", f"Error: {err}"))
        if len(outputs) == 1:
            return outputs[0][1]
        return "\n".join(f"[{name}] {out}" for name, out in outputs)

    # -- snapshots and forks ---------------------------------------------------------------------

    async def snapshot(self) -> BFCLEpisodeSnapshot:
        """The whole episode now: backend state, turn, record, conversation, RNG."""
        return BFCLEpisodeSnapshot(
            state=self.state.snapshot(),
            entry_id=self.entry["id"],
            turn=self.turn,
            steps_in_turn=self.steps_in_turn,
            record=tuple(tuple(tuple(dict(c) for c in s) for s in t) for t in self.record),
            messages=tuple(copy.deepcopy(self.messages)),
            calls=tuple(self.calls),
            counters=dict(self.counters),
            steps=self.steps,
            done=self.done,
            final_answer=self.final_answer,
            verdict=self.verdict,
            rng_state=copy.deepcopy(self.np_random.bit_generator.state),
        )

    async def restore(self, snap: BFCLEpisodeSnapshot) -> None:
        """Continue from a snapshot (taken in this or another BFCL environment)."""
        self._start(snap.entry_id)
        live = await self._ensure_live()
        await live.ensure_alive()
        live.state.restore(snap.state)
        self.turn = snap.turn
        self.steps_in_turn = snap.steps_in_turn
        self.record = [[[dict(c) for c in s] for s in t] for t in snap.record]
        self.messages = [dict(m) for m in copy.deepcopy(snap.messages)]
        self.calls = list(snap.calls)
        self.counters = dict(snap.counters)
        self.steps = snap.steps
        self.done = snap.done
        self.final_answer = snap.final_answer
        self.verdict = snap.verdict
        if snap.rng_state is not None:
            self.np_random = rng_from_state(snap.rng_state)
        await self._refresh_tools()

    async def fork(self, n: int) -> list[AsyncBFCLEnv]:
        """``n`` independent environments at exactly this point of the episode."""
        if n < 1:
            raise ConfigError(f"fork needs n >= 1, got {n}")
        snap = await self.snapshot()
        forks = []
        for _ in range(n):
            env = AsyncBFCLEnv(
                entry=list(self.entry_ids),
                tasks=list(self._tasks.values()) or None,
                max_steps=self.max_steps,
                max_steps_per_turn=self.max_steps_per_turn,
                parser=self.parser,
                call_timeout=self.call_timeout,
                pool=self._pool,
            )
            await env.restore(snap)
            forks.append(env)
        return forks

    async def close(self) -> None:
        """Give the server back to the pool."""
        live, self.live = self.live, None
        if live is not None:
            await (self._pool or get_pool()).release(live)


class BFCLMultiTurnEnv(CoreDrivenEnv):
    """BFCL v3 multi-turn as a Gymnasium environment (``gym_mcp/BFCL-MultiTurn-v0``).

    ``reset()`` returns the entry's first user turn; ``step(action)`` takes tool calls (a call
    dict, a list of them, an OpenAI assistant message, or model text) or a reply, which ends
    the turn and returns the next user turn. The episode ends after the last turn with
    BFCL's verdict as the reward (1 or 0); ``info["bfcl"]`` holds the verdict and the first
    failing turn.

    Args:
        category: ``"base"``, ``"miss_func"``, ``"miss_param"`` or ``"long_context"``.
        entry: One entry (id or index); None draws from the whole category.
        tasks: Tasks from `bfcl_tasks` (as the evaluation harness passes them).
        max_steps: Steps in the whole episode before truncation (None: no limit but BFCL's per turn).
        max_steps_per_turn: BFCL's limit of call steps per turn (20).
        parser: Reads calls from text actions (default `auto_parser`).
        call_timeout: Seconds a tool call may take.
        render_mode: ``"ansi"`` renders the conversation as text.
    """

    core: AsyncBFCLEnv

    def __init__(
        self,
        category: str = "base",
        *,
        entry: str | int | Sequence[str] | None = None,
        tasks: Sequence[Task] | None = None,
        max_steps: int | None = None,
        max_steps_per_turn: int = MAX_STEPS_PER_TURN,
        parser: Parser | None = None,
        call_timeout: float = 30.0,
        render_mode: str | None = None,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.core = AsyncBFCLEnv(
            category,
            entry=entry,
            tasks=tasks,
            max_steps=max_steps,
            max_steps_per_turn=max_steps_per_turn,
            parser=parser,
            call_timeout=call_timeout,
        )
        self.render_mode = render_mode
        self.observation_space = UnicodeText(MAX_OBSERVATION_CHARS)
        self.action_space = UnicodeText(MAX_ACTION_CHARS)

    @classmethod
    def _from_core(cls, core: AsyncBFCLEnv, render_mode: str | None) -> BFCLMultiTurnEnv:
        env = cls.__new__(cls)
        env.core = core
        env.render_mode = render_mode
        env.observation_space = UnicodeText(MAX_OBSERVATION_CHARS)
        env.action_space = UnicodeText(MAX_ACTION_CHARS)
        env._np_random = core.np_random
        return env

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The tools the server lists now, in OpenAI function format."""
        return self.core.tools

    def snapshot(self) -> BFCLEpisodeSnapshot:
        """The whole episode now."""
        return run_sync(self.core.snapshot())

    def restore(self, snap: BFCLEpisodeSnapshot) -> None:
        """Continue from an episode snapshot."""
        run_sync(self.core.restore(snap))
        self._np_random = self.core.np_random

    def fork(self, n: int) -> list[BFCLMultiTurnEnv]:
        """``n`` independent environments at exactly this point of the episode."""
        return [BFCLMultiTurnEnv._from_core(c, self.render_mode) for c in run_sync(self.core.fork(n))]
