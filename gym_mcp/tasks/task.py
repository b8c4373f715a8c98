"""Tasks: what an episode asks of the agent, where it starts, and what counts as done.

Tasks are stored as JSON lines, one `Task` per line (loadable with `datasets` too). A task's
initial state is a data seed of its server (``{"seed": 0}``); its expected outcome is the
fingerprint of the final state that its reference calls produce from there.
"""

from __future__ import annotations

import copy
import json
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, Strict, ValidationError, field_validator, model_validator
from pydantic_core import ErrorDetails

from gym_mcp.errors import TaskError
from gym_mcp.specs.textfile import NotUTF8, decode_utf8, loads_json, split_lines
from gym_mcp.tasks.dialogue import Slot, Stage, UserScenario, noun
from gym_mcp.tasks.flows import check_flows

__all__ = ["SPLITS", "Task", "load_tasks", "save_tasks"]

SPLITS = ("train", "test")
"""The values of `Task.split`."""

_NonEmptyStr = Annotated[str, Strict(), Field(pattern=r"\S")]  # something other than blanks
_Str = Annotated[str, Strict()]
_Int = Annotated[int, Strict()]

_CALLS_MESSAGE = "reference_calls must be a list of {name, arguments} objects"
_CALL_KEYS = ("name", "arguments", "id")  # "id": an OpenAI call id, dropped by `Task.from_dict`
_REQUIRED = ("id", "server", "instruction")
# What a value must be, by its dotted path with the indices left out (other values: pydantic's error type).
_PATH_WORDS = {
    "initial_state": "an object",
    "call_budget": "a non-negative integer",
    "expected_fingerprint": "a non-empty string or null",
    "expected_answer": "a non-empty string or null",
    "user": "an object (the simulated user) or null",
    "user.slots[].call": "a non-negative integer (a reference call's index)",
    "user.stages[].calls": "a non-negative integer (how many reference calls the request needs)",
    "user.confirm[]": "a non-negative integer (a reference call's index)",
}
_TYPE_WORDS = {
    "string_type": "a string",
    "string_too_short": "a non-empty string",
    "string_pattern_mismatch": "a non-empty string",
    "int_type": "an integer",
    "bool_type": "true or false",
    "float_type": "a number",
    "dict_type": "an object",
    "mapping_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "tuple_type": "a list",
    "list_type": "a list",
}
# Field names of the models a task holds: a ``loc`` part that is none of these is a union branch.
_FIELD_NAMES: set[str] = set()


def _shown(value: Any, limit: int = 60) -> str:
    """A value as the message shows it: JSON, cut to ``limit`` characters."""
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _check_call(where: str, call: Any) -> str | None:
    """What is wrong with one ``{name, arguments}`` call, or None."""
    if not isinstance(call, Mapping):
        return f"{where} is {_shown(call)}"
    unknown = sorted(str(k) for k in call if k not in _CALL_KEYS)
    if unknown:
        return f"{where} has unknown key(s) {', '.join(map(repr, unknown))}"
    name = call.get("name")
    if not isinstance(name, str) or not name.strip():
        return f"{where}.name must be a non-empty string, got {_shown(name) if 'name' in call else 'nothing'}"
    if not isinstance(call.get("arguments", {}), Mapping):
        return f"{where}.arguments must be an object, got {_shown(call['arguments'])}"
    return None


def _check_metadata(metadata: Mapping[str, Any]) -> None:
    """Raise `ValueError` if a key that gym-mcp reads has the wrong shape (other keys: anything)."""
    tools = metadata.get("distractor_tools")
    if tools is not None:
        if not isinstance(tools, list | tuple):
            raise ValueError(f"metadata.distractor_tools must be a list of OpenAI tool schemas, got {_shown(tools)}")
        for i, tool in enumerate(tools):
            function = tool.get("function") if isinstance(tool, Mapping) else None
            name = function.get("name") if isinstance(function, Mapping) else None
            if not isinstance(name, str) or not name.strip():
                raise ValueError(
                    f"metadata.distractor_tools[{i}] must be an OpenAI tool schema "
                    f'{{"type": "function", "function": {{"name": ...}}}}, got {_shown(tool)}'
                )
    turns = metadata.get("reference_turns")
    if turns is not None:
        if not isinstance(turns, list | tuple) or not all(isinstance(t, list | tuple) for t in turns):
            raise ValueError(f"metadata.reference_turns must be a list of lists of calls, got {_shown(turns)}")
        for i, turn in enumerate(turns):
            for j, call in enumerate(turn):
                problem = _check_call(f"metadata.reference_turns[{i}][{j}]", call)
                if problem:
                    raise ValueError(problem)
    if "flows" in metadata:
        problem = check_flows(metadata["flows"])
        if problem:
            raise ValueError(problem)
    if "volatile" in metadata:
        volatile = metadata["volatile"]
        if not isinstance(volatile, Mapping) or not all(
            isinstance(group, str) and isinstance(fields, list | tuple) and all(isinstance(f, str) for f in fields)
            for group, fields in volatile.items()
        ):
            raise ValueError(f"metadata.volatile must map state groups to lists of fields, got {_shown(volatile)}")
    entry = metadata.get("bfcl_entry")
    if entry is not None and not isinstance(entry, str):
        raise ValueError(f"metadata.bfcl_entry must be a string, got {_shown(entry)}")
    if "missing" in metadata:
        missing = metadata["missing"]
        call = missing.get("call") if isinstance(missing, Mapping) else None
        param = missing.get("param") if isinstance(missing, Mapping) else None
        if (
            not isinstance(missing, Mapping)
            or set(missing) != {"call", "param"}
            or not isinstance(call, int)
            or isinstance(call, bool)
            or call < 0
            or not isinstance(param, str)
            or not param
        ):
            raise ValueError(
                f'metadata.missing must be {{"call": <reference call index>, "param": <argument name>}}, '
                f"got {_shown(missing)}"
            )


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
        split: ``"train"`` or ``"test"`` (held-out); nothing else.
        difficulty: A label, e.g. the chain length.
        variant: ``"complete"``, ``"missing_param"``, ``"irrelevant"``, ``"distractors"``, ...
        metadata: Anything else. The keys gym-mcp reads are checked: ``missing`` (``{"call",
            "param"}``, of a ``missing_param`` task), ``distractor_tools`` (OpenAI tool schemas),
            ``reference_turns`` (lists of calls), ``bfcl_entry`` (a string), ``flows`` (values
            that flow from one reference call's output into a later call, see
            `gym_mcp.tasks.flows`) and ``volatile`` (``{state group: [fields]}`` judged as
            volatile for this task besides the server's own, e.g. ``{"notes": ["id"]}``: what
            replay found minted).
        user: The simulated user of a dialogue task (`UserScenario`), or None.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: _NonEmptyStr
    server: _NonEmptyStr
    instruction: _NonEmptyStr
    initial_state: Mapping[str, Any] = Field(default_factory=lambda: {"seed": 0})
    reference_calls: tuple[Mapping[str, Any], ...] = ()
    expected_fingerprint: _NonEmptyStr | None = None
    expected_answer: _NonEmptyStr | None = None
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
        unknown = sorted(str(k) for k in value if k != "seed")
        if unknown:
            raise ValueError(f"initial_state has unknown key(s) {', '.join(map(repr, unknown))}; it holds only 'seed'")
        seed = value.get("seed")
        if "seed" in value and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise ValueError(f"initial_state.seed must be an integer, got {_shown(seed)}")
        return value

    @field_validator("reference_calls", mode="before")
    @classmethod
    def _check_calls(cls, value: Any) -> Any:
        if not isinstance(value, list | tuple):
            raise ValueError(f"{_CALLS_MESSAGE}, got {_shown(value)}")
        for i, call in enumerate(value):
            problem = _check_call(f"reference_calls[{i}]", call)
            if problem:
                raise ValueError(f"{_CALLS_MESSAGE}; {problem}")
        return value

    @field_validator("split")
    @classmethod
    def _check_split(cls, value: str) -> str:
        if value not in SPLITS:
            raise ValueError(f"split must be 'train' or 'test', got {_shown(value)}")
        return value

    @field_validator("metadata")
    @classmethod
    def _check_metadata(cls, value: Mapping[str, Any]) -> Mapping[str, Any]:
        _check_metadata(value)
        return value

    @model_validator(mode="after")
    def _check_indices(self) -> Task:
        """The user's and ``metadata.missing``'s call indices and parameters exist in the reference calls."""
        calls = self.reference_calls
        have = f"the task has {len(calls)} reference call(s)"

        def argument(where: str, index: int, param: str) -> None:
            if index >= len(calls):
                raise ValueError(f"{where}.call is {index}, but {have}")
            if param not in calls[index].get("arguments", {}):
                call = f"reference call {index} ({calls[index]['name']})"
                raise ValueError(f"{where}.param is {param!r}, but {call} has no such argument")

        flows = self.metadata.get("flows")
        if flows is not None:
            problem = check_flows(flows, len(calls))
            if problem:
                raise ValueError(problem)
        missing = self.metadata.get("missing")
        if isinstance(missing, Mapping):
            if self.variant != "missing_param":
                raise ValueError(
                    f"metadata.missing is read only by variant 'missing_param', but the variant is {self.variant!r}"
                )
            argument("metadata.missing", missing["call"], missing["param"])
        if self.user is None:
            return self
        served = sum(stage.calls for stage in self.user.stages)
        if served != len(calls):
            raise ValueError(f"user.stages serve {served} reference call(s) in all (their 'calls'), but {have}")
        for i, slot in enumerate(self.user.slots):
            argument(f"user.slots[{i}]", slot.call, slot.param)
        for i, index in enumerate(self.user.confirm):
            if index >= len(calls):
                raise ValueError(f"user.confirm[{i}] is {index}, but {have}")
        return self

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

    def argument_values(self) -> list[Any]:
        """Every leaf value of the reference calls' arguments (strings, numbers, ...), in call order."""
        out: list[Any] = []
        stack: list[Any] = [c.get("arguments", {}) for c in reversed(self.reference_calls) if isinstance(c, Mapping)]
        while stack:
            item = stack.pop()
            if isinstance(item, Mapping):
                stack.extend(reversed(list(item.values())))
            elif isinstance(item, list | tuple):
                stack.extend(reversed(item))
            else:
                out.append(item)
        return out

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
        defaults to ``{}``; an OpenAI call ``id`` is dropped).

        Args:
            data: The task's fields, e.g. one line of a task file.

        Returns:
            The task.

        Raises:
            TaskError: A required field is missing, a field is unknown, or a value has the wrong
                type or shape (one line, naming the field, e.g. ``task 't1': user.slots[0].said
                must be true or false, got "yes"``).
        """
        if not isinstance(data, Mapping):
            raise TaskError(f"a task must be a JSON object, got {type(data).__name__}")
        kwargs = dict(data)
        calls = kwargs.get("reference_calls")
        if isinstance(calls, list | tuple):
            kwargs["reference_calls"] = tuple(_normalised_call(c) for c in calls)
        try:
            return cls.model_validate(kwargs)
        except ValidationError as exc:
            raise TaskError(_task_error(data, exc.errors())) from None


def _normalised_call(call: Any) -> Any:
    """A call as ``{"name", "arguments"}`` (other keys are kept, for the check to name them)."""
    if not isinstance(call, Mapping):
        return call
    out = {k: v for k, v in call.items() if k != "id"}
    arguments = out.setdefault("arguments", {})
    if isinstance(arguments, Mapping):
        out["arguments"] = dict(arguments)
    return out


def _path(loc: tuple[int | str, ...]) -> str:
    """A pydantic location as a dotted path (``user.slots[0].said``), without union branch names."""
    if not _FIELD_NAMES:
        for model in (Task, UserScenario, Slot, Stage):
            _FIELD_NAMES.update(model.model_fields)
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in _FIELD_NAMES:
            out += f".{part}" if out else part
    return out


def _words(path: str, errors: list[ErrorDetails]) -> str | None:
    """What the value at ``path`` must be, from its errors (None: no type error among them)."""
    generic = re.sub(r"\[\d+\]", "[]", path)
    words = []
    for e in errors:
        if e["type"] == "greater_than_equal" and e.get("ctx", {}).get("ge") == 0:
            words.append("a non-negative integer")
        elif e["type"] == "too_short":
            least = e.get("ctx", {}).get("min_length", 1)
            words.append("a non-empty list" if least == 1 else f"a list of at least {least} items")
        elif e["type"] in _TYPE_WORDS:
            words.append(_TYPE_WORDS[e["type"]])
    if not words:
        return None
    return _PATH_WORDS.get(generic) or " or ".join(dict.fromkeys(words))


def _task_error(data: Mapping[str, Any], errors: list[ErrorDetails]) -> str:
    """The one-line message for the first problem, in the order: unknown, required, the rest."""
    unknown = sorted(str(e["loc"][0]) for e in errors if e["type"] == "extra_forbidden" and len(e["loc"]) == 1)
    if unknown:
        return f"unknown task field(s): {', '.join(unknown)}"
    by_path: dict[str, list[ErrorDetails]] = {}
    for e in errors:
        by_path.setdefault(_path(e["loc"]), []).append(e)
    for name in _REQUIRED:
        if name in by_path:
            got = f", got {_shown(data[name])}" if name in data else " (it is missing)"
            return f"task field {name!r} must be a non-empty string{got}"
    prefix = f"task {data['id']!r}: "
    nested_unknown = [f"{_path(e['loc'][:-1])}.{e['loc'][-1]}" for e in errors if e["type"] == "extra_forbidden"]
    if nested_unknown:
        return prefix + f"unknown field(s) {', '.join(nested_unknown)}"
    path, errs = next(iter(by_path.items()))
    custom = [str(e["ctx"]["error"]) for e in errs if e["type"] == "value_error" and "ctx" in e]
    if custom:
        return prefix + custom[0]
    if any(e["type"] == "missing" for e in errs):
        return prefix + f"{path} is missing"
    words = _words(path, errs)
    if words is not None:
        return prefix + f"{path} must be {words}, got {_shown(errs[0]['input'])}"
    msg = errs[0]["msg"]
    return prefix + f"{path or 'task'}: {msg[:1].lower()}{msg[1:]}"


def load_tasks(path: str | os.PathLike[str]) -> list[Task]:
    """Read tasks from a JSONL file (UTF-8).

    Args:
        path: The file, one task per line (blank lines are skipped).

    Returns:
        The tasks, in file order.

    Raises:
        TaskError: The file is missing or not UTF-8, or a line is not a valid task: not JSON, a
            key given twice, NaN, a wrong field (one line: the file, the line number, the task
            and the field).
    """
    p = Path(path)
    try:
        text = decode_utf8(p.read_bytes())
    except OSError as exc:
        raise TaskError(f"cannot read task file {p}: {exc.strerror or exc}") from exc
    except NotUTF8 as exc:
        raise TaskError(
            f"{p}:{exc.line}: not UTF-8 text (byte 0x{exc.byte:02x} at column {exc.column}); save the file as UTF-8"
        ) from None
    tasks: list[Task] = []
    seen: set[str] = set()
    for lineno, line in enumerate(split_lines(text), 1):
        if not line.strip():
            continue
        try:
            task = Task.from_dict(loads_json(line))
        except json.JSONDecodeError as exc:
            raise TaskError(f"{p}:{lineno}: not valid JSON ({exc.msg} at column {exc.colno})") from exc
        except TaskError as exc:
            raise TaskError(f"{p}:{lineno}: {exc}") from exc
        except ValueError as exc:  # from loads_json: a duplicate key, NaN, a lone surrogate
            raise TaskError(f"{p}:{lineno}: not valid JSON ({exc})") from exc
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

    Raises:
        TaskError: A task holds a value JSON cannot (NaN, infinity, a set, bytes...); nothing is written.
    """
    lines = []
    for task in tasks:
        try:
            lines.append(json.dumps(task.to_dict(), sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n")
        except (TypeError, ValueError) as exc:
            raise TaskError(f"task {task.id!r} cannot be saved as JSON: {exc}") from None
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    try:
        with tmp.open("w", encoding="utf-8") as f:
            f.writelines(lines)
    except UnicodeEncodeError as exc:
        tmp.unlink(missing_ok=True)
        raise TaskError(f"cannot save tasks to {p}: a string is not valid Unicode ({exc.reason})") from None
    tmp.replace(p)
