"""Needless-call examples: the reference, one call made again, its real result, then the stop that is learned."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import pytest

pytest.importorskip("torch", reason="training needs the [train] extra (the README's test command installs it)")

import gym_mcp
from gym_mcp.synth import SynthConfig, synthesize
from gym_mcp.train.data import IGNORE, encode_conversation, needless_call_conversation
from tests.tiny_model import build_tiny_model


@pytest.fixture(scope="module")
def tasks() -> list[gym_mcp.Task]:
    return [t for t in synthesize("banking", SynthConfig(n=30, seed=5, max_chain=2)).tasks if t.reference_calls]


def test_a_repeated_read_keeps_the_state_and_a_repeated_write_is_never_used(tasks: list[gym_mcp.Task]) -> None:
    env = gym.make("gym_mcp/Banking-v0", max_steps=8)
    made = refused = 0
    try:
        for task in tasks:
            example = needless_call_conversation(env, task, 3, seed=2)
            if example is None:
                refused += 1
                # every call of it writes: after the last try the episode was restored to the reference's end
                assert env.unwrapped.state.fingerprint() == task.expected_fingerprint
                assert len([c for c in env.unwrapped.episode().calls if c.name]) == len(task.reference_calls)
                continue
            made += 1
            messages, tools, needless = example
            assert env.unwrapped.state.fingerprint() == task.expected_fingerprint
            again = messages[needless]["tool_calls"][0]["function"]["name"]
            assert again in {c["name"] for c in task.reference_calls}
            assert messages[needless + 1]["role"] == "tool" and not messages[needless + 1]["content"].startswith(
                "Error"
            )
            assert messages[-1]["role"] == "assistant" and not messages[-1].get("tool_calls")
            assert needless == len(messages) - 3  # the needless call is the last call: the answer follows its result
            calls = [c for c in env.unwrapped.episode().calls if c.name]
            assert len(calls) == len(task.reference_calls) + 1
    finally:
        env.close()
    assert made >= 5 and refused >= 1  # reads are repeated; a transfer or a deposit is not made twice


def example_calls(messages: list[dict[str, object]], needless: int) -> list[dict[str, str]]:
    """The calls of the conversation before the needless one (those are learned)."""
    return [m["tool_calls"][0]["function"] for m in messages[:needless] if m.get("tool_calls")]  # type: ignore[index]


def test_the_needless_call_is_context_and_the_stop_is_learned(tasks: list[gym_mcp.Task], tmp_path: Path) -> None:
    from transformers import AutoTokenizer

    folder = build_tiny_model(tmp_path / "tiny")
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    env = gym.make("gym_mcp/Banking-v0", max_steps=8)
    try:
        example = next(e for e in (needless_call_conversation(env, t, 3, seed=2) for t in tasks) if e is not None)
    finally:
        env.close()
    messages, tools, needless = example
    masked = encode_conversation(tokenizer, messages, tools, masked=[needless])
    plain = encode_conversation(tokenizer, messages, tools)
    learned = [t for t, lab in zip(masked.input_ids, masked.labels, strict=True) if lab != IGNORE]
    assert masked.input_ids == plain.input_ids
    assert len(learned) < sum(lab != IGNORE for lab in plain.labels)  # the needless call is not learned
    assert tokenizer.decode(learned).endswith(messages[-1]["content"] + tokenizer.eos_token)
    again = messages[needless]["tool_calls"][0]["function"]["name"]
    assert tokenizer.decode(learned).count(again) == sum(c["name"] == again for c in example_calls(messages, needless))
