"""Tasks: the `Task` type, its simulated user (`UserScenario`), JSONL load/save, and replay."""

from __future__ import annotations

from gym_mcp.tasks.dialogue import DIALOGUE_KINDS, Slot, Stage, UserScenario
from gym_mcp.tasks.replay import Replay, play, reference_fingerprint, replay
from gym_mcp.tasks.task import Task, load_tasks, save_tasks

__all__ = [
    "DIALOGUE_KINDS",
    "Replay",
    "Slot",
    "Stage",
    "Task",
    "UserScenario",
    "load_tasks",
    "play",
    "reference_fingerprint",
    "replay",
    "save_tasks",
]
