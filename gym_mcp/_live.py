"""Live servers with their own state, and the pool that keeps them warm.

A `ServerSource` knows how to start one server on a private copy of its state (its own
database file or in-memory database) and which snapshot a given data seed starts from. A
`LiveServer` is one such running server plus its state. The `ServerPool` keeps servers that
environments have closed, so that the next environment (or a fork) restores state into a warm
server instead of spawning a process (~1 s for a Python MCP server).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sqlite3
import sys
import tempfile
import threading
import weakref
from abc import ABC, abstractmethod
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from mcp.types import Tool

from gym_mcp._connection import OPEN_CONNECTIONS, Launch, LiveConnection, ToolResult
from gym_mcp._runner import add_exit_hook
from gym_mcp._state import Snapshot, SQLiteState, StateBackend
from gym_mcp.errors import ConfigError
from gym_mcp.servers.kit import ServerKit

__all__ = ["BundledSource", "LivePart", "LiveServer", "ServerPool", "ServerSource", "get_pool"]

Transport = Literal["inprocess", "stdio", "http"]
TRANSPORTS: tuple[Transport, ...] = ("inprocess", "stdio", "http")


@dataclass
class LivePart:
    """One running server inside a `LiveServer`.

    Attributes:
        name: The part's name (the tool namespace when several servers are composed).
        connection: Its live MCP connection.
        tools: Its tools as listed at start (the server's own names).
    """

    name: str
    connection: LiveConnection
    tools: list[Tool]


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
    ) -> LiveServer:
        """A live server with one part."""
        return cls([LivePart(connection.launch.name, connection, tools)], state, key, workdir)

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
    def healthy(self) -> bool:
        """True when every part is connected and its process alive."""
        return all(p.connection.connected and p.connection.process_alive() for p in self.parts)

    async def ensure_alive(self) -> None:
        """Restart any part whose server died."""
        for part in self.parts:
            await part.connection.ensure_alive()

    async def call_tool(self, name: str, arguments: Mapping[str, object]) -> ToolResult:
        """Call a tool by the name the agent uses (the caller checked that it exists)."""
        part, real = self._routes[name]
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
                shutil.rmtree(workdir, ignore_errors=True)


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


_seed_cache: dict[tuple[str, int], Snapshot] = {}
_seed_lock = threading.Lock()


class BundledSource(ServerSource):
    """A bundled server (see `gym_mcp.servers`) over any transport.

    Args:
        name: Bundled server name, e.g. ``"banking"``.
        transport: ``"inprocess"`` (fastest; same process), ``"stdio"`` (a subprocess) or
            ``"http"`` (a subprocess serving streamable HTTP on a loopback port).
        kit: A `ServerKit` that is not bundled (your own server built with the kit); then
            ``module`` names the module that runs it (``python -m module``).
        module: Module run as the server process for stdio and http.
        env: Extra environment variables for the server process.
    """

    def __init__(
        self,
        name: str,
        transport: Transport = "inprocess",
        *,
        kit: ServerKit | None = None,
        module: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        from gym_mcp.servers import get_kit

        if transport not in TRANSPORTS:
            raise ConfigError(f"unknown transport {transport!r}; use one of: {', '.join(TRANSPORTS)}")
        self.name = name
        self.transport = transport
        self.kit = kit if kit is not None else get_kit(name)
        self.module = module or f"gym_mcp.servers.{name}"
        self.env = dict(env or {})

    @property
    def key(self) -> Hashable:
        """Bundled server name and transport."""
        return ("bundled", self.name, self.module, self.transport)

    def initial_snapshot(self, seed: int) -> Snapshot:
        """The seeded database for ``seed`` (built once per process, then cached)."""
        with _seed_lock:
            snap = _seed_cache.get((self.module, seed))
            if snap is None:
                conn = sqlite3.connect(":memory:", check_same_thread=False)
                try:
                    self.kit.init_database(conn, seed=seed)
                    snap = Snapshot.of(SQLiteState.kind, conn.serialize())
                finally:
                    conn.close()
                _seed_cache[(self.module, seed)] = snap
            return snap

    async def launch(self, *, call_timeout: float) -> LiveServer:
        """Start the server on a private database holding the seed-0 data."""
        volatile = self.kit.volatile_columns
        base = self.initial_snapshot(0)
        if self.transport == "inprocess":
            state = SQLiteState(None, volatile=volatile)
            state.restore(base)
            kit, conn = self.kit, state.connection
            launch = Launch(self.name, "inprocess", server_factory=lambda: kit.create_server(conn))
            workdir = None
        else:
            workdir = Path(tempfile.mkdtemp(prefix=f"gym-mcp-{self.name}-"))
            state = SQLiteState(workdir / "state.db", volatile=volatile)
            state.restore(base)
            command = [sys.executable, "-m", self.module, "--db", state.url]
            if self.transport == "http":
                command += ["--transport", "http", "--port", "{port}"]
            launch = Launch(
                self.name,
                self.transport,
                command=command,
                env=self.env,
                stderr_path=str(workdir / "server.stderr"),
            )
        connection = LiveConnection(launch, call_timeout=call_timeout)
        try:
            tools = await connection.start_and_list()
        except BaseException:
            state.close()
            if workdir is not None:
                shutil.rmtree(workdir, ignore_errors=True)
            raise
        return LiveServer.single(connection, state, tools, self.key, workdir)


class ServerPool:
    """Warm servers waiting for an environment, by source key.

    Args:
        max_idle: Idle servers kept per key; more are closed when released.
    """

    def __init__(self, max_idle: int = 16) -> None:
        self.max_idle = max_idle
        self._idle: dict[Hashable, list[LiveServer]] = {}
        self.launched = 0
        self.reused = 0

    async def acquire(self, source: ServerSource, *, call_timeout: float) -> LiveServer:
        """A warm server for ``source`` if one is idle, else a newly launched one."""
        idle = self._idle.get(source.key, [])
        while idle:
            live = idle.pop()
            if live.healthy:
                for part in live.parts:
                    part.connection.call_timeout = call_timeout
                self.reused += 1
                return live
            await live.close()
        self.launched += 1
        return await source.launch(call_timeout=call_timeout)

    async def release(self, live: LiveServer) -> None:
        """Give a server back; it stays warm unless the pool for its key is full."""
        if live.closed:
            return
        idle = self._idle.setdefault(live.key, [])
        if len(idle) < self.max_idle and live.healthy:
            idle.append(live)
        else:
            await live.close()

    def idle_count(self, key: Hashable | None = None) -> int:
        """Idle servers (for one key, or in all)."""
        if key is not None:
            return len(self._idle.get(key, []))
        return sum(len(v) for v in self._idle.values())

    async def close(self) -> None:
        """Close every idle server."""
        servers = [s for group in self._idle.values() for s in group]
        self._idle.clear()
        for live in servers:
            with contextlib.suppress(Exception):
                await live.close()


_pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, ServerPool] = weakref.WeakKeyDictionary()


def get_pool() -> ServerPool:
    """The pool of the running event loop (servers are bound to the loop they started on)."""
    loop = asyncio.get_running_loop()
    pool = _pools.get(loop)
    if pool is None:
        pool = _pools[loop] = ServerPool()
    return pool


async def _close_pool_at_exit(loop: asyncio.AbstractEventLoop) -> None:
    """Stop the pooled servers of the sync API's loop when the interpreter exits."""
    pool = _pools.get(loop)
    if pool is not None:
        await pool.close()
    for connection in list(OPEN_CONNECTIONS):  # servers of environments never closed
        if connection.loop is loop:
            with contextlib.suppress(Exception):
                await connection.close()


def _after_fork_in_child() -> None:
    # The parent's servers belong to the parent: forget them without closing them.
    _pools.clear()


add_exit_hook(_close_pool_at_exit)
os.register_at_fork(after_in_child=_after_fork_in_child)
