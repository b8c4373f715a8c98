"""``gym_mcp/External-v0``: an environment over any MCP server, from a spec, a command or a composition."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal

from gym_mcp.env.mcp import MCPEnv
from gym_mcp.errors import ConfigError
from gym_mcp.live.server import ServerSource
from gym_mcp.live.sources import ComposedSource, ExternalSource
from gym_mcp.live.spec import ServerSpec, as_source, load_spec
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
    hide_tools: list[str] | tuple[str, ...] = (),
    rename_tools: Mapping[str, str] | None = None,
    **env_kwargs: Any,
) -> MCPEnv:
    """Build an environment over any MCP server (the entry point of ``gym_mcp/External-v0``).

    Give exactly one of: ``spec`` (a spec file or `ServerSpec`); ``servers`` (``{name: spec
    file | source | bundled name}``, composed into one environment with tools named
    ``name.tool``); or ``command`` / ``url`` (+ ``state``, ``env``, ``transport``) directly.

    Args:
        spec: A spec file path or a parsed `ServerSpec`.
        servers: Servers to compose into one environment.
        name: Server name (with ``command``/``url``).
        command: Command line; ``{state}`` is the private state copy's path.
        url: HTTP URL (``{port}`` for a spawned server).
        env: Extra environment variables for the server.
        state: Template state (`DirectoryState`, `SQLiteState`, `JSONFileState`).
        transport: ``"stdio"`` or ``"http"``.
        cwd: Server working directory.
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
    hide = list(hide_tools)
    rename = dict(rename_tools or {})
    source: ServerSource
    if servers is not None:
        source = ComposedSource({n: as_source(v) for n, v in servers.items()})
    elif spec is not None:
        parsed = spec if isinstance(spec, ServerSpec) else load_spec(spec)
        source = parsed.source()
        hide = [*parsed.hide_tools, *hide]
        rename = {**parsed.rename_tools, **rename}
    else:
        source = ExternalSource(
            name or "external", command=command, url=url, env=env, state=state, transport=transport, cwd=cwd
        )
    return MCPEnv(source, hide_tools=hide, rename_tools=rename, **env_kwargs)
