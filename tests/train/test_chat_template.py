"""Models whose chat template renders tools train and play in that template, not in the compact prompt.

The tiny model's tokenizer carries Qwen2.5's tool-capable template (as TRL ships it), so an
adapter trained here would be served by anything that applies the model's own template.
"""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import pytest

pytest.importorskip("torch", reason="training needs the [train] extra (the README's test command installs it)")
peft = pytest.importorskip("peft", reason="training needs the [train] extra")
templates = pytest.importorskip("trl.chat_template_utils", reason="Qwen2.5's template comes with trl ([dev])")

from gym_mcp.errors import ConfigError  # noqa: E402
from gym_mcp.policies.local import LocalModel, LocalModelPolicy  # noqa: E402
from gym_mcp.policies.prompt import CompactFormat, prompt_format, renders_tools  # noqa: E402
from gym_mcp.train.data import IGNORE, compact_tools, encode_conversation, reference_conversation  # noqa: E402
from gym_mcp.train.loading import load_lora_model  # noqa: E402
from gym_mcp.train.losses import grpo_step  # noqa: E402
from gym_mcp.train.rollouts import rollout_group  # noqa: E402
from tests.helpers import deposit_then_balance_task  # noqa: E402
from tests.tiny_model import build_tiny_model, teach  # noqa: E402

TASK = deposit_then_balance_task()
NO_TOOLS_TEMPLATE = (  # a chat template that ignores tools (SmolLM2's kind)
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


@pytest.fixture(scope="module")
def chat_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "chat", chat_template=templates.qwen2_5_chat_template)


@pytest.fixture(scope="module")
def conversation() -> tuple[list[dict], list[dict]]:
    env = gym.make("gym_mcp/Banking-v0")
    try:
        return reference_conversation(env, TASK, distractors=2)
    finally:
        env.close()


def _tokenizer(folder: Path):  # type: ignore[no-untyped-def]
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(folder, local_files_only=True)


def test_the_format_follows_what_the_template_can_render(chat_model: Path) -> None:
    tokenizer = _tokenizer(chat_model)
    assert renders_tools(tokenizer)
    assert prompt_format(tokenizer).name == "chat_template"
    assert isinstance(prompt_format(tokenizer, "compact"), CompactFormat)
    tokenizer.chat_template = NO_TOOLS_TEMPLATE
    assert not renders_tools(tokenizer)
    assert prompt_format(tokenizer).name == "compact"
    with pytest.raises(ConfigError, match="cannot render tools"):
        prompt_format(tokenizer, "chat_template")
    with pytest.raises(ConfigError, match="prompt_format must be"):
        prompt_format(tokenizer, "jinja")


def test_loss_mask_covers_exactly_the_assistant_tokens(
    chat_model: Path, conversation: tuple[list[dict], list[dict]]
) -> None:
    messages, tools = conversation
    tokenizer = _tokenizer(chat_model)
    fmt = prompt_format(tokenizer)
    example = encode_conversation(tokenizer, messages, tools, TASK.id, fmt=fmt)
    pairs = list(zip(example.input_ids, example.labels, strict=True))
    # the tokens are the template's own rendering of the whole conversation, tools included
    rendered = tokenizer.apply_chat_template(
        [fmt_message for fmt_message in _template_messages(messages)], tools=tools, tokenize=False
    )
    assert tokenizer.decode(example.input_ids) == rendered
    # learned: each reply as the template writes it, through its end-of-turn token, and nothing else
    replies = [
        '<tool_call>\n{"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": 25.0}}\n</tool_call>'
        "<|im_end|>",
        '<tool_call>\n{"name": "get_balance", "arguments": {"account_id": "ACC-1001"}}\n</tool_call><|im_end|>',
        "Done.<|im_end|>",
    ]
    runs, current = [], []
    for token, label in pairs:
        if label != IGNORE:
            current.append(token)
        elif current:
            runs.append(tokenizer.decode(current))
            current = []
    if current:
        runs.append(tokenizer.decode(current))
    assert runs == replies
    context = tokenizer.decode([t for t, lab in pairs if lab == IGNORE])
    assert TASK.instruction in context and messages[2]["content"] in context
    assert "<tools>" in context and '"name": "deposit"' in context  # the tool list is context
    assert context.count("<|im_start|>assistant\n") == 3  # the cue before each reply is context
    # a forked rollout's given calls are context: only the last reply is learned
    forked = encode_conversation(tokenizer, messages, tools, TASK.id, context_messages=4, fmt=fmt)
    learned = tokenizer.decode([t for t, lab in zip(forked.input_ids, forked.labels, strict=True) if lab != IGNORE])
    assert learned == "Done.<|im_end|>"


def _template_messages(messages: list[dict]) -> list[dict]:
    out = []
    for m in messages:
        row = {"role": m["role"], "content": m.get("content") or ""}
        if m.get("tool_calls"):
            row["tool_calls"] = [
                {"type": "function", "function": {"name": c["function"]["name"], "arguments": json.loads(a)}}
                if isinstance(a := c["function"]["arguments"], str)
                else {"type": "function", "function": {"name": c["function"]["name"], "arguments": a}}
                for c in m["tool_calls"]
            ]
        out.append(row)
    return out


def test_rollouts_and_the_local_policy_play_in_the_template(chat_model: Path, tmp_path: Path) -> None:
    import shutil

    folder = tmp_path / "taught"
    shutil.copytree(chat_model, folder)
    tokenizer = _tokenizer(folder)
    fmt = prompt_format(tokenizer)
    env = gym.make("gym_mcp/Banking-v0", tasks=[TASK], max_steps=3)
    try:
        _, info = env.reset(seed=0)
        tools = compact_tools(info["tools"], TASK, 0)  # the task's two tools: a short prompt
        prompt = fmt.prompt(info["messages"], tools)
        assert prompt.endswith("<|im_start|>assistant\n") and "<tools>" in prompt
        call = '<tool_call>\n{"name": "get_balance", "arguments": {"account_id": "ACC-1001"}}\n</tool_call>'
        teach(folder, prompt, call)  # a real training loop on the template's prompt
        # the local policy renders the same prompt and its reply is a call the env executes
        model = LocalModel(folder)
        assert model.format.name == "chat_template"
        policy = LocalModelPolicy(model, max_new_tokens=48)
        policy.reset(TASK, info, seed=0)
        action = policy.act("", {**info, "tools": tools})
        assert action == call
        obs, _, _, _, info = env.step(action)
        assert json.loads(obs)["account_id"] == "ACC-1001" and info["invalid_calls"] == 0
        # rollouts play through the template too, and their update learns from its tokens
        lora, tok = load_lora_model(folder, peft.LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"]))
        group = rollout_group(lora, tok, env, TASK, 3, max_new_tokens=40, temperature=0.5, seed=1, distractors=0)
        assert group[0].messages[1]["tool_calls"][0]["function"]["name"] == "get_balance"
        import torch

        optimizer = torch.optim.AdamW([p for p in lora.parameters() if p.requires_grad], lr=1e-3)
        for r, reward in zip(group, (1.0, 0.0, 0.5), strict=True):
            r.reward = reward  # spread, so the update is taken
        stats = grpo_step(lora, tok, optimizer, group, fmt=prompt_format(tok), micro_batch=1)
        assert not stats["zero_spread"] and stats["tokens"] > 0
    finally:
        env.close()
