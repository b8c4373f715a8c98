"""Reward terms on hand-built episodes (pure functions), and one run through a real environment."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import pytest

import gym_mcp  # noqa: F401  (registers the environments)
from gym_mcp import Task
from gym_mcp.errors import ConfigError
from gym_mcp.rewards import (
    CallRecord,
    CompositeReward,
    Episode,
    abstention,
    align_calls,
    all_terms,
    answer_match,
    argument_agreement,
    coverage,
    efficiency,
    efficiency_budget,
    name_precision,
    state_match,
    success,
    validity,
)
from tests.helpers import bank_task, verified_deposit_task

GOAL = "fp-goal"
START = "fp-start"
DEPOSIT = {"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": 25.0, "description": "gift"}}
TRANSFER = {
    "name": "transfer_funds",
    "arguments": {"from_account_id": "ACC-1001", "to_account_id": "ACC-1002", "amount": 10.0},
}


def write_task(refs: Sequence[Mapping[str, Any]] = (DEPOSIT, TRANSFER), **kw: Any) -> Task:
    return bank_task("write", "Deposit $25 into ACC-1001, then move $10 to ACC-1002.", refs, GOAL, **kw)


def irrelevant_task() -> Task:
    return Task(
        id="irrelevant",
        server="banking",
        instruction="Write me a haiku about autumn.",
        expected_fingerprint=START,
        variant="irrelevant",
    )


def call(
    name: str,
    arguments: Any,
    status: str = "ok",
    *,
    known: bool = True,
    valid: bool = True,
    step: int = 1,
) -> CallRecord:
    return CallRecord(name, arguments, "out", status, step, known, valid)


def ref_call(ref: Mapping[str, Any], **kw: Any) -> CallRecord:
    return call(ref["name"], dict(ref["arguments"]), **kw)


def episode(task: Task, calls: Sequence[CallRecord], *, fp: str = GOAL, answer: str | None = "Done.") -> Episode:
    return Episode(
        task=task,
        calls=tuple(calls),
        messages=(),
        final_answer=answer,
        final_fingerprint=fp,
        terminated=answer is not None,
        truncated=answer is None,
    )


PROVE = CompositeReward.prove()


# -- whole trajectories -------------------------------------------------------------------------


def test_right_trajectory_scores_every_term_1_and_composite_1() -> None:
    ep = episode(write_task(), [ref_call(DEPOSIT), ref_call(TRANSFER)])
    terms = PROVE.terms(ep)
    for name in ("success", "state_match", "validity", "coverage", "name_precision", "argument_agreement"):
        assert terms[name] == 1.0, name
    assert terms["efficiency"] == 0.0
    assert (terms["n_calls"], terms["budget"]) == (2.0, 3.0)
    assert "abstention" not in terms
    assert "answer_match" not in terms
    assert PROVE(ep) == pytest.approx(1.0)
    assert CompositeReward.prove(normalize=False)(ep) == pytest.approx(1.3)
    assert CompositeReward.mua_rl()(ep) == 1.0
    assert all_terms(ep) == terms


def test_wrong_argument_value_covers_but_disagrees_and_fails() -> None:
    wrong = call("deposit", {"account_id": "ACC-1001", "amount": 26.0, "description": "gift"})
    ep = episode(write_task(), [wrong, ref_call(TRANSFER)], fp="fp-other")
    assert coverage(ep) == 1.0
    assert argument_agreement(ep) == pytest.approx(5 / 6)  # one of six reference values is wrong
    assert success(ep) is False
    assert efficiency(ep) == 0.0
    assert PROVE(ep) == pytest.approx((0.5 + 0.5 + 0.2 + 0.1 * 5 / 6) / 1.3)
    assert PROVE(ep) < 1.0
    assert CompositeReward.mua_rl()(ep) == 0.0


def test_argument_values_normalize_strings_and_numbers() -> None:
    agent = call("deposit", {"account_id": "  acc-1001 ", "amount": 25, "description": "GIFT"})
    ep = episode(write_task([DEPOSIT]), [agent])
    assert argument_agreement(ep) == 1.0
    nested = {"name": "tag", "arguments": {"tags": ["A", "b"], "meta": {"k": 1.0}}}
    ep = episode(write_task([nested]), [call("tag", {"tags": ["a", " B "], "meta": {"k": 1.0000001}})])
    assert argument_agreement(ep) == 1.0
    ep = episode(write_task([nested]), [call("tag", {"tags": ["a"], "meta": {"k": 1.0}})])
    assert argument_agreement(ep) == 0.5


def test_redundant_calls_pay_the_exact_efficiency_penalty() -> None:
    read = call("get_balance", {"account_id": "ACC-1001"})
    calls = [read, ref_call(DEPOSIT), read, read, ref_call(TRANSFER)]
    ep = episode(write_task(), calls)
    assert success(ep) is True
    assert efficiency_budget(ep.task) == 3  # n_ref = 2 -> B = 2 + ceil(0.5 * 2)
    assert efficiency(ep) == pytest.approx(-0.5 * 2 / 3)
    assert efficiency(ep, a=1.0, b=0.0) == pytest.approx(-1.0 * 3 / 2)
    assert coverage(ep) == 1.0
    assert name_precision(ep) == pytest.approx(2 / 5)
    expected = (0.5 * 1 + 0.5 * 1 + 0.2 * 2 / 5 + 0.1 * 1 + 0.15 * (-1 / 3)) / 1.3
    assert PROVE(ep) == pytest.approx(expected)
    # within budget: no penalty; a failed episode is never penalised
    assert efficiency(episode(write_task(), calls[1:3] + calls[4:])) == 0.0
    assert efficiency(episode(write_task(), calls, fp="fp-other")) == 0.0


def test_call_budget_overrides_the_reference_length() -> None:
    assert efficiency_budget(write_task(call_budget=4)) == 6
    assert efficiency_budget(write_task(call_budget=0)) == 1
    assert efficiency_budget(irrelevant_task()) == 1
    assert efficiency_budget(write_task([DEPOSIT] * 3), b=0.5) == 5  # 3 + ceil(1.5)


def test_out_of_order_calls_lose_coverage() -> None:
    ep = episode(write_task(), [ref_call(TRANSFER), ref_call(DEPOSIT)])
    assert coverage(ep) == 0.5
    assert [c.name for _, c in align_calls(ep)] == ["deposit"]
    assert name_precision(ep) == 1.0
    assert argument_agreement(ep) == 1.0  # over the one aligned pair


def test_coverage_needs_successful_calls_with_every_reference_key() -> None:
    missing_key = call("deposit", {"account_id": "ACC-1001", "amount": 25.0})
    failed = ref_call(TRANSFER, status="tool_error")
    ep = episode(write_task(), [missing_key, failed])
    assert coverage(ep) == 0.0
    assert argument_agreement(ep) == 0.0


def test_invalid_calls_lower_validity() -> None:
    unknown = call("no_such_tool", {}, "invalid", known=False, valid=False)
    bad_args = call("deposit", {"account_id": 1001}, "invalid", known=True, valid=False)
    refused = ref_call(TRANSFER, status="tool_error")
    unparsable = CallRecord("", None, "Error: not valid JSON", "invalid", 1)
    ep = episode(write_task(), [unknown, bad_args, refused, unparsable, ref_call(DEPOSIT)])
    assert validity(ep) == pytest.approx((0 + 1 / 3 + 2 / 3 + 0 + 1) / 5)
    assert name_precision(ep) == pytest.approx(3 / 4)  # the nameless record is not a named call
    assert PROVE.terms(ep)["n_calls"] == 4.0
    assert validity(episode(write_task(), [ref_call(DEPOSIT), ref_call(TRANSFER)])) == 1.0


def test_irrelevant_task_rewards_abstention() -> None:
    quiet = episode(irrelevant_task(), [], fp=START, answer="Leaves fall...")
    assert abstention(quiet) == 1.0
    assert PROVE(quiet) == 1.0
    terms = PROVE.terms(quiet)
    assert terms["abstention"] == 1.0
    assert (terms["validity"], terms["coverage"], terms["name_precision"], terms["argument_agreement"]) == (1, 1, 1, 1)
    busy = episode(irrelevant_task(), [call("get_balance", {"account_id": "ACC-1001"})], fp=START)
    assert abstention(busy) == 0.0
    assert PROVE(busy) == 0.0
    assert PROVE.terms(busy)["abstention"] == 0.0
    assert (coverage(busy), name_precision(busy), argument_agreement(busy)) == (0.0, 0.0, 0.0)
    garbled = episode(irrelevant_task(), [CallRecord("", None, "Error", "invalid", 1)], fp=START)
    assert abstention(garbled) == 0.0
    assert abstention(episode(write_task(), [])) is None


def test_do_nothing_on_a_write_task_scores_zero() -> None:
    for answer in ("I did it.", None, ""):
        ep = episode(write_task(), [], fp=START, answer=answer)
        terms = PROVE.terms(ep)
        assert PROVE(ep) == 0.0
        assert CompositeReward.prove(normalize=False)(ep) == 0.0
        assert CompositeReward.mua_rl()(ep) == 0.0
        assert terms["efficiency"] == 0.0
        assert terms["n_calls"] == 0.0
    # even when the state happens to match (e.g. a read task), no calls means no process reward
    read = write_task([{"name": "get_balance", "arguments": {"account_id": "ACC-1001"}}])
    assert PROVE(episode(read, [], fp=GOAL)) == 0.0


def test_state_match_and_success_need_an_expected_fingerprint() -> None:
    task = Task(id="free", server="banking", instruction="Explore.")
    ep = episode(task, [], fp=START)
    assert state_match(ep) == 0.0
    assert success(ep) is False
    assert CompositeReward.mua_rl()(ep) == 0.0


# -- answers ------------------------------------------------------------------------------------


def read_task(expected: str) -> Task:
    ref = {"name": "get_balance", "arguments": {"account_id": "ACC-1001"}}
    return Task(
        id="read",
        server="banking",
        instruction="What is the balance of ACC-1001?",
        reference_calls=(ref,),
        expected_fingerprint=START,
        expected_answer=expected,
    )


@pytest.mark.parametrize(
    ("expected", "answer", "score"),
    [
        ("$1,250.50", "The balance is 1250.5 dollars.", 1.0),
        ("The balance of ACC-1001 is $1,250.50", "acc-1001 holds $1,250.5.", 1.0),
        ("The balance of ACC-1001 is $1,250.50", "ACC-1002 holds $1,250.50.", 0.0),
        ("The balance of ACC-1001 is $1,250.50", "ACC-10011 holds $1,250.50.", 0.0),
        ("ACC-1001 and ACC-1002", "Accounts: ACC-1002, ACC-1001.", 1.0),
        ("ACC-1001 and ACC-1002", "Only ACC-1001.", 0.0),
        ("Balance 1250.50, limit 500", "Balance is 1,250.50", 0.0),
        ('Payee is "Acme  Corp"', "It was acme corp.", 1.0),
        ('Payee is "Acme Corp"', "It was Acme.", 0.0),
        ("Due on 2024-03-05", "It is due March 5th, 2024.", 1.0),
        ("Due on 2024-03-05", "It is due 2024-03-06.", 0.0),
        ("Yes, it is frozen.", "  YES,   it is FROZEN!  ", 1.0),
        ("Yes, it is frozen.", "No.", 0.0),
        ("-20.5", "A refund of -20.50 was made", 1.0),
    ],
)
def test_answer_match(expected: str, answer: str, score: float) -> None:
    ep = episode(read_task(expected), [call("get_balance", {"account_id": "ACC-1001"})], fp=START, answer=answer)
    assert answer_match(ep) == score
    assert success(ep) is (score == 1.0)
    assert PROVE.terms(ep)["answer_match"] == score


def test_answer_match_without_answer_or_expectation() -> None:
    assert answer_match(episode(read_task("$1,250.50"), [], fp=START, answer=None)) == 0.0
    assert answer_match(episode(read_task("$1,250.50"), [], fp=START, answer="   ")) == 0.0
    assert answer_match(episode(write_task(), [], answer="1250.5")) == 0.0


def test_mua_rl_is_binary_success() -> None:
    task = read_task("$1,250.50")
    good = episode(task, [call("get_balance", {"account_id": "ACC-1001"})], fp=START, answer="1250.50")
    bad_answer = episode(task, [call("get_balance", {"account_id": "ACC-1001"})], fp=START, answer="1200")
    bad_state = episode(task, [call("get_balance", {"account_id": "ACC-1001"})], fp=GOAL, answer="1250.50")
    mua = CompositeReward.mua_rl()
    assert [mua(good), mua(bad_answer), mua(bad_state)] == [1.0, 0.0, 0.0]
    # irrelevant requests are completed only by abstaining: a harmless read still fails them
    assert mua(episode(irrelevant_task(), [call("get_balance", {"account_id": "ACC-1001"})], fp=START)) == 0.0
    assert mua(episode(irrelevant_task(), [], fp=START)) == 1.0
    assert mua.terms(good)["success"] == 1.0


def test_composite_weights_are_checked() -> None:
    with pytest.raises(ConfigError):
        CompositeReward(validity_weight=float("nan"))
    with pytest.raises(ConfigError):
        CompositeReward(efficiency_a=-1.0)
    assert CompositeReward.prove().scale == pytest.approx(1.3)
    assert CompositeReward.prove(normalize=False).scale == 1.0


# -- through a real environment -----------------------------------------------------------------


def test_prove_reward_in_a_real_environment() -> None:
    task = verified_deposit_task()
    env = gym.make("gym_mcp/Banking-v0", tasks=[task], reward=CompositeReward.prove())
    try:
        env.reset(seed=0)
        env.step(dict(task.reference_calls[0]))
        _, reward, terminated, _, info = env.step("Deposited $25 into ACC-1001.")
        assert terminated
        terms = info["reward_terms"]
        assert terms["success"] == 1.0
        assert terms["coverage"] == 1.0
        assert terms["validity"] == 1.0
        assert terms["argument_agreement"] == 1.0
        assert terms["efficiency"] == 0.0
        assert reward == pytest.approx(1.0)
        assert terms["reward"] == reward
        # doing nothing
        env.reset(seed=0)
        _, reward, terminated, _, info = env.step("I deposited it.")
        assert terminated
        assert reward == 0.0
        assert info["reward_terms"]["success"] == 0.0
        assert info["reward_terms"]["coverage"] == 0.0
    finally:
        env.close()
