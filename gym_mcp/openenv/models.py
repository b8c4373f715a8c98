"""The wire types of a gym-mcp environment served over OpenEnv: action, observation and state.

They extend OpenEnv's own ``Action``, ``Observation`` and ``State`` (pydantic models), and keep
the shape OpenEnv's MCP clients read: an action ``{"type": "call_tool", "tool_name": ...,
"arguments": {...}}`` is a tool call, ``{"type": "list_tools"}`` lists the tools, and an
observation that answers a call carries ``tool_name``, ``result`` and ``error`` as OpenEnv's
``CallToolObservation`` does, so `openenv.core.mcp_client.MCPToolClient` drives a gym-mcp
environment unchanged. What OpenEnv's MCP actions cannot say, gym-mcp's own action type says:
``{"type": "message", "message": ...}`` is a whole assistant turn (an OpenAI assistant message
with ``tool_calls``, or text that gym-mcp parses as it parses any action), and text without a
call is the final answer (or, with a simulated user, the reply to the user).

Observations leave out the keys that do not apply (``tools`` is only in the reset and list
observations, ``tool_name``/``result``/``error`` only in the answer to one call): OpenEnv's MCP
client tells the kinds apart by which keys are present.
"""

from __future__ import annotations

from typing import Any, Literal

from openenv.core.env_server.mcp_types import Tool, ToolError
from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field

__all__ = ["GymMCPAction", "GymMCPObservation", "GymMCPState"]

_OPTIONAL_KEYS = ("tools", "tool_name", "result", "error")


class GymMCPAction(Action):
    r"""One agent action: a tool call, a whole assistant turn, or a request for the tool list.

    Examples (the JSON a client sends as the step's ``action``)::

        {"type": "call_tool", "tool_name": "get_balance", "arguments": {"account_id": "A-1001"}}
        {"type": "message", "message": {"role": "assistant", "content": "Done: 120.50 EUR."}}
        {"type": "message", "message": "<tool_call>{\"name\": ...}</tool_call>"}
        {"type": "list_tools"}
    """

    type: Literal["call_tool", "message", "list_tools"] = Field(
        default="message", description="What the action is: one tool call, a whole assistant turn, or list the tools"
    )
    tool_name: str | None = Field(default=None, description="With type=call_tool: the tool to call")
    arguments: dict[str, Any] = Field(default_factory=dict, description="With type=call_tool: the call's arguments")
    message: dict[str, Any] | str | None = Field(
        default=None,
        description=(
            "With type=message: an OpenAI assistant message (content and/or tool_calls), or text "
            "(tool calls written as the model writes them, or the final answer)"
        ),
    )


class GymMCPObservation(Observation):
    """What the agent reads after a reset or a step, plus the episode's progress.

    ``text`` is what the environment answers (the user's request at reset, the tool result, the
    simulated user's reply); ``messages`` the messages this reset or step added to the
    conversation, in OpenAI chat format (a client keeps the conversation by appending them);
    ``reward`` is the episode's reward on its last step (0 before); ``metadata`` holds the
    counters ``info`` holds in Gymnasium (``task_id``, ``num_calls``, ``invalid_calls``,
    ``step``, and at the end ``reward_terms``, ``state_match``).
    """

    text: str = Field(default="", description="What the environment answered, as the agent reads it")
    messages: list[dict[str, Any]] = Field(
        default_factory=list, description="The messages this reset or step added to the conversation (OpenAI format)"
    )
    terminated: bool = Field(default=False, description="The episode ended (final answer, or the user stopped)")
    truncated: bool = Field(default=False, description="The episode was cut off (a step limit, the server lost)")
    tools: list[Tool] | None = Field(default=None, description="The agent's tools (at reset and for list_tools)")
    tool_name: str | None = Field(default=None, description="The tool a call_tool action called")
    result: Any = Field(default=None, description="That call's result text")
    error: ToolError | None = Field(default=None, description="That call's error, when it failed")

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        """The model as a dict, without the optional keys that do not apply to this observation."""
        data = super().model_dump(**kwargs)
        for key in _OPTIONAL_KEYS:
            if key in data and data[key] is None:
                del data[key]
        return data


class GymMCPState(State):
    """The episode's state as training infrastructure reads it (never the agent).

    ``session`` is the capability for this session's infrastructure routes (snapshot, restore):
    whoever holds it, and the server's token where there is one, can save and restore this
    session's episode. It is not in any observation.
    """

    env_id: str = Field(default="", description="The gym-mcp environment id served")
    task_id: str | None = Field(default=None, description="The episode's task")
    session: str = Field(default="", description="This session's key for the infrastructure routes")
    terminated: bool = Field(default=False, description="The episode ended")
    truncated: bool = Field(default=False, description="The episode was cut off")
    reward: float = Field(default=0.0, description="The episode's reward (0 until it ends)")
    counters: dict[str, Any] = Field(default_factory=dict, description="The episode's counters")
