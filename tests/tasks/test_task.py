"""`Task`: a pydantic model with the dataclass's fields, and its JSONL files."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from gym_mcp.errors import TaskError
from gym_mcp.tasks.task import Task, load_tasks, save_tasks

CALL = {"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": 5.0}}
BASE: dict[str, Any] = {"id": "t1", "server": "banking", "instruction": "Deposit $5 into ACC-1001."}


def _task(**changes: Any) -> Task:
    return Task(**{**BASE, **changes})


def test_keyword_construction_and_defaults() -> None:
    task = _task()
    assert task.initial_state == {"seed": 0}
    assert task.reference_calls == ()
    assert task.expected_fingerprint is None
    assert task.expected_answer is None
    assert task.hidden_goal is None
    assert task.call_budget is None
    assert task.split == "train"
    assert task.difficulty is None
    assert task.variant == "complete"
    assert task.metadata == {}
    assert task.data_seed == 0
    assert _task(initial_state={"seed": 7}).data_seed == 7
    assert _task(initial_state={}).data_seed == 0
    full = _task(reference_calls=(CALL,), difficulty=3, call_budget=2, metadata={"length": 1})
    assert full.reference_calls == (CALL,)
    assert full.difficulty == 3
    assert _task(reference_calls=[CALL]).reference_calls == (CALL,)  # a list becomes a tuple


def test_defaults_are_not_shared() -> None:
    a, b = _task(), _task()
    assert a.initial_state is not b.initial_state
    assert a.metadata is not b.metadata


def test_frozen_and_strict() -> None:
    task = _task()
    with pytest.raises(ValidationError):
        setattr(task, "split", "test")  # noqa: B010 - the assignment a frozen model refuses
    with pytest.raises(ValidationError, match="colour"):
        Task.model_validate({**BASE, "colour": "red"})
    with pytest.raises(ValidationError):
        _task(id="")
    with pytest.raises(ValidationError):
        _task(call_budget="3")
    with pytest.raises(ValidationError):
        _task(reference_calls=({"arguments": {}},))


def test_equality_and_pickle() -> None:
    assert _task(reference_calls=(CALL,)) == _task(reference_calls=(dict(CALL),))
    assert _task() == _task(split="train")  # a default given explicitly is the same task
    assert _task() != _task(split="test")
    assert _task() != BASE
    task = _task(reference_calls=(CALL,), metadata={"tools": ["deposit"]})
    assert pickle.loads(pickle.dumps(task)) == task


def test_to_dict_is_a_json_ready_copy() -> None:
    task = _task(reference_calls=(CALL,), metadata={"tools": ["deposit"]}, difficulty="easy")
    d = task.to_dict()
    assert list(d) == [
        "id",
        "server",
        "instruction",
        "initial_state",
        "reference_calls",
        "expected_fingerprint",
        "expected_answer",
        "hidden_goal",
        "call_budget",
        "split",
        "difficulty",
        "variant",
        "metadata",
    ]
    assert d["reference_calls"] == [CALL]
    assert isinstance(d["reference_calls"], list)
    d["metadata"]["tools"].append("x")
    d["reference_calls"][0]["arguments"]["amount"] = 1
    assert task.metadata == {"tools": ["deposit"]}  # a deep copy
    assert task.reference_calls[0]["arguments"]["amount"] == 5.0
    assert Task.from_dict(task.to_dict()) == task
    json.dumps(d)


def test_from_dict_normalises_reference_calls() -> None:
    task = Task.from_dict({**BASE, "reference_calls": [{"name": "list_accounts"}, {**CALL, "id": "c1"}]})
    assert task.reference_calls == ({"name": "list_accounts", "arguments": {}}, CALL)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (["not", "a", "dict"], "a task must be a JSON object, got list"),
        ({**BASE, "colour": "red", "answer": 1}, "unknown task field(s): answer, colour"),
        ({"server": "banking", "instruction": "x"}, "task field 'id' must be a non-empty string"),
        ({**BASE, "server": ""}, "task field 'server' must be a non-empty string"),
        ({**BASE, "instruction": 5}, "task field 'instruction' must be a non-empty string"),
        (
            {**BASE, "reference_calls": [{"arguments": {}}]},
            "task 't1': reference_calls must be a list of {name, arguments} objects",
        ),
        ({**BASE, "reference_calls": "deposit"}, "task 't1': reference_calls must be a list of"),
        ({**BASE, "reference_calls": [{"name": "x", "arguments": []}]}, "task 't1': reference_calls must be"),
        ({**BASE, "initial_state": [0]}, "task 't1': initial_state must be an object"),
        ({**BASE, "initial_state": {"seed": "0"}}, "task 't1': initial_state.seed must be an integer"),
        ({**BASE, "initial_state": {"seed": 1.5}}, "task 't1': initial_state.seed must be an integer"),
        ({**BASE, "call_budget": -1}, "task 't1': call_budget must be a non-negative integer"),
        ({**BASE, "call_budget": "3"}, "task 't1': call_budget must be a non-negative integer"),
        ({**BASE, "split": 1}, "task 't1': split must be a string, got 1"),
        ({**BASE, "difficulty": 2.5}, "task 't1': difficulty must be a string or an integer, got 2.5"),
        ({**BASE, "metadata": [1]}, "task 't1': metadata must be an object, got [1]"),
    ],
)
def test_from_dict_errors_are_one_line(data: Any, message: str) -> None:
    with pytest.raises(TaskError) as info:
        Task.from_dict(data)
    assert str(info.value).startswith(message)
    assert "\n" not in str(info.value)


def test_save_and_load_round_trip_and_bytes(tmp_path: Path) -> None:
    tasks = [
        _task(reference_calls=(CALL,), expected_fingerprint="ab12", metadata={"ünïcode": "✓", "n": [1, 2]}),
        _task(id="t2", split="test", difficulty=2, call_budget=3),
    ]
    path = tmp_path / "tasks.jsonl"
    save_tasks(tasks, path)
    assert load_tasks(path) == tasks
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[1] == (
        '{"call_budget": 3, "difficulty": 2, "expected_answer": null, "expected_fingerprint": null, '
        '"hidden_goal": null, "id": "t2", "initial_state": {"seed": 0}, "instruction": "Deposit $5 into ACC-1001.", '
        '"metadata": {}, "reference_calls": [], "server": "banking", "split": "test", "variant": "complete"}'
    )
    assert '"ünïcode": "✓"' in lines[0]  # not escaped
    again = tmp_path / "again.jsonl"
    save_tasks(load_tasks(path), again)
    assert again.read_bytes() == path.read_bytes()


def test_load_tasks_errors(tmp_path: Path) -> None:
    good = json.dumps(BASE)
    cases = {
        "missing.jsonl": (None, "cannot read task file"),
        "empty.jsonl": ("\n\n", "holds no tasks"),
        "json.jsonl": (good + "\n{nope\n", "json.jsonl:2: not valid JSON"),
        "dup.jsonl": (good + "\n" + good + "\n", "dup.jsonl:2: duplicate task id 't1'"),
        "bad.jsonl": ("\n" + json.dumps({**BASE, "call_budget": -2}) + "\n", "bad.jsonl:2: task 't1': call_budget"),
    }
    for name, (text, message) in cases.items():
        path = tmp_path / name
        if text is not None:
            path.write_text(text)
        with pytest.raises(TaskError, match=None) as info:
            load_tasks(path)
        assert message in str(info.value), (name, str(info.value))
