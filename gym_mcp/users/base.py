"""The user interface every backend implements, and what a user can see of the episode.

A `User` is stateless between calls: everything it needs is in the `UserView` (the task, the
conversation, the calls and its own earlier `UserTurn`s), so an episode snapshot, restore or
fork needs nothing from it, and one user object can serve many environments at once.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gym_mcp.episode import CallRecord, UserTurn, UserTurnKind
from gym_mcp.rewards.dialogue import same_value
from gym_mcp.tasks import Task

__all__ = ["User", "UserReply", "UserView", "call_done", "progress", "stage_done"]


@dataclass(frozen=True)
class UserReply:
    """What a user says to one agent message.

    Attributes:
        text: The words (the agent's next observation).
        kind: What the reply does (see `UserTurn.kind`).
        stop: The user ends the dialogue (satisfied, or giving up).
        slot: For an answer, the parameter whose value it gives.
        needless: The agent asked for something already said.
        guards: Guards against simulator failures that this reply hit.
    """

    text: str
    kind: UserTurnKind = "other"
    stop: bool = False
    slot: str | None = None
    needless: bool = False
    guards: tuple[str, ...] = ()


@dataclass(frozen=True)
class UserView:
    """What the user sees when the agent writes to it.

    Attributes:
        task: The task (the user's scenario is ``task.scenario()``).
        message: The agent's message.
        messages: The conversation so far (OpenAI format, the agent's message last).
        calls: Every call the agent attempted (the user sees their effects, not their text).
        turns: The user's earlier replies.
        step: The step of the agent's message.
    """

    task: Task
    message: str
    messages: Sequence[Mapping[str, Any]]
    calls: Sequence[CallRecord]
    turns: Sequence[UserTurn]
    step: int


class User(ABC):
    """A simulated user: opens the dialogue, then answers each agent message.

    Subclasses implement `reply`; the opening message is the first stage's request.
    """

    name: str = "user"

    def opening(self, task: Task) -> str:
        """The first message of the dialogue (the task's opening request)."""
        return task.scenario().stages[0].request

    @abstractmethod
    async def reply(self, view: UserView) -> UserReply:
        """Answer the agent's message. Must not raise: failures become a reply with ``guards``."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release what the user holds (an HTTP client)."""


def _holds_all(arguments: Any, wanted: Mapping[str, Any]) -> bool:
    if not isinstance(arguments, Mapping):
        return False
    return all(k in arguments and same_value(arguments[k], v) for k, v in wanted.items())


def call_done(call: Mapping[str, Any], calls: Sequence[CallRecord]) -> bool:
    """Whether a reference call was made with its arguments (extra ones allowed) and succeeded."""
    args = dict(call.get("arguments", {}))
    return any(c.ok and c.name == call["name"] and _holds_all(c.arguments, args) for c in calls)


def stage_done(task: Task, stage: int, calls: Sequence[CallRecord]) -> bool:
    """Whether every reference call of ``stage`` is done (`call_done`)."""
    scenario = task.scenario()
    return all(call_done(task.reference_calls[i], calls) for i in scenario.calls_of(stage))


def progress(view: UserView) -> tuple[int, bool]:
    """``(stage, done)``: the last request the user made (0-based) and whether its calls are done."""
    stage = sum(t.kind == "reveal" for t in view.turns)
    return stage, stage_done(view.task, stage, view.calls)
