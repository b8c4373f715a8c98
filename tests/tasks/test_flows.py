"""`metadata["flows"]` and `metadata["volatile"]`: checked shapes, and how a flow carries a value."""

from __future__ import annotations

import pytest

from gym_mcp import Task
from gym_mcp.errors import TaskError
from gym_mcp.tasks.flows import carried, paths

CALLS = [
    {"name": "add_note", "arguments": {"contact_id": "CON-1", "text": "hi"}},
    {"name": "update_note", "arguments": {"note_id": "note_1", "text": "bye"}},
]
FLOW = {"source": 0, "field": "note.id", "target": 1, "param": "note_id"}


def _task(**metadata: object) -> Task:
    return Task.from_dict(
        {"id": "t", "server": "s", "instruction": "x", "reference_calls": CALLS, "metadata": metadata}
    )


def test_a_flow_carries_the_value_this_run_minted() -> None:
    outputs = [{"note": {"id": "note_9", "text": "hi"}}]
    assert carried(CALLS[1], 1, [FLOW], outputs) == {
        "name": "update_note",
        "arguments": {"note_id": "note_9", "text": "bye"},
    }
    assert carried(CALLS[1], 1, [FLOW], [None])["arguments"]["note_id"] == "note_1"  # nothing to carry: as recorded
    assert list(paths({"a": [{"b": 1}], "c": "x"})) == [("a.0.b", 1), ("c", "x")]


@pytest.mark.parametrize(
    ("metadata", "message"),
    [
        ({"flows": {"source": 0}}, "metadata.flows must be a list"),
        ({"flows": [{"source": 0, "field": "id", "target": 1}]}, r"metadata.flows\[0\] must have exactly the keys"),
        ({"flows": [{**FLOW, "source": 1}]}, r"the source call \(1\) must come before the target \(1\)"),
        ({"flows": [{**FLOW, "source": True}]}, "source and target must be reference call indices"),
        ({"flows": [{**FLOW, "field": ""}]}, "field and param must be non-empty strings"),
        ({"flows": [{**FLOW, "target": 2, "source": 0}]}, r"metadata.flows\[0\].target is 2, but the task has 2"),
        ({"volatile": {"notes": "id"}}, "metadata.volatile must map state groups to lists of fields"),
    ],
)
def test_a_bad_flow_or_volatile_is_one_line(metadata: dict, message: str) -> None:
    with pytest.raises(TaskError, match=message):
        _task(**metadata)


def test_good_ones_round_trip() -> None:
    task = _task(flows=[FLOW], volatile={"notes": ["id"]})
    assert Task.from_dict(task.to_dict()) == task
