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
        template = _absorb_noun(template, name, phrase)

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


def _absorb_noun(template: str, name: str, phrase: str) -> str:
    """Drop the noun the template says right before ``{name}``: the reference says it.

    ``account {account_id}`` with ``that account`` reads "that account", not "account that
    account", and ``account number {account_number}`` with ``that account number`` reads "that
    account number", not "account that account number". The longest run of the phrase's words
    (after its determiner) that ends or starts its noun and stands right before the placeholder
    is removed; the placeholder stays, so a ``[...]`` segment around it is still kept or dropped
    by its parameter.

    Args:
        template: The intent template.
        name: The parameter rendered as a reference.
        phrase: The reference (e.g. ``"that account number"``).

    Returns:
        The template without that noun (unchanged where none stands before the placeholder).
    """
    words = phrase.split()
    noun_words = words[1:] if len(words) > 1 else words
    n = len(noun_words)
    # Endings, then beginnings, longest first (a stable sort): "account number", "number", "account".
    runs = [noun_words[i:] for i in range(n)] + [noun_words[:k] for k in range(n - 1, 0, -1)]
    runs.sort(key=len, reverse=True)
    for run in runs:
        pattern = r"\b" + r"\s+".join(re.escape(w) for w in run) + rf"\s+(?=\{{{name}\}})"
        template, count = re.subn(pattern, "", template)
        if count:
            break
    return template


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
