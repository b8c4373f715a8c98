"""Tasks: the `Task` type, its simulated user (`UserScenario`), and JSONL load/save.

Playing a task through an environment (`play`, `replay`) lives in `gym_mcp.playback`, above the
environments it drives.
"""

from __future__ import annotations

from gym_mcp.tasks.dialogue import DIALOGUE_KINDS, Slot, Stage, UserScenario
from gym_mcp.tasks.task import Task, load_tasks, save_tasks

__all__ = [
    "DIALOGUE_KINDS",
    "Slot",
    "Stage",
    "Task",
    "UserScenario",
    "load_tasks",
    "save_tasks",
]
