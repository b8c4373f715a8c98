"""What sits between the agent and the server: tool views now; perturbations and simulated users next."""

from __future__ import annotations

from gym_mcp.wrappers.tools import ToolView

__all__ = ["ToolView"]
