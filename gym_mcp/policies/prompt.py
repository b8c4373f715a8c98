"""The compact prompt gym-mcp renders for local models, and how a generated reply is cut.

One line per tool, calls as Hermes ``<tool_call>`` tags. The trainer renders its data with the same functions.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["STOP_STRINGS", "SYSTEM", "cut_reply", "render_prompt", "render_segments"]


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
