"""Instructions from intent templates, and the check that every argument is traceable.

A tool's intent template (declared by the server, e.g. ``"Deposit ${amount} into account
{account_id}[ with the description '{description}']"``) is rendered with a call's arguments:
``{param}`` becomes the value, and a ``[...]`` part is kept only when all its parameters are
given. A value that an earlier call returned is rendered as a reference (``that event``)
instead, because the user cannot know it in advance.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from gym_mcp.tasks.dialogue import format_value, noun

__all__ = ["format_value", "is_traceable", "noun", "render", "render_chain"]

_PLACEHOLDER = re.compile(r"\{(\w+)\}")
_SEGMENT = re.compile(r"\[([^\[\]]*)\]")
_UNITS = "C|F|degrees|km|miles|%|percent|minutes|hours|kWh|liters|litres"


def render(template: str, arguments: Mapping[str, Any], refs: Mapping[str, str] | None = None) -> str | None:
    """Render one intent template; None when a required placeholder has no value.

    Args:
        template: The intent template.
        arguments: The call's arguments.
        refs: Parameters rendered as a phrase instead of their value (e.g. ``"that event"``).
    """
    refs = refs or {}
    for name, phrase in refs.items():
        # "pay that total", not "$that total"; "set the topic to that title", not "to 'that title'"
        for quoted in ("${%s}", "'{%s}'", '"{%s}"'):
            template = template.replace(quoted % name, "{" + name + "}")
        # "after that distance", not "after that distance km": the phrase names the quantity
        template = re.sub(rf"\{{{name}\}}\s*(?:{_UNITS})\b", "{" + name + "}", template)
        # "account {account_id}" + "that account" reads "that account", not "account that account"
        last = phrase.split()[-1]
        template = re.sub(rf"\b{re.escape(last)}\s+\{{{name}\}}", phrase.replace("\\", "\\\\"), template)

    def value_of(name: str) -> str | None:
        if name in refs:
            return refs[name]
        if name in arguments and arguments[name] is not None:
            return format_value(arguments[name])
        return None

    def segment(match: re.Match[str]) -> str:
        body = match.group(1)
        names = _PLACEHOLDER.findall(body)
        if not names or not all(value_of(n) is not None for n in names):  # no parameter: nothing decides it
            return ""
        return _PLACEHOLDER.sub(lambda m: value_of(m.group(1)) or "", body)

    text = _SEGMENT.sub(segment, template)
    missing = [n for n in _PLACEHOLDER.findall(text) if value_of(n) is None]
    if missing:
        return None
    return _PLACEHOLDER.sub(lambda m: value_of(m.group(1)) or "", text).strip()


def render_chain(sentences: Sequence[str]) -> str:
    """Join rendered steps into one request: ``A, then b, then c.``."""
    parts = [s.rstrip(". ") for s in sentences]
    out = parts[0]
    for part in parts[1:]:
        out += ", then " + (part[0].lower() + part[1:] if part[:2] != part[:2].upper() else part)
    return out + "."


def is_traceable(value: Any, instruction: str, outputs: Sequence[str]) -> bool:
    """True when a value appears in the instruction (as rendered) or in an earlier tool output."""
    if value is None or isinstance(value, bool):
        return True
    text = format_value(value)
    if text and text in instruction:
        return True
    raw = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    return any(raw in out or text in out for out in outputs)
