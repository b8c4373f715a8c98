"""What reward functions see: the finished `Episode`, its `CallRecord`s and `UserTurn`s."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gym_mcp.tasks import Task

__all__ = ["USER_TURN_KINDS", "CallRecord", "Episode", "RewardFn", "UserTurn"]


@dataclass(frozen=True)
class CallRecord:
    """One attempted tool call and what came of it.

    Attributes:
        name: Tool name as the agent sent it.
        arguments: Arguments as the agent sent them.
        output: What the agent was shown.
        status: ``"ok"``, ``"tool_error"`` (the tool ran and refused), ``"invalid"`` (never
            reached the server: unknown tool, bad arguments), ``"timeout"`` or ``"crash"``.
        step: The step the call was made in.
        known_name: The tool name exists in the environment.
        valid_arguments: The arguments passed the tool's schema (required keys, types).
    """

    name: str
    arguments: Any
    output: str
    status: str
    step: int
    known_name: bool = False
    valid_arguments: bool = False

    @property
    def ok(self) -> bool:
        """True when the call ran without error."""
        return self.status == "ok"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the arguments as the agent sent them, not copied)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


USER_TURN_KINDS = ("answer", "confirm", "refuse", "revise", "reveal", "unknown", "stop", "other")
"""What a user's reply did (`UserTurn.kind`)."""


@dataclass(frozen=True)
class UserTurn:
    """One reply of the simulated user, and what it did.

    Attributes:
        step: The step of the agent message it answers.
        text: What the user said (as the agent saw it).
        kind: ``"answer"`` (gave a value it holds), ``"confirm"`` (said yes to an action),
            ``"refuse"`` (said no), ``"revise"`` (changed its mind about a value), ``"reveal"``
            (made its next request), ``"unknown"`` (had nothing to say to the message),
            ``"stop"`` (ended the dialogue) or ``"other"``.
        slot: For an answer, the parameter whose value it gave.
        needless: The agent asked for something the user had already said.
        guards: The guards against simulator failures that this reply hit (LLM users).
    """

    step: int
    text: str
    kind: str
    slot: str | None = None
    needless: bool = False
    guards: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


@dataclass(frozen=True)
class Episode:
    """A finished (or truncated) episode, as reward functions see it.

    Attributes:
        task: The task.
        calls: Every attempted call, in order.
        messages: The conversation in OpenAI chat format.
        final_answer: The agent's closing text (None when truncated).
        final_fingerprint: Fingerprint of the server state at the end.
        terminated: The agent ended the episode with an answer.
        truncated: The episode hit a limit (``max_steps``, or a user limit).
        user_turns: The simulated user's replies, in order.
        with_user: The episode was a dialogue with a simulated user (the dialogue terms apply).
        extra: Anything else an environment reports.
    """

    task: Task
    calls: tuple[CallRecord, ...]
    messages: tuple[Mapping[str, Any], ...]
    final_answer: str | None
    final_fingerprint: str
    terminated: bool
    truncated: bool
    extra: Mapping[str, Any] = field(default_factory=dict)
    user_turns: tuple[UserTurn, ...] = ()
    with_user: bool = False


RewardFn = Callable[[Episode], float]
