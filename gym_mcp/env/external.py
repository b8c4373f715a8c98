"""``gym_mcp/External-v0``: an environment over any MCP server, from a spec, a command or a composition."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from gym_mcp.env.mcp import MCPEnv
from gym_mcp.errors import ConfigError
from gym_mcp.live.from_specs import as_source, spec_source
from gym_mcp.live.live_server import ServerSource
from gym_mcp.live.sources import ComposedSource, ExternalSource
from gym_mcp.specs import ServerSpec, is_spec_file, load_spec
from gym_mcp.state.base import StateBackend

__all__ = ["make_external_env"]


def make_external_env(
    *,
    spec: str | os.PathLike[str] | ServerSpec | None = None,
    servers: Mapping[str, Any] | None = None,
    name: str | None = None,
    command: list[str] | None = None,
    url: str | None = None,
    env: Mapping[str, str] | None = None,
    state: StateBackend | None = None,
    transport: Literal["stdio", "http"] | None = None,
    cwd: str | None = None,
    startup_timeout: float | None = None,
    headers: Mapping[str, str] | None = None,
    sandbox: str | None = None,
    network: bool | None = None,
    restart_on_reset: bool | None = None,
    hide_tools: list[str] | tuple[str, ...] = (),
    rename_tools: Mapping[str, str] | None = None,
    **env_kwargs: Any,
) -> MCPEnv:
    """Build an environment over any MCP server (the entry point of ``gym_mcp/External-v0``).

    Give exactly one of: ``spec`` (a spec file or `ServerSpec`); ``servers`` (``{name: spec
    file | source | bundled name}``, composed into one environment with tools named
    ``name.tool``); or ``command`` / ``url`` (+ ``state``, ``env``, ``transport``) directly.

    Every setting a spec file can give is also a keyword here. With ``command``/``url`` they
    describe the server; with ``spec`` they override the file's (``env`` and ``headers`` are
    added to the file's, a key given in both taking the keyword's value; ``state`` cannot be
    overridden). With ``servers`` they are errors: give them in each member's spec file or
    source. A member given as a spec file keeps its ``[tools]`` rules inside the composition:
    its tools are hidden, and renamed to ``name.<new name>``, as the file says.

    Args:
        spec: A spec file path or a parsed `ServerSpec`.
        servers: Servers to compose into one environment.
        name: Server name (with ``command``/``url``; with ``spec``, over the file's ``name``).
        command: Command line; ``{state}`` is the private state copy's path, ``{workdir}`` the
            launch's private folder, ``{port}`` (HTTP) a free loopback port.
        url: HTTP URL (``{port}`` for a spawned server; with no command, a server someone else runs).
        env: Extra environment variables for the server (``{state}``/``{workdir}`` replaced).
        state: Template state (`DirectoryState`, `SQLiteState`, `JSONFileState`); the spec
            file's ``[state]`` table.
        transport: ``"stdio"`` or ``"http"`` (default: http when a URL is given).
        cwd: Server working directory (``{state}`` allowed).
        startup_timeout: Seconds the server may take to start and answer (default 60).
        headers: HTTP headers sent with every request (e.g. ``Authorization``); ``${NAME}`` in a
            value is read from the environment when the server is launched.
        sandbox: ``"bwrap"`` runs the server in a bubblewrap sandbox (only its state copy
            writable, no network unless ``network``); ``"bwrap-strict"`` confines its reads too
            (it sees the system's runtime folders, its own install and its private folders);
            ``"none"`` (the default) runs it as it is.
        network: In the sandbox, keep the network (an HTTP server always keeps it).
        restart_on_reset: Start the server process anew at every reset, after its state is
            restored: for a server that keeps state in its memory (costs a server start per reset).
        hide_tools: Tools the agent must not see (added to the spec's).
        rename_tools: ``{server name: agent name}`` (over the spec's).
        **env_kwargs: `MCPEnv` options: ``tasks``, ``max_steps``, ``reward``, ``call_timeout``, ...

    Returns:
        The environment.

    Raises:
        ConfigError: Bad or conflicting arguments.
    """
    given = [x is not None for x in (spec, servers)] + [bool(command or url)]
    if sum(given) != 1:
        raise ConfigError("External-v0 needs exactly one of: spec=..., servers={...}, or command=/url=")
    launch: dict[str, Any] = {
        "name": name,
        "env": env,
        "state": state,
        "transport": transport,
        "cwd": cwd,
        "startup_timeout": startup_timeout,
        "headers": headers,
        "sandbox": sandbox,
        "network": network,
        "restart_on_reset": restart_on_reset,
    }
    if restart_on_reset is not None and not isinstance(restart_on_reset, bool):
        raise ConfigError(f"External-v0: restart_on_reset= must be True or False, got {restart_on_reset!r}")
    settings = {key: value for key, value in launch.items() if value is not None}
    hide = list(hide_tools)
    rename = dict(rename_tools or {})
    source: ServerSource
    if servers is not None:
        if settings:
            raise ConfigError(
                f"External-v0 with servers={{...}} takes no {', '.join(f'{k}=' for k in settings)}: "
                "give them in each member's spec file or source"
            )
        source, member_hide, member_rename = _compose(servers)
        hide = [*member_hide, *hide]
        rename = {**member_rename, **rename}
    elif spec is not None:
        parsed = spec if isinstance(spec, ServerSpec) else load_spec(spec)
        if state is not None:
            raise ConfigError("External-v0 with spec=... takes no state=: the spec file's [state] table gives it")
        parsed = _override(parsed, settings)
        source = spec_source(parsed)
        hide = [*parsed.hide_tools, *hide]
        rename = {**parsed.rename_tools, **rename}
    else:
        source = ExternalSource(
            name or "external",
            command=command,
            url=url,
            env=env,
            state=state,
            transport=transport,
            cwd=cwd,
            startup_timeout=60.0 if startup_timeout is None else startup_timeout,
            headers=headers,
            sandbox="none" if sandbox is None else sandbox,
            network=bool(network),
            restart_on_reset=bool(restart_on_reset),
        )
    return MCPEnv(source, hide_tools=hide, rename_tools=rename, **env_kwargs)


def _override(spec: ServerSpec, settings: Mapping[str, Any]) -> ServerSpec:
    """``spec`` with the keyword settings over its own (``env`` and ``headers`` merged key by key)."""
    changes = dict(settings)
    if "env" in changes:
        changes["env"] = {**spec.env, **changes["env"]}
    if "headers" in changes:
        changes["headers"] = {**spec.headers, **changes["headers"]}
    if "cwd" in changes:
        changes["cwd"] = Path(changes["cwd"])
    if changes.get("transport", "stdio") not in ("stdio", "http"):
        raise ConfigError(f"{spec.name}: transport must be 'stdio' or 'http', got {changes['transport']!r}")
    return dataclasses.replace(spec, **changes) if changes else spec


def _compose(servers: Mapping[str, Any]) -> tuple[ComposedSource, list[str], dict[str, str]]:
    """The composed source, and the members' spec-file tool rules under their ``name.`` prefix."""
    parts: dict[str, ServerSource | str] = {}
    hide: list[str] = []
    rename: dict[str, str] = {}
    for member, value in servers.items():
        if is_spec_file(value):
            value = load_spec(value)
        if isinstance(value, ServerSpec):
            hide += [f"{member}.{tool}" for tool in value.hide_tools]
            rename.update({f"{member}.{old}": f"{member}.{new}" for old, new in value.rename_tools.items()})
        parts[member] = as_source(value)
    return ComposedSource(parts), hide, rename
