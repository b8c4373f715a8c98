"""Tasks: what an episode asks of the agent, where it starts, and what counts as done.

Tasks are stored as JSON lines, one `Task` per line (loadable with `datasets` too). A task's
initial state is a data seed of its server (``{"seed": 0}``); its expected outcome is the
fingerprint of the final state that its reference calls produce from there.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, Strict, ValidationError, field_validator
from pydantic_core import ErrorDetails

from gym_mcp.errors import TaskError
from gym_mcp.tasks.dialogue import Slot, Stage, UserScenario, noun

__all__ = ["Task", "load_tasks", "save_tasks"]

_NonEmptyStr = Annotated[str, Strict(), Field(min_length=1)]
_Str = Annotated[str, Strict()]
_Int = Annotated[int, Strict()]

_CALLS_MESSAGE = "reference_calls must be a list of {name, arguments} objects"
_REQUIRED = ("id", "server", "instruction")
# What a field must be, for the messages of `Task.from_dict` (other fields: pydantic's words).
_FIELD_MESSAGES = {
    "reference_calls": _CALLS_MESSAGE,
    "initial_state": "initial_state must be an object",
    "call_budget": "call_budget must be a non-negative integer",
}
_TYPE_WORDS = {
    "string_type": "a string",
    "int_type": "an integer",
    "dict_type": "an object",
    "tuple_type": "a list",
    "mapping_type": "an object",
}


class Task(BaseModel):
    """One task.

    Construct it with keywords (``Task(id=..., server=..., instruction=...)``); the fields are
    checked (a wrong type raises pydantic's `ValidationError`) and the task is immutable. Read
    one from a dict with `Task.from_dict`, which raises `TaskError` with a one-line message.

    Attributes:
        id: Unique id.
        server: Name of the server (or environment) the task runs on.
        instruction: What the user asks; the first observation of the episode.
        initial_state: Where the episode starts: ``{"seed": N}`` for a server's seed data.
        reference_calls: Calls that solve the task, as ``{"name": ..., "arguments": {...}}``.
        expected_fingerprint: Fingerprint of the state the reference calls produce.
        expected_answer: For read-only tasks, the answer the agent should give.
        hidden_goal: What the user wants but did not say (for simulated users).
        call_budget: The n_ref of the adaptive budget B = n_ref + ceil(b * n_ref) (None: the number of
            reference calls).
        split: ``"train"`` or ``"test"`` (held-out).
        difficulty: A label, e.g. the chain length.
        variant: ``"complete"``, ``"missing_param"``, ``"irrelevant"``, ``"distractors"``, ...
        metadata: Anything else.
        user: The simulated user of a dialogue task (`UserScenario`), or None.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: _NonEmptyStr
    server: _NonEmptyStr
    instruction: _NonEmptyStr
    initial_state: Mapping[str, Any] = Field(default_factory=lambda: {"seed": 0})
    reference_calls: tuple[Mapping[str, Any], ...] = ()
    expected_fingerprint: _Str | None = None
    expected_answer: _Str | None = None
    hidden_goal: _Str | None = None
    call_budget: Annotated[int, Strict(), Field(ge=0)] | None = None
    split: _Str = "train"
    difficulty: _Str | _Int | None = None
    variant: _Str = "complete"
    metadata: Mapping[str, Any] = Field(default_factory=dict)
    user: UserScenario | None = None

    @field_validator("initial_state")
    @classmethod
    def _check_seed(cls, value: Mapping[str, Any]) -> Mapping[str, Any]:
        seed = value.get("seed")
        if "seed" in value and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise ValueError("initial_state.seed must be an integer")
        return value

    @field_validator("reference_calls")
    @classmethod
    def _check_calls(cls, value: tuple[Mapping[str, Any], ...]) -> tuple[Mapping[str, Any], ...]:
        for call in value:
            if not isinstance(call.get("name"), str) or not isinstance(call.get("arguments", {}), Mapping):
                raise ValueError(_CALLS_MESSAGE)
        return value

    def scenario(self) -> UserScenario:
        """The task's simulated user: its `user`, or one made for a task without one.

        A plain task gets a user with one request (the instruction) that has said every value of
        the reference calls, except the value a ``missing_param`` task leaves out (named by its
        ``metadata["missing"]``), which the user holds and the agent must ask for.
        """
        if self.user is not None:
            return self.user
        missing = self.metadata.get("missing") if self.variant == "missing_param" else None
        slots = []
        for i, call in enumerate(self.reference_calls):
            for param, value in dict(call.get("arguments", {})).items():
                hidden = isinstance(missing, Mapping) and missing.get("call") == i and missing.get("param") == param
                slots.append(Slot(param=param, value=value, call=i, said=not hidden))
        return UserScenario(
            slots=tuple(slots), stages=(Stage(request=self.instruction, calls=len(self.reference_calls)),)
        )

    def reference_dialogue(self) -> list[str | dict[str, Any]]:
        """The agent's side of the reference dialogue, as environment actions.

        Messages to the user are text, calls are ``{"name", "arguments"}`` dicts: the user's
        ``turns``, or, for a task without them, a question for each value its user withholds
        (just before the call that needs it), the calls, and a closing message.
        """
        scenario = self.scenario()
        if scenario.turns:
            return [
                str(t["say"]) if "say" in t else {"name": t["name"], "arguments": dict(t.get("arguments", {}))}
                for t in scenario.turns
            ]
        turns: list[str | dict[str, Any]] = []
        for i, call in enumerate(self.reference_calls):
            turns += [f"Which {noun(s.param)} should I use?" for s in scenario.withheld if s.call == i]
            turns.append({"name": call["name"], "arguments": dict(call.get("arguments", {}))})
        turns.append(self.expected_answer or "All done.")
        return turns

    @property
    def data_seed(self) -> int:
        """The seed of the server data the task starts from."""
        return int(self.initial_state.get("seed", 0))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (a deep copy: changing it leaves the task alone; ``user`` only when set)."""
        d = {name: copy.deepcopy(getattr(self, name)) for name in type(self).model_fields}
        d["reference_calls"] = [dict(c) for c in d["reference_calls"]]
        d["initial_state"] = dict(d["initial_state"])
        d["metadata"] = dict(d["metadata"])
        if self.user is None:
            del d["user"]  # plain tasks keep the fields they always had
        else:
            d["user"] = self.user.model_dump(mode="json")
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Task:
        """Build a task from a dict, checking fields and types.

        Reference calls are normalised to ``{"name": ..., "arguments": {...}}`` (``arguments``
        defaults to ``{}``).

        Args:
            data: The task's fields, e.g. one line of a task file.

        Returns:
            The task.

        Raises:
            TaskError: A required field is missing, a field is unknown, or a type is wrong (one
                line, naming the field).
        """
        if not isinstance(data, Mapping):
            raise TaskError(f"a task must be a JSON object, got {type(data).__name__}")
        kwargs = dict(data)
        calls = kwargs.get("reference_calls", ())
        if isinstance(calls, list | tuple) and all(
            isinstance(c, Mapping) and isinstance(c.get("name"), str) and isinstance(c.get("arguments", {}), Mapping)
            for c in calls
        ):
            kwargs["reference_calls"] = tuple(
                {"name": c["name"], "arguments": dict(c.get("arguments", {}))} for c in calls
            )
        elif "reference_calls" in kwargs:
            kwargs["reference_calls"] = None  # fails below, with the reference_calls message
        try:
            return cls.model_validate(kwargs)
        except ValidationError as exc:
            raise TaskError(_task_error(data, exc.errors())) from None


def _task_error(data: Mapping[str, Any], errors: list[ErrorDetails]) -> str:
    """The one-line message for the first problem, in the order: unknown, required, the rest."""
    unknown = sorted(str(e["loc"][0]) for e in errors if e["type"] == "extra_forbidden")
    if unknown:
        return f"unknown task field(s): {', '.join(unknown)}"
    by_field: dict[str, list[ErrorDetails]] = {}
    for e in errors:
        by_field.setdefault(str(e["loc"][0]) if e["loc"] else "", []).append(e)
    for name in _REQUIRED:
        if name in by_field:
            return f"task field {name!r} must be a non-empty string"
    field, errs = next(iter(by_field.items()))
    prefix = f"task {data['id']!r}: "
    if field in _FIELD_MESSAGES:
        custom = [str(e["ctx"]["error"]) for e in errs if e["type"] == "value_error" and "ctx" in e]
        return prefix + (custom[0] if custom else _FIELD_MESSAGES[field])
    words = [_TYPE_WORDS[e["type"]] for e in errs if e["type"] in _TYPE_WORDS]
    if words:
        shown = json.dumps(errs[0]["input"], default=str)[:60]
        return prefix + f"{field} must be {' or '.join(dict.fromkeys(words))}, got {shown}"
    return prefix + f"{field}: {errs[0]['msg'][:1].lower()}{errs[0]['msg'][1:]}"


def load_tasks(path: str | os.PathLike[str]) -> list[Task]:
    """Read tasks from a JSONL file.

    Args:
        path: The file, one task per line (blank lines are skipped).

    Returns:
        The tasks, in file order.

    Raises:
        TaskError: The file is missing, or a line is not a valid task (the line number is named).
    """
    p = Path(path)
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise TaskError(f"cannot read task file {p}: {exc.strerror or exc}") from exc
    tasks: list[Task] = []
    seen: set[str] = set()
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            task = Task.from_dict(json.loads(line))
        except json.JSONDecodeError as exc:
            raise TaskError(f"{p}:{lineno}: not valid JSON ({exc.msg})") from exc
        except TaskError as exc:
            raise TaskError(f"{p}:{lineno}: {exc}") from exc
        if task.id in seen:
            raise TaskError(f"{p}:{lineno}: duplicate task id {task.id!r}")
        seen.add(task.id)
        tasks.append(task)
    if not tasks:
        raise TaskError(f"task file {p} holds no tasks")
    return tasks


def save_tasks(tasks: Iterable[Task], path: str | os.PathLike[str]) -> None:
    """Write tasks as JSONL (keys sorted, so equal tasks give equal bytes).

    Args:
        tasks: The tasks.
        path: The file (written through a temporary file, then renamed).
    """
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as f:
        for task in tasks:
            f.write(json.dumps(task.to_dict(), sort_keys=True, ensure_ascii=False) + "\n")
    tmp.replace(p)
