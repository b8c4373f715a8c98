"""Server sources: where a live server comes from.

A bundled server (`BundledSource`), any MCP server from a command line or URL
(`ExternalSource`), and several composed into one environment (`ComposedSource`).

An `ExternalSource` starts a server from a command line (stdio, or HTTP with a ``{port}``) on
a private copy of a template state: ``{state}`` in the command and environment is replaced by
the path of that copy (a directory, an SQLite file or a JSON file), so every parallel
environment has its own files and its own process. A `ComposedSource` puts several servers
into one environment, their tools namespaced ``server.tool``.
"""

from __future__ import annotations

import functools
import os
import re
import secrets
import sqlite3
import sys
import threading
from collections.abc import Callable, Hashable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from gym_mcp.errors import ConfigError, TaskError, UnknownServerError
from gym_mcp.live.live_server import TRANSPORTS, LivePart, LiveServer, ServerSource, Transport
from gym_mcp.live.sandbox import bwrap_command, check_bwrap, runtime_paths, sandbox_name
from gym_mcp.live.scratch import make_scratch, remove_scratch
from gym_mcp.state.base import Snapshot, StateBackend
from gym_mcp.state.composite import CompositeState
from gym_mcp.state.directory import DirectoryState
from gym_mcp.state.null import NullState
from gym_mcp.state.sqlite import SQLiteState
from gym_mcp.transport import Launch, LiveConnection

if TYPE_CHECKING:
    from gym_mcp.servers import DirectoryKit, Kit
    from gym_mcp.servers.kit import ServerKit

__all__ = ["BundledSource", "ComposedSource", "CompositionSource", "ExternalSource", "bundled_source"]


_seed_cache: dict[tuple[str, int], Snapshot] = {}
_seed_lock = threading.Lock()


class BundledSource(ServerSource):
    """A bundled server (see `gym_mcp.servers`) over any transport.

    Args:
        name: Bundled server name, e.g. ``"banking"``.
        transport: ``"inprocess"`` (fastest; same process), ``"stdio"`` (a subprocess) or
            ``"http"`` (a subprocess serving streamable HTTP on a loopback port).
        kit: A `ServerKit` (or `DirectoryKit`) that is not bundled (your own server built with the kit); then
            ``module`` names the module that runs it (``python -m module``).
        module: Module run as the server process for stdio and http.
        env: Extra environment variables for the server process.
        protocol: Tool calls through the MCP client's session too: in-process, not straight to
            the server's ``tools/call`` handler; over stdio, not written onto the pipe by us
            (same results, slower; see `Launch`). No effect over http.
    """

    def __init__(
        self,
        name: str,
        transport: Transport = "inprocess",
        *,
        kit: Kit | None = None,
        module: str | None = None,
        env: Mapping[str, str] | None = None,
        protocol: bool = False,
    ) -> None:
        from gym_mcp.servers import get_kit

        if transport not in TRANSPORTS:
            raise ConfigError(f"unknown transport {transport!r}; use one of: {', '.join(TRANSPORTS)}")
        self.name = name
        self.transport = transport
        self.kit = kit if kit is not None else get_kit(name)
        self.module = module or f"gym_mcp.servers.{name}"
        self.env = dict(env or {})
        self.protocol = protocol and transport in ("inprocess", "stdio")

    @property
    def key(self) -> Hashable:
        """Bundled server name, module, transport and environment (and ``protocol`` when set)."""
        key = ("bundled", self.name, self.module, self.transport, tuple(sorted(self.env.items())))
        return (*key, "protocol") if self.protocol else key

    @property
    def directory(self) -> bool:
        """True for a server whose state is a folder (a `DirectoryKit`), not a database."""
        from gym_mcp.servers import DirectoryKit

        return isinstance(self.kit, DirectoryKit)

    def initial_snapshot(self, seed: int) -> Snapshot:
        """The seeded database (or seed tree) for ``seed``, built once per process, then cached."""
        from gym_mcp.servers import DirectoryKit

        with _seed_lock:
            snap = _seed_cache.get((self.module, seed))
            if snap is None:
                if isinstance(self.kit, DirectoryKit):
                    snap = _seed_tree_snapshot(self.kit, seed)
                else:
                    conn = sqlite3.connect(":memory:", check_same_thread=False)
                    try:
                        self.kit.init_database(conn, seed=seed)
                        snap = Snapshot.of(SQLiteState.kind, conn.serialize())
                    finally:
                        conn.close()
                _seed_cache[(self.module, seed)] = snap
            return snap

    def _fresh_state(self, workdir: Path | None) -> tuple[StateBackend, list[str]]:
        """A private state holding the seed-0 data, and the server's option that points at it."""
        from gym_mcp.servers import DirectoryKit

        base = self.initial_snapshot(0)
        state: StateBackend
        if isinstance(self.kit, DirectoryKit):
            assert workdir is not None
            root = workdir / "root"
            root.mkdir()
            state = DirectoryState(root)
            option = ["--root", str(root)]
        elif workdir is None:
            state = SQLiteState(None, volatile=self.kit.volatile_columns)
            option = []
        else:
            state = SQLiteState(workdir / "state.db", volatile=self.kit.volatile_columns)
            option = ["--db", state.url]
        state.restore(base)
        return state, option

    async def launch(self, *, call_timeout: float) -> LiveServer:
        """Start the server on a private copy of the seed-0 data (a database, or a folder)."""
        from gym_mcp.servers import DirectoryKit

        in_memory = self.transport == "inprocess" and not isinstance(self.kit, DirectoryKit)
        workdir = None if in_memory else make_scratch(_safe(self.name))
        try:
            state, option = self._fresh_state(workdir)
        except BaseException:
            if workdir is not None:
                remove_scratch(workdir)
            raise
        if self.transport == "inprocess":
            factory: Any
            if isinstance(self.kit, DirectoryKit):
                factory = functools.partial(self.kit.create_server, state.location)
            else:
                assert isinstance(state, SQLiteState)
                factory = _InProcessFactory(self.kit, state)
            launch = Launch(self.name, "inprocess", server_factory=factory, protocol=self.protocol)
        else:
            assert workdir is not None
            from gym_mcp.servers.kit import TOKEN_ENV, auth_headers

            command = [sys.executable, "-m", self.module, *option]
            env, headers = dict(self.env), {}
            if self.transport == "http":
                command += ["--transport", "http", "--port", "{port}"]
                # Even on loopback, only we may talk to it: a fresh token per launch, passed in
                # the environment (not on the command line, which other users can read).
                token = secrets.token_urlsafe(24)
                env[TOKEN_ENV] = token
                headers = auth_headers(token)
            launch = Launch(
                self.name,
                self.transport,
                command=command,
                env=env,
                stderr_path=str(workdir / "server.stderr"),
                headers=headers,
                protocol=self.protocol,
            )
        connection = LiveConnection(launch, call_timeout=call_timeout)
        if isinstance(launch.server_factory, _InProcessFactory):
            launch.server_factory.call_limit = lambda: connection.call_timeout
        try:
            tools = await connection.start_and_list()
        except BaseException:
            state.close()
            if workdir is not None:
                remove_scratch(workdir)
            raise
        return LiveServer.single(connection, state, tools, self.key, workdir)


def _seed_tree_snapshot(kit: DirectoryKit, seed: int) -> Snapshot:
    """A snapshot of a folder server's seed tree ``seed``, built in a scratch folder."""
    workdir = make_scratch(f"{_safe(kit.name)}-seed")
    try:
        root = workdir / "root"
        kit.seed_tree(root, seed)
        return DirectoryState(root).snapshot()
    finally:
        remove_scratch(workdir)


class _InProcessFactory:
    """Builds an in-process server on a state's in-memory database.

    The first build uses the state's connection; each rebuild (the connection restarts the
    server after a call timed out) first gives the state a new connection, so nothing left of
    the old server can write to the state. The server's tools run on the gym's loop and SQLite
    stops their SQL at the connection's current call timeout (``call_limit``, set once the
    connection exists; see `ServerKit.create_server`).
    """

    def __init__(self, kit: ServerKit, state: SQLiteState) -> None:
        self.kit = kit
        self.state = state
        self.built = False
        self.call_limit: Callable[[], float] | None = None

    def __call__(self) -> Any:
        if self.built:
            self.state.reconnect()
        self.built = True
        return self.kit.create_server(self.state.connection, call_limit=self.call_limit)


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name) or "server"


_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _expand(text: str, server: str) -> str:
    """``text`` with each ``${NAME}`` replaced by the environment variable NAME.

    Raises:
        ConfigError: A variable named is not set.
    """

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in os.environ:
            raise ConfigError(f"{server}: header value names ${{{name}}}, which is not set in the environment")
        return os.environ[name]

    return _VARIABLE.sub(value, text)


def _substitute(text: str, values: Mapping[str, str]) -> str:
    for key, value in values.items():
        text = text.replace("{" + key + "}", value)
    return text


class ExternalSource(ServerSource):
    """A third-party MCP server, each launch on its own copy of a template state.

    Args:
        name: A name for the server (used in messages and as its tool namespace when composed).
        command: The command line that starts it. ``{state}`` is replaced by the path of the
            private state copy, ``{workdir}`` by the launch's private directory and, for HTTP,
            ``{port}`` by a free loopback port.
        url: For HTTP: the URL to connect to (``{port}`` replaced as above). With no command,
            a server someone else runs: every environment then shares it, and its state (given
            as ``state``) is used in place, not copied.
        env: Extra environment variables (``{state}``/``{workdir}`` replaced too).
        state: The template state (`DirectoryState`, `SQLiteState` file, `JSONFileState`), or
            None for a server whose state we do not track.
        transport: ``"stdio"`` or ``"http"`` (default: http when a URL is given).
        cwd: Working directory of the server process (``{state}`` allowed: then relative paths
            in tool arguments, such as ``"."`` or ``"notes.txt"``, mean the same in every copy).
        startup_timeout: Seconds the server may take to start and answer.
        sandbox: ``"bwrap"`` runs the server in a bubblewrap sandbox (see `gym_mcp.live.sandbox`):
            only its private folder writable, the rest of the system read-only, no network
            unless ``network``. ``"bwrap-strict"`` confines reads as well: it sees only the
            system's runtime folders, its own install and its private folders (not the user's
            files, nor other environments' state). ``"none"`` (the default) runs it as it is.
        network: In the sandbox, keep the network (an HTTP server always keeps it: we reach it
            on a loopback port).
        headers: HTTP headers sent with every request (e.g. ``Authorization``); ``${NAME}`` in
            a value is replaced by that environment variable when the server is launched.
        restart_on_reset: Start the server process anew at every reset, after its state is
            restored, for a server that keeps state in its memory beside its state files
            (restoring the files alone would not undo it). Costs a server start per reset.
            A server someone else runs (a url, no command) cannot be restarted.
    """

    def __init__(
        self,
        name: str,
        *,
        command: Sequence[str] | None = None,
        url: str | None = None,
        env: Mapping[str, str] | None = None,
        state: StateBackend | None = None,
        transport: Literal["stdio", "http"] | None = None,
        cwd: str | None = None,
        startup_timeout: float = 60.0,
        sandbox: str = "none",
        network: bool = False,
        headers: Mapping[str, str] | None = None,
        restart_on_reset: bool = False,
    ) -> None:
        if not command and not url:
            raise ConfigError(f"{name}: an external server needs a command or a url")
        if command is not None and (isinstance(command, str) or not all(isinstance(c, str) for c in command)):
            raise ConfigError(f"{name}: command must be a list of strings")
        self.name = name
        self.command = list(command or [])
        self.url = url
        self.env = dict(env or {})
        self.state = state
        self.transport: Transport = transport or ("http" if url else "stdio")
        if self.transport not in ("stdio", "http"):
            raise ConfigError(f"{name}: transport must be 'stdio' or 'http', got {self.transport!r}")
        if self.transport == "stdio" and not self.command:
            raise ConfigError(f"{name}: a stdio server needs a command")
        self.cwd = cwd
        self.startup_timeout = startup_timeout
        self.headers = dict(headers or {})
        for value in self.headers.values():
            _expand(value, name)  # a variable that is not set is an error now, not at launch
        self.sandbox = sandbox_name(sandbox)
        self.network = network
        if self.sandbox != "none":
            if not self.command:
                raise ConfigError(f"{name}: a server someone else runs (a url, no command) cannot be sandboxed")
            check_bwrap()
        if restart_on_reset and not self.command:
            raise ConfigError(
                f"{name}: restart_on_reset needs a command: a server someone else runs (a url, no command) "
                "cannot be restarted"
            )
        self.restart_on_reset = bool(restart_on_reset)
        if state is not None and self.shared:  # used in place: journaled, so a killed episode cannot alter it
            from gym_mcp.live.journal import adopt_in_place

            self._template = adopt_in_place(state, name)
        else:
            self._template = (state or NullState()).snapshot()

    @property
    def key(self) -> Hashable:
        """Command, URL, environment and template state."""
        location = self.state.location if self.state is not None else None
        return (
            "external",
            self.name,
            tuple(self.command),
            self.url,
            tuple(sorted(self.env.items())),
            location,
            self.sandbox,
            self.network,
            tuple(sorted(self.headers.items())),
            self.restart_on_reset,
        )

    @property
    def shared(self) -> bool:
        """True for a server run by someone else at a fixed URL (no isolation between envs)."""
        return not self.command

    def initial_snapshot(self, seed: int) -> Snapshot:
        """The template state (an external server has one initial state, seed 0)."""
        if seed != 0:
            raise TaskError(f"{self.name}: an external server has one initial state; use initial_state seed 0")
        return self._template

    async def launch(self, *, call_timeout: float) -> LiveServer:
        """Start the server on a fresh private copy of the template state."""
        workdir = make_scratch(_safe(self.name))
        state: StateBackend
        try:
            if self.state is None:
                state = NullState()
            elif self.shared:
                state = self.state
            else:
                dest = workdir / "state" / (Path(self.state.location).name or "state")
                state = self.state.copy_to(dest)
                state.restore(self._template)
            location = "" if isinstance(state, NullState) else str(state.location)
            values = {"state": location, "workdir": str(workdir)}
            command = [_substitute(part, values) for part in self.command]
            cwd = _substitute(self.cwd, values) if self.cwd else None
            if self.sandbox != "none":
                # Writable: the state copy itself (a folder), or the folder holding just the
                # state file (SQLite writes journals beside it); nothing else of ours.
                scratch = workdir / "scratch"
                scratch.mkdir()
                paths = []
                if not isinstance(state, NullState):
                    writable = Path(state.location)
                    paths.append(str(writable if writable.is_dir() else writable.parent))
                network = self.network or self.transport == "http"
                strict = self.sandbox == "bwrap-strict"
                read_only: list[str] = []
                if strict:  # what its runtime needs to read, less what it may write anyway
                    env = {**os.environ, **{k: _substitute(v, values) for k, v in self.env.items()}}
                    inside = [Path(p) for p in paths]
                    read_only = [
                        p
                        for p in runtime_paths(command, env, cwd)
                        if not any(Path(p) == w or w in Path(p).parents for w in inside)
                    ]
                command = bwrap_command(
                    command,
                    writable=paths,
                    scratch=str(scratch),
                    network=network,
                    cwd=cwd,
                    strict=strict,
                    read_only=read_only,
                    keep_env=list(self.env),
                )
            launch = Launch(
                self.name,
                self.transport,
                command=command,
                url=_substitute(self.url, values) if self.url else None,
                env={k: _substitute(v, values) for k, v in self.env.items()},
                cwd=cwd,
                stderr_path=str(workdir / "server.stderr"),
                headers={k: _expand(v, self.name) for k, v in self.headers.items()},
            )
        except BaseException:
            remove_scratch(workdir)
            raise
        connection = LiveConnection(launch, call_timeout=call_timeout, startup_timeout=self.startup_timeout)
        try:
            tools = await connection.start_and_list()
        except BaseException:
            if not self.shared:
                state.close()
            remove_scratch(workdir)
            raise
        return LiveServer.single(connection, state, tools, self.key, workdir, restart_on_reset=self.restart_on_reset)


class ComposedSource(ServerSource):
    """Several servers in one environment; their tools are exposed as ``name.tool``.

    Args:
        parts: ``{name: source}``; a string value names a bundled server.
        transport: Transport for bundled parts given by name.
    """

    def __init__(self, parts: Mapping[str, ServerSource | str], *, transport: Transport = "inprocess") -> None:
        if len(parts) < 2:
            raise ConfigError("a composed environment needs at least two servers")
        self.parts: dict[str, ServerSource] = {}
        for name, part in parts.items():
            if not re.fullmatch(r"[A-Za-z0-9_-]+", name):
                raise ConfigError(f"server name {name!r} must be letters, digits, '_' or '-' (it prefixes tool names)")
            self.parts[name] = BundledSource(part, transport) if isinstance(part, str) else part
        self.name = "+".join(self.parts)
        self.transport = transport

    @property
    def key(self) -> Hashable:
        """The parts' keys."""
        return ("composed", tuple((n, s.key) for n, s in self.parts.items()))

    def initial_snapshot(self, seed: int) -> Snapshot:
        """Every part's initial state for ``seed``, packed together."""
        return CompositeState.pack({name: src.initial_snapshot(seed) for name, src in self.parts.items()})

    async def launch(self, *, call_timeout: float) -> LiveServer:
        """Launch every part and join them into one live server."""
        launched: list[tuple[str, LiveServer]] = []
        try:
            for name, source in self.parts.items():
                launched.append((name, await source.launch(call_timeout=call_timeout)))
        except BaseException:
            for _, live in launched:
                await live.close()
            raise
        parts = [
            LivePart(name, live.connection, live.parts[0].tools, live.parts[0].restart_on_reset)
            for name, live in launched
        ]
        state = CompositeState({name: live.state for name, live in launched})
        workdirs = [live.workdir for _, live in launched if live.workdir is not None]
        return LiveServer(parts, state, self.key, None, namespaced=True, extra_workdirs=workdirs)


class CompositionSource(ComposedSource):
    """A named composition of bundled servers (see `gym_mcp.servers.compositions`).

    Its parts are seeded as each server seeds itself, then aligned so the people are the same
    in every part; the packed result is the composition's initial state for that seed.

    Args:
        name: The composition's name, e.g. ``"shop_bank"``.
        transport: Transport of every part.
    """

    def __init__(self, name: str, transport: Transport = "inprocess") -> None:
        from gym_mcp.servers.compositions import get_composition

        self.composition = get_composition(name)
        super().__init__(dict(self.composition.parts), transport=transport)
        self.name = name

    @property
    def key(self) -> Hashable:
        """The composition's name and its parts' keys."""
        return ("composition", self.name, super().key)

    def initial_snapshot(self, seed: int) -> Snapshot:
        """Every part seeded with ``seed``, then aligned on the shared people (cached per process)."""
        with _seed_lock:
            snap = _seed_cache.get((f"composition:{self.name}", seed))
        if snap is not None:
            return snap
        parts = {name: src.initial_snapshot(seed) for name, src in self.parts.items()}
        align = self.composition.align
        if align is not None:
            conns = {}
            try:
                for name, part in parts.items():
                    conn = sqlite3.connect(":memory:")
                    conn.deserialize(part.data)
                    conns[name] = conn
                align(conns)
                parts = {name: Snapshot.of(SQLiteState.kind, conn.serialize()) for name, conn in conns.items()}
            finally:
                for conn in conns.values():
                    conn.close()
        snap = CompositeState.pack(parts)
        with _seed_lock:
            _seed_cache[(f"composition:{self.name}", seed)] = snap
        return snap


def bundled_source(name: str, transport: Transport = "inprocess") -> BundledSource | CompositionSource:
    """The source of a bundled server or of a named composition of them, by name.

    Raises:
        UnknownServerError: The name is neither.
    """
    from gym_mcp.servers import BUNDLED
    from gym_mcp.servers.compositions import COMPOSITIONS

    if name in COMPOSITIONS and name not in BUNDLED:
        return CompositionSource(name, transport)
    if name not in BUNDLED:
        raise UnknownServerError(
            f"unknown server {name!r}; bundled servers: {', '.join(sorted(BUNDLED))}; "
            f"compositions: {', '.join(sorted(COMPOSITIONS))}"
        )
    return BundledSource(name, transport)
