"""Reading the agent's messages and the user's replies: questions, confirmations, values.

Deterministic word rules, shared by the scripted user (to decide what to answer) and the LLM
user's guards (to tell what a reply did). They are deliberately plain: a simulated user that
needs a model to understand "Shall I go ahead?" would be a second agent to debug.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from gym_mcp.tasks.dialogue import Slot, format_value, noun

__all__ = [
    "STOP",
    "asks_confirmation",
    "is_affirmative",
    "is_negative",
    "is_question",
    "mentions",
    "normalize",
    "slot_asked",
    "values_in",
]

STOP = "###STOP###"
"""What an LLM user writes to end the dialogue (tau2-bench's convention)."""

_QUESTION_OPENERS = re.compile(
    r"^\s*(which|what|who|whom|when|where|how|could you|can you|would you|please (provide|tell|confirm|share|specify)"
    r"|do you|did you|is it|are you|may i|should i|shall i)\b",
    re.IGNORECASE,
)
_ASKING = re.compile(
    r"\b(please (provide|tell|confirm|share|specify|let me know)|let me know|i need (to know|the|your))\b",
    re.IGNORECASE,
)
_CONFIRM = re.compile(
    r"\b(confirm|proceed|go ahead|(shall|should|can|may) i (go|proceed|continue|do (it|that|this))"
    r"|do you want me to|would you like me to|is that (right|correct|ok)|are you sure|ok to|okay to)\b",
    re.IGNORECASE,
)
_VALUE_QUESTION = re.compile(r"^\s*(which|what|who|whom|when|where|how)\b", re.IGNORECASE)
_YES = re.compile(
    r"^\s*(yes|yeah|yep|sure|ok|okay|correct|confirmed?|please do|please go ahead|go ahead|that'?s right|proceed)\b",
    re.IGNORECASE,
)
_NO = re.compile(r"^\s*(no|nope|don'?t|do not|wait|stop|cancel|not)\b", re.IGNORECASE)
_ID = re.compile(r"(?<![\w-])[A-Za-z]+[-_]?\d+(?![\w-])")
_NUMBER = re.compile(r"(?<![\w.-])\d+(?:,\d{3})*(?:\.\d+)?(?![\w])")


def normalize(text: str) -> str:
    """Lowercase, punctuation to spaces, whitespace collapsed."""
    return " ".join(re.sub(r"[^\w$.-]+", " ", text.lower()).split())


def is_question(text: str) -> bool:
    """Whether a message asks the user something (a question mark, or an asking phrase)."""
    return "?" in text or bool(_QUESTION_OPENERS.search(text) or _ASKING.search(text))


def asks_confirmation(text: str) -> bool:
    """Whether a message asks the user to approve an action ("Shall I go ahead?"), not for a value."""
    return is_question(text) and bool(_CONFIRM.search(text)) and not _VALUE_QUESTION.search(text)


def is_affirmative(text: str) -> bool:
    """Whether a reply says yes."""
    return bool(_YES.search(text)) and not is_negative(text)


def is_negative(text: str) -> bool:
    """Whether a reply says no."""
    return bool(_NO.search(text))


def values_in(text: str) -> tuple[set[str], set[float]]:
    """The id-like tokens (lowercased) and the numbers in a text."""
    ids = {m.group(0).lower() for m in _ID.finditer(text)}
    blanked = _ID.sub(" ", text)
    numbers = set()
    for m in _NUMBER.finditer(blanked):
        try:
            numbers.add(float(m.group(0).replace(",", "")))
        except ValueError:
            continue
    return ids, numbers


def mentions(text: str, value: Any) -> bool:
    """Whether ``text`` states ``value`` (ids and words as phrases, numbers numerically)."""
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, int | float):
        return float(value) in values_in(text)[1]
    if isinstance(value, list | tuple):
        return bool(value) and all(mentions(text, v) for v in value)
    wanted = normalize(format_value(value))
    return bool(wanted) and f" {wanted} " in f" {normalize(text)} "


def _words(param: str) -> list[str]:
    """How a message may name a parameter: its noun (``account type``) and its own name."""
    out = [noun(param).lower(), param.lower(), param.replace("_", " ").lower()]
    return list(dict.fromkeys(w for w in out if w))


def slot_asked(text: str, slots: Sequence[Slot], prefer: Iterable[int] = ()) -> Slot | None:
    """The slot a question asks for: its parameter named in the message.

    Args:
        text: The agent's message.
        slots: The user's slots.
        prefer: Indices of the slots to prefer when several are named (e.g. the withheld ones).

    Returns:
        The slot, or None when the message names none.
    """
    said = f" {normalize(text)} "
    named = [i for i, slot in enumerate(slots) if any(f" {w} " in said for w in _words(slot.param))]
    if not named:
        return None
    # The longest name wins ("account type" over "account"), then the preferred slots.
    best = max(len(max(_words(slots[i].param), key=len)) for i in named)
    longest = [i for i in named if any(len(w) == best and f" {w} " in said for w in _words(slots[i].param))]
    pool = longest or named
    preferred = [i for i in pool if i in set(prefer)]
    return slots[(preferred or pool)[0]]
