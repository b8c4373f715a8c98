"""What sits between the agent and the server: tool views, and perturbations of the calls."""

from __future__ import annotations

from gym_mcp.wrappers.perturb import CallPerturbation, Injection, Perturb, TransientErrors
from gym_mcp.wrappers.tools import ToolView

__all__ = ["CallPerturbation", "Injection", "Perturb", "ToolView", "TransientErrors"]
