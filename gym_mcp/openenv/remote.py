"""`OpenEnvGymEnv`: a Gymnasium environment whose episodes run on a gym-mcp OpenEnv server.

What runs an agent loop or a trainer against ``gym.make(...)`` runs unchanged against a server
started elsewhere (``gym-mcp serve-openenv NAME``, another venv, another machine): ``reset``
and ``step`` take and return what a local gym-mcp environment does (text or an OpenAI message
or a call dict in; the observation text, the reward, ``terminated``, ``truncated`` and ``info``
with ``tools``, ``messages`` and the counters out), over one OpenEnv WebSocket session.
This is the route TRL's rollouts take through OpenEnv (`gym_mcp.train.trl.environment_factory`
with ``openenv_url=``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, SupportsFloat

import gymnasium as gym

from gym_mcp.env.spaces import UnicodeText
from gym_mcp.openenv.client import GymMCPEnvClient
from gym_mcp.openenv.models import GymMCPAction, GymMCPObservation

__all__ = ["OpenEnvGymEnv"]


def _openai_tools(observation: GymMCPObservation) -> list[dict[str, Any]]:
    return [
        {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.input_schema}}
        for t in observation.tools or []
    ]


class OpenEnvGymEnv(gym.Env[str, Any]):
    """A gym-mcp environment served over OpenEnv, seen as a local Gymnasium environment.

    Args:
        base_url: The server (``http://127.0.0.1:8000``).
        token: Its bearer token, if it has one (default ``$GYM_MCP_TOKEN``).
        max_chars: The length bound of the text spaces.
    """

    metadata = {"render_modes": []}

    def __init__(self, base_url: str, *, token: str | None = None, max_chars: int = 32_000) -> None:
        self.base_url = base_url
        self._client = GymMCPEnvClient(base_url=base_url, token=token).sync()
        self._client.connect()
        self.observation_space = UnicodeText(max_chars)
        self.action_space = UnicodeText(max_chars)
        self._messages: list[dict[str, Any]] = []
        listed = self._client.step(GymMCPAction(type="list_tools")).observation
        self._tools = _openai_tools(listed)

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The agent's tools in OpenAI function format."""
        return self._tools

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Start an episode: ``options`` as a local environment takes them (``task``, ``task_id``, ``task_index``)."""
        super().reset(seed=seed)
        sent: dict[str, Any] = {}
        for key, value in (options or {}).items():
            sent[key] = value.to_dict() if key == "task" and hasattr(value, "to_dict") else value
        result = self._client.reset(seed=seed, options=sent or None)
        obs: GymMCPObservation = result.observation
        self._tools = _openai_tools(obs) or self._tools
        self._messages = list(obs.messages)
        return obs.text, self._info(obs)

    def step(self, action: Any) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        """Send one action (text, an OpenAI message, a call dict or a list of them); never raises for its content."""
        if not isinstance(action, str | Mapping | list | tuple):
            action = str(action)
        result = self._client.step(GymMCPAction(type="message", message=_plain(action)))
        obs: GymMCPObservation = result.observation
        self._messages.extend(obs.messages)
        return obs.text, float(obs.reward or 0.0), obs.terminated, obs.truncated, self._info(obs)

    def close(self) -> None:
        """End the session (the server's environment goes back to its pool)."""
        self._client.close()

    def _info(self, obs: GymMCPObservation) -> dict[str, Any]:
        return {**obs.metadata, "tools": self._tools, "messages": list(self._messages)}


def _plain(action: Any) -> Any:
    """An action the wire can carry: a list of calls becomes one assistant message with those calls."""
    if isinstance(action, list | tuple):
        return {"role": "assistant", "content": None, "tool_calls": [_as_tool_call(a, i) for i, a in enumerate(action)]}
    return action if isinstance(action, str) else dict(action)


def _as_tool_call(call: Any, i: int) -> Any:
    import json

    if isinstance(call, Mapping) and "function" in call:
        return dict(call)
    if isinstance(call, Mapping):
        arguments = call.get("arguments", {})
        return {
            "id": f"call_{i}",
            "type": "function",
            "function": {
                "name": call.get("name"),
                "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
            },
        }
    return call
