"""gym-mcp: Gymnasium environments over live MCP servers.

Importing the package registers one environment per bundled server::

    import gymnasium as gym
    import gym_mcp

    env = gym.make("gym_mcp/Banking-v0", transport="stdio", tasks="tasks.jsonl")
    obs, info = env.reset(seed=0)
"""

from __future__ import annotations

import gymnasium as gym

from gym_mcp._connection import Launch, LiveConnection, ToolResult, free_port
from gym_mcp._env import AsyncMCPEnv, EnvConfig, EpisodeSnapshot, MCPEnv
from gym_mcp._external import ComposedSource, ExternalSource, NullState
from gym_mcp._live import BundledSource, LiveServer, ServerPool, ServerSource, get_pool
from gym_mcp._spaces import UnicodeText
from gym_mcp._state import (
    CompositeState,
    DirectoryState,
    GroupDiff,
    JSONFileState,
    Snapshot,
    SQLiteState,
    StateBackend,
    StateDiff,
)
from gym_mcp.errors import GymMCPError
from gym_mcp.parsing import ParsedAction, ToolCall
from gym_mcp.rewards import CallRecord, Episode, RewardFn, state_match
from gym_mcp.spec import ServerSpec, load_spec, make_external_env
from gym_mcp.tasks import Task, load_tasks, save_tasks

__version__ = "0.1.0"

__all__ = [
    "BFCL_ID",
    "ENV_IDS",
    "EXTERNAL_ID",
    "AsyncMCPEnv",
    "BundledSource",
    "CallRecord",
    "ComposedSource",
    "CompositeState",
    "DirectoryState",
    "EnvConfig",
    "Episode",
    "EpisodeSnapshot",
    "ExternalSource",
    "GroupDiff",
    "GymMCPError",
    "JSONFileState",
    "Launch",
    "LiveConnection",
    "LiveServer",
    "MCPEnv",
    "NullState",
    "ParsedAction",
    "RewardFn",
    "SQLiteState",
    "ServerPool",
    "ServerSource",
    "ServerSpec",
    "Snapshot",
    "StateBackend",
    "StateDiff",
    "Task",
    "ToolCall",
    "ToolResult",
    "UnicodeText",
    "__version__",
    "env_id",
    "free_port",
    "get_pool",
    "load_spec",
    "load_tasks",
    "make_external_env",
    "save_tasks",
    "state_match",
]


def env_id(server: str) -> str:
    """The Gymnasium id of a bundled server's environment, e.g. ``gym_mcp/Banking-v0``."""
    return f"gym_mcp/{server.capitalize()}-v0"


def _register() -> list[str]:
    from gym_mcp.servers import BUNDLED
    from gym_mcp.spec import env_name, saved_specs

    ids = []
    for name in BUNDLED:
        eid = env_id(name)
        if eid not in gym.registry:
            gym.register(id=eid, entry_point="gym_mcp._env:MCPEnv", kwargs={"server": name})
        ids.append(eid)
    if EXTERNAL_ID not in gym.registry:
        gym.register(id=EXTERNAL_ID, entry_point="gym_mcp.spec:make_external_env")
    if BFCL_ID not in gym.registry:  # needs the [bfcl] extra; nothing of BFCL is imported until made
        gym.register(id=BFCL_ID, entry_point="gym_mcp.bfcl._env:BFCLMultiTurnEnv")
    for name, path in saved_specs().items():  # specs saved with `gym-mcp envs add`
        eid = env_name(name)
        if eid not in gym.registry:
            gym.register(id=eid, entry_point="gym_mcp.spec:make_external_env", kwargs={"spec": str(path)})
    return ids


EXTERNAL_ID = "gym_mcp/External-v0"
"""Id of the generic environment over any MCP server (``command=``, ``url=``, ``spec=``, ``servers=``)."""


BFCL_ID = "gym_mcp/BFCL-MultiTurn-v0"
"""Id of the BFCL v3 multi-turn environment (``category=``, ``entry=``; see `gym_mcp.bfcl`)."""

ENV_IDS: list[str] = _register()
"""Ids of the registered bundled environments."""
