"""Tasks: the `Task` type, JSONL load/save, and the replay of a task's reference calls."""

from __future__ import annotations

from gym_mcp.tasks.replay import Replay, reference_fingerprint, replay
from gym_mcp.tasks.task import Task, load_tasks, save_tasks

__all__ = ["Replay", "Task", "load_tasks", "reference_fingerprint", "replay", "save_tasks"]
