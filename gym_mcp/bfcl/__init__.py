"""BFCL v3 multi-turn through the gym, scored exactly as BFCL scores it.

Needs the ``[bfcl]`` extra (``pip install -e ".[bfcl]"`` and ``pip install --no-deps bfcl-eval``)::

    import gymnasium as gym
    import gym_mcp

    env = gym.make("gym_mcp/BFCL-MultiTurn-v0", category="base", entry="multi_turn_base_0")
    obs, info = env.reset()          # the first user turn; info["tools"] lists the tools
    obs, r, term, trunc, info = env.step({"name": "cd", "arguments": {"folder": "document"}})
    obs, r, term, trunc, info = env.step("Done.")   # a reply ends the turn: obs is the next one
    ...                                             # after the last turn: r is 1 or 0

Each entry's backend classes are served by a live in-process MCP server (`BFCLSource`); the
record of every attempted call is scored with BFCL's own decoder and ``multi_turn_checker``
(`score`).
"""

from __future__ import annotations

from gym_mcp.bfcl.backend import BFCLSource, BFCLState, BFCLWorld, run_entry_server, serve
from gym_mcp.bfcl.data import (
    BFCL_VERSION,
    CATEGORIES,
    INSTALL_HINT,
    MAX_STEPS_PER_TURN,
    entries,
    entry,
    ground_truth,
    ground_truth_calls,
    openai_tools,
    require_bfcl,
)
from gym_mcp.bfcl.env import AsyncBFCLEnv, BFCLEpisodeSnapshot, BFCLMultiTurnEnv, bfcl_tasks
from gym_mcp.bfcl.score import Record, Verdict, check_decoded, decode, score

__all__ = [
    "BFCL_VERSION",
    "CATEGORIES",
    "ENV_ID",
    "INSTALL_HINT",
    "MAX_STEPS_PER_TURN",
    "AsyncBFCLEnv",
    "BFCLEpisodeSnapshot",
    "BFCLMultiTurnEnv",
    "BFCLSource",
    "BFCLState",
    "BFCLWorld",
    "Record",
    "Verdict",
    "bfcl_tasks",
    "check_decoded",
    "decode",
    "entries",
    "entry",
    "ground_truth",
    "ground_truth_calls",
    "openai_tools",
    "require_bfcl",
    "run_entry_server",
    "score",
    "serve",
]

ENV_ID = "gym_mcp/BFCL-MultiTurn-v0"
"""The Gymnasium id of the environment."""
