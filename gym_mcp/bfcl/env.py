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
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gym_mcp.actions.parsing import ParsedAction, Parser, auto_parser, parse_action
from gym_mcp.actions.schema import openai_tools as mcp_to_openai
from gym_mcp.bfcl.backend import BFCLSource, BFCLState
from gym_mcp.bfcl.data import (
    MAX_STEPS_PER_TURN,
    category_of,
    check_entry_id,
    entries,
    ground_truth,
    ground_truth_calls,
    shared_entry,
)
from gym_mcp.bfcl.score import Verdict, score
from gym_mcp.env.config import TaskOrder
from gym_mcp.env.core import OVER, EpisodeCore, EpisodeSnapshot
from gym_mcp.env.sync import SyncEnv
from gym_mcp.errors import ConfigError, TaskError
from gym_mcp.live.live_server import LiveServer
from gym_mcp.live.warm_pool import ServerPool
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
    return [_entry_task(e) for e in entries(category)[:limit]]


def _entry_task(e: Mapping[str, Any]) -> Task:
    """One entry as a `Task` (see `bfcl_tasks`)."""
    turns = [ground_truth_calls(t, e["involved_classes"]) for t in ground_truth(e["id"])]
    first = "\n\n".join(str(m.get("content", "")) for m in e["question"][0] if m.get("role") == "user")
    variant = category_of(e["id"]).removeprefix("multi_turn_")
    return Task(
        id=e["id"],
        server="bfcl-" + variant,
        instruction=first,
        reference_calls=tuple(c for t in turns for c in t),
        split="test",
        difficulty=len(turns),
        variant=variant,
        metadata={"bfcl_entry": e["id"], "reference_turns": turns},
    )


@dataclass(frozen=True, kw_only=True)
class BFCLEpisodeSnapshot(EpisodeSnapshot):
    """An `EpisodeSnapshot` of a BFCL episode: with its entry, turn, record and verdict."""

    entry_id: str
    turn: int
    steps_in_turn: int
    record: tuple[tuple[tuple[Mapping[str, str], ...], ...], ...]
    verdict: Verdict | None


class AsyncBFCLEnv(EpisodeCore):
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
        user: ``None`` or ``"scripted"``: BFCL's own turns are the user (a reply ends the turn and
            the entry's next question is the user's answer); BFCL keeps them, so an LLM user or
            another `User` is refused.
        protocol: Send tool calls over the MCP protocol (the SDK's in-process session) rather
            than straight to the server's ``tools/call`` handler. The same results, slower.
        task_order: How a ``reset`` that names no entry picks one of ``entry_ids``: ``"random"``
            (the default) draws it from the env's seeded generator; ``"sequential"`` takes them
            in order, wrapping around after the last (see `AsyncMCPEnv`: the same rules).

    Attributes:
        entry_ids: The entries this environment plays, in order (``reset(options={"task_index": i})``
            plays ``entry_ids[i]``).

    Raises:
        ConfigError: A bad setting (``task_order``, ``user``, a step limit) or an unknown entry.
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
        user: str | None = None,
        protocol: bool = False,
        task_order: TaskOrder = "random",
    ) -> None:
        if user not in (None, "scripted"):
            raise ConfigError(
                f"BFCL keeps its own scripted turns: user must be None or 'scripted' (its turns), got {user!r}"
            )
        self.scripted_user = user == "scripted"
        if max_steps is not None and max_steps < 1:
            raise ConfigError(f"max_steps must be at least 1, got {max_steps}")
        if max_steps_per_turn < 1:
            raise ConfigError(f"max_steps_per_turn must be at least 1, got {max_steps_per_turn}")
        ids = self._entry_ids(category, entry, tasks)
        self.entry_ids = ids
        self._tasks = {str(t.metadata.get("bfcl_entry", t.id)): t for t in tasks or ()}  # by entry id
        self._entry_tasks: dict[str, Task] = {}  # tasks built from entries, for `task_of`
        self.max_steps = max_steps
        self.max_steps_per_turn = max_steps_per_turn
        self.parser: Parser = parser or auto_parser
        self.call_timeout = call_timeout
        self.protocol = protocol
        self.source: BFCLSource | None = None
        self.entry: Mapping[str, Any] = {}
        self.task: Task | None = None
        self._tools: list[dict[str, Any]] = []
        self._tool_names: frozenset[str] = frozenset()
        self._converted: dict[Hashable, tuple[list[dict[str, Any]], frozenset[str]]] = {}
        super().__init__(pool, task_order=task_order)
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

    def task_of(self, entry_id: str) -> Task:
        """The `Task` of one entry: the one given in ``tasks``, else one built as `bfcl_tasks` builds it."""
        task = self._tasks.get(entry_id) or self._entry_tasks.get(entry_id)
        if task is None:
            task = self._entry_tasks[entry_id] = _entry_task(shared_entry(entry_id))
        return task

    def _start(self, entry_id: str) -> None:
        """Bookkeeping of a new episode (no server work)."""
        self.entry = shared_entry(entry_id)
        self.task = self._tasks.get(entry_id)
        self.turn = 0
        self.steps_in_turn = 0
        self.record: list[list[list[dict[str, str]]]] = [[]]
        self.verdict: Verdict | None = None
        self._new_episode()

    # -- server ----------------------------------------------------------------------------------

    async def _ensure_live(self) -> LiveServer:
        source = BFCLSource(self.entry["involved_classes"], protocol=self.protocol)
        if self.live is not None and (self.live.closed or self.live.key != source.key):
            await self.pool.release(self.live)
            self.live = None
        if self.live is None:
            self.live = await self.pool.acquire(source, call_timeout=self.call_timeout)
        self.source = source
        return self.live

    @property
    def state(self) -> BFCLState:
        """The backend state of the live server."""
        state = self._require_live().state
        assert isinstance(state, BFCLState)
        return state

    async def _refresh_tools(self) -> None:
        """The tools the server lists now, in OpenAI format (the list changes in ``miss_func`` entries).

        The server lists the world's visible functions, which change only when an entry or a
        snapshot is restored or held-out functions are revealed. Their key
        (`BFCLWorld.listing`) goes with the request as its version, so the connection lists
        over MCP only when the list can have changed since its last listing; a turn of an
        unchanged list costs no ``tools/list`` round trip. The conversion to OpenAI format is
        cached per key too (it is a function of the list).
        """
        live = self._require_live()
        version = self.state.world.listing
        listed = await live.connection.list_tools(version=version)
        converted = self._converted.get(version)
        if converted is None:
            tools = mcp_to_openai(listed)
            converted = self._converted[version] = (tools, frozenset(t["function"]["name"] for t in tools))
        self._tools, self._tool_names = converted

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
            "steps_in_turn": self.steps_in_turn,
            **self._counts(),
            **({"user": {"name": "bfcl", "turns": self.turn}} if self.scripted_user else {}),
        }

    # -- episode ---------------------------------------------------------------------------------

    async def _begin(self, options: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """Pick the entry, restore it, show its first turn.

        The entry is ``options["entry"]`` (or ``options["task_id"]``, the same), or
        ``entry_ids[options["task_index"]]``; else the next in the task order (`_next_task`).
        """
        wanted = options.get("entry", options.get("task_id"))
        if "task_index" in options:
            if wanted is not None:
                raise TaskError("reset options entry/task_id and task_index each choose the entry: give only one")
            entry_id = self.entry_ids[self._task_index_option(options["task_index"], len(self.entry_ids))]
        elif wanted is not None:
            if str(wanted) not in self.entry_ids:
                raise TaskError(f"no entry {wanted!r} in this environment ({len(self.entry_ids)} entries)")
            entry_id = str(wanted)
        else:
            entry_id = self._next_task(self.entry_ids)
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
        self._begin_step()
        if self.done:
            return OVER, 0.0, True, False, self.info()
        self.steps += 1
        parsed = parse_action(action, self.parser, MAX_ACTION_CHARS)
        terminated = truncated = False
        if parsed.calls:
            observation = await self._run_calls(parsed)
            self.steps_in_turn += 1
            truncated = self.steps_in_turn > self.max_steps_per_turn  # BFCL: count > MAXIMUM_STEP_LIMIT
        elif parsed.errors:
            observation = self._reject(parsed)
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
        if truncated:
            self.limits.append("max_steps_per_turn")  # BFCL's force-quit of a turn
        elif not terminated and self.max_steps is not None and self.steps >= self.max_steps:
            truncated = True
            self.limits.append("max_steps")
        info = self.info()
        reward = 0.0
        if terminated or truncated:
            self._end(terminated, truncated)
            self.verdict = score(self.entry, self.record)
            reward = 1.0 if self.verdict.valid else 0.0
            info["bfcl"] = self.verdict.to_dict()
            info["first_failing_turn"] = self.verdict.failing_turn
            info["reward_terms"] = {"success": reward, "reward": reward}
            info["record"] = copy.deepcopy(self.record)
        return observation, reward, terminated, truncated, info

    async def _run_calls(self, parsed: ParsedAction) -> str:
        live = self._require_live()
        calls = self._assistant_calls(parsed)
        # The record keeps each call as BFCL's handler does: {name: raw JSON arguments}.
        self.record[-1].append([{c.name: json.dumps(c.arguments, ensure_ascii=False)} for c in calls])
        listed = self._tool_names
        outputs = []
        for call in calls:
            # Everything goes to the server, which answers as BFCL's executor would (a held-out
            # function runs there too); a call to an unlisted name still counts as invalid.
            if not isinstance(call.arguments, dict):  # BFCL's decoder cannot read it either
                kind = type(call.arguments).__name__
                output = f"Error during execution: the arguments must be a JSON object, got {kind}"
                self._invalid(call, output, known_name=call.name in listed)
            else:
                result = await live.connection.call_tool(call.name, call.arguments)
                output = result.text
                if call.name not in listed:
                    self._invalid(call, output, known_name=False)
                else:
                    self._record_result(call, result, output)
            self.messages.append({"role": "tool", "tool_call_id": call.id, "content": output})
            outputs.append((call.name, output))
        self._record_parse_errors(parsed.errors)
        outputs += [("error", f"Error: {err}") for err in parsed.errors]
        if len(outputs) == 1:
            return outputs[0][1]
        return "\n".join(f"[{name}] {out}" for name, out in outputs)

    # -- snapshots and forks ---------------------------------------------------------------------

    def _episode_task(self) -> Task:
        return self.task_of(self.entry["id"])

    async def snapshot(self) -> BFCLEpisodeSnapshot:
        """The whole episode now: backend state, turn, record, conversation, RNG."""
        return BFCLEpisodeSnapshot(
            **self._snapshot_fields(),
            entry_id=self.entry["id"],
            turn=self.turn,
            steps_in_turn=self.steps_in_turn,
            record=tuple(tuple(tuple(dict(c) for c in s) for s in t) for t in self.record),
            verdict=self.verdict,
        )

    async def restore(self, snap: BFCLEpisodeSnapshot) -> None:
        """Continue from a snapshot (taken in this or another BFCL environment)."""
        self._start(snap.entry_id)
        live = await self._ensure_live()
        await live.ensure_alive()
        self._restore_fields(snap)
        self.turn = snap.turn
        self.steps_in_turn = snap.steps_in_turn
        self.record = [[[dict(c) for c in s] for s in t] for t in snap.record]
        self.verdict = snap.verdict
        await self._refresh_tools()

    def _clone_empty(self) -> AsyncBFCLEnv:
        return AsyncBFCLEnv(
            entry=list(self.entry_ids),
            tasks=list(self._tasks.values()) or None,
            max_steps=self.max_steps,
            max_steps_per_turn=self.max_steps_per_turn,
            parser=self.parser,
            call_timeout=self.call_timeout,
            pool=self._pool,
            user="scripted" if self.scripted_user else None,
            protocol=self.protocol,
            task_order=self.task_order,
        )


class BFCLMultiTurnEnv(SyncEnv[AsyncBFCLEnv]):
    """BFCL v3 multi-turn as a Gymnasium environment (``gym_mcp/BFCL-MultiTurn-v0``).

    ``reset()`` returns the entry's first user turn; ``step(action)`` takes tool calls (a call
    dict, a list of them, an OpenAI assistant message, or model text) or a reply, which ends
    the turn and returns the next user turn. The episode ends after the last turn with
    BFCL's verdict as the reward (1 or 0); ``info["bfcl"]`` holds the verdict and the first
    failing turn.

    Args:
        category: ``"base"``, ``"miss_func"``, ``"miss_param"`` or ``"long_context"``.
        render_mode: ``"ansi"`` renders the conversation as text.
        **options: The `AsyncBFCLEnv` options: ``entry`` (one entry, an id or an index; None draws
            from the category), ``tasks`` (from `bfcl_tasks`), ``max_steps``,
            ``max_steps_per_turn`` (BFCL's 20), ``parser``, ``call_timeout``, ``user``
            (``"scripted"``: BFCL's own turns, reported in ``info["user"]``), ``protocol``
            (tool calls over the MCP protocol instead of straight to the server's handler) and
            ``task_order`` (``"random"`` or ``"sequential"``, as for `MCPEnv`).

    ``reset`` plays the entry its options name (``{"entry": id}``, ``{"task_id": id}`` or
    ``{"task_index": i}`` into `tasks`); else, with ``task_order="sequential"``, the next entry
    in order; else one drawn from the env's seeded generator.
    """

    def __init__(self, category: str = "base", *, render_mode: str | None = None, **options: Any) -> None:
        core = AsyncBFCLEnv(category, **options)
        self._attach(core, render_mode, MAX_OBSERVATION_CHARS, MAX_ACTION_CHARS)

    @property
    def task(self) -> Task:
        """The current entry as a `Task` (see `bfcl_tasks`); before the first reset, the first entry's."""
        return self.core.task_of(self.core.entry["id"])

    @property
    def state(self) -> BFCLState:
        """The live BFCL world's state (fingerprint, snapshot, diff)."""
        return self.core.state

    @property
    def entry(self) -> Mapping[str, Any]:
        """The BFCL entry being played (its ``question`` turns, ``initial_config``, ...)."""
        return self.core.entry

    @property
    def turn(self) -> int:
        """The index of the user turn being played (``info["turn"]``)."""
        return self.core.turn

    @property
    def record(self) -> list[list[list[dict[str, str]]]]:
        """The calls so far in BFCL's record format: per turn, per step, ``{name: arguments JSON}``."""
        return copy.deepcopy(self.core.record)

    @property
    def tasks(self) -> tuple[Task, ...]:
        """The entries this env plays, in order, as `Task`s (``task_index`` indexes them).

        The tasks given with ``tasks=``, or built from the entries as `bfcl_tasks` builds them
        (the ground truth of each is read once, on first use: about 4 ms an entry).
        """
        return tuple(self.core.task_of(entry_id) for entry_id in self.core.entry_ids)
