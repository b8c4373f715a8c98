"""The queue of decision points step-level RL trains at: what the model fails most comes back first."""

from __future__ import annotations

import pytest

from gym_mcp.tasks import Task
from gym_mcp.train.steps import DecisionPoint, PointGroup, PointQueue


def _point(name: str, mistake: str | None) -> DecisionPoint:
    task = Task(id=name, server="banking", instruction="Check a balance.", reference_calls=({"name": "x"},))
    return DecisionPoint(task, 0, "call", mistake=mistake)  # type: ignore[arg-type]


def _group(point: DecisionPoint, rewards: list[float], guided: bool = False) -> PointGroup:
    return PointGroup(point, [], rewards, [None] * len(rewards), guided=guided)


def test_mistakes_come_first_and_failing_points_come_back_before_new_right_ones() -> None:
    right = [_point(f"r{i}", None) for i in range(3)]
    wrong = [_point(f"w{i}", "wrong tool") for i in range(2)]
    queue = PointQueue([right[0], wrong[0], right[1], wrong[1], right[2]], max_visits=3)
    first = queue.take(2)
    assert first == [wrong[0], wrong[1]]  # mistakes first, in the given order
    # w0: still failing (a guided group: no sampled reply right); w1: mostly learned
    queue.update([_group(wrong[0], [0, 0, 0, 1], guided=True), _group(wrong[1], [1, 1, 1, 0])])
    assert queue.take(1) == [wrong[0]]  # pass rate 0 before w1's 0.75 and the untried right points (1.0)
    queue.update([_group(wrong[0], [0, 1, 0])])
    assert queue.take(2) == [wrong[0], wrong[1]]  # 1/3 before 0.75
    queue.update([_group(wrong[0], [0, 0, 1]), _group(wrong[1], [1, 1, 1])])
    # w0 had its 3 groups; w1 had no spread: both are done, the right points remain
    assert len(queue) == 3
    assert queue.take(5) == right
    assert queue.take(1) == [] and len(queue) == 0


def test_equal_pass_rates_take_the_less_visited_point_first() -> None:
    a, b, c = (_point(n, "acted without asking") for n in "abc")
    queue = PointQueue([a, b, c], max_visits=4)
    taken = queue.take(1)
    assert taken == [a]
    queue.update([_group(a, [0, 0, 1], guided=True)])  # pass 0, but visited once
    assert queue.take(3) == [b, c, a]


def test_a_point_without_spread_leaves_and_max_visits_is_checked() -> None:
    p = _point("p", "wrong arguments")
    queue = PointQueue([p])
    queue.take(1)
    queue.update([_group(p, [0.0, 0.0])])
    assert len(queue) == 0
    with pytest.raises(ValueError, match="max_visits"):
        PointQueue([p], max_visits=0)
