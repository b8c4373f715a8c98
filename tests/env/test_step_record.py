"""What a step did, through the env's public API: ``info["calls"]``, ``info["messages"]``, ``episode()``, call hooks."""

from __future__ import annotations

import json
import pickle
from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import pytest
from mcp.types import Tool

import gym_mcp
from gym_mcp import MCPEnv, Task
from gym_mcp.env.hooks import CallHook
from gym_mcp.episode import CALL_STATUSES, LIMITS, CallRecord, Episode

DEPOSIT = {"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": 5.0}}
BALANCE = {"name": "get_balance", "arguments": {"account_id": "ACC-1001"}}


@pytest.fixture
def env() -> Any:
    made = gym.make("gym_mcp/Banking-v0", max_steps=6)
    yield made
    made.close()


def test_info_calls_are_the_records_of_this_step_only(env: Any) -> None:
    _, info = env.reset(seed=0)
    assert info["calls"] == ()
    _, _, _, _, info = env.step(DEPOSIT)
    assert [(c.name, c.status) for c in info["calls"]] == [("deposit", "ok")]
    assert all(isinstance(c, CallRecord) for c in info["calls"])
    _, _, _, _, info = env.step([BALANCE, {"name": "no_such_tool", "arguments": {}}])
    assert [(c.name, c.status) for c in info["calls"]] == [("get_balance", "ok"), ("no_such_tool", "invalid")]
    assert not info["calls"][1].ok and info["calls"][1].output.startswith("Error: unknown tool")
    _, _, _, _, info = env.step({"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": "five"}})
    assert [c.status for c in info["calls"]] == ["invalid"]  # refused by the schema before the server
    assert (info["invalid_calls"], info["tool_errors"], info["rolled_back"]) == (2, 0, 0)
    _, _, _, _, info = env.step({"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": -5}})
    assert [c.status for c in info["calls"]] == ["tool_error"]  # the server refused it
    _, _, terminated, _, info = env.step("Done.")
    assert terminated and info["calls"] == ()
    _, _, _, _, info = env.step(DEPOSIT)  # after the end: nothing runs
    assert info["calls"] == ()
    statuses = [c.status for c in env.unwrapped.episode().calls]
    assert statuses == ["ok", "ok", "invalid", "invalid", "tool_error"]
    assert set(statuses) <= set(CALL_STATUSES)


def test_a_call_status_outside_the_vocabulary_is_refused() -> None:
    with pytest.raises(ValueError, match="status must be one of"):
        CallRecord("deposit", {}, "", "Error", 1)  # type: ignore[arg-type]


def test_info_messages_is_a_fixed_view_not_a_copy(env: Any) -> None:
    _, first = env.reset(seed=0)
    _, _, _, _, second = env.step(DEPOSIT)
    _, _, _, _, third = env.step(BALANCE)
    assert len(first["messages"]) == 1 and len(second["messages"]) == 3 and len(third["messages"]) == 5
    assert second["messages"] == list(third["messages"])[:3]  # what a step showed stays as it was
    assert third["messages"][-1]["role"] == "tool" and third["messages"][-2]["role"] == "assistant"
    assert third["messages"][1:3] == list(second["messages"])[1:]
    with pytest.raises(IndexError):
        second["messages"][3]  # past the view, though the episode has more
    assert second["messages"][-1] == third["messages"][2]
    assert json.loads(json.dumps(list(third["messages"]))) == list(third["messages"])
    unpickled = pickle.loads(pickle.dumps(second["messages"]))
    assert type(unpickled) is list and unpickled == second["messages"]
    env.reset(seed=0)  # a new episode starts a new list: the old views keep theirs
    assert len(third["messages"]) == 5 and third["messages"][-1]["role"] == "tool"


def test_episode_is_what_the_reward_read(env: Any) -> None:
    env.reset(seed=0)
    env.step(DEPOSIT)
    running = env.unwrapped.episode()
    assert isinstance(running, Episode) and not (running.terminated or running.truncated)
    assert [c.name for c in running.calls] == ["deposit"]
    _, reward, terminated, _, info = env.step("Deposited.")
    done = env.unwrapped.episode()
    assert terminated and done.terminated and not done.truncated and done.final_answer == "Deposited."
    assert done.final_fingerprint == info["final_fingerprint"]
    assert reward == gym_mcp.state_match(done)


def test_the_episode_a_reward_reads_is_a_copy_that_cannot_change_the_env(env: Any) -> None:
    env.reset(seed=0)
    env.step(DEPOSIT)
    seen = env.unwrapped.episode()
    seen.messages[-1]["content"] = "changed by a reward function"
    seen.messages[0].clear()
    again = env.unwrapped.episode()
    assert again.messages[0] and again.messages[-1]["content"] != "changed by a reward function"
    assert again.messages[1] == seen.messages[1]  # what the reward did not touch is equal


def test_a_message_pickle_refuses_is_deep_copied_as_before() -> None:
    from gym_mcp.env.core import _copied

    messages = [{"role": "user", "content": "hi", "extra": [lambda: 1]}]  # a caller's own object
    copied = _copied(messages)
    assert copied == messages and copied[0] is not messages[0]
    assert copied[0]["extra"] is not messages[0]["extra"] and copied[0]["extra"][0] is messages[0]["extra"][0]


def test_episode_names_the_limit_that_truncated_it() -> None:
    env = gym.make("gym_mcp/Banking-v0", max_steps=2)
    try:
        env.reset(seed=0)
        env.step(BALANCE)
        _, _, terminated, truncated, info = env.step(BALANCE)
        assert truncated and not terminated and info["limits"] == ["max_steps"]
        episode = env.unwrapped.episode()
        assert episode.truncated and episode.limits == ("max_steps",) and set(episode.limits) <= set(LIMITS)
        snap = env.unwrapped.snapshot()
        env.reset(seed=1)
        env.unwrapped.restore(snap)
        assert env.unwrapped.episode().truncated  # how it ended travels with the snapshot
    finally:
        env.close()


def test_a_tool_result_is_cut_at_max_observation_chars_not_half() -> None:
    """``max_observation_chars`` bounds a result in the conversation and the observation (it was cut at half)."""
    env = MCPEnv("banking", max_observation_chars=900)  # ten transactions are ~1,270 characters, five ~820
    try:
        env.reset(seed=0)
        listing = {"name": "list_transactions", "arguments": {"account_id": "ACC-1001", "limit": 10}}
        obs, _, _, _, info = env.step(listing)
        assert len(obs) == 900 and len(info["messages"][-1]["content"]) == 900
        assert obs.endswith("characters in all]") and info["calls"][-1].output == obs
        mid = {"name": "list_transactions", "arguments": {"account_id": "ACC-1001", "limit": 5}}
        obs, _, _, _, info = env.step(mid)
        assert 450 < len(obs) <= 900, len(obs)  # longer than half the limit: shown whole
        assert "[cut" not in obs and json.loads(obs)["transactions"]
    finally:
        env.close()


class RenameHook:
    """A call hook written against `CallHook` alone: shows ``deposit`` as ``add_money``, shouts the instruction."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.results: list[str] = []

    def start(self, task: Task, tools: list[dict[str, Any]], server_tools: Mapping[str, Tool]) -> None:
        self.started.append(task.id)
        self.read_only = sorted(n for n, t in server_tools.items() if t.annotations and t.annotations.read_only_hint)
        self.shown = [
            {**t, "function": {**t["function"], "name": "add_money"}} if t["function"]["name"] == "deposit" else t
            for t in tools
        ]

    def present_instruction(self, text: str) -> str:
        return text.upper()

    def present_tools(self, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return getattr(self, "shown", tools)

    def route_call(self, tool: str, arguments: Any) -> tuple[str, Any]:
        return ("deposit" if tool == "add_money" else tool), arguments

    def before_call(self, tool: str, arguments: Any) -> str | None:
        return "Error: blocked by the hook" if tool == "withdraw" else None

    def after_call(self, tool: str, arguments: Any, output: str, is_error: bool) -> str:
        self.results.append(tool)
        return output + " [seen]"

    def fork(self) -> CallHook:
        return self


def test_a_call_hook_installed_through_the_public_api() -> None:
    task = Task(id="t1", server="banking", instruction="Deposit $5 into ACC-1001.", reference_calls=[DEPOSIT])
    env = gym.make("gym_mcp/Banking-v0", tasks=[task])
    hook = RenameHook()
    try:
        env.unwrapped.set_call_hook(hook)
        assert env.unwrapped.call_hook is hook
        obs, info = env.reset(seed=0)
        assert hook.started == ["t1"] and "get_balance" in hook.read_only and "deposit" not in hook.read_only
        assert obs == "DEPOSIT $5 INTO ACC-1001." and info["messages"][0]["content"] == obs
        names = {t["function"]["name"] for t in info["tools"]}
        assert "add_money" in names and "deposit" not in names
        obs, _, _, _, info = env.step({"name": "add_money", "arguments": DEPOSIT["arguments"]})
        assert obs.endswith(" [seen]") and hook.results == ["deposit"]
        assert info["calls"][-1].name == "deposit" and info["calls"][-1].ok  # recorded under the server's name
        obs, _, _, _, info = env.step({"name": "withdraw", "arguments": {"account_id": "ACC-1001", "amount": 1.0}})
        assert obs == "Error: blocked by the hook" and info["calls"][-1].status == "tool_error"
        _, reward, terminated, _, _ = env.step("Done.")
        assert terminated and reward == 1.0  # the state the reference reaches
        env.unwrapped.set_call_hook(None)
        obs, info = env.reset(seed=0)
        assert obs == task.instruction and "deposit" in {t["function"]["name"] for t in info["tools"]}
    finally:
        env.close()


def test_from_async_drives_the_same_episode() -> None:
    async_env = gym_mcp.AsyncMCPEnv(gym_mcp.BundledSource("banking"))
    env = MCPEnv.from_async(async_env)
    try:
        env.reset(seed=0)
        env.step(DEPOSIT)
        assert [c.name for c in env.episode().calls] == ["deposit"]
        assert async_env.episode().calls == env.episode().calls
    finally:
        env.close()
