"""Instructions from intent templates, and the check that every argument is traceable.

A tool's intent template (declared by the server, e.g. ``"Deposit ${amount} into account
{account_id}[ with the description '{description}']"``) is rendered with a call's arguments:
``{param}`` becomes the value, and a ``[...]`` part is kept only when all its parameters are
given. A value that an earlier call returned is rendered as a reference (``that event``)
instead, because the user cannot know it in advance.

A reference must mean one thing. Its *kind* is its noun (``that account`` for
``from_account_id``: `noun`); two nouns are of one kind when their last words agree (``account``
and ``savings account``; ``account number`` is not an ``account``). Its *mentions* are what a
reader can take it to point at, in the request before it and in its own sentence:

- an entity of that kind the request names (``account ACC-1033``) or already refers to, in an
  earlier sentence or beside the reference in its own;
- every id of the reference's shape (its pool's ``ACC-9999``) that an earlier call returns,
  when that call's sentence says the noun's last word, singular or plural (``open a new
  account`` returns one account; ``show card CRD-1094`` says nothing of the account its
  output holds, so that output is no mention: the reader cannot know it is there);
- for a composition's bridge (``that total``, declared by the composition): the bridged field
  of each earlier output of the bridge's source tools.

A reference is kept only when its mentions, as distinct values, are exactly one: the value the
call takes (`anchors`, `is_anchored`); ``freeze account ACC-1033, then show the transactions
of that account`` is fine although freezing returns ACC-1033 again. Otherwise the value itself
is rendered (``of account ACC-1134``), and a later reference may then point at it. The call is
the same, the value is in the request so it stays traceable, and the task is kept; the value
is then the user's, not a dependency (``Chain.refs``, the task's difficulty). Rewording as ``the
account of that card`` would keep the dependency, but needs to know how the value relates to
the earlier entity, which an output's keys do not say reliably; dropping the chain would lose
a task for a wording problem.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gym_mcp.synth.chain import dig
from gym_mcp.synth.graph import shape
from gym_mcp.synth.values import leaves
from gym_mcp.tasks.dialogue import format_value, noun

__all__ = ["Said", "anchors", "format_value", "is_anchored", "is_traceable", "noun", "render", "render_chain"]

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


@dataclass(frozen=True)
class Said:
    """One step of a request as its reader sees it: what it names, and what its call returned.

    Attributes:
        tool: The tool the step calls.
        sentence: How the request asks for it.
        named: ``(noun, value)`` of each entity the sentence names or refers to.
        output: The call's decoded output (None for the step being rendered).
    """

    tool: str
    sentence: str
    named: tuple[tuple[str, Any], ...]
    output: Any = None


def anchors(
    kind: str,
    shapes: Collection[str],
    earlier: Sequence[Said],
    here: Sequence[tuple[str, Any]] = (),
    bridged: Mapping[str, str] | None = None,
) -> set[str]:
    """The values a reference of ``kind`` can point at (as rendered); see the module docstring.

    Args:
        kind: The reference's noun (``"account"`` for ``that account``).
        shapes: The shapes of the reference's pool (``{"ACC-9999"}``): ids an output returns.
        earlier: The request's steps before the reference's.
        here: ``(noun, value)`` of the other entities the reference's own sentence names.
        bridged: For a composition's bridge: ``{source tool: field}`` of every bridge into the
            same parameter; its mentions are those fields of the earlier outputs of those tools.

    Returns:
        The distinct values that fit; the reference means one thing when it is exactly its own.
    """
    if bridged is not None:
        return {
            format_value(value)
            for step in earlier
            if step.tool in bridged and (value := dig(step.output, bridged[step.tool])) is not None
        }
    head = kind.split()[-1]
    found = {format_value(v) for n, v in here if n.split()[-1] == head}
    says = re.compile(rf"\b{re.escape(head)}(?:s|es)?\b")
    for step in earlier:
        found.update(format_value(v) for n, v in step.named if n.split()[-1] == head)
        if says.search(step.sentence):
            found.update(format_value(v) for v in leaves(step.output) if shape(v) in shapes)
    return found


def is_anchored(
    value: Any,
    kind: str,
    shapes: Collection[str],
    earlier: Sequence[Said],
    here: Sequence[tuple[str, Any]] = (),
    bridged: Mapping[str, str] | None = None,
) -> bool:
    """Whether exactly one earlier mention fits a reference to ``value``: the value itself (see `anchors`)."""
    return anchors(kind, shapes, earlier, here, bridged) == {format_value(value)}
