"""Environments: the episode core shared by every environment, and its async and Gymnasium faces.

- `AsyncMCPEnv` / `MCPEnv`: an environment over MCP servers (bundled, third-party or composed);
- `make_external_env`: the entry point of ``gym_mcp/External-v0``;
- `EpisodeCore` / `SyncEnv`: what the MCP and BFCL environments share;
- `ToolView`: which of a server's tools the agent sees, and under which names;
- `CallHook`: what an environment asks of whatever perturbs it (installed with ``set_call_hook``);
- `Conversation`: ``info["messages"]``, a view of the conversation so far;
- `EnvConfig`, `UnicodeText`: settings and the text spaces.

What a step did is public: ``info["calls"]`` (its `gym_mcp.episode.CallRecord`s),
``info["messages"]`` and ``env.unwrapped.episode()`` (the `gym_mcp.episode.Episode` the rewards
read). Nothing outside this package reaches into an environment's internals.
"""

from __future__ import annotations

from gym_mcp.env.config import EnvConfig, TaskSource
from gym_mcp.env.conversation import Conversation
from gym_mcp.env.core import EpisodeCore, EpisodeSnapshot
from gym_mcp.env.external import make_external_env
from gym_mcp.env.hooks import CallHook
from gym_mcp.env.mcp import AsyncMCPEnv, MCPEnv, MCPEpisodeSnapshot
from gym_mcp.env.spaces import UnicodeText
from gym_mcp.env.sync import SyncEnv
from gym_mcp.env.tools import ToolView

__all__ = [
    "AsyncMCPEnv",
    "CallHook",
    "Conversation",
    "EnvConfig",
    "EpisodeCore",
    "EpisodeSnapshot",
    "MCPEnv",
    "MCPEpisodeSnapshot",
    "SyncEnv",
    "TaskSource",
    "ToolView",
    "UnicodeText",
    "make_external_env",
]
