"""`CompositeReward.grounded` on hand-built episodes: the bands, the process term, the checks."""

from __future__ import annotations

import math

import pytest

from gym_mcp.errors import ConfigError
from gym_mcp.rewards import CompositeReward, success
from tests.rewards.test_rewards import (
    DEPOSIT,
    START,
    TRANSFER,
    call,
    episode,
    irrelevant_task,
    read_task,
    ref_call,
    write_task,
)

GROUNDED = CompositeReward.grounded()
PROVE = CompositeReward.prove()


def test_grounded_is_prove_inside_the_band_success_picks() -> None:
    assert (GROUNDED.gate, GROUNDED.normalize, GROUNDED.success_weight) == (True, True, 0.0)
    assert (GROUNDED.fail_ceiling, GROUNDED.pass_floor) == (0.45, 0.5)
    assert GROUNDED.scale == PROVE.scale == pytest.approx(1.3)
    lean = episode(write_task(), [ref_call(DEPOSIT), ref_call(TRANSFER)])
    assert GROUNDED(lean) == pytest.approx(1.0)
    terms = GROUNDED.terms(lean)
    assert set(terms) == set(PROVE.terms(lean)) | {"process"}
    assert terms["process"] == pytest.approx(1.0)
    # a near miss: PROVE pays 0.99 for the wrong final state; grounded keeps it under the ceiling
    wrong = call("deposit", {"account_id": "ACC-1001", "amount": 26.0, "description": "gift"})
    miss = episode(write_task(), [wrong, ref_call(TRANSFER)], fp="fp-other")
    assert success(miss) is False
    assert PROVE(miss) > 0.98
    assert GROUNDED(miss) == pytest.approx(0.45 * PROVE(miss))
    # a wasteful success: PROVE pays less than for the near miss; grounded keeps it above every failure
    read = call("get_balance", {"account_id": "ACC-1001"})
    wasteful = episode(write_task(), [read, ref_call(DEPOSIT), read, read, ref_call(TRANSFER)])
    assert success(wasteful) is True
    assert PROVE(wasteful) < PROVE(miss)
    assert GROUNDED(wasteful) == pytest.approx(0.5 + 0.5 * PROVE(wasteful))
    assert GROUNDED(miss) < 0.45 < 0.5 < GROUNDED(wasteful) < GROUNDED(lean)
    # doing nothing
    assert GROUNDED(episode(write_task(), [], fp=START)) == 0.0


def test_an_unbounded_efficiency_penalty_stops_at_the_pass_floor() -> None:
    read = call("get_balance", {"account_id": "ACC-1001"})
    flood = episode(write_task(), [*[read] * 60, ref_call(DEPOSIT), ref_call(TRANSFER)])
    assert success(flood) is True
    assert PROVE(flood) < 0.0
    assert GROUNDED.terms(flood)["process"] == 0.0
    assert GROUNDED(flood) == 0.5


def test_read_tasks_need_the_answer_and_irrelevant_ones_abstention() -> None:
    task = read_task("$1,250.50")
    reads = [call("get_balance", {"account_id": "ACC-1001"})]
    right = episode(task, reads, fp=START, answer="It is $1,250.50.")
    wrong = episode(task, reads, fp=START, answer="It is $1,200.")
    assert PROVE(right) == PROVE(wrong) == pytest.approx(1.0)  # PROVE cannot tell them apart
    assert GROUNDED(right) == pytest.approx(1.0)
    assert GROUNDED(wrong) == pytest.approx(0.45)
    assert GROUNDED(episode(irrelevant_task(), [], fp=START)) == 1.0
    assert GROUNDED(episode(irrelevant_task(), reads, fp=START)) == 0.0


def test_custom_bands() -> None:
    reward = CompositeReward.grounded(fail_ceiling=0.2, pass_floor=0.8)
    wrong = call("deposit", {"account_id": "ACC-1001", "amount": 26.0, "description": "gift"})
    miss = episode(write_task(), [wrong, ref_call(TRANSFER)], fp="fp-other")
    assert reward(miss) == pytest.approx(0.2 * PROVE(miss))
    assert reward(episode(write_task(), [ref_call(DEPOSIT), ref_call(TRANSFER)])) == pytest.approx(1.0)
    edge = CompositeReward.grounded(fail_ceiling=0.0, pass_floor=1.0)  # MUA-RL's binary reward
    assert edge(miss) == 0.0
    assert edge(episode(write_task(), [ref_call(DEPOSIT), ref_call(TRANSFER)])) == 1.0


@pytest.mark.parametrize(
    "kwargs",
    [
        {"fail_ceiling": 0.5, "pass_floor": 0.5},
        {"fail_ceiling": 0.6, "pass_floor": 0.5},
        {"fail_ceiling": -0.1},
        {"pass_floor": 1.2},
        {"fail_ceiling": math.nan},
        {"pass_floor": math.inf},
    ],
)
def test_bands_are_checked(kwargs: dict[str, float]) -> None:
    with pytest.raises(ConfigError):
        CompositeReward.grounded(**kwargs)
    with pytest.raises(ConfigError):
        CompositeReward(gate=True, **kwargs)


def test_the_gate_takes_no_success_weight() -> None:
    with pytest.raises(ConfigError, match="success_weight"):
        CompositeReward(gate=True, success_weight=1.0)
    # prove and mua_rl are untouched: no gate, no process term
    lean = episode(write_task(), [ref_call(DEPOSIT), ref_call(TRANSFER)])
    assert "process" not in PROVE.terms(lean)
    assert "process" not in CompositeReward.mua_rl().terms(lean)


def test_extra_calls_cost_inside_the_band_and_a_run_that_never_stopped_fails_the_gate() -> None:
    strict = CompositeReward.grounded(extra_call_cost=1.0, stop_required=True)
    read = call("get_balance", {"account_id": "ACC-1001"})
    lean = episode(write_task(), [ref_call(DEPOSIT), ref_call(TRANSFER)])
    one_extra = episode(write_task(), [read, ref_call(DEPOSIT), ref_call(TRANSFER)])
    two_extra = episode(write_task(), [read, ref_call(DEPOSIT), read, ref_call(TRANSFER)])
    assert GROUNDED.terms(one_extra)["efficiency"] == 0.0  # inside PROVE's budget (3 for 2 reference calls)
    assert strict(lean) == pytest.approx(1.0)
    c = strict.terms(one_extra)["process"]
    assert strict(one_extra) == pytest.approx(0.5 + 0.5 * c / 1.5)  # 1 + 1.0 * 1 extra / 2 reference calls
    assert 0.5 <= strict(two_extra) < strict(one_extra) < GROUNDED(one_extra) < strict(lean)
    # the right final state, but the episode ran into the step limit still calling
    endless = episode(write_task(), [ref_call(DEPOSIT), ref_call(TRANSFER), read], answer=None)
    assert success(endless) is True and GROUNDED(endless) > 0.5
    assert strict.terms(endless)["never_stopped"] == 1.0
    assert strict(endless) <= 0.45 < 0.5 <= strict(two_extra)
    with pytest.raises(ConfigError, match="extra_call_cost"):
        CompositeReward.grounded(extra_call_cost=-1.0)
