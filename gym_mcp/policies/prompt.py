"""How conversations become model text: the compact prompt, the model's own chat template, and how a reply is cut.

Two prompt formats, both with calls as Hermes ``<tool_call>`` tags (what gym-mcp's parser reads):

- `CompactFormat`: gym-mcp's own prompt, one line per tool. For models whose chat template cannot
  render tools (SmolLM2's).
- `ChatTemplateFormat`: ``tokenizer.apply_chat_template(messages, tools=...)``, for models whose
  template renders tools (the Qwen2.5/Qwen3 and Llama 3.x style). An adapter trained on it works
  wherever that model is served with its own template and tool parser (vLLM, ``transformers
  serve``, any OpenAI-compatible server), not only in ``gym-mcp serve-model``.

`prompt_format` picks one for a tokenizer. Training (SFT targets, rollouts) and the local-model
policy render through the same format, so what a model learns is what it is later shown.

What a tool returns, and what a user writes, is data, never structure: both formats escape, in
tool results, user turns and tool descriptions, the format's special tokens (``<|assistant|>``,
``<|im_start|>``, ``<|im_end|>``, the tokenizer's own) and the call syntax (``<tool_call>``),
with `escape_markers`, so a result can neither forge a turn nor hand the model a raw call to
copy into its reply. Only the rendering changes: the environment's records
(``info["messages"]``) keep each result as the server returned it. `OpenAIPolicy` sends the
same escaped text (`escaped_messages`), since the server behind the endpoint renders the
conversation with its own template.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from gym_mcp.errors import ConfigError
from gym_mcp.markers import CALL_MARKERS, escape_markers
from gym_mcp.policies.compact_template import is_compact_template

__all__ = [
    "CALL_MARKERS",
    "STOP_STRINGS",
    "SYSTEM",
    "ChatTemplateFormat",
    "CompactFormat",
    "PromptFormat",
    "cut_reply",
    "escape_markers",
    "escaped_messages",
    "escaped_tools",
    "prompt_format",
    "render_prompt",
    "render_segments",
    "renders_tools",
    "tokenizer_markers",
]


SYSTEM = (
    "You are a helpful assistant with tools. To call a tool, answer with "
    '<tool_call>{"name": NAME, "arguments": {...}}</tool_call>. When the task is done, answer in plain text.'
)


STOP_STRINGS = ("</tool_call>", "<|user|>", "<|tool|>", "<|system|>", "<|assistant|>")
"""Generation stops at the end of a call, or where the model starts a turn that is not its own."""


def cut_reply(text: str) -> str:
    """A generated continuation cut to the model's reply: through its first call, before any new turn."""
    hits = [(at, marker) for marker in STOP_STRINGS if (at := text.find(marker)) >= 0]
    if not hits:
        return text.strip()
    at, marker = min(hits)
    return text[: at + len(marker)] if marker == STOP_STRINGS[0] else text[:at].strip()


def tokenizer_markers(tokenizer: Any) -> tuple[str, ...]:
    """The special and added tokens of ``tokenizer`` that look like markup (``<s>``, ``<|im_end|>``, ``[INST]``).

    Added tokens that are words or whitespace (some tokenizers add runs of spaces) are left out:
    escaping them would change ordinary text.
    """
    found: set[str] = set(getattr(tokenizer, "all_special_tokens", None) or ())
    added = getattr(tokenizer, "get_added_vocab", None)
    if callable(added):
        with contextlib.suppress(Exception):  # a tokenizer without added tokens of its own
            found |= set(added())
    return tuple(sorted(t for t in found if isinstance(t, str) and _markup(t)))


def _markup(token: str) -> bool:
    return len(token) >= 3 and not token.isalnum() and not any(c.isspace() for c in token)


def escaped_messages(messages: Sequence[Mapping[str, Any]], markers: Iterable[str] = ()) -> list[dict[str, Any]]:
    """The conversation with tool results and user turns escaped (`escape_markers`); other messages as they were."""
    markers = tuple(markers)
    return [_escaped_message(m, markers) for m in messages]


def _escaped_message(message: Mapping[str, Any], markers: tuple[str, ...]) -> dict[str, Any]:
    out = dict(message)
    if message.get("role") not in ("tool", "user"):
        return out
    content = message.get("content")
    if isinstance(content, str):
        out["content"] = escape_markers(content, markers)
    elif isinstance(content, list):  # content parts: escape the text ones
        out["content"] = [
            {**part, "text": escape_markers(part["text"], markers)}
            if isinstance(part, Mapping) and isinstance(part.get("text"), str)
            else part
            for part in content
        ]
    return out


def escaped_tools(tools: Sequence[Mapping[str, Any]], markers: Iterable[str] = ()) -> list[dict[str, Any]]:
    """The tool schemas with every string value escaped (`escape_markers`): a third-party description is data too."""
    markers = tuple(markers)

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return escape_markers(value, markers)
        if isinstance(value, Mapping):
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [walk(v) for v in value]
        return value

    return [walk(t) for t in tools]


def _signature(tool: Mapping[str, Any], markers: tuple[str, ...] = ()) -> str:
    fn = tool.get("function", tool)
    params = fn.get("parameters") or {}
    required = set(params.get("required") or [])
    args = []
    for name, schema in (params.get("properties") or {}).items():
        kind = schema.get("type") or next((o.get("type") for o in schema.get("anyOf", []) if o.get("type")), "any")
        args.append(f"{name}{'' if name in required else '?'}: {kind}")
    first_line = (fn.get("description") or "").strip().splitlines()[0:1]
    line = f"{fn['name']}({', '.join(args)})" + (f" - {first_line[0]}" if first_line else "")
    return escape_markers(line, markers)


def render_segments(
    messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] = (), markers: Iterable[str] = ()
) -> list[tuple[str, bool]]:
    """The conversation as text segments, each flagged True when the model itself wrote it.

    Joined, the segments are the prompt (without the final ``<|assistant|>`` cue); the flags
    tell training which tokens are the model's own (assistant replies) and which are context.
    Tool results, user turns and tool descriptions are escaped (`escape_markers`, with
    ``markers``: the tokenizer's own special tokens); a reply with text and calls writes its
    calls on a line of their own, where the parser reads calls after text.
    """
    markers = tuple(markers)
    system = SYSTEM
    if tools:
        system += "\nTools:\n" + "\n".join(_signature(t, markers) for t in tools)
    head = f"<|system|>\n{system}\n"
    segments: list[tuple[str, bool]] = []
    for m in messages:
        role = m.get("role")
        content = m.get("content") or ""
        if role == "system":
            head = f"<|system|>\n{content}\n{system}\n"
        elif role == "assistant":
            calls = "".join(
                "<tool_call>"
                + json.dumps({"name": c["function"]["name"], "arguments": _args(c["function"].get("arguments"))})
                + "</tool_call>"
                for c in m.get("tool_calls") or []
            )
            segments.append(("<|assistant|>\n", False))
            segments.append((f"{content}\n{calls}" if content and calls else f"{content}{calls}", True))
            segments.append(("\n", False))
        elif role == "tool":
            segments.append((f"<|tool|>\n{escape_markers(str(content), markers)}\n", False))
        else:
            segments.append((f"<|user|>\n{escape_markers(str(content), markers)}\n", False))
    return [(head, False), *segments]


def render_prompt(
    messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] = (), markers: Iterable[str] = ()
) -> str:
    """The prompt for a conversation: terse tool signatures, then the turns, then ``<|assistant|>``.

    See `render_segments` for what is escaped.
    """
    return "".join(text for text, _ in render_segments(messages, tools, markers)) + "<|assistant|>\n"


def _args(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError:
            return raw
    return raw or {}


class PromptFormat(Protocol):
    """How a conversation is rendered for a model.

    Attributes:
        name: ``"compact"`` or ``"chat_template"``.
        closes_replies: Whether the rendered replies end with the model's end-of-turn token
            already (a chat template's); if not, training appends the end-of-text token to the
            last reply.
    """

    name: str
    closes_replies: bool

    def segments(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] = ()
    ) -> list[tuple[str, bool]]:
        """The conversation as text segments, each flagged True when the model itself wrote it.

        Every assistant message is exactly one flagged segment, in order.
        """
        ...

    def prompt(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] = ()) -> str:
        """The text the model continues to write its next reply."""
        ...


class CompactFormat:
    """gym-mcp's compact prompt (`render_segments`, `render_prompt`).

    Args:
        markers: The tokenizer's own special tokens (`tokenizer_markers`), escaped in tool
            results and user turns besides the compact format's own markers.
    """

    name = "compact"
    closes_replies = False

    def __init__(self, markers: Iterable[str] = ()) -> None:
        self.markers = tuple(markers)

    def segments(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] = ()
    ) -> list[tuple[str, bool]]:
        """See `render_segments`."""
        return render_segments(messages, tools, self.markers)

    def prompt(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] = ()) -> str:
        """See `render_prompt`."""
        return render_prompt(messages, tools, self.markers)


class ChatTemplateFormat:
    """The tokenizer's own chat template, with the tools passed to it (``apply_chat_template(..., tools=...)``).

    The model's own text is found by rendering the conversation up to each assistant message
    with the generation prompt, then with the message: the difference is the reply (its calls
    and its end-of-turn token), the rest is context. This needs a template that renders each
    conversation as a prefix of its continuations, which the tool-capable templates of Qwen2.5,
    Qwen3 and Llama 3.x do for conversations without reasoning text.

    Tool results, user turns and tool descriptions reach the template escaped
    (`escape_markers` with the tokenizer's own special tokens, `tokenizer_markers`).

    Args:
        tokenizer: A tokenizer whose chat template renders tools (see `renders_tools`).
    """

    name = "chat_template"
    closes_replies = True

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        self.markers = tokenizer_markers(tokenizer)

    def _render(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]], cue: bool) -> str:
        return str(
            self.tokenizer.apply_chat_template(
                [_template_message(m) for m in escaped_messages(messages, self.markers)],
                tools=escaped_tools(tools, self.markers) or None,
                add_generation_prompt=cue,
                tokenize=False,
            )
        )

    def segments(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] = ()
    ) -> list[tuple[str, bool]]:
        """The rendered conversation cut at the assistant's replies (see the class docstring).

        Raises:
            ConfigError: The template does not render the conversation as a prefix of its
                continuations, so the model's tokens cannot be told from the context.
        """
        out: list[tuple[str, bool]] = []
        done = ""
        for i, message in enumerate(messages):
            if message.get("role") != "assistant":
                continue
            head = self._render(messages[:i], tools, True)
            full = self._render(messages[: i + 1], tools, False)
            if not head.startswith(done) or not full.startswith(head):
                raise ConfigError(
                    "the chat template does not render a conversation as a prefix of its continuation; "
                    "use prompt_format='compact'"
                )
            own = full[len(head) :]
            reply = own.rstrip()  # the whitespace after the end-of-turn token is the next turn's
            out += [(head[len(done) :], False), (reply, True), (own[len(reply) :], False)]
            done = full
        rest = self._render(messages, tools, False)[len(done) :] if messages else ""
        return [(text, mine) for text, mine in [*out, (rest, False)] if text]

    def prompt(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] = ()) -> str:
        """The conversation rendered with the template's generation prompt."""
        return self._render(messages, tools, True)


def _template_message(message: Mapping[str, Any]) -> dict[str, Any]:
    """An OpenAI-format message as chat templates expect it (call arguments as objects, content a string)."""
    out: dict[str, Any] = {"role": message.get("role"), "content": message.get("content") or ""}
    if message.get("tool_calls"):
        out["tool_calls"] = [
            {
                "type": "function",
                "id": c.get("id", ""),
                "function": {"name": c["function"]["name"], "arguments": _args(c["function"].get("arguments"))},
            }
            for c in message["tool_calls"]
        ]
    for key in ("tool_call_id", "name"):
        if message.get(key):
            out[key] = message[key]
    return out


_PROBE_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "probe_lookup_tool",
        "description": "Look a thing up.",
        "parameters": {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]},
    },
}
_PROBE: list[dict[str, Any]] = [
    {"role": "user", "content": "Look up k1."},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c0", "type": "function", "function": {"name": "probe_lookup_tool", "arguments": '{"key": "k1"}'}}
        ],
    },
    {"role": "tool", "tool_call_id": "c0", "content": "value-7731"},
    {"role": "assistant", "content": "It is value-7731."},
]


def renders_tools(tokenizer: Any) -> bool:
    """Whether ``tokenizer``'s chat template renders tools, tool calls and tool results.

    A probe conversation (one tool, one call of it, its result, an answer) is rendered with the
    tool list: the template must show the tool (its name at least twice: listed and called),
    the call's argument and the result, and render each turn as a prefix of the next.
    """
    if not getattr(tokenizer, "chat_template", None):
        return False
    fmt = ChatTemplateFormat(tokenizer)
    try:
        text = fmt._render(_PROBE, [_PROBE_TOOL], False)
        fmt.segments(_PROBE, [_PROBE_TOOL])
    except Exception:  # a template that raises on tools cannot render them
        return False
    return text.count("probe_lookup_tool") >= 2 and '"k1"' in text and "value-7731" in text


def prompt_format(tokenizer: Any, kind: str = "auto") -> PromptFormat:
    """The prompt format for a tokenizer.

    Args:
        tokenizer: The model's tokenizer.
        kind: ``"auto"`` (the chat template when it renders tools, see `renders_tools`; the
            compact prompt otherwise, and for a tokenizer that carries the compact prompt as
            its template, `compact_chat_template`, as an exported adapter's does),
            ``"chat_template"`` or ``"compact"``.

    Raises:
        ConfigError: An unknown ``kind``, or ``"chat_template"`` for a template that cannot render tools.
    """
    if kind == "compact":
        return CompactFormat(tokenizer_markers(tokenizer))
    if kind not in ("auto", "chat_template"):
        raise ConfigError(f"prompt_format must be 'auto', 'chat_template' or 'compact', got {kind!r}")
    if kind == "auto" and is_compact_template(getattr(tokenizer, "chat_template", None)):
        # an exported tokenizer (gym-mcp export) whose adapter trained on the compact prompt: render
        # it as training did, with the end-of-text token closing only the last reply
        return CompactFormat(tokenizer_markers(tokenizer))
    if renders_tools(tokenizer):
        return ChatTemplateFormat(tokenizer)
    if kind == "chat_template":
        raise ConfigError("the tokenizer's chat template cannot render tools; use prompt_format='compact' or 'auto'")
    return CompactFormat(tokenizer_markers(tokenizer))
