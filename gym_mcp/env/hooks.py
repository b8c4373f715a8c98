"""`CallHook`: what an environment asks, at reset and around each call, of whatever perturbs it.

The environment owns its conversation, its tools and its calls; a hook only answers its
questions: which tools and which instruction the agent is shown, which server tool a call the
agent made means, whether to answer a call in the server's place, and what the agent reads of a
result. `gym_mcp.wrappers.Perturb` installs one through the environment's public
``set_call_hook``; forks of an episode get the hook's own `fork`, so they stay perturbed the same
way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from mcp.types import Tool

from gym_mcp.tasks import Task

__all__ = ["CallHook"]


class CallHook(Protocol):
    """The questions an environment asks the wrapper that perturbs it.

    At ``reset``, once the task is chosen and its state restored, the environment calls `start`,
    then shows the agent `present_tools` of its own tools and `present_instruction` of the
    opening message (which it records in its conversation). At every call the agent makes, it
    maps the call with `route_call`, asks `before_call` whether to answer in the server's
    place, and passes the server's answer through `after_call`.
    """

    def start(self, task: Task, tools: list[dict[str, Any]], server_tools: Mapping[str, Tool]) -> None:
        """An episode of ``task`` begins.

        Args:
            task: The episode's task.
            tools: The environment's own tools, in OpenAI function format.
            server_tools: The MCP tools behind them, by the names the agent sees (their
                annotations say which only read).
        """
        ...

    def present_instruction(self, text: str) -> str:
        """The opening message the agent is shown for the environment's ``text``."""
        ...

    def present_tools(self, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The tools the agent is shown for the environment's ``tools``."""
        ...

    def route_call(self, tool: str, arguments: Any) -> tuple[str, Any]:
        """The environment's name and arguments for a call the agent made."""
        ...

    def before_call(self, tool: str, arguments: Any) -> str | None:
        """An error text to return instead of calling the server, or None to call it."""
        ...

    def after_call(self, tool: str, arguments: Any, output: str, is_error: bool) -> str:
        """The text the agent reads for the server's ``output``."""
        ...

    def fork(self) -> CallHook:
        """A copy for a forked environment."""
        ...
