"""Environments: the episode core shared by every environment, and its async and Gymnasium faces.

- `AsyncMCPEnv` / `MCPEnv`: an environment over MCP servers (bundled, third-party or composed);
- `make_external_env`: the entry point of ``gym_mcp/External-v0``;
- `EpisodeCore` / `SyncEnv`: what the MCP and BFCL environments share;
- `EnvConfig`, `UnicodeText`: settings and the text spaces.
"""

from __future__ import annotations

from gym_mcp.env.config import EnvConfig, TaskSource
from gym_mcp.env.core import EpisodeCore, EpisodeSnapshot
from gym_mcp.env.external import make_external_env
from gym_mcp.env.mcp import AsyncMCPEnv, MCPEnv, MCPEpisodeSnapshot
from gym_mcp.env.spaces import UnicodeText
from gym_mcp.env.sync import SyncEnv

__all__ = [
    "AsyncMCPEnv",
    "EnvConfig",
    "EpisodeCore",
    "EpisodeSnapshot",
    "MCPEnv",
    "MCPEpisodeSnapshot",
    "SyncEnv",
    "TaskSource",
    "UnicodeText",
    "make_external_env",
]
