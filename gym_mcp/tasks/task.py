"""Tasks: what an episode asks of the agent, where it starts, and what counts as done.

Tasks are stored as JSON lines, one `Task` per line (loadable with `datasets` too). A task's
initial state is a data seed of its server (``{"seed": 0}``); its expected outcome is the
fingerprint of the final state that its reference calls produce from there.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from gym_mcp.errors import TaskError

__all__ = ["Task", "load_tasks", "save_tasks"]


@dataclass(frozen=True)
class Task:
    """One task.

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
    """

    id: str
    server: str
    instruction: str
    initial_state: Mapping[str, Any] = field(default_factory=lambda: {"seed": 0})
    reference_calls: tuple[Mapping[str, Any], ...] = ()
    expected_fingerprint: str | None = None
    expected_answer: str | None = None
    hidden_goal: str | None = None
    call_budget: int | None = None
    split: str = "train"
    difficulty: str | int | None = None
    variant: str = "complete"
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def data_seed(self) -> int:
        """The seed of the server data the task starts from."""
        return int(self.initial_state.get("seed", 0))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        d = asdict(self)
        d["reference_calls"] = [dict(c) for c in self.reference_calls]
        d["initial_state"] = dict(self.initial_state)
        d["metadata"] = dict(self.metadata)
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Task:
        """Build a task from a dict, checking fields and types.

        Raises:
            TaskError: A required field is missing, a field is unknown, or a type is wrong.
        """
        if not isinstance(data, Mapping):
            raise TaskError(f"a task must be a JSON object, got {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise TaskError(f"unknown task field(s): {', '.join(unknown)}")
        for name in ("id", "server", "instruction"):
            if not isinstance(data.get(name), str) or not data.get(name):
                raise TaskError(f"task field {name!r} must be a non-empty string")
        calls = data.get("reference_calls", ())
        if not isinstance(calls, list | tuple) or not all(
            isinstance(c, Mapping) and isinstance(c.get("name"), str) and isinstance(c.get("arguments", {}), Mapping)
            for c in calls
        ):
            raise TaskError(f"task {data['id']!r}: reference_calls must be a list of {{name, arguments}} objects")
        initial = data.get("initial_state", {"seed": 0})
        if not isinstance(initial, Mapping):
            raise TaskError(f"task {data['id']!r}: initial_state must be an object")
        if "seed" in initial and not isinstance(initial["seed"], int):
            raise TaskError(f"task {data['id']!r}: initial_state.seed must be an integer")
        budget = data.get("call_budget")
        if budget is not None and (not isinstance(budget, int) or budget < 0):
            raise TaskError(f"task {data['id']!r}: call_budget must be a non-negative integer")
        kwargs = dict(data)
        kwargs["reference_calls"] = tuple({"name": c["name"], "arguments": dict(c.get("arguments", {}))} for c in calls)
        return cls(**kwargs)


def load_tasks(path: str | os.PathLike[str]) -> list[Task]:
    """Read tasks from a JSONL file.

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
    """Write tasks as JSONL (keys sorted, so equal tasks give equal bytes)."""
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as f:
        for task in tasks:
            f.write(json.dumps(task.to_dict(), sort_keys=True, ensure_ascii=False) + "\n")
    tmp.replace(p)
