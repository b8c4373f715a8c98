"""Settings of an environment, and where its tasks come from."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from gym_mcp.errors import ConfigError, TaskError
from gym_mcp.tasks import Task, load_tasks

__all__ = ["TASK_ORDERS", "EnvConfig", "TaskOrder", "TaskSource", "check_task_order", "coerce_tasks"]

TaskSource = str | os.PathLike[str] | Sequence[Task] | Sequence[Mapping[str, Any]] | None
"""Where an environment's tasks come from: a JSONL path, tasks, task dicts, or None (free play)."""

TaskOrder = Literal["random", "sequential"]
"""How a ``reset()`` that names no task picks one: drawn from the env's seeded generator, or the next in order."""

TASK_ORDERS: tuple[TaskOrder, ...] = ("random", "sequential")
"""The values of ``task_order``."""


@dataclass(frozen=True)
class EnvConfig:
    """Settings of an environment (all have defaults).

    Attributes:
        max_steps: Steps before the episode is truncated.
        call_timeout: Seconds a tool call may take.
        max_action_chars: Longest action accepted (longer ones are an error observation).
        max_observation_chars: Longest observation; longer tool output is cut with a note.
        max_calls_per_step: Most calls one action may make.
        max_user_turns: With a simulated user, its replies before the episode is truncated.
        max_steps_per_turn: With a simulated user, the agent's steps between two user messages
            before the episode is truncated.
    """

    max_steps: int = 20
    call_timeout: float = 30.0
    max_action_chars: int = 32_000
    max_observation_chars: int = 16_000
    max_calls_per_step: int = 8
    max_user_turns: int = 10
    max_steps_per_turn: int = 10

    def __post_init__(self) -> None:
        for name in ("max_steps", "max_action_chars", "max_observation_chars", "max_calls_per_step"):
            _check_int(name, getattr(self, name))
        _check_int("max_user_turns", self.max_user_turns)
        _check_int("max_steps_per_turn", self.max_steps_per_turn)
        timeout = self.call_timeout
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not math.isfinite(timeout):
            raise ConfigError(f"call_timeout must be a finite number of seconds, got {timeout!r}")
        if self.max_calls_per_step < 1:
            raise ConfigError(f"max_calls_per_step must be at least 1, got {self.max_calls_per_step}")
        if self.max_steps < 1:
            raise ConfigError(f"max_steps must be at least 1, got {self.max_steps}")
        if self.call_timeout <= 0:
            raise ConfigError(f"call_timeout must be positive, got {self.call_timeout}")
        if self.max_user_turns < 1 or self.max_steps_per_turn < 1:
            raise ConfigError("max_user_turns and max_steps_per_turn must be at least 1")
        if self.max_observation_chars < 256 or self.max_action_chars < 256:
            raise ConfigError("max_observation_chars and max_action_chars must be at least 256")


def _check_int(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name} must be an integer, got {value!r}")


def check_task_order(value: object) -> TaskOrder:
    """``value`` if it is a valid ``task_order`` (``"random"`` or ``"sequential"``).

    Raises:
        ConfigError: Any other value.
    """
    if not isinstance(value, str) or value not in TASK_ORDERS:
        raise ConfigError(f"task_order must be one of {', '.join(map(repr, TASK_ORDERS))}, got {value!r}")
    return value


def _free_play_task(server: str) -> Task:
    return Task(
        id=f"{server}-free-play",
        server=server,
        instruction=(
            f"You are connected to the {server} service through its tools. Explore it and answer "
            "with a short summary of what you found."
        ),
    )


def coerce_tasks(tasks: TaskSource, server: str) -> list[Task]:
    """The tasks of ``tasks`` (a free-play task for ``server`` when None).

    Raises:
        TaskError: An empty list, or a task that does not parse.
    """
    if tasks is None:
        return [_free_play_task(server)]
    if isinstance(tasks, str | os.PathLike):
        return load_tasks(tasks)
    out = [t if isinstance(t, Task) else Task.from_dict(t) for t in tasks]
    if not out:
        raise TaskError("the task list is empty")
    return out
