"""Bad task files fail with one line naming the file, the line, the task and the field (issue 15).

Every field of `Task` and of its nested parts (reference calls, the simulated user's slots,
stages, confirmations and turns, the metadata keys gym-mcp reads) is given a value of the wrong
type or shape; each must be a `TaskError` whose message says exactly what is wrong and where,
through `load_tasks`, `gym.make` and the command line alike. Nothing is silently coerced.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import gym_mcp  # noqa: F401 - registers the environments
from gym_mcp.cli import main
from gym_mcp.errors import TaskError
from gym_mcp.tasks import Task, load_tasks, save_tasks

CALL = {"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": 5.0}}
GOOD: dict[str, Any] = {"id": "t1", "server": "banking", "instruction": "Deposit $5 into ACC-1001."}
TASK: dict[str, Any] = {**GOOD, "reference_calls": [CALL]}
STAGES = [{"request": "Deposit $5 into ACC-1001.", "calls": 1}]


def _user(**fields: Any) -> dict[str, Any]:
    return {"stages": STAGES, **fields}


def _write(tmp_path: Path, *lines: str | bytes, name: str = "tasks.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(b"\n".join(x if isinstance(x, bytes) else x.encode() for x in lines) + b"\n")
    return path


def _load_error(path: Path) -> str:
    with pytest.raises(TaskError) as info:
        load_tasks(path)
    message = str(info.value)
    assert "\n" not in message
    return message


# -- every field, the wrong type or shape ---------------------------------------------------------

FIELD_CASES: list[tuple[dict[str, Any], str]] = [
    # the required strings
    ({"id": 5}, "task field 'id' must be a non-empty string, got 5"),
    ({"id": "  "}, "task field 'id' must be a non-empty string, got \"  \""),
    ({"server": ["banking"]}, "task field 'server' must be a non-empty string, got [\"banking\"]"),
    ({"instruction": None}, "task field 'instruction' must be a non-empty string, got null"),
    # initial_state
    ({"initial_state": 3}, "task 't1': initial_state must be an object, got 3"),
    ({"initial_state": {"seed": "5"}}, "task 't1': initial_state.seed must be an integer, got \"5\""),
    ({"initial_state": {"seed": True}}, "task 't1': initial_state.seed must be an integer, got true"),
    ({"initial_state": {"sed": 5}}, "task 't1': initial_state has unknown key(s) 'sed'; it holds only 'seed'"),
    # reference_calls and each call
    (
        {"reference_calls": {"name": "deposit"}},
        'task \'t1\': reference_calls must be a list of {name, arguments} objects, got {"name": "deposit"}',
    ),
    (
        {"reference_calls": [CALL, "deposit"]},
        "task 't1': reference_calls must be a list of {name, arguments} objects; reference_calls[1] is \"deposit\"",
    ),
    (
        {"reference_calls": [{"arguments": {}}]},
        "task 't1': reference_calls must be a list of {name, arguments} objects; "
        "reference_calls[0].name must be a non-empty string, got nothing",
    ),
    (
        {"reference_calls": [{"name": 7}]},
        "task 't1': reference_calls must be a list of {name, arguments} objects; "
        "reference_calls[0].name must be a non-empty string, got 7",
    ),
    (
        {"reference_calls": [{"name": "deposit", "arguments": "amount=5"}]},
        "task 't1': reference_calls must be a list of {name, arguments} objects; "
        'reference_calls[0].arguments must be an object, got "amount=5"',
    ),
    (
        {"reference_calls": [{"name": "deposit", "args": {"amount": 5}}]},
        "task 't1': reference_calls must be a list of {name, arguments} objects; "
        "reference_calls[0] has unknown key(s) 'args'",
    ),
    # the optional strings
    ({"expected_fingerprint": 12}, "task 't1': expected_fingerprint must be a non-empty string or null, got 12"),
    ({"expected_fingerprint": ""}, "task 't1': expected_fingerprint must be a non-empty string or null, got \"\""),
    ({"expected_answer": ["42"]}, "task 't1': expected_answer must be a non-empty string or null, got [\"42\"]"),
    ({"expected_answer": " "}, "task 't1': expected_answer must be a non-empty string or null, got \" \""),
    ({"hidden_goal": {"goal": "x"}}, 'task \'t1\': hidden_goal must be a string, got {"goal": "x"}'),
    # numbers and labels
    ({"call_budget": "5"}, "task 't1': call_budget must be a non-negative integer, got \"5\""),
    ({"call_budget": 2.0}, "task 't1': call_budget must be a non-negative integer, got 2.0"),
    ({"call_budget": True}, "task 't1': call_budget must be a non-negative integer, got true"),
    ({"call_budget": -1}, "task 't1': call_budget must be a non-negative integer, got -1"),
    ({"split": 0}, "task 't1': split must be a string, got 0"),
    ({"split": "tset"}, "task 't1': split must be 'train' or 'test', got \"tset\""),
    ({"difficulty": 1.5}, "task 't1': difficulty must be a string or an integer, got 1.5"),
    ({"difficulty": False}, "task 't1': difficulty must be a string or an integer, got false"),
    ({"variant": ["complete"]}, "task 't1': variant must be a string, got [\"complete\"]"),
    # metadata, and the keys of it that gym-mcp reads
    ({"metadata": ["a", "b"]}, 'task \'t1\': metadata must be an object, got ["a", "b"]'),
    ({"metadata": "notes"}, "task 't1': metadata must be an object, got \"notes\""),
    (
        {"metadata": {"distractor_tools": "get_balance"}},
        "task 't1': metadata.distractor_tools must be a list of OpenAI tool schemas, got \"get_balance\"",
    ),
    (
        {"metadata": {"distractor_tools": [{"name": "get_balance"}]}},
        "task 't1': metadata.distractor_tools[0] must be an OpenAI tool schema "
        '{"type": "function", "function": {"name": ...}}, got {"name": "get_balance"}',
    ),
    (
        {"metadata": {"reference_turns": [CALL]}},
        "task 't1': metadata.reference_turns must be a list of lists of calls, got [{",
    ),
    (
        {"metadata": {"reference_turns": [[{"name": "deposit", "arguments": []}]]}},
        "task 't1': metadata.reference_turns[0][0].arguments must be an object, got []",
    ),
    ({"metadata": {"bfcl_entry": 3}}, "task 't1': metadata.bfcl_entry must be a string, got 3"),
    (
        {"variant": "missing_param", "metadata": {"missing": "amount"}},
        'task \'t1\': metadata.missing must be {"call": <reference call index>, "param": <argument name>}, '
        'got "amount"',
    ),
    (
        {"variant": "missing_param", "metadata": {"missing": {"call": "0", "param": "amount"}}},
        "task 't1': metadata.missing must be {\"call\": <reference call index>",
    ),
    # user: the scenario itself
    ({"user": "scripted"}, "task 't1': user must be an object (the simulated user) or null, got \"scripted\""),
    ({"user": {}}, "task 't1': user.stages is missing"),
    ({"user": {"stages": []}}, "task 't1': user.stages must be a non-empty list, got []"),
    ({"user": _user(persona=5)}, "task 't1': user.persona must be a string, got 5"),
    ({"user": _user(mood="calm")}, "task 't1': unknown field(s) user.mood"),
    # user.stages
    ({"user": {"stages": "one"}}, "task 't1': user.stages must be a list, got \"one\""),
    ({"user": {"stages": [{"request": "x"}]}}, "task 't1': user.stages[0].calls is missing"),
    (
        {"user": {"stages": [{"request": "x", "calls": "1"}]}},
        "task 't1': user.stages[0].calls must be a non-negative integer "
        '(how many reference calls the request needs), got "1"',
    ),
    ({"user": {"stages": [{"request": 5, "calls": 1}]}}, "task 't1': user.stages[0].request must be a string, got 5"),
    (
        {"user": {"stages": [{"request": " ", "calls": 1}]}},
        "task 't1': user.stages[0].request must be a non-empty string, got \" \"",
    ),
    ({"user": {"stages": [{**STAGES[0], "say": "x"}]}}, "task 't1': unknown field(s) user.stages[0].say"),
    # user.slots
    ({"user": _user(slots={"amount": 5})}, "task 't1': user.slots must be a list, got {\"amount\": 5}"),
    ({"user": _user(slots=[{"value": 5}])}, "task 't1': user.slots[0].param is missing"),
    ({"user": _user(slots=[{"param": 5, "value": 5}])}, "task 't1': user.slots[0].param must be a string, got 5"),
    (
        {"user": _user(slots=[{"param": "amount", "value": 5, "call": "0"}])},
        "task 't1': user.slots[0].call must be a non-negative integer (a reference call's index), got \"0\"",
    ),
    (
        {"user": _user(slots=[{"param": "amount", "value": 5, "said": "no"}])},
        "task 't1': user.slots[0].said must be true or false, got \"no\"",
    ),
    (
        {"user": _user(slots=[{"param": "amount", "value": 5, "said": 0}])},
        "task 't1': user.slots[0].said must be true or false, got 0",
    ),
    # user.confirm
    ({"user": _user(confirm=0)}, "task 't1': user.confirm must be a list, got 0"),
    (
        {"user": _user(confirm=["0"])},
        "task 't1': user.confirm[0] must be a non-negative integer (a reference call's index), got \"0\"",
    ),
    # user.turns
    ({"user": _user(turns="hello")}, "task 't1': user.turns must be a list, got \"hello\""),
    ({"user": _user(turns=["hello"])}, "task 't1': user.turns[0] must be an object, got \"hello\""),
    (
        {"user": _user(turns=[{"say": 5}])},
        "task 't1': user.turns[0] must be a {name, arguments} call or a {say: text} message, got {\"say\": 5}",
    ),
    (
        {"user": _user(turns=[{"name": "deposit", "arguments": "amount=5"}])},
        "task 't1': user.turns[0] must be a {name, arguments} call or a {say: text} message, "
        'got {"name": "deposit", "arguments": "amount=5"}',
    ),
    (
        {"user": _user(turns=[{"say": "Hi", "name": "deposit"}])},
        "task 't1': user.turns[0] must be a {name, arguments} call or a {say: text} message",
    ),
]


@pytest.mark.parametrize(("fields", "expect"), FIELD_CASES, ids=[json.dumps(c[0])[:50] for c in FIELD_CASES])
def test_every_field_of_the_wrong_type_names_file_line_task_and_field(
    tmp_path: Path, fields: dict[str, Any], expect: str
) -> None:
    path = _write(tmp_path, json.dumps(GOOD), json.dumps({**TASK, "id": "t1", **fields}))
    message = _load_error(path)
    assert message.startswith(f"{path}:2: {expect}"), message


# -- values that fit their types but not the task: silently wrong before ----------------------------

CONSISTENCY_CASES: list[tuple[dict[str, Any], str]] = [
    (
        {"user": {"stages": [{"request": "x", "calls": 2}]}},
        "task 't1': user.stages serve 2 reference call(s) in all (their 'calls'), but the task has 1 reference call(s)",
    ),
    (
        {"user": _user(slots=[{"param": "amount", "value": 5, "call": 3}])},
        "task 't1': user.slots[0].call is 3, but the task has 1 reference call(s)",
    ),
    (
        {"user": _user(slots=[{"param": "amount_usd", "value": 5}])},
        "task 't1': user.slots[0].param is 'amount_usd', but reference call 0 (deposit) has no such argument",
    ),
    ({"user": _user(confirm=[1])}, "task 't1': user.confirm[0] is 1, but the task has 1 reference call(s)"),
    (
        {"metadata": {"missing": {"call": 0, "param": "amount"}}},
        "task 't1': metadata.missing is read only by variant 'missing_param', but the variant is 'complete'",
    ),
    (
        {"variant": "missing_param", "metadata": {"missing": {"call": 2, "param": "amount"}}},
        "task 't1': metadata.missing.call is 2, but the task has 1 reference call(s)",
    ),
    (
        {"variant": "missing_param", "metadata": {"missing": {"call": 0, "param": "sum"}}},
        "task 't1': metadata.missing.param is 'sum', but reference call 0 (deposit) has no such argument",
    ),
]


@pytest.mark.parametrize(
    ("fields", "expect"), CONSISTENCY_CASES, ids=[json.dumps(c[0])[:50] for c in CONSISTENCY_CASES]
)
def test_indices_and_parameters_must_exist_in_the_reference_calls(
    tmp_path: Path, fields: dict[str, Any], expect: str
) -> None:
    path = _write(tmp_path, json.dumps({**TASK, **fields}))
    assert _load_error(path) == f"{path}:1: {expect}"


def test_a_consistent_dialogue_task_still_loads(tmp_path: Path) -> None:
    user = _user(
        slots=[
            {"param": "account_id", "value": "ACC-1001", "call": 0},
            {"param": "amount", "value": 5.0, "call": 0, "said": False},
        ],
        confirm=[0],
        turns=[{"say": "Which amount should I deposit?"}, CALL, {"say": "Done."}],
    )
    missing = {"variant": "missing_param", "metadata": {"missing": {"call": 0, "param": "amount"}}}
    path = _write(tmp_path, json.dumps({**TASK, "user": user, **missing}))
    (task,) = load_tasks(path)
    assert task.user is not None and task.user.withheld[0].param == "amount"
    assert task.reference_dialogue()[1] == CALL


# -- the file itself ------------------------------------------------------------------------------


LATIN1 = b'{"id": "t1", "server": "banking", "instruction": "caf\xe9"}'  # "café" in Latin-1
LATIN1_COLUMN = LATIN1.index(b"\xe9") + 1


def test_non_utf8_file_names_the_line_and_byte(tmp_path: Path) -> None:
    path = _write(tmp_path, json.dumps(GOOD), LATIN1)
    message = f"{path}:2: not UTF-8 text (byte 0xe9 at column {LATIN1_COLUMN}); save the file as UTF-8"
    assert _load_error(path) == message


def test_a_utf16_file_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps(GOOD) + "\n", encoding="utf-16")
    assert _load_error(path).startswith(f"{path}:1: not UTF-8 text (byte 0xff at column 1)")


def test_a_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps(GOOD) + "\n", encoding="utf-8-sig")
    assert [t.id for t in load_tasks(path)] == ["t1"]


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"])
def test_unicode_line_separators_inside_strings_round_trip(tmp_path: Path, separator: str) -> None:
    """`save_tasks` writes these unescaped; `str.splitlines` used to split the line at them."""
    task = Task(**{**GOOD, "instruction": f"Deposit $5{separator}into ACC-1001."})
    path = tmp_path / "tasks.jsonl"
    save_tasks([task], path)
    assert load_tasks(path) == [task]


@pytest.mark.parametrize(
    ("line", "expect"),
    [
        (
            '{"id": "t1", "server": "banking", "instruction": "x", "id": "t2"}',
            "not valid JSON (key 'id' is given twice",
        ),
        ('{"id": "t1", "server": "banking", "instruction": "x", "call_budget": NaN}', "not valid JSON (NaN is not a"),
        ('{"id": "t1", "server": "banking", "instruction": "x", "metadata": {"w": -Infinity}}', "(-Infinity is not"),
        (
            '{"id": "t1", "server": "banking", "instruction": "x\\ud800"}',
            "half of a surrogate pair (not valid Unicode)",
        ),
        ('{"id": "t1", "server": "banking", "instruction": "x"', "not valid JSON (Expecting ',' delimiter at column"),
        ('["t1", "banking", "x"]', "a task must be a JSON object, got list"),
    ],
)
def test_json_that_python_would_let_through_is_refused(tmp_path: Path, line: str, expect: str) -> None:
    path = _write(tmp_path, line)
    message = _load_error(path)
    assert message.startswith(f"{path}:1: "), message
    assert expect in message


def test_save_tasks_refuses_what_json_cannot_hold(tmp_path: Path) -> None:
    path = tmp_path / "tasks.jsonl"
    task = Task(**{**GOOD, "metadata": {"weight": math.nan}})
    with pytest.raises(TaskError, match=r"^task 't1' cannot be saved as JSON: Out of range float values"):
        save_tasks([task], path)
    assert not path.exists() and not (tmp_path / "tasks.jsonl.tmp").exists()


# -- through gym.make and the command line --------------------------------------------------------


def test_gym_make_raises_the_same_one_line_error(tmp_path: Path) -> None:
    path = _write(tmp_path, json.dumps({**TASK, "user": _user(slots=[{"param": "amount", "value": 5, "said": "no"}])}))
    with pytest.raises(TaskError) as info:
        gym.make("gym_mcp/Banking-v0", tasks=str(path))
    assert str(info.value) == f"{path}:1: task 't1': user.slots[0].said must be true or false, got \"no\""


@pytest.mark.parametrize(
    ("content", "expect"),
    [
        (LATIN1, f"not UTF-8 text (byte 0xe9 at column {LATIN1_COLUMN})"),
        (json.dumps({**TASK, "call_budget": "5"}).encode(), "task 't1': call_budget must be a non-negative integer"),
        (json.dumps({**TASK, "metadata": [1]}).encode(), "task 't1': metadata must be an object, got [1]"),
    ],
)
def test_cli_eval_prints_one_line_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, expect: str
) -> None:
    path = _write(tmp_path, content)
    status = main(["eval", "--env", "gym_mcp/Banking-v0", "--tasks", str(path), "--policy", "reference"])
    err = capsys.readouterr().err
    assert status == 1
    assert err.count("\n") == 1, err
    assert err.startswith(f"gym-mcp: error: {path}:1: {expect}"), err


def test_cli_binary_reports_a_non_utf8_task_file_without_a_traceback(tmp_path: Path) -> None:
    path = _write(tmp_path, LATIN1)
    args = ["eval", "--env", "gym_mcp/Banking-v0", "--tasks", str(path), "--policy", "reference"]
    out = subprocess.run(
        [sys.executable, "-m", "gym_mcp.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    assert out.returncode == 1
    expect = f"{path}:1: not UTF-8 text (byte 0xe9 at column {LATIN1_COLUMN}); save the file as UTF-8"
    assert out.stderr == f"gym-mcp: error: {expect}\n"
