"""The user of a dialogue task: who they are, what they want, what they know, and when they say it.

A `Task` may carry a `UserScenario`. The episode then is a conversation: the user opens with
the first request, an agent reply that holds no tool call is a message to the user, and the
user answers it (`gym_mcp.users`). The scenario says everything a simulated user needs, and
nothing the agent sees: the agent sees only what the user says.

- ``slots``: the values the user holds, one per argument of the reference calls that the user
  (not an earlier tool output) supplies. A slot that is not ``said`` was left out of the
  requests: the agent has to ask for it.
- ``stages``: the requests in the order the user reveals them; the first is the opening message
  (the task's instruction), each later one comes only once the calls of the one before are done.
- ``revise``: a change of mind: when the agent first asks to confirm, the user changes these
  slots from the value in the request to the value in the reference calls.
- ``confirm``: reference calls (by index) that the user must confirm before they are made;
  making one without a ``yes`` first fails the task even when the final state matches.
- ``turns``: the reference dialogue, the agent's side: tool calls and messages to the user,
  which, played against the scripted user from the task's initial state, complete the task.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, Strict, field_validator

__all__ = [
    "DIALOGUE_KINDS",
    "Slot",
    "Stage",
    "UserScenario",
    "confirmation_note",
    "format_value",
    "needs_confirmation",
    "noun",
]

DIALOGUE_KINDS = ("missing_param", "staged", "change_of_mind", "confirmation")
"""The variants of synthesized dialogue tasks (a task's ``variant``)."""

_Str = Annotated[str, Strict()]
_Text = Annotated[str, Strict(), Field(pattern=r"\S")]  # a string with something in it
_Index = Annotated[int, Strict(), Field(ge=0)]
_TURN_MESSAGE = "must be a {name, arguments} call or a {say: text} message"


def format_value(value: Any) -> str:
    """How a value reads in an instruction (``25.0`` -> ``25``, lists joined with "and")."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))
    if isinstance(value, list | tuple):
        items = [format_value(v) for v in value]
        if len(items) <= 1:
            return "".join(items)
        return ", ".join(items[:-1]) + " and " + items[-1]
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def noun(param: str) -> str:
    """A parameter as a noun: ``from_account_id`` -> ``account``, ``event_id`` -> ``event``."""
    words = param.split("_")
    if words and words[-1] in ("id", "ids"):
        words = words[:-1]
    prefixes = {"from", "to", "acting", "source", "target", "new", "old"}
    while len(words) > 1 and words[0] in prefixes:
        words = words[1:]
    return " ".join(words) or param


class Slot(BaseModel):
    """One value the user holds.

    Attributes:
        param: The argument it fills (``"from_account_id"``).
        value: Its value, as the reference call passes it.
        call: The index of the reference call it belongs to.
        said: Whether a request already states it (False: the agent must ask).
        was: For a change of mind, the value the request first stated (None otherwise).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    param: _Text
    value: Any
    call: _Index = 0
    said: Annotated[bool, Strict()] = True
    was: Any = None


class Stage(BaseModel):
    """One request of the user.

    Attributes:
        request: What the user says to make it (the first stage's is the opening message).
        calls: How many of the reference calls, counted on from the previous stage's, serve it.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    request: _Text
    calls: _Index


class UserScenario(BaseModel):
    """The user of a dialogue task (see the module docstring).

    Attributes:
        persona: Who the user is, in a sentence (for LLM users).
        slots: The values the user holds.
        stages: The requests, in the order the user reveals them (at least one).
        confirm: Indices of reference calls the user must confirm first.
        turns: The reference dialogue, agent side: ``{"name", "arguments"}`` calls and
            ``{"say": text}`` messages.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    persona: _Str = "A customer who wants the request done and answers questions briefly."
    slots: tuple[Slot, ...] = ()
    stages: tuple[Stage, ...] = Field(min_length=1)
    confirm: tuple[_Index, ...] = ()
    turns: tuple[Mapping[str, Any], ...] = ()

    @field_validator("turns")
    @classmethod
    def _check_turns(cls, turns: tuple[Mapping[str, Any], ...]) -> tuple[Mapping[str, Any], ...]:
        for i, turn in enumerate(turns):
            if "say" in turn:
                say = turn["say"]
                ok = set(turn) == {"say"} and isinstance(say, str) and bool(say.strip())
            else:
                name = turn.get("name")
                ok = (
                    set(turn) <= {"name", "arguments"}
                    and isinstance(name, str)
                    and bool(name.strip())
                    and isinstance(turn.get("arguments", {}), Mapping)
                )
            if not ok:
                shown = json.dumps(turn, default=str, ensure_ascii=False)
                shown = shown if len(shown) <= 80 else shown[:77] + "..."
                raise ValueError(f"user.turns[{i}] {_TURN_MESSAGE}, got {shown}")
        return turns

    @property
    def withheld(self) -> tuple[Slot, ...]:
        """The slots no request states: the agent has to ask for them."""
        return tuple(s for s in self.slots if not s.said)

    @property
    def revised(self) -> tuple[Slot, ...]:
        """The slots the user changes their mind about."""
        return tuple(s for s in self.slots if s.was is not None)

    def stage_of(self, call: int) -> int:
        """The stage that reference call ``call`` serves."""
        end = 0
        for i, stage in enumerate(self.stages):
            end += stage.calls
            if call < end:
                return i
        return len(self.stages) - 1

    def calls_of(self, stage: int) -> range:
        """The indices of the reference calls that serve ``stage``."""
        start = sum(s.calls for s in self.stages[:stage])
        return range(start, start + self.stages[stage].calls)


_RULE = re.compile(r"^(\w+) >= (\d+(?:\.\d+)?)$")


def needs_confirmation(rule: str | None, arguments: Mapping[str, Any]) -> bool:
    """Whether a call with these arguments needs the user's yes under a tool's confirmation rule.

    Args:
        rule: The tool's rule as its server serves it (``gym_mcp/confirm`` in the tool's
            metadata): ``"always"``, ``"<number parameter> >= N"``, or None (never).
        arguments: The call's arguments.
    """
    if not rule:
        return False
    if rule == "always":
        return True
    m = _RULE.match(rule)
    if m is None:
        return True  # a rule we cannot read: err on the side of asking
    value = arguments.get(m.group(1))
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return float(value) >= float(m.group(2))


def confirmation_note(rule: str) -> str:
    """The sentence put first in a tool's description when a user is present, from its rule.

    First, so that a prompt that shows only a description's first sentence still shows it.
    """
    m = _RULE.match(rule)
    if m is None:
        return "Ask the user to confirm before you call this: it cannot be undone."
    return f"Ask the user to confirm before you call this when {m.group(1)} is {m.group(2)} or more."
