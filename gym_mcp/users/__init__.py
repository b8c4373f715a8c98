"""Simulated users: the other side of a dialogue task (the MUA-RL recipe).

With a user, an episode is a conversation: the user opens with its first request, an agent reply
without a tool call is a message to the user, and the user's reply is the next observation. The
user ends the dialogue when it is satisfied or gives up; the episode is then judged on the final
state (and what the task asks of the dialogue: values asked for, actions confirmed).

- `ScriptedUser`: deterministic, from the task's `UserScenario` (``user="scripted"``);
- `LLMUser`: any OpenAI-compatible chat model (``user="openai:http://127.0.0.1:8000/v1"``), with
  guards against the known failures of simulated users, each counted in ``info["user"]``;
- `User`: the interface; any object implementing it can be passed as ``user=``.

Modules: `base` (the interface, the view of the episode a user gets, how far the requests are),
`scripted`, `llm`, `text` (the word rules both use).
"""

from __future__ import annotations

from gym_mcp.errors import ConfigError
from gym_mcp.users.base import User, UserReply, UserView, progress, stage_done
from gym_mcp.users.llm import FALLBACK, LLMUser
from gym_mcp.users.scripted import ScriptedUser

__all__ = [
    "FALLBACK",
    "LLMUser",
    "ScriptedUser",
    "User",
    "UserReply",
    "UserSpec",
    "UserView",
    "make_user",
    "progress",
    "stage_done",
]

UserSpec = User | str | None
"""How a user is given: a `User`, ``"scripted"``, ``"openai:URL"`` (``"openai:URL@model"``), or None."""


def make_user(spec: UserSpec, *, api_key: str | None = None) -> User | None:
    """The user a spec names.

    Args:
        spec: A `User` (returned as is), ``"scripted"``, ``"openai:URL"`` or
            ``"openai:URL@model"`` (an LLM user over that endpoint), or None (no user).
        api_key: For an LLM user: the bearer token its endpoint needs (``gym-mcp eval --user``
            passes ``$OPENAI_API_KEY``).

    Returns:
        The user, or None.

    Raises:
        ConfigError: The spec names no known user.
    """
    if spec is None or isinstance(spec, User):
        return spec
    if spec == "scripted":
        return ScriptedUser()
    if isinstance(spec, str) and spec.startswith("openai:"):
        url, _, model = spec.removeprefix("openai:").partition("@")
        return LLMUser(url, model or "default", api_key=api_key)
    raise ConfigError(f"user must be 'scripted', 'openai:URL' or a User object, got {spec!r}")
