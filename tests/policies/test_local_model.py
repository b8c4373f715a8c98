"""A real (tiny) transformer as a policy, and behind `gym-mcp serve-model` driven by `OpenAIPolicy`."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import httpx
import pytest

pytest.importorskip("torch", reason="local models need the [train] extra (the README's test command installs it)")
pytest.importorskip("transformers", reason="local models need the [train] extra")

import gym_mcp
from gym_mcp.evaluation import EvalConfig, evaluate
from gym_mcp.policies import OpenAIPolicy, make_policy
from gym_mcp.policies.local import LocalModel, LocalModelPolicy
from gym_mcp.policies.prompt import render_prompt
from tests.helpers import served_model
from tests.tiny_model import build_tiny_model, teach

CALL = '<tool_call>{"name": "get_balance", "arguments": {"account_id": "ACC-1001"}}</tool_call>'
TASK = gym_mcp.Task(id="balance", server="banking", instruction="What is the balance of ACC-1001?")


@pytest.fixture(scope="module")
def taught_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny Llama trained (really) to answer the task's first turn with a get_balance call."""
    folder = build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")
    env = gym.make("gym_mcp/Banking-v0", tasks=[TASK])
    _, info = env.reset(seed=0)
    env.close()
    teach(folder, render_prompt(info["messages"], info["tools"]), CALL)
    return folder


def test_local_policy_plays_an_episode(taught_model: Path) -> None:
    model = LocalModel(taught_model)
    env = gym.make("gym_mcp/Banking-v0", tasks=[TASK], max_steps=3)
    try:
        obs, info = env.reset(seed=0)
        policy = LocalModelPolicy(model, max_new_tokens=48)
        policy.reset(TASK, info, seed=0)
        action = policy.act(obs, info)
        assert action == CALL
        obs, *_ = env.step(action)
        assert json.loads(obs)["account_id"] == "ACC-1001"
    finally:
        env.close()


def test_adapter_is_applied(taught_model: Path, tmp_path: Path) -> None:
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    base = AutoModelForCausalLM.from_pretrained(taught_model, local_files_only=True)
    peft_model = get_peft_model(base, LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"]))
    with torch.no_grad():
        for name, param in peft_model.named_parameters():
            if "lora_B" in name:
                param.fill_(0.5)  # a non-zero adapter changes the outputs
    peft_model.save_pretrained(tmp_path / "adapter")
    plain = LocalModel(taught_model)
    adapted = LocalModel(taught_model, adapter=tmp_path / "adapter")
    prompt = "<|user|>\nhello\n<|assistant|>\n"
    assert adapted.generate(prompt, max_new_tokens=8) != plain.generate(prompt, max_new_tokens=8)
    assert "adapter" in adapted.name
    # merged into the weights at load: no adapter layers left, the adapted model's logits
    assert not any("lora_" in name for name, _ in adapted.model.named_parameters())
    ids = adapted.tokenizer(prompt, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        assert torch.allclose(adapted.model(input_ids=ids).logits, peft_model.eval()(input_ids=ids).logits, atol=1e-5)


def test_serve_model_drives_the_httpx_policy_end_to_end(taught_model: Path, tmp_path: Path) -> None:
    with served_model(taught_model) as url:
        bad = httpx.post(url + "/chat/completions", json={"messages": "nope"}, timeout=30)
        assert bad.status_code == 400
        policy = OpenAIPolicy(url, "tiny")
        env = gym.make("gym_mcp/Banking-v0", tasks=[TASK], max_steps=3)
        obs, info = env.reset(seed=0)
        action = policy.act(obs, info)
        assert action["tool_calls"][0]["function"]["name"] == "get_balance"
        obs, *_ = env.step(action)
        assert json.loads(obs)["account_id"] == "ACC-1001"
        env.close()
        policy.close()
        # and through the eval harness, with the endpoint as a policy spec
        result = evaluate(
            [("gym_mcp/Banking-v0", [TASK])], {"served": lambda: make_policy(f"openai:{url}")}, EvalConfig(max_steps=3)
        )
        episode = result.episodes[0]
        assert episode["calls"][0]["name"] == "get_balance"
        assert episode["calls"][0]["status"] == "ok"


def test_local_policy_spec_in_eval(taught_model: Path) -> None:
    result = evaluate(
        [("gym_mcp/Banking-v0", [TASK])],
        {"local": lambda: make_policy(f"local:{taught_model}")},
        EvalConfig(max_steps=3),
    )
    assert result.episodes[0]["calls"][0]["name"] == "get_balance"


def test_missing_model_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(gym_mcp.GymMCPError, match="does not exist"):
        LocalModel(tmp_path / "nothing")


def test_replies_are_cut_after_the_first_call_or_before_a_turn_that_is_not_the_models() -> None:
    from gym_mcp.policies.prompt import cut_reply

    assert cut_reply('x <tool_call>{"a": 1}</tool_call> y') == 'x <tool_call>{"a": 1}</tool_call>'
    assert cut_reply("All done.\n<|user|>\nthanks<tool_call>{}</tool_call>") == "All done."
    assert cut_reply("ok<|tool|>{}") == "ok"
    assert cut_reply("  plain answer \n") == "plain answer"


@pytest.mark.parametrize(("temperature", "top_p", "seed"), [(0.0, 1.0, None), (1.0, 1.0, 3), (0.7, 0.9, 5)])
def test_a_local_model_decodes_as_transformers_generate_did(
    taught_model: Path, temperature: float, top_p: float, seed: int | None
) -> None:
    """The shared decode loop (`gym_mcp.policies.decoding`) gives what ``model.generate`` gave, sampled too."""
    import torch

    from gym_mcp.policies.prompt import STOP_STRINGS, cut_reply

    model = LocalModel(taught_model)
    for prompt in ("<|user|>\nhello\n<|assistant|>\n", "<|user|>\nShow the balance of ACC-1001\n<|assistant|>\n"):
        inputs = model.tokenizer(prompt, return_tensors="pt")
        sampling = {"do_sample": True, "temperature": temperature, "top_p": top_p} if temperature else {}
        if seed is not None:
            torch.manual_seed(seed)
        out = model.model.generate(
            input_ids=inputs["input_ids"],  # not **inputs: older tokenizers add token_type_ids, which generate refuses
            attention_mask=inputs["attention_mask"],
            max_new_tokens=24,
            pad_token_id=model.tokenizer.eos_token_id,
            stop_strings=list(STOP_STRINGS),
            tokenizer=model.tokenizer,
            do_sample=bool(temperature),
            **{k: v for k, v in sampling.items() if k != "do_sample"},
        )
        new = out[0, inputs["input_ids"].shape[1] :]
        expected = cut_reply(model.tokenizer.decode(new, skip_special_tokens=True))
        got = model.generate(prompt, max_new_tokens=24, temperature=temperature, top_p=top_p, seed=seed)
        assert got == expected


def test_the_kv_cache_keyword_is_read_from_the_model_not_guessed_from_the_version(taught_model: Path) -> None:
    """transformers 5.x renamed ``past_key_values`` at different releases: the forward's signature decides."""
    import inspect

    import torch
    from peft import LoraConfig, get_peft_model

    from gym_mcp.policies.decoding import cache_kwarg, output_cache

    model = LocalModel(taught_model)  # device "auto"
    assert model.device == ("cuda" if torch.cuda.is_available() else "cpu")
    kw = cache_kwarg(model.model)
    assert kw in inspect.signature(model.model.forward).parameters
    ids = model.tokenizer("Show the balance", return_tensors="pt")["input_ids"].to(model.device)
    with torch.no_grad():
        past = output_cache(model.model(input_ids=ids, use_cache=True))
        assert past.get_seq_length() == ids.shape[1]
        out = model.model(input_ids=ids[:, -1:], use_cache=True, **{kw: past})  # the cache is taken, and grows
    assert output_cache(out).get_seq_length() == ids.shape[1] + 1
    wrapped = get_peft_model(model.model, LoraConfig(r=2, target_modules=["q_proj"]))
    assert cache_kwarg(wrapped) == kw  # a PEFT model's forward takes **kwargs: its base model's decides


def test_models_load_in_an_explicit_dtype_and_never_with_hub_kernels(taught_model: Path) -> None:
    import torch

    from gym_mcp.errors import ConfigError
    from gym_mcp.policies.weights import load_causal_lm, load_dtype

    model = load_causal_lm(taught_model)
    assert model.dtype == torch.float32
    assert not getattr(model, "use_kernels", False)  # transformers 5.2x defaults it on; kernels come from the hub
    assert load_causal_lm(taught_model, dtype=torch.bfloat16).dtype == torch.bfloat16
    assert load_dtype("cpu") == load_dtype("cpu", "bf16") == torch.float32  # bf16 does not pay on a CPU
    assert load_dtype("cuda", "fp32") == torch.float32
    assert load_dtype("cuda:1", "bf16") == torch.bfloat16
    with pytest.raises(ConfigError, match="precision must be"):
        load_dtype("cuda", "fp16")
