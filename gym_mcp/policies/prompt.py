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
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from gym_mcp.errors import ConfigError

__all__ = [
    "STOP_STRINGS",
    "SYSTEM",
    "ChatTemplateFormat",
    "CompactFormat",
    "PromptFormat",
    "cut_reply",
    "prompt_format",
    "render_prompt",
    "render_segments",
    "renders_tools",
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


def _signature(tool: Mapping[str, Any]) -> str:
    fn = tool.get("function", tool)
    params = fn.get("parameters") or {}
    required = set(params.get("required") or [])
    args = []
    for name, schema in (params.get("properties") or {}).items():
        kind = schema.get("type") or next((o.get("type") for o in schema.get("anyOf", []) if o.get("type")), "any")
        args.append(f"{name}{'' if name in required else '?'}: {kind}")
    first_line = (fn.get("description") or "").strip().splitlines()[0:1]
    return f"{fn['name']}({', '.join(args)})" + (f" - {first_line[0]}" if first_line else "")


def render_segments(
    messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] = ()
) -> list[tuple[str, bool]]:
    """The conversation as text segments, each flagged True when the model itself wrote it.

    Joined, the segments are the prompt (without the final ``<|assistant|>`` cue); the flags
    tell training which tokens are the model's own (assistant replies) and which are context.
    """
    system = SYSTEM
    if tools:
        system += "\nTools:\n" + "\n".join(_signature(t) for t in tools)
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
            segments.append((f"{content}{calls}", True))
            segments.append(("\n", False))
        elif role == "tool":
            segments.append((f"<|tool|>\n{content}\n", False))
        else:
            segments.append((f"<|user|>\n{content}\n", False))
    return [(head, False), *segments]


def render_prompt(messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] = ()) -> str:
    """The prompt for a conversation: terse tool signatures, then the turns, then ``<|assistant|>``."""
    return "".join(text for text, _ in render_segments(messages, tools)) + "<|assistant|>\n"


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
    """gym-mcp's compact prompt (`render_segments`, `render_prompt`)."""

    name = "compact"
    closes_replies = False

    def segments(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] = ()
    ) -> list[tuple[str, bool]]:
        """See `render_segments`."""
        return render_segments(messages, tools)

    def prompt(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] = ()) -> str:
        """See `render_prompt`."""
        return render_prompt(messages, tools)


class ChatTemplateFormat:
    """The tokenizer's own chat template, with the tools passed to it (``apply_chat_template(..., tools=...)``).

    The model's own text is found by rendering the conversation up to each assistant message
    with the generation prompt, then with the message: the difference is the reply (its calls
    and its end-of-turn token), the rest is context. This needs a template that renders each
    conversation as a prefix of its continuations, which the tool-capable templates of Qwen2.5,
    Qwen3 and Llama 3.x do for conversations without reasoning text.

    Args:
        tokenizer: A tokenizer whose chat template renders tools (see `renders_tools`).
    """

    name = "chat_template"
    closes_replies = True

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer

    def _render(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]], cue: bool) -> str:
        return str(
            self.tokenizer.apply_chat_template(
                [_template_message(m) for m in messages],
                tools=[dict(t) for t in tools] or None,
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
            compact prompt otherwise), ``"chat_template"`` or ``"compact"``.

    Raises:
        ConfigError: An unknown ``kind``, or ``"chat_template"`` for a template that cannot render tools.
    """
    if kind == "compact":
        return CompactFormat()
    if kind not in ("auto", "chat_template"):
        raise ConfigError(f"prompt_format must be 'auto', 'chat_template' or 'compact', got {kind!r}")
    if renders_tools(tokenizer):
        return ChatTemplateFormat(tokenizer)
    if kind == "chat_template":
        raise ConfigError("the tokenizer's chat template cannot render tools; use prompt_format='compact' or 'auto'")
    return CompactFormat()
