"""Live servers with their own state.

`LiveServer` is running server(s) plus their state; a `ServerSource`
knows how to start one on a private state, and where each data seed starts).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from mcp.types import Tool

from gym_mcp.errors import ConfigError
from gym_mcp.live.scratch import remove_scratch
from gym_mcp.state.base import Snapshot, StateBackend
from gym_mcp.transport import LiveConnection, ToolResult

__all__ = ["TRANSPORTS", "LivePart", "LiveServer", "ServerSource", "Transport"]


Transport = Literal["inprocess", "stdio", "http"]
TRANSPORTS: tuple[Transport, ...] = ("inprocess", "stdio", "http")


@dataclass
class LivePart:
    """One running server inside a `LiveServer`.

    Attributes:
        name: The part's name (the tool namespace when several servers are composed).
        connection: Its live MCP connection.
        tools: Its tools as listed at start (the server's own names).
        restart_on_reset: Start its process anew at every reset (it keeps state in memory
            that restoring its state files does not undo; a spec's ``restart_on_reset``).
    """

    name: str
    connection: LiveConnection
    tools: list[Tool]
    restart_on_reset: bool = False


@dataclass
class LiveServer:
    """Running server(s) and the state they work on.

    Usually one server; a composed environment holds several, whose tools are then exposed as
    ``part.tool`` (see `ComposedSource`).

    Attributes:
        parts: The running servers.
        state: The state backend (snapshot / restore / fingerprint) of all parts together.
        key: Pool key of the source that launched it.
        workdir: A private directory for its files (removed when it closes).
        namespaced: True when tools are exposed as ``part.tool``.
        extra_workdirs: More private directories to remove at close (composed servers).
    """

    parts: list[LivePart]
    state: StateBackend
    key: Hashable
    workdir: Path | None = None
    namespaced: bool = False
    extra_workdirs: list[Path] = field(default_factory=list)
    closed: bool = field(default=False)
    _routes: dict[str, tuple[LivePart, str]] = field(default_factory=dict, repr=False)
    _tools: list[Tool] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        for part in self.parts:
            for tool in part.tools:
                exposed = f"{part.name}.{tool.name}" if self.namespaced else tool.name
                if exposed in self._routes:
                    raise ConfigError(f"two servers expose a tool named {exposed!r}; rename or hide one")
                self._routes[exposed] = (part, tool.name)
                self._tools.append(tool.model_copy(update={"name": exposed}) if exposed != tool.name else tool)

    @classmethod
    def single(
        cls,
        connection: LiveConnection,
        state: StateBackend,
        tools: list[Tool],
        key: Hashable,
        workdir: Path | None,
        *,
        restart_on_reset: bool = False,
    ) -> LiveServer:
        """A live server with one part."""
        part = LivePart(connection.launch.name, connection, tools, restart_on_reset)
        return cls([part], state, key, workdir)

    @property
    def tools(self) -> list[Tool]:
        """All tools, under the names the agent calls them by."""
        return list(self._tools)

    @property
    def connection(self) -> LiveConnection:
        """The connection of the first (usually only) server."""
        return self.parts[0].connection

    @property
    def restarts(self) -> int:
        """Restarts of all parts so far."""
        return sum(p.connection.restarts for p in self.parts)

    @property
    def restart_on_reset(self) -> bool:
        """True when a part is started anew at every reset (see `relaunch`)."""
        return any(p.restart_on_reset for p in self.parts)

    @property
    def relaunches(self) -> int:
        """Restarts on reset of all parts so far (not counted in `restarts`)."""
        return sum(p.connection.relaunches for p in self.parts)

    async def relaunch(self, restore: Callable[[], object]) -> int:
        """Stop the parts that restart on reset, run ``restore``, start them again.

        The state is restored while they are down, so a new process reads the restored state
        from its start and an old one cannot write over it on its way out.

        Args:
            restore: Restores the state (of all parts).

        Returns:
            How many parts were restarted (0 when none restarts on reset: ``restore`` still ran).

        Raises:
            ServerCrashedError: A part could not be started again.
        """
        parts = [p for p in self.parts if p.restart_on_reset]
        await _relaunch_from(parts, 0, restore)
        return len(parts)

    @property
    def healthy(self) -> bool:
        """True when every part is connected, its process alive, and the state not closed.

        The pool hands out only healthy servers: one whose state was closed (say by user code
        calling ``env.unwrapped.state.close()``) could not restore the next episode's state.
        """
        return not self.state.closed and all(
            p.connection.connected and p.connection.process_alive() for p in self.parts
        )

    async def ensure_alive(self) -> None:
        """Restart any part whose server died."""
        for part in self.parts:
            await part.connection.ensure_alive()

    def has_tool(self, name: str) -> bool:
        """True when a tool is exposed under ``name``."""
        return name in self._routes

    async def call_tool(self, name: str, arguments: Mapping[str, object]) -> ToolResult:
        """Call a tool by the name the agent uses (an unknown name gives an error result)."""
        route = self._routes.get(name)
        if route is None:
            return ToolResult(f"Error: unknown tool {name!r}", is_error=True)
        part, real = route
        return await part.connection.call_tool(real, arguments)

    async def close(self) -> None:
        """Stop the server(s) and delete private files."""
        if self.closed:
            return
        self.closed = True
        for part in self.parts:
            await part.connection.close()
        self.state.close()
        for workdir in [self.workdir, *self.extra_workdirs]:
            if workdir is not None:
                remove_scratch(workdir)


class ServerSource(ABC):
    """Knows how to start a server on a private state, and where each data seed starts."""

    name: str
    transport: Transport

    @property
    @abstractmethod
    def key(self) -> Hashable:
        """Servers with equal keys are interchangeable (the pool reuses them)."""

    @abstractmethod
    async def launch(self, *, call_timeout: float) -> LiveServer:
        """Start a new server on a fresh private state."""

    @abstractmethod
    def initial_snapshot(self, seed: int) -> Snapshot:
        """The state an episode with data seed ``seed`` starts from."""


async def _relaunch_from(parts: list[LivePart], i: int, restore: Callable[[], object]) -> None:
    """Stop ``parts[i:]``, restore the state, start them again (innermost first out).

    A module function rather than a closure that calls itself: that closure is a reference
    cycle, left to the collector after every reset.
    """
    if i == len(parts):
        restore()
    else:
        await parts[i].connection.relaunch(lambda: _relaunch_from(parts, i + 1, restore))
