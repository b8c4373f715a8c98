"""The exceptions gym-mcp raises.

Every exception the library raises on purpose derives from `GymMCPError`, so one
``except GymMCPError`` catches them all::

    GymMCPError
    ├── ConfigError             a bad argument, option, spec or task file
    │   └── UnknownServerError  a server name that is not bundled or registered
    ├── ServerError             a live server could not be used
    │   ├── ServerStartError    the server did not start (missing command, exit at start, refused URL)
    │   ├── ServerCrashedError  the server died and could not be brought back
    │   └── ToolTimeoutError    a tool call ran past its timeout
    ├── StateError              a snapshot, restore or diff failed
    │   └── StateLostError      the state itself is gone (a sessions server ended the session) and
    │                           nobody kept it: the episode cannot go on from it
    ├── TaskError               a task is malformed or does not fit its environment
    ├── SynthError              task synthesis could not produce what was asked
    ├── EndpointError           an OpenAI-compatible endpoint is unreachable or answers wrongly
    ├── WorkerLostError         a Ray rollout worker died (its episode is lost; see gym_mcp.ray)
    └── DependencyMissing       an optional dependency is not installed (names the extra)

What an *agent* does wrong (bad JSON, an unknown tool, wrong argument types) is never an
exception: the environment turns it into an error observation the agent can read.

Warnings (``warnings.warn``; a test or a strict run can turn them into errors with
``warnings.simplefilter("error", GymMCPWarning)``)::

    GymMCPWarning(UserWarning)
    ├── NondeterministicTaskWarning  a task's reference calls reached two different states
    └── InMemoryStateWarning         a server remembers, after a reset, what a write did
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "DependencyMissing",
    "EndpointError",
    "GymMCPError",
    "GymMCPWarning",
    "InMemoryStateWarning",
    "NondeterministicTaskWarning",
    "ServerCrashedError",
    "ServerError",
    "ServerStartError",
    "StateError",
    "StateLostError",
    "SynthError",
    "TaskError",
    "ToolTimeoutError",
    "UnknownServerError",
    "WorkerLostError",
]


class GymMCPError(Exception):
    """Root of every error gym-mcp raises on purpose."""


class ConfigError(GymMCPError):
    """A bad argument, option, spec file or task file."""


class UnknownServerError(ConfigError):
    """A server name that is neither bundled nor registered."""


class ServerError(GymMCPError):
    """A live MCP server could not be used."""


class ServerStartError(ServerError):
    """The server did not start: missing command, exit at start, refused URL, failed handshake."""


class ServerCrashedError(ServerError):
    """The server died and could not be restarted."""


class ToolTimeoutError(ServerError):
    """A tool call ran past its timeout (the server is then restarted)."""


class StateError(GymMCPError):
    """A state snapshot, restore or diff failed."""


class StateLostError(StateError):
    """The state an episode plays on is gone and its last known value with it: it cannot be put back."""


class TaskError(GymMCPError):
    """A task is malformed or does not fit its environment."""


class SynthError(GymMCPError):
    """Task synthesis could not produce what was asked (no usable tools, too few tasks, ...)."""


class EndpointError(GymMCPError):
    """An OpenAI-compatible endpoint is unreachable, fails after retries, or answers malformed."""


class WorkerLostError(GymMCPError):
    """A Ray rollout worker died while it held an environment or played an episode.

    The episodes on it are lost; `gym_mcp.ray.WorkerPool.map` reruns them on other workers, and
    a `gym_mcp.ray.RemoteEnv` moves to a live worker at its next ``reset``.
    """


class DependencyMissing(GymMCPError):
    """An optional dependency is not installed; the message says what to install.

    Args:
        message: What needs what, and the command that installs it.
        extra: The gym-mcp extra that installs it (``"train"``, ``"bfcl"``), if there is one.
    """

    def __init__(self, message: str, *, extra: str | None = None) -> None:
        super().__init__(message)
        self.extra = extra


class GymMCPWarning(UserWarning):
    """Root of every warning gym-mcp emits: something works, but not as the user may think."""


class NondeterministicTaskWarning(GymMCPWarning):
    """A task's reference calls, replayed twice from the same initial state, reached two states.

    The server mints something (a random id, a timestamp, a counter) that its spec does not
    declare volatile. The message names the task and where the two states differ, and the
    ``volatile = {...}`` (or ``volatile_keys``, ``ignore``) entry that declares it; the episode
    is judged with those parts left out.
    """


class InMemoryStateWarning(GymMCPWarning):
    """A server keeps state in its memory, beside the state its spec declares.

    After a write and a reset (the declared state restored, the process kept warm), some read
    tools answer differently than on a fresh start: the server remembers what the reset should
    have undone. The message names those tools and says to set ``restart_on_reset = true`` in
    the server's spec (a new process at every reset). See `gym_mcp.synth.statecheck`.
    """
