"""Error-recovery examples: a bad call, the live environment's real error, then the fix is what is learned."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import pytest

pytest.importorskip("torch", reason="training needs the [train] extra (the README's test command installs it)")

import gym_mcp
from gym_mcp.synth import SynthConfig, synthesize
from gym_mcp.train.data import IGNORE, encode_conversation, recovery_conversation
from tests.tiny_model import build_tiny_model


@pytest.fixture(scope="module")
def tasks() -> list[gym_mcp.Task]:
    return [t for t in synthesize("banking", SynthConfig(n=24, seed=5, max_chain=2)).tasks if t.reference_calls]


def test_the_bad_call_is_rejected_and_the_reference_still_reaches_the_expected_state(
    tasks: list[gym_mcp.Task],
) -> None:
    env = gym.make("gym_mcp/Banking-v0", max_steps=8)
    kinds = set()
    try:
        for task in tasks:
            made = recovery_conversation(env, task, 3, seed=1)
            assert made is not None, task.id
            messages, tools, bad = made
            assert env.unwrapped.state.fingerprint() == task.expected_fingerprint  # the fix, then the rest, got there
            assert messages[bad]["role"] == "assistant" and messages[bad + 1]["role"] == "tool"
            error = messages[bad + 1]["content"]
            assert error.startswith("Error")
            kinds |= {k for k in ("unknown tool", "missing required", "unknown argument") if k in error}
            fixed = messages[bad + 2]["tool_calls"][0]["function"]
            assert fixed["name"] in {c["name"] for c in task.reference_calls}
            assert [c.status for c in env.unwrapped.episode().calls].count("ok") == len(task.reference_calls)
            assert {t["function"]["name"] for t in tools} >= {c["name"] for c in task.reference_calls}
    finally:
        env.close()
    assert len(kinds) >= 2  # more than one way of breaking a call


def test_the_bad_call_is_context_and_the_fix_is_learned(tasks: list[gym_mcp.Task], tmp_path: Path) -> None:
    from transformers import AutoTokenizer

    folder = build_tiny_model(tmp_path / "tiny")
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    env = gym.make("gym_mcp/Banking-v0", max_steps=8)
    try:
        messages, tools, bad = recovery_conversation(env, tasks[0], 3, seed=1)  # type: ignore[misc]
    finally:
        env.close()
    example = encode_conversation(tokenizer, messages, tools, masked=[bad])
    learned = tokenizer.decode([t for t, lab in zip(example.input_ids, example.labels, strict=True) if lab != IGNORE])
    bad_call = messages[bad]["tool_calls"][0]["function"]
    bad_text = json.dumps({"name": bad_call["name"], "arguments": json.loads(bad_call["arguments"])})
    assert bad_text not in learned
    fixed = messages[bad + 2]["tool_calls"][0]["function"]
    assert json.dumps({"name": fixed["name"], "arguments": json.loads(fixed["arguments"])}) in learned
    assert learned.endswith("Done." + tokenizer.eos_token)
