"""Guided tool calls: once a reply opens a call, only the shown tools' schemas can be written."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import pytest

pytest.importorskip("torch", reason="training needs the [train] extra (the README's test command installs it)")
pytest.importorskip("xgrammar", reason="guided calls need the [train] extra")
templates = pytest.importorskip("trl.chat_template_utils", reason="Qwen2.5's template comes with trl ([dev])")

from gym_mcp.actions import hermes_parser  # noqa: E402
from gym_mcp.policies.guided import CallGrammar, call_layout  # noqa: E402
from gym_mcp.policies.prompt import CompactFormat, prompt_format  # noqa: E402
from tests.tiny_model import build_tiny_model, teach  # noqa: E402

FOREIGN = '<tool_call>{"name": "lock_card", "arguments": {"card_id": "CRD-1001", "daily_limit": 1}}</tool_call>'


@pytest.fixture(scope="module")
def banking_tools() -> list[dict]:
    env = gym.make("gym_mcp/Banking-v0")
    try:
        _, info = env.reset()
        return [t for t in info["tools"] if t["function"]["name"] in {"lock_card", "set_card_limit", "deposit"}]
    finally:
        env.close()


@pytest.fixture(scope="module")
def slipping_model(tmp_path_factory: pytest.TempPathFactory, banking_tools: list[dict]) -> tuple[Path, str]:
    """A tiny model taught to answer one prompt with a call that passes an argument lock_card does not take."""
    folder = build_tiny_model(tmp_path_factory.mktemp("tiny") / "slip")
    prompt = CompactFormat().prompt([{"role": "user", "content": "Temporarily lock card CRD-1001."}], banking_tools)
    teach(folder, prompt, FOREIGN, steps=300)
    return folder, prompt


def _accepts(grammar: CallGrammar, tokenizer, tools: list[dict], text: str) -> bool:  # type: ignore[no-untyped-def]
    matcher = grammar.matcher(tools)
    return all(matcher.accept_token(t) for t in tokenizer(text, add_special_tokens=False)["input_ids"])


def test_the_layout_is_read_from_the_prompt_format(tmp_path: Path) -> None:
    from transformers import AutoTokenizer

    assert call_layout(CompactFormat()) == ('<tool_call>{"name": "', '", "arguments": ', "}</tool_call>")
    folder = build_tiny_model(tmp_path / "chat", chat_template=templates.qwen2_5_chat_template)
    qwen = prompt_format(AutoTokenizer.from_pretrained(folder, local_files_only=True))
    assert call_layout(qwen) == ('<tool_call>\n{"name": "', '", "arguments": ', "}\n</tool_call>")


def test_the_grammar_takes_only_the_shown_tools_and_their_schemas(
    slipping_model: tuple[Path, str], banking_tools: list[dict]
) -> None:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(slipping_model[0], local_files_only=True)
    grammar = CallGrammar(tokenizer, CompactFormat())
    ok = '<tool_call>{"name": "set_card_limit", "arguments": {"card_id": "CRD-1001", "daily_limit": 250}}</tool_call>'
    assert _accepts(grammar, tokenizer, banking_tools, "Sure. " + ok)
    assert _accepts(grammar, tokenizer, banking_tools, "I can't help with that here.")  # free text stays free
    for bad in (
        FOREIGN,  # an argument the tool does not take
        ok.replace('"card_id": "CRD-1001", ', ""),  # a required argument missing
        ok.replace("250", '"250"'),  # a string where the schema says number
        ok.replace("set_card_limit", "freeze_account"),  # a tool the prompt does not show
        '<tool_call>{"name": "deposit", "arguments": {"account_id": "ACC-1", "amount": 5, "note": False}}',
    ):
        assert not _accepts(grammar, tokenizer, banking_tools, bad), bad


def test_a_schema_xgrammar_cannot_compile_leaves_that_prompt_unguided(
    slipping_model: tuple[Path, str], banking_tools: list[dict]
) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from gym_mcp.policies.decoding import generate_replies

    folder, prompt = slipping_model
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(folder, local_files_only=True)
    grammar = CallGrammar(tokenizer, CompactFormat(), vocab_size=model.config.vocab_size)
    broken = {"type": "object", "properties": {"x": {"$ref": "#/definitions/missing"}}}
    odd = [*banking_tools, {"type": "function", "function": {"name": "odd", "parameters": broken}}]
    assert grammar.matcher(odd) is None and grammar.matcher(banking_tools) is not None
    replies = generate_replies(
        model, tokenizer, [prompt, prompt], max_new_tokens=60, grammar=grammar, tools=[odd, banking_tools]
    )
    assert replies[0] == FOREIGN  # that row decodes freely (the environment will reject the call)
    assert "daily_limit" not in replies[1]  # the other row is still guided


def test_guidance_removes_what_no_tool_takes_and_keeps_valid_calls(
    slipping_model: tuple[Path, str], banking_tools: list[dict], tmp_path: Path
) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from gym_mcp.policies.decoding import generate_replies

    folder, prompt = slipping_model
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(folder, local_files_only=True)
    grammar = CallGrammar(tokenizer, CompactFormat(), vocab_size=model.config.vocab_size)
    assert generate_replies(model, tokenizer, [prompt], max_new_tokens=60)[0] == FOREIGN  # what it was taught
    guided = generate_replies(model, tokenizer, [prompt], max_new_tokens=60, grammar=grammar, tools=[banking_tools])
    # the same call as far as the schema allows it; the argument lock_card does not take cannot be written
    assert guided[0].startswith('<tool_call>{"name": "lock_card", "arguments": {"card_id": "CRD-1001')
    assert "daily_limit" not in guided[0]
    # rows guided in one batch decode as they do alone
    both = generate_replies(
        model, tokenizer, [prompt, prompt], max_new_tokens=60, grammar=grammar, tools=[banking_tools, banking_tools]
    )
    assert both == guided * 2
    # a model whose call is valid writes exactly the same call under guidance
    valid = '<tool_call>{"name": "lock_card", "arguments": {"card_id": "CRD-1001"}}</tool_call>'
    teach(build_tiny_model(tmp_path / "valid"), prompt, valid, steps=300)
    model = AutoModelForCausalLM.from_pretrained(tmp_path / "valid", local_files_only=True)
    assert generate_replies(model, tokenizer, [prompt], max_new_tokens=60)[0] == valid
    again = generate_replies(model, tokenizer, [prompt], max_new_tokens=60, grammar=grammar, tools=[banking_tools])
    assert again == [valid]
    parsed = hermes_parser(again[0])
    assert not parsed.errors and parsed.calls[0].arguments == {"card_id": "CRD-1001"}


def test_a_local_model_guides_the_calls_of_its_chat(
    slipping_model: tuple[Path, str], banking_tools: list[dict]
) -> None:
    from gym_mcp.policies.local import LocalModel

    folder, _ = slipping_model
    messages = [{"role": "user", "content": "Temporarily lock card CRD-1001."}]
    assert LocalModel(folder).chat(messages, banking_tools, max_new_tokens=60) == FOREIGN
    guided = LocalModel(folder, guided_calls=True).chat(messages, banking_tools, max_new_tokens=60)
    assert guided.startswith('<tool_call>{"name": "lock_card", "arguments": {"card_id": "CRD-1001')
    assert "daily_limit" not in guided
