"""Training with a simulated user: reference dialogues as SFT data, user turns masked, GRPO groups with a user."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import pytest

torch = pytest.importorskip("torch", reason="training needs the [train] extra (the README's test command installs it)")
peft = pytest.importorskip("peft", reason="training needs the [train] extra")

import gym_mcp  # noqa: E402, F401
from gym_mcp.policies.prompt import prompt_format  # noqa: E402
from gym_mcp.train.data import IGNORE, encode_conversation, reference_conversation  # noqa: E402
from gym_mcp.train.loading import load_lora_model  # noqa: E402
from gym_mcp.train.rollouts import rollout_group  # noqa: E402
from tests.tiny_model import build_tiny_model  # noqa: E402
from tests.users.test_users import ASK_150, dialogue_task  # noqa: E402


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


def test_reference_dialogue_is_sft_data_with_the_user_masked(tiny: Path) -> None:
    from transformers import AutoTokenizer

    env = gym.make("gym_mcp/Banking-v0", user="scripted", max_steps=20)
    try:
        messages, tools = reference_conversation(env, dialogue_task())
    finally:
        env.close()
    roles = [m["role"] for m in messages]
    assert roles.count("user") == 5  # the request, the revision, the yes, the next request, the stop
    assert {"role": "assistant", "content": ASK_150} in messages
    tokenizer = AutoTokenizer.from_pretrained(tiny, local_files_only=True)
    fmt = prompt_format(tokenizer)
    example = encode_conversation(tokenizer, messages, tools, fmt=fmt)
    learned = tokenizer.decode([t for t, lab in zip(example.input_ids, example.labels, strict=True) if lab != IGNORE])
    assert "Shall I go ahead?" in learned and "transfer_funds" in learned  # the model's own turns
    for m in messages:
        if m["role"] == "user":  # the user's words (its replies included) are context only
            assert m["content"] not in learned


def test_grpo_group_forks_mid_dialogue_with_the_scripted_user(tiny: Path) -> None:
    model, tokenizer = load_lora_model(tiny, peft.LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"]))
    env = gym.make("gym_mcp/Banking-v0", user="scripted", max_steps=6, max_user_turns=4)
    try:
        group = rollout_group(model, tokenizer, env, dialogue_task(), 3, fork_after=1, max_new_tokens=8, seed=1)
    finally:
        env.close()
    for rollout in group:
        given = rollout.messages[: rollout.context_messages]
        # the given prefix is the reference dialogue up to the first call: both confirmation
        # requests, the revision, the yes, and the call
        assert [m["role"] for m in given] == ["user", "assistant", "user", "assistant", "user", "assistant", "tool"]
        assert given[4]["content"] == "Yes, please go ahead."
        assert "success" in rollout.terms


def test_grpo_group_with_an_llm_user_over_an_endpoint(tiny: Path, endpoint: tuple[str, type]) -> None:
    from gym_mcp.users import LLMUser

    url, handler = endpoint
    model, tokenizer = load_lora_model(tiny, peft.LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"]))
    env = gym.make("gym_mcp/Banking-v0", user=LLMUser(url, "sim"), max_steps=4, max_user_turns=2)
    try:
        group = rollout_group(model, tokenizer, env, dialogue_task(), 2, max_new_tokens=6, answer_tokens=6, seed=3)
    finally:
        env.close()
    assert len(group) == 2 and all("success" in r.terms for r in group)
    # every message the model sent to the user went to the endpoint, with the roles turned around
    for request in handler.requests:
        assert request["model"] == "sim"
        assert request["messages"][1] == {"role": "assistant", "content": dialogue_task().instruction}


def test_train_config_user_settings() -> None:
    from gym_mcp.errors import ConfigError
    from gym_mcp.train import TrainConfig

    assert TrainConfig().user == "scripted" and TrainConfig().skip_variants == []
    TrainConfig(grpo_user="openai:http://127.0.0.1:9/v1@sim")
    with pytest.raises(ConfigError, match="user must be 'scripted' or ''"):
        TrainConfig(user="llm")
    with pytest.raises(ConfigError, match="grpo_user must be"):
        TrainConfig(grpo_user="chatty")
    with pytest.raises(ConfigError, match="grpo_user needs user"):
        TrainConfig(user="", grpo_user="scripted")
