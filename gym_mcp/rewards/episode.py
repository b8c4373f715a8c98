"""What reward functions see: the finished `Episode` and its `CallRecord`s."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gym_mcp.tasks import Task

__all__ = ["CallRecord", "Episode", "RewardFn"]


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
        truncated: The episode hit ``max_steps``.
    """

    task: Task
    calls: tuple[CallRecord, ...]
    messages: tuple[Mapping[str, Any], ...]
    final_answer: str | None
    final_fingerprint: str
    terminated: bool
    truncated: bool
    extra: Mapping[str, Any] = field(default_factory=dict)


RewardFn = Callable[[Episode], float]
