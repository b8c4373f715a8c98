"""Turning an agent's action into tool calls.

`MCPEnv.step` accepts structured calls (``{"name": ..., "arguments": {...}}``, a list of them,
or an OpenAI assistant message with ``tool_calls``) or raw model text. Text is read by a
parser: any callable ``str -> ParsedAction``. The default, `auto_parser`, understands

- Hermes/Qwen: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` (several allowed),
  where the model's format puts calls (see below);
- bare JSON: one call object, or a list of them, as the whole text (or in a ```json fence);
- OpenAI: a JSON assistant message ``{"tool_calls": [{"function": {"name", "arguments"}}]}``.

Where a call may stand. A reply's calls are the ``<tool_call>`` blocks in call position, the
places the Hermes and Qwen chat templates write them (and vLLM's parsers of those formats find
them):

1. the blocks the reply opens with (after whitespace and an optional ``<think>...</think>``
   block), one after another with only whitespace between; text after them is the reply's
   text; or, when the reply opens with text,
2. the blocks that close it: the first ``<tool_call>`` of the reply starts a line of its own
   (the templates write the content, a newline, then ``<tool_call>``) and from there to the end
   there are only whole blocks and whitespace (closed, or cut just before the closing tag).

Any other ``<tool_call>`` is text: one inside a sentence, one followed by more text, one after
text that already quoted a ``<tool_call>``, one inside an unclosed ``<think>``. A reply that
quotes a tool result holding call syntax ("the memo says: <tool_call>...</tool_call>.") is
therefore an answer, and it ends the episode as any answer does; nothing in it runs. What text
alone cannot tell apart, a quote set on its own line at the very end of a reply, the prompts
prevent: every prompt gym-mcp renders escapes the call syntax and the format's special tokens
in tool results (`gym_mcp.policies.prompt.escape_markers`), so a model never reads a raw call
it could copy.

A text with no call in call position is the agent's final answer. A text that tries to call
but cannot be read (bad JSON inside a ``<tool_call>`` in call position) yields ``errors``,
which the environment shows to the agent as an error observation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gym_mcp.actions.size import json_size

__all__ = [
    "ParsedAction",
    "Parser",
    "ToolCall",
    "auto_parser",
    "calls_from_structured",
    "hermes_parser",
    "json_parser",
    "json_problem",
    "openai_parser",
    "parse_action",
]


@dataclass(frozen=True)
class ToolCall:
    """One tool call requested by the agent.

    Attributes:
        name: Tool name.
        arguments: Arguments; not yet checked against the tool's schema (may be any JSON value).
        id: Call id (echoed in the ``tool`` message that carries the result).
    """

    name: str
    arguments: Any = field(default_factory=dict)
    id: str = ""

    def to_openai(self) -> dict[str, Any]:
        """The call in OpenAI ``tool_calls`` format."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": json.dumps(self.arguments, ensure_ascii=False)},
        }


@dataclass(frozen=True)
class ParsedAction:
    """What a parser read from one action.

    Attributes:
        calls: The tool calls, in order.
        text: Text outside the calls (the final answer when there are no calls).
        errors: Why parts of the action could not be read as calls.
    """

    calls: tuple[ToolCall, ...] = ()
    text: str = ""
    errors: tuple[str, ...] = ()


Parser = Callable[[str], ParsedAction]

_OPEN, _CLOSE = "<tool_call>", "</tool_call>"
_THINK_OPEN, _THINK_CLOSE = "<think>", "</think>"
_DECODER = json.JSONDecoder()
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


def _call_from_obj(obj: Any, index: int) -> tuple[ToolCall | None, str | None]:
    """Read one call from a decoded JSON object in any of the accepted shapes."""
    if not isinstance(obj, Mapping):
        return None, f"a tool call must be a JSON object, got {type(obj).__name__}"
    if "function" in obj and isinstance(obj["function"], Mapping):  # OpenAI tool_calls entry
        fn = obj["function"]
        name, args = fn.get("name"), fn.get("arguments", {})
    else:
        name = obj.get("name")
        args = obj.get("arguments", obj.get("parameters", {}))
    call_id = str(obj.get("id") or f"call_{index}")
    if isinstance(args, str):  # JSON text, as OpenAI sends arguments
        try:
            args = json.loads(args) if args.strip() else {}
        except json.JSONDecodeError as exc:
            return None, f"arguments of {name!r} are not valid JSON: {exc.msg}"
    if not isinstance(name, str) or not name:
        return None, 'a tool call needs a "name" string'
    return ToolCall(name, args if args is not None else {}, call_id), None


def calls_from_structured(action: Any) -> ParsedAction:
    """Read calls from a structured action: a call dict, a list of them, or an OpenAI message."""
    if isinstance(action, Mapping) and ("tool_calls" in action or ("role" in action and "name" not in action)):
        # an OpenAI message: its calls, if any, and its text (a message with text only is an answer)
        entries = action.get("tool_calls") or []
        text = str(action.get("content") or "")
    elif isinstance(action, Mapping):
        entries, text = [action], ""
    elif isinstance(action, list | tuple):
        entries, text = list(action), ""
    else:
        return ParsedAction(errors=(f"unsupported action type {type(action).__name__}",))
    if not isinstance(entries, list | tuple):
        return ParsedAction(text=text, errors=('"tool_calls" must be a list',))
    calls: list[ToolCall] = []
    errors: list[str] = []
    for i, entry in enumerate(entries):
        call, err = _call_from_obj(entry, i)
        if call is not None:
            calls.append(call)
        if err is not None:
            errors.append(err)
    return ParsedAction(tuple(calls), text, tuple(errors))


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def _block_at(text: str, at: int) -> tuple[str, int, bool]:
    """The body of the ``<tool_call>`` block that opens at ``at``, where the block ends, and whether it is whole.

    The body is read as JSON first, so a ``</tool_call>`` inside a string argument (a file's
    content) does not cut the call; a body that is not JSON runs to the first ``</tool_call>``
    (or to the end of an unclosed block) and its error is reported. A block is whole when it is
    closed, or unclosed with a complete JSON body and nothing after it (a reply cut before the
    closing tag). An unclosed block with anything else in it (a quote of a memo that was cut,
    followed by more text) is not whole.
    """
    start = at + len(_OPEN)
    body_at = _skip_space(text, start)
    try:
        _, json_end = _DECODER.raw_decode(text, body_at)
    except (ValueError, RecursionError):
        json_end = -1
    close = text.find(_CLOSE, start)
    if json_end >= 0:
        after = _skip_space(text, json_end)
        if text.startswith(_CLOSE, after):
            return text[body_at:json_end], after + len(_CLOSE), True
        if after == len(text):  # unclosed: the reply was cut at the end of the call
            return text[body_at:json_end], len(text), True
    if close < 0:
        return text[start:].strip(), len(text), False
    return text[start:close].strip(), close + len(_CLOSE), True


def _run_at(text: str, at: int) -> tuple[list[str], int, bool]:
    """The bodies of the blocks one after another from ``at``, where the last ends, and whether all are whole."""
    bodies: list[str] = []
    whole = True
    while text.startswith(_OPEN, nxt := _skip_space(text, at)):
        body, at, ok = _block_at(text, nxt)
        bodies.append(body)
        whole = whole and ok
    return bodies, at, whole


def _starts_a_line(text: str, at: int) -> bool:
    newline = text.rfind("\n", 0, at)
    return newline >= 0 and not text[newline + 1 : at].strip(" \t\r")


def _call_position(text: str) -> tuple[list[str], str] | None:
    """The bodies of the blocks in call position and the reply's other text, or None when there are none."""
    head = _skip_space(text, 0)
    if text.startswith(_THINK_OPEN, head):
        closed = text.find(_THINK_CLOSE, head)
        if closed < 0:
            return None  # all of it is thinking
        head = closed + len(_THINK_CLOSE)
    first = _skip_space(text, head)
    if text.startswith(_OPEN, first):  # 1. the blocks the reply opens with
        bodies, end, _ = _run_at(text, first)
        return bodies, (text[:first] + text[end:]).strip()
    first = text.find(_OPEN, head)  # 2. the blocks that close it, on a line of their own
    if first < 0 or not _starts_a_line(text, first):
        return None
    bodies, end, whole = _run_at(text, first)
    if text[end:].strip() or not whole:
        return None
    return bodies, text[:first].strip()


def hermes_parser(text: str) -> ParsedAction:
    """Hermes/Qwen style: the ``<tool_call>{json}</tool_call>`` blocks in call position; the rest is text.

    Call position is the run of blocks a reply opens with, or the run that closes a reply
    whose first ``<tool_call>`` starts a line (see the module docstring). A reply with no block
    there is text, whatever ``<tool_call>`` it quotes.
    """
    found = _call_position(text)
    if found is None:
        return ParsedAction(text=text.strip())
    bodies, rest = found
    calls: list[ToolCall] = []
    errors: list[str] = []
    for i, body in enumerate(bodies):
        try:
            obj = json.loads(body)
        except json.JSONDecodeError as exc:
            errors.append(f"tool call {i + 1} is not valid JSON ({exc.msg} at char {exc.pos}): {body[:200]}")
            continue
        call, err = _call_from_obj(obj, i)
        if call is not None:
            calls.append(call)
        if err is not None:
            errors.append(err)
    return ParsedAction(tuple(calls), rest, tuple(errors))


def _looks_like_call(obj: Any) -> bool:
    if isinstance(obj, Mapping):
        return "tool_calls" in obj or ("name" in obj and ("arguments" in obj or "parameters" in obj))
    if isinstance(obj, list):
        return bool(obj) and all(_looks_like_call(o) or (isinstance(o, Mapping) and "function" in o) for o in obj)
    return False


def json_parser(text: str) -> ParsedAction:
    """Bare JSON: the whole text (or a ```json fence) is a call, a list of calls, or an OpenAI message."""
    body = text.strip()
    fence = _FENCE.match(body)
    if fence:
        body = fence.group(1)
    if not body or body[0] not in "[{":
        return ParsedAction(text=text.strip())
    try:
        obj = json.loads(body)
    except json.JSONDecodeError as exc:
        if '"name"' in body or '"tool_calls"' in body:
            return ParsedAction(errors=(f"tool call is not valid JSON ({exc.msg} at char {exc.pos})",))
        return ParsedAction(text=text.strip())
    if not _looks_like_call(obj):
        return ParsedAction(text=text.strip())
    return calls_from_structured(obj)


def openai_parser(text: str) -> ParsedAction:
    """An OpenAI assistant message serialized as JSON, with ``tool_calls``."""
    return json_parser(text)


def auto_parser(text: str) -> ParsedAction:
    """Hermes blocks in call position first, then bare JSON / OpenAI messages; otherwise a final answer.

    A ``<tool_call>`` outside call position is text (see the module docstring), so a reply
    that only quotes one is read as bare JSON (a call whose argument holds the tag) or is the
    final answer.
    """
    if _OPEN in text:
        parsed = hermes_parser(text)
        if parsed.calls or parsed.errors:
            return parsed
    return json_parser(text)


MAX_DEPTH = 64
"""Deepest nesting of objects and lists accepted in a call's arguments."""


def json_problem(value: Any, max_depth: int = MAX_DEPTH) -> str | None:
    """Why ``value`` is not plain JSON that a server can take, or None when it is.

    Plain JSON: objects with string keys, lists, strings that are valid Unicode (no lone
    surrogates), finite numbers, booleans and null, nested at most ``max_depth`` deep. Walks
    the value without recursion, so no input can exhaust the stack.

    Args:
        value: A call's arguments (or any value).
        max_depth: Deepest nesting allowed.

    Returns:
        A one-line reason naming where the problem is (``arguments.items[3]``), or None.
    """
    if _plain_json(value, max_depth):  # the common case, checked without building paths
        return None
    return _where_not_json(value, max_depth)


def _where_not_json(value: Any, max_depth: int) -> str | None:
    """`json_problem`'s full walk, naming where the first problem is."""
    stack: list[tuple[Any, str, int]] = [(value, "arguments", 0)]
    while stack:
        item, where, depth = stack.pop()
        if depth > max_depth:
            return f"{where[:60]}... is nested too deeply (more than {MAX_DEPTH} levels)"
        if item is None or isinstance(item, bool | int):
            continue
        if isinstance(item, float):
            if item != item or item in (float("inf"), float("-inf")):
                return f"{where} is {item}, which JSON cannot carry"
            continue
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return f"{where} is not valid Unicode (a lone surrogate)"
            continue
        if isinstance(item, Mapping):
            for key, sub in item.items():
                if not isinstance(key, str):
                    return f"{where} has a key of type {type(key).__name__}; object keys must be strings"
                stack.append((key, f"{where} key", depth + 1))
                stack.append((sub, f"{where}.{key}", depth + 1))
            continue
        if isinstance(item, list | tuple):
            stack.extend((sub, f"{where}[{i}]", depth + 1) for i, sub in enumerate(item))
            continue
        return f"{where} is a {type(item).__name__}, not a JSON value"
    return None


def _plain_json(value: Any, max_depth: int) -> bool:
    """Whether `json_problem` would find nothing; the same walk without naming where."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        kind = type(item)
        if kind is str:
            if not item.isascii():
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    return False
        elif kind is dict:
            if depth >= max_depth and item:
                return False
            for key, sub in item.items():
                if type(key) is not str:
                    return False
                stack.append((key, depth + 1))
                stack.append((sub, depth + 1))
        elif kind is list:
            if depth >= max_depth and item:
                return False
            stack.extend((sub, depth + 1) for sub in item)
        elif kind is float:
            if item != item or item in (_INF, -_INF):
                return False
        elif not (item is None or kind is bool or kind is int):
            return False  # anything else (tuples, subclasses, other mappings): the full walk decides
    return True


_INF = float("inf")


def _checked(parsed: ParsedAction) -> ParsedAction:
    """``parsed`` with every call whose arguments are not plain JSON moved to its errors."""
    bad = [
        (c, json_problem(c.arguments) if isinstance(c.name, str) else f"the tool name is a {type(c.name).__name__}")
        for c in parsed.calls
    ]
    if not any(problem for _, problem in bad):
        return parsed
    calls = tuple(c for c, problem in bad if problem is None)
    errors = [f"call to {str(c.name)[:80]!r} not run: {problem}" for c, problem in bad if problem]
    return ParsedAction(calls, parsed.text, (*parsed.errors, *errors))


def parse_action(action: Any, parser: Parser, max_chars: int) -> ParsedAction:
    """Read an environment action of any accepted kind; never raises.

    Whatever the action, a call reaches the server only when its name is a string and its
    arguments are plain JSON (`json_problem`); anything else becomes an error, named.

    Args:
        action: Model text, a `ToolCall`, a call dict, a list of them, or an OpenAI message.
        parser: Reads calls out of text actions.
        max_chars: Longest action accepted (text length, or JSON length of a structured action).

    Returns:
        The calls, the text, and why parts could not be read (errors become observations).
    """
    try:
        return _checked(_parse(action, parser, max_chars))
    except Exception as exc:  # a last line: nothing an agent sends may escape step()
        return ParsedAction(errors=(f"could not read the action: {type(exc).__name__}",))


def _parse(action: Any, parser: Parser, max_chars: int) -> ParsedAction:
    if isinstance(action, str):
        if len(action) > max_chars:
            return ParsedAction(errors=(f"the action is {len(action)} characters; the limit is {max_chars}",))
        if json_problem(action) is not None:
            return ParsedAction(errors=("the action is not valid Unicode (a lone surrogate)",))
        try:
            return parser(action)
        except Exception as exc:
            return ParsedAction(errors=(f"could not parse the action: {exc}",))
    if isinstance(action, ToolCall):
        return ParsedAction(calls=(action,))
    if isinstance(action, Mapping | list | tuple):
        problem = json_problem(action, MAX_DEPTH + 4)
        if problem is not None:
            return ParsedAction(errors=("the action is not plain JSON: " + problem.replace("arguments", "action", 1),))
        size = json_size(action, max_chars)  # no copy of a huge action is made to measure it
        if size > max_chars:
            return ParsedAction(errors=(f"the action is over {max_chars} characters as JSON (the limit)",))
        return calls_from_structured(action)
    return ParsedAction(errors=(f"unsupported action type {type(action).__name__}; send text or a tool-call dict",))
