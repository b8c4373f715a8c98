"""Training under perturbations: the trainer's settings, SFT conversations played under a mix, TRL's adapter.

The conversations SFT learns from are played through a real `Perturb` wrapper: the calls go
under the names the agent is shown, a transient failure is retried (the retry is in the
conversation), and the compact tool list keeps the task's tools and the distractors made of them.
"""

from __future__ import annotations

from dataclasses import asdict

import gymnasium as gym
import pytest

pytest.importorskip("torch", reason="training needs the [train] extra")

from gym_mcp.episode import shown_call
from gym_mcp.errors import ConfigError
from gym_mcp.train import TrainConfig
from gym_mcp.train.data import reference_conversation
from gym_mcp.wrappers import DistractorTools, Perturb, RenamedTools, TransientErrors
from tests.helpers import replayed_bank_task

CALLS = [
    {"name": "get_balance", "arguments": {"account_id": "ACC-1001"}},
    {"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": 12.5}},
]


def test_train_config_checks_its_mixes() -> None:
    assert TrainConfig(perturb="static", eval_perturb="transition").perturb == "static"
    with pytest.raises(ConfigError, match="perturb: unknown perturbation mix 'gremlins'"):
        TrainConfig(perturb="gremlins")
    with pytest.raises(ConfigError, match=r"eval_perturb: perturbation mix .*missing\.toml: cannot read it"):
        TrainConfig(eval_perturb="missing.toml")


def test_sft_conversations_are_played_under_the_mix() -> None:
    task = replayed_bank_task("two-calls", "Check ACC-1001's balance, then deposit 12.5 into it.", CALLS)
    mix = [DistractorTools(n=2), RenamedTools(p=1.0), TransientErrors(p=1.0, max_in_a_row=1)]
    env = Perturb(gym.make("gym_mcp/Banking-v0", max_steps=10), mix, seed=4)
    try:
        messages, tools = reference_conversation(env, task, distractors=1)
        assert env.unwrapped.state.fingerprint() == task.expected_fingerprint
        injected = env.injected
    finally:
        env.close()
    called = [c["function"]["name"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls", [])]
    assert {"fetch_balance", "deposit_op"} <= set(called) and "get_balance" not in called  # the names shown
    retried = [i for i in injected if i.kind == "transient_error"]
    assert retried and len(called) == len(CALLS) + len(retried)  # each transient failure, then its retry
    names = {t["function"]["name"] for t in tools}
    records = [asdict(i) for i in injected]
    distractors = {shown_call({"name": i.shown}, records)["name"] for i in injected if i.kind == "distractor_tool"}
    assert len(distractors) == 2 and all(
        d.split("_")[0] in ("legacy", "archive", "sandbox", "partner") for d in distractors
    )
    assert distractors <= names and len(names) == 5  # the task's 2 tools, their 2 distractors, 1 other


def test_trl_factory_perturbs_the_instruction_and_the_calls_not_the_tool_methods() -> None:
    from gym_mcp.train.trl import environment_factory

    task = replayed_bank_task("two-calls", "Check ACC-1001's balance, then deposit 12.5 into it.", CALLS)
    with pytest.raises(ConfigError, match="renamed_tool"):
        environment_factory("gym_mcp/Banking-v0", [task], perturb="action")
    factory = environment_factory(
        "gym_mcp/Banking-v0",
        [task],
        perturb={"perturbation": [{"kind": "typos", "rate": 1.0}, {"kind": "timeout", "p": 1.0}]},
    )
    try:
        tool_env = factory()
        opening = tool_env.reset(task_id=task.id)
        assert opening != task.instruction and "ACC-1001" in opening
        first = tool_env.get_balance(account_id="ACC-1001")
        assert "timed out" in first or "timeout" in first
        assert tool_env.get_balance(account_id="ACC-1001").startswith("{")  # at most one in a row
    finally:
        factory.close()
