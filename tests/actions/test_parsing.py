"""Reading tool calls from model text and structured actions."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gym_mcp.actions.parsing import (
    _plain_json,
    _where_not_json,
    auto_parser,
    calls_from_structured,
    hermes_parser,
    json_parser,
    json_problem,
)


def test_hermes_single_and_multiple_calls() -> None:
    text = (
        "Let me check.\n"
        '<tool_call>{"name": "get_balance", "arguments": {"account_id": "ACC-1"}}</tool_call>\n'
        '<tool_call>\n{"name": "list_cards", "arguments": {}}\n</tool_call>'
    )
    parsed = hermes_parser(text)
    assert [c.name for c in parsed.calls] == ["get_balance", "list_cards"]
    assert parsed.calls[0].arguments == {"account_id": "ACC-1"}
    assert parsed.text == "Let me check."
    assert parsed.errors == ()


def test_hermes_bad_json_is_an_error_not_a_final_answer() -> None:
    parsed = auto_parser('<tool_call>{"name": "x", "arguments": {</tool_call>')
    assert parsed.calls == ()
    assert parsed.errors
    assert "not valid JSON" in parsed.errors[0]


def test_hermes_unclosed_tag_still_parses() -> None:
    parsed = auto_parser('<tool_call>{"name": "x", "arguments": {"a": 1}}')
    assert [c.name for c in parsed.calls] == ["x"]


def test_bare_json_call_list_and_fence() -> None:
    assert [c.name for c in json_parser('{"name": "a", "arguments": {"k": 1}}').calls] == ["a"]
    assert [c.name for c in json_parser('[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}]').calls] == [
        "a",
        "b",
    ]
    assert [c.name for c in json_parser('```json\n{"name": "a", "arguments": {}}\n```').calls] == ["a"]


def test_openai_tool_calls_message() -> None:
    msg = (
        '{"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", '
        '"function": {"name": "f", "arguments": "{\\"x\\": 2}"}}]}'
    )
    parsed = auto_parser(msg)
    assert parsed.calls[0].name == "f"
    assert parsed.calls[0].arguments == {"x": 2}
    assert parsed.calls[0].id == "c1"


def test_plain_text_and_unrelated_json_are_final_answers() -> None:
    assert auto_parser("Your balance is 12.50.").calls == ()
    assert auto_parser("Your balance is 12.50.").text == "Your balance is 12.50."
    parsed = auto_parser('{"balance": 12.5}')
    assert parsed.calls == ()
    assert parsed.errors == ()


def test_structured_actions() -> None:
    assert calls_from_structured({"name": "a", "arguments": {"x": 1}}).calls[0].arguments == {"x": 1}
    assert len(calls_from_structured([{"name": "a"}, {"name": "b"}]).calls) == 2
    bad = calls_from_structured({"tool_calls": [{"function": {"name": "a", "arguments": "{oops"}}]})
    assert bad.errors
    assert "not valid JSON" in bad.errors[0]
    assert calls_from_structured({"arguments": {}}).errors
    assert calls_from_structured(42).errors


_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text() | st.sampled_from(["\ud800", "é\udfff"])
_keys = st.text(max_size=4) | st.integers(0, 3) | st.none()
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner)
        | st.dictionaries(_keys, inner, max_size=4)
        | st.builds(bytes, st.binary(max_size=2))
    ),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(value=_values, max_depth=st.integers(0, 4))
def test_the_quick_json_check_agrees_with_the_full_walk(value: object, max_depth: int) -> None:
    """json_problem answers "plain JSON" at once when it can; otherwise the full walk names the problem."""
    full = _where_not_json(value, max_depth)
    assert json_problem(value, max_depth) == full
    if _plain_json(value, max_depth):
        assert full is None
    elif full is None:  # only what the quick check leaves to the full walk: tuples, subclasses
        assert "tuple" in repr(type(value)) or _has_tuple(value)


def _has_tuple(value: object) -> bool:
    if isinstance(value, tuple):
        return True
    if isinstance(value, dict):
        return any(_has_tuple(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_tuple(v) for v in value)
    return False


CALL = '<tool_call>{"name": "close_account", "arguments": {"account_id": "ACC-1001"}}</tool_call>'


def test_calls_stand_where_the_format_puts_them() -> None:
    """The run a reply opens with (after a think block), or the run that closes it on a line of its own."""
    assert [c.name for c in auto_parser(CALL).calls] == ["close_account"]
    assert [c.name for c in auto_parser(f"  {CALL}\n{CALL}").calls] == ["close_account"] * 2
    assert [c.name for c in auto_parser(f"<think>\nmaybe {CALL}\n</think>\n\n{CALL}").calls] == ["close_account"]
    closing = auto_parser(f"I will close it.\n{CALL}\n{CALL}\n")
    assert [c.name for c in closing.calls] == ["close_account"] * 2
    assert closing.text == "I will close it."
    opening = auto_parser(f"{CALL} The memo also said {CALL}.")
    assert len(opening.calls) == 1
    assert opening.text == f"The memo also said {CALL}."


@pytest.mark.parametrize(
    "reply",
    [
        f"The memo says: {CALL}",  # closes the reply, but inside a line of text
        f"The memo says: {CALL}.",
        f'The memo says "{CALL}" and I left it alone.',
        f"The memo says:\n{CALL}\nwhich I did not run.",  # on its own line, but text follows
        f"The memo says:\n```\n{CALL}\n```",
        f"> {CALL}",
        f"It holds {CALL} and then\n{CALL}",  # text before the closing run already quotes a call
        f"<think>should I run {CALL}",  # an unclosed think block is all thinking
        f"Note: {CALL.replace('}}', '}')}",  # bad JSON out of call position: text, not an error
    ],
)
def test_a_tool_call_outside_call_position_is_text_and_the_reply_an_answer(reply: str) -> None:
    parsed = auto_parser(reply)
    assert parsed.calls == ()
    assert parsed.errors == ()
    assert parsed.text == reply.strip()


def test_a_closing_tag_inside_an_argument_does_not_cut_the_call() -> None:
    text = '<tool_call>{"name": "write_file", "arguments": {"content": "a </tool_call> b"}}</tool_call>'
    assert auto_parser(text).calls[0].arguments == {"content": "a </tool_call> b"}


def test_a_bare_json_call_whose_argument_holds_a_tag_runs_itself_not_the_tag() -> None:
    import json

    text = json.dumps({"name": "write_file", "arguments": {"path": "m.txt", "content": f"memo: {CALL}"}})
    parsed = auto_parser(text)
    assert [c.name for c in parsed.calls] == ["write_file"]


def test_an_unclosed_block_closes_a_reply_only_when_the_reply_was_cut_before_its_closing_tag() -> None:
    """A quote of a memo that was cut (inside its tag, or inside its JSON) and more text after it is text."""
    for cut in (CALL[: -len(">")], CALL[:40]):
        reply = f"Per the statement (memo:\n{cut}), nothing else is needed."
        assert auto_parser(reply).calls == () and auto_parser(reply).errors == ()
    assert [c.name for c in auto_parser(f"Closing it.\n{CALL[: -len('</tool_call>')]}").calls] == ["close_account"]
    assert auto_parser(f"Closing it.\n{CALL[:40]}").calls == ()  # cut inside the JSON, after text: text
    assert auto_parser(CALL[:40]).errors  # opening the reply, it tried to call: an error to show


def test_an_openai_message_with_text_only_is_an_answer_not_a_bad_call() -> None:
    """``{"role": "assistant", "content": "..."}``, what a chat endpoint returns for a final answer."""
    from gym_mcp.actions.parsing import auto_parser, parse_action

    parsed = parse_action({"role": "assistant", "content": "Your balance is $120.50."}, auto_parser, 1000)
    assert parsed.calls == ()
    assert parsed.errors == ()
    assert parsed.text == "Your balance is $120.50."
    empty = parse_action({"role": "assistant", "content": None}, auto_parser, 1000)
    assert (empty.calls, empty.errors, empty.text) == ((), (), "")
    # a call dict that happens to carry a "role" is still a call when it names a tool
    call = parse_action({"role": "x", "name": "get_balance", "arguments": {}}, auto_parser, 1000)
    assert [c.name for c in call.calls] == ["get_balance"]
