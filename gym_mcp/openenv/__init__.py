"""gym-mcp environments over OpenEnv, the interface TRL, verifiers, SkyRL and others train through.

Any gym-mcp environment (a bundled server, a composition, ``gym_mcp/External-v0``,
``gym_mcp/BFCL-MultiTurn-v0``, with a simulated user or a perturbation mix) is served as an
OpenEnv environment by ``gym-mcp serve-openenv NAME`` (`serve_openenv`, `make_app`), and
reached with `GymMCPEnvClient`, or with OpenEnv's own clients (``GenericEnvClient``,
``MCPToolClient``):

- `GymMCPAction`, `GymMCPObservation`, `GymMCPState`: the wire types (OpenEnv's MCP shapes:
  ``call_tool``/``list_tools`` actions, ``tool_name``/``result``/``error`` observations, plus a
  whole assistant turn);
- `GymMCPEnvironment`, `EnvPool`, `EnvRecipe`: sessions over warm environments;
- `OpenEnvGymEnv`: a served environment as a local Gymnasium environment (TRL's route);
- `write_package`: the folder OpenEnv expects of an environment (``gym-mcp openenv init``).

Built on PyPI's ``openenv`` 0.4 (``pip install -e ".[openenv]"``): its later releases need
``mcp<2`` (through ``fastmcp<4``), which cannot share a venv with gym-mcp's MCP SDK.
"""

from __future__ import annotations

try:
    import openenv.core.env_server  # noqa: F401 - the check that the extra is installed
except ImportError as exc:  # pragma: no cover - depends on the install
    from gym_mcp.errors import DependencyMissing

    raise DependencyMissing(
        'gym_mcp.openenv needs OpenEnv: pip install -e ".[openenv]" (openenv>=0.4.1,<0.5)', extra="openenv"
    ) from exc

from gym_mcp.openenv.app import make_app, serve_openenv
from gym_mcp.openenv.client import GymMCPEnvClient
from gym_mcp.openenv.environment import EnvPool, EnvRecipe, GymMCPEnvironment
from gym_mcp.openenv.models import GymMCPAction, GymMCPObservation, GymMCPState
from gym_mcp.openenv.package import write_package
from gym_mcp.openenv.remote import OpenEnvGymEnv

__all__ = [
    "EnvPool",
    "EnvRecipe",
    "GymMCPAction",
    "GymMCPEnvClient",
    "GymMCPEnvironment",
    "GymMCPObservation",
    "GymMCPState",
    "OpenEnvGymEnv",
    "make_app",
    "serve_openenv",
    "write_package",
]
