"""Server sources from spec files: what a `ServerSpec` describes, made into a source to launch.

A spec (`gym_mcp.specs`) only describes a server; this is where the description meets
provisioning: its template state becomes a state backend (`spec_state`), the spec an
`ExternalSource` (`spec_source`), and anything a user may name a server by a source (`as_source`).
"""

from __future__ import annotations

from typing import Any

from gym_mcp.errors import ConfigError
from gym_mcp.live.live_server import ServerSource
from gym_mcp.live.sources import BundledSource, ExternalSource
from gym_mcp.specs import ServerSpec, is_spec_file, load_spec
from gym_mcp.state import DirectoryState, JSONFileState, SQLiteState, StateBackend

__all__ = ["as_source", "spec_source", "spec_state"]


def spec_state(spec: ServerSpec) -> StateBackend | None:
    """The template state backend of ``spec`` (None for a stateless server)."""
    if spec.state_kind == "none" or spec.state_path is None:
        return None
    if spec.state_kind == "directory":
        return DirectoryState(spec.state_path, ignore=spec.state_options.get("ignore", ()))
    if spec.state_kind == "sqlite":
        return SQLiteState(spec.state_path, volatile=spec.state_options.get("volatile", {}))
    return JSONFileState(spec.state_path, volatile_keys=spec.state_options.get("volatile_keys", ()))


def spec_source(spec: ServerSpec) -> ExternalSource:
    """The server source ``spec`` describes (its ``[tools]`` rules are the environment's to apply)."""
    return ExternalSource(
        spec.name,
        command=list(spec.command) or None,
        url=spec.url,
        env=spec.env,
        state=spec_state(spec),
        transport="http" if spec.transport == "http" else "stdio",
        cwd=str(spec.cwd) if spec.cwd else None,
        startup_timeout=spec.startup_timeout,
        headers=spec.headers,
        sandbox=spec.sandbox,
        network=spec.network,
        restart_on_reset=spec.restart_on_reset,
    )


def as_source(value: Any) -> ServerSource:
    """A server source from a source, a `ServerSpec`, a spec file path or a bundled server name.

    The source alone: a spec's ``[tools]`` rules are applied by the environment (see
    `gym_mcp.env.external.make_external_env`), not by the source.

    Raises:
        ConfigError: ``value`` is none of these, or its spec file is bad.
    """
    if isinstance(value, ServerSource):
        return value
    if isinstance(value, ServerSpec):
        return spec_source(value)
    if is_spec_file(value):
        return spec_source(load_spec(value))
    if isinstance(value, str):
        return BundledSource(value)
    raise ConfigError(f"cannot make a server from {value!r}: give a source, a spec file or a bundled name")
