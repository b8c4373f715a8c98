"""gym-mcp: Gymnasium environments over live MCP servers.

Importing the package registers one environment per bundled server::

    import gymnasium as gym
    import gym_mcp

    env = gym.make("gym_mcp/Banking-v0", transport="stdio", tasks="tasks.jsonl")
    obs, info = env.reset(seed=0)

The names below are re-exported lazily (PEP 562): ``import gym_mcp`` loads none of the
environment, reward or state code until a name is used, and a bundled server process
(``python -m gym_mcp.servers.<name>``) skips the Gymnasium registration altogether, so it
imports only mcp, SQLAlchemy and its own package.

The rooms of the house (one subpackage per concept; see ``docs/architecture.md``):
`gym_mcp.state` (snapshots and diffs), `gym_mcp.transport` (client connections by transport),
`gym_mcp.live` (server provisioning: sources, the warm pool), `gym_mcp.specs` (spec files),
`gym_mcp.sessions` (a session per environment on one server), `gym_mcp.env` (the episode core
and its faces), `gym_mcp.actions` (parsing and argument checks), `gym_mcp.tasks`,
`gym_mcp.rewards`, `gym_mcp.policies`, `gym_mcp.evaluation`, `gym_mcp.wrappers`, `gym_mcp.cli`,
`gym_mcp.bfcl`; bundled servers in `gym_mcp.servers`, task synthesis in `gym_mcp.synth`,
training in `gym_mcp.train`.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# name -> the module that defines it
_EXPORTS: dict[str, str] = {
    "AsyncMCPEnv": "gym_mcp.env.mcp",
    "BundledSource": "gym_mcp.live.sources",
    "CallRecord": "gym_mcp.episode",
    "ComposedSource": "gym_mcp.live.sources",
    "CompositeState": "gym_mcp.state.composite",
    "DirectoryState": "gym_mcp.state.directory",
    "EnvConfig": "gym_mcp.env.config",
    "Episode": "gym_mcp.episode",
    "EpisodeSnapshot": "gym_mcp.env.core",
    "ExternalSource": "gym_mcp.live.sources",
    "GroupDiff": "gym_mcp.state.base",
    "GymMCPError": "gym_mcp.errors",
    "InMemoryStateWarning": "gym_mcp.errors",
    "check_reset": "gym_mcp.synth.statecheck",
    "JSONFileState": "gym_mcp.state.jsonfile",
    "Launch": "gym_mcp.transport.launch",
    "LiveConnection": "gym_mcp.transport.connection",
    "LiveServer": "gym_mcp.live.live_server",
    "MCPEnv": "gym_mcp.env.mcp",
    "NullState": "gym_mcp.state.null",
    "ParsedAction": "gym_mcp.actions.parsing",
    "RewardFn": "gym_mcp.episode",
    "SQLiteState": "gym_mcp.state.sqlite",
    "ServerPool": "gym_mcp.live.warm_pool",
    "ServerSource": "gym_mcp.live.live_server",
    "ServerSpec": "gym_mcp.specs.spec",
    "Snapshot": "gym_mcp.state.base",
    "StateBackend": "gym_mcp.state.base",
    "StateDiff": "gym_mcp.state.base",
    "Task": "gym_mcp.tasks.task",
    "ToolCall": "gym_mcp.actions.parsing",
    "ToolResult": "gym_mcp.transport.results",
    "UnicodeText": "gym_mcp.env.spaces",
    "free_port": "gym_mcp.transport.launch",
    "get_pool": "gym_mcp.live.warm_pool",
    "load_spec": "gym_mcp.specs.spec",
    "load_tasks": "gym_mcp.tasks.task",
    "make_external_env": "gym_mcp.env.external",
    "replay": "gym_mcp.playback",
    "save_tasks": "gym_mcp.tasks.task",
    "state_match": "gym_mcp.rewards.outcome",
}

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
    "InMemoryStateWarning",
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
    "check_reset",
    "env_id",
    "free_port",
    "get_pool",
    "load_spec",
    "load_tasks",
    "make_external_env",
    "register_envs",
    "replay",
    "save_tasks",
    "server_names",
    "state_match",
]

EXTERNAL_ID = "gym_mcp/External-v0"
"""Id of the generic environment over any MCP server (``command=``, ``url=``, ``spec=``, ``servers=``)."""

BFCL_ID = "gym_mcp/BFCL-MultiTurn-v0"
"""Id of the BFCL v3 multi-turn environment (``category=``, ``entry=``; see `gym_mcp.bfcl`)."""

ENV_IDS: list[str] = []
"""Ids of the registered bundled environments."""


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'gym_mcp' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this hook
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


def env_id(server: str) -> str:
    """The Gymnasium id of a bundled server's environment, e.g. ``gym_mcp/Banking-v0``.

    Words of a snake_case name are capitalized and joined (``team_chat`` -> ``TeamChat``);
    acronyms keep their usual spelling (``crm`` -> ``CRM``, ``iot_devices`` -> ``IoTDevices``).
    """
    name = "".join(_ACRONYMS.get(w, w.capitalize()) for w in server.split("_"))
    return f"gym_mcp/{name}-v0"


_ACRONYMS = {"crm": "CRM", "iot": "IoT"}


def server_names() -> list[str]:
    """The names `env_id` takes: the bundled servers', then the compositions' (``"banking"``, ``"shop_bank"``)."""
    from gym_mcp.servers import BUNDLED
    from gym_mcp.servers.compositions import COMPOSITIONS

    return [*BUNDLED, *COMPOSITIONS]


def _server_process() -> bool:
    """True in a process started as ``python -m gym_mcp.servers.<name>`` (a bundled server)."""
    argv = list(getattr(sys, "orig_argv", ()))
    if "-m" not in argv[:-1]:
        return False
    return argv[argv.index("-m") + 1].startswith("gym_mcp.servers")


def register_envs() -> list[str]:
    """Register the bundled, composed, External, BFCL and saved-spec environments with Gymnasium.

    ``import gym_mcp`` calls it (except in a bundled server's own process); calling it again
    registers specs saved since. Returns the ids of the bundled servers' and compositions' environments.
    """
    import gymnasium as gym

    from gym_mcp.specs.spec import env_name, saved_specs

    ids = []
    for name in server_names():
        eid = env_id(name)
        if eid not in gym.registry:
            gym.register(id=eid, entry_point="gym_mcp.env.mcp:MCPEnv", kwargs={"server": name})
        ids.append(eid)
    if EXTERNAL_ID not in gym.registry:
        gym.register(id=EXTERNAL_ID, entry_point="gym_mcp.env.external:make_external_env")
    if BFCL_ID not in gym.registry:  # needs the [bfcl] extra; nothing of BFCL is imported until made
        gym.register(id=BFCL_ID, entry_point="gym_mcp.bfcl.env:BFCLMultiTurnEnv")
    for name, path in saved_specs().items():  # specs saved with `gym-mcp envs add`
        eid = env_name(name)
        if eid not in gym.registry:
            gym.register(id=eid, entry_point="gym_mcp.env.external:make_external_env", kwargs={"spec": str(path)})
    ENV_IDS[:] = ids
    return ids


if TYPE_CHECKING:  # for type checkers and IDEs: the lazy names, imported eagerly
    from gym_mcp.actions.parsing import ParsedAction, ToolCall
    from gym_mcp.env.config import EnvConfig
    from gym_mcp.env.core import EpisodeSnapshot
    from gym_mcp.env.external import make_external_env
    from gym_mcp.env.mcp import AsyncMCPEnv, MCPEnv
    from gym_mcp.env.spaces import UnicodeText
    from gym_mcp.episode import CallRecord, Episode, RewardFn
    from gym_mcp.errors import GymMCPError
    from gym_mcp.live.live_server import LiveServer, ServerSource
    from gym_mcp.live.sources import BundledSource, ComposedSource, ExternalSource
    from gym_mcp.live.warm_pool import ServerPool, get_pool
    from gym_mcp.playback import replay
    from gym_mcp.rewards.outcome import state_match
    from gym_mcp.specs.spec import ServerSpec, load_spec
    from gym_mcp.state.base import GroupDiff, Snapshot, StateBackend, StateDiff
    from gym_mcp.state.composite import CompositeState
    from gym_mcp.state.directory import DirectoryState
    from gym_mcp.state.jsonfile import JSONFileState
    from gym_mcp.state.null import NullState
    from gym_mcp.state.sqlite import SQLiteState
    from gym_mcp.tasks.task import Task, load_tasks, save_tasks
    from gym_mcp.transport.connection import LiveConnection
    from gym_mcp.transport.launch import Launch, free_port
    from gym_mcp.transport.results import ToolResult

if not _server_process():
    register_envs()
