"""Built-in policies: reference replay, no-op, random and scripted."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from gym_mcp.episode import shown_call
from gym_mcp.policies.base import Policy
from gym_mcp.tasks import Task
from gym_mcp.tasks.flows import carried, decoded

__all__ = ["NoopPolicy", "RandomPolicy", "ReferencePolicy", "ScriptedPolicy"]


class ReferencePolicy(Policy):
    """Replays the task's reference calls one per step, then gives a final answer.

    A call that failed transiently (an error that says ``(transient)``: a rate limit, a 503) is
    sent again, as a careful agent would. Under a `Perturb` wrapper that renames tools or
    parameters, it calls them by the names shown (read from ``info["perturbations"]``).

    With a simulated user (``info["user"]`` present) and a dialogue task, it plays the task's
    reference dialogue instead: its calls and its messages to the user, one per step.

    A task's ``metadata["flows"]`` are followed: a value an earlier call minted on this run (a
    new note's id) is passed to the later call that takes it, not the recorded one.

    In a multi-turn environment (``info["turn"]`` present) whose task has
    ``metadata["reference_turns"]`` (BFCL), it sends each turn's reference calls in one step
    and then replies, which ends the turn.
    """

    name = "reference"

    def reset(self, task: Task, info: Mapping[str, Any], *, seed: int | None = None) -> None:
        """Queue the task's reference calls (its reference dialogue when a simulated user is present)."""
        self._queue: list[Any] = [dict(c) for c in task.reference_calls]
        if "user" in info and task.reference_calls:
            self._queue = task.reference_dialogue()
        self._answer = task.expected_answer or ("Done." if task.reference_calls else "I can't help with that here.")
        turns = task.metadata.get("reference_turns")
        self._turns = [list(t) for t in turns] if turns is not None and "turn" in info else None
        self._turn, self._sent = -1, False
        self._last: Any = None
        # values earlier calls mint on this run (metadata["flows"]); not yet in a reference dialogue
        self._flows = task.metadata.get("flows", ()) if "user" not in info else ()
        self._outputs: list[Any] = []

    def act(self, observation: str, info: Mapping[str, Any]) -> Any:
        """The next reference call (or turn of calls), or the reply."""
        if self._turns is not None:
            turn = int(info["turn"])
            if turn != self._turn:
                self._turn, self._sent = turn, False
            if not self._sent and turn < len(self._turns) and self._turns[turn]:
                self._sent = True
                return [dict(c) for c in self._turns[turn]]
            return "Done."
        calls = info.get("calls") or ()  # the records of the step just taken
        if self._last is not None and calls and calls[-1].transient:
            return self._last  # a careful agent retries a call that failed transiently
        if self._flows and isinstance(self._last, dict):
            self._outputs.append(decoded(calls[-1].output) if calls else None)
        self._last = self._queue.pop(0) if self._queue else None
        if self._flows and isinstance(self._last, dict):
            self._last = carried(self._last, len(self._outputs), self._flows, self._outputs)
        if isinstance(self._last, dict) and info.get("perturbations"):
            self._last = shown_call(self._last, info["perturbations"])
        return self._last if self._last is not None else self._answer


class NoopPolicy(Policy):
    """Answers at once and calls nothing."""

    name = "noop"

    def act(self, observation: str, info: Mapping[str, Any]) -> Any:
        """A final answer."""
        return "I did what you asked."


class RandomPolicy(Policy):
    """Calls 1-3 random tools (real names) with random arguments of the right JSON types, then answers.

    Args:
        seed: Base seed; each episode reseeds from it and the episode seed.
    """

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self._rng = random.Random(seed)
        self._left = 0

    def reset(self, task: Task, info: Mapping[str, Any], *, seed: int | None = None) -> None:
        """Reseed and pick how many calls to make."""
        self._rng = random.Random(f"{self.seed}:{task.id}:{seed}")
        self._left = self._rng.randint(1, 3)

    def act(self, observation: str, info: Mapping[str, Any]) -> Any:
        """A random call, or the final answer."""
        tools = info.get("tools") or []
        if self._left <= 0 or not tools:
            return "Done."
        self._left -= 1
        fn = self._rng.choice(tools)["function"]
        params = fn.get("parameters") or {}
        args = {
            name: self._value(schema)
            for name, schema in (params.get("properties") or {}).items()
            if name in params.get("required", []) or self._rng.random() < 0.3
        }
        return {"name": fn["name"], "arguments": args}

    def _value(self, schema: Mapping[str, Any]) -> Any:
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return self._rng.choice(schema["enum"])
        types = schema.get("type") or next((o.get("type") for o in schema.get("anyOf", []) if o.get("type")), "string")
        kind = types[0] if isinstance(types, list) else types
        if kind == "integer":
            return self._rng.randint(1, 5)
        if kind == "number":
            return round(self._rng.uniform(1, 100), 2)
        if kind == "boolean":
            return self._rng.random() < 0.5
        if kind == "array":
            return []
        if kind == "object":
            return {}
        return self._rng.choice(["ACC-1001", "CUS-1001", "PRD-1001", "ORD-1001", "EVT-1001", "PER-1001", "test"])


class ScriptedPolicy(Policy):
    """A policy from a function ``fn(observation, info, step) -> action``.

    Args:
        fn: The function.
        name: A name for reports.
    """

    def __init__(self, fn: Callable[[str, Mapping[str, Any], int], Any], name: str = "scripted") -> None:
        self.fn = fn
        self.name = name
        self._step = 0

    def reset(self, task: Task, info: Mapping[str, Any], *, seed: int | None = None) -> None:
        """Restart the step counter."""
        self._step = 0

    def act(self, observation: str, info: Mapping[str, Any]) -> Any:
        """Whatever the function returns."""
        self._step += 1
        return self.fn(observation, info, self._step)
