"""The `Policy` interface: what plays an environment."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

from gym_mcp.tasks import Task

__all__ = ["Policy"]


class Policy(ABC):
    """Plays episodes: `reset` at the start of each, then `act` until the episode ends."""

    name: str = "policy"

    def reset(self, task: Task, info: Mapping[str, Any], *, seed: int | None = None) -> None:  # noqa: B027
        """Start an episode of ``task`` (``info`` is what `env.reset` returned)."""

    @abstractmethod
    def act(self, observation: str, info: Mapping[str, Any]) -> Any:
        """The next action."""

    def close(self) -> None:  # noqa: B027
        """Release resources (HTTP clients, models)."""
