"""Server spec files: describe a third-party MCP server once, use it as an environment anywhere.

A spec is a TOML or JSON file (YAML too when PyYAML is installed)::

    name = "filesystem"
    command = ["node_modules/.bin/mcp-server-filesystem", "{state}"]   # {state}: the private copy
    transport = "stdio"                # or "http", with url = "http://127.0.0.1:{port}/mcp"

    [env]
    LOG_LEVEL = "error"

    [state]
    kind = "directory"                 # directory | sqlite | json | none
    path = "fixtures/workspace"        # the template, relative to this file
    ignore = ["*.log"]                 # directory: globs left out of fingerprints

    [tools]
    hide = ["move_file"]
    rename = { read_text_file = "read_file" }

Relative paths (the state, and a command that is a relative path) are resolved against the
spec file's folder, which is also the server's working directory. ``gym.make`` takes
``gym.make("gym_mcp/External-v0", spec="filesystem.toml")``; ``gym-mcp envs add spec.toml``
saves it so that ``import gym_mcp`` registers ``gym_mcp/Filesystem-v0``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gym_mcp.errors import ConfigError
from gym_mcp.live.server import ServerSource
from gym_mcp.live.sources import BundledSource, ExternalSource
from gym_mcp.state import DirectoryState, JSONFileState, SQLiteState, StateBackend

__all__ = ["ServerSpec", "as_source", "env_name", "load_spec", "parse_spec", "saved_specs", "specs_dir"]


_KNOWN = {
    "name",
    "command",
    "url",
    "transport",
    "env",
    "state",
    "tools",
    "cwd",
    "startup_timeout",
    "description",
}
_STATE_KINDS = ("directory", "sqlite", "json", "none")


@dataclass(frozen=True)
class ServerSpec:
    """A parsed, checked server spec (all paths absolute).

    Attributes:
        name: Server name.
        command: Command line (may hold ``{state}``, ``{workdir}``, ``{port}``).
        url: HTTP URL (may hold ``{port}``).
        transport: ``"stdio"`` or ``"http"``.
        env: Extra environment variables.
        state_kind: ``"directory"``, ``"sqlite"``, ``"json"`` or ``"none"``.
        state_path: The template state's path.
        state_options: ``ignore`` (directory), ``volatile`` (sqlite), ``volatile_keys`` (json).
        hide_tools: Tools the agent must not see.
        rename_tools: ``{server name: agent name}``.
        cwd: The server's working directory.
        startup_timeout: Seconds to start.
        source_file: Where the spec was read from.
    """

    name: str
    command: tuple[str, ...] = ()
    url: str | None = None
    transport: str = "stdio"
    env: Mapping[str, str] = field(default_factory=dict)
    state_kind: str = "none"
    state_path: Path | None = None
    state_options: Mapping[str, Any] = field(default_factory=dict)
    hide_tools: tuple[str, ...] = ()
    rename_tools: Mapping[str, str] = field(default_factory=dict)
    cwd: Path | None = None
    startup_timeout: float = 60.0
    source_file: Path | None = None

    def make_state(self) -> StateBackend | None:
        """The template state backend."""
        if self.state_kind == "none" or self.state_path is None:
            return None
        if self.state_kind == "directory":
            return DirectoryState(self.state_path, ignore=self.state_options.get("ignore", ()))
        if self.state_kind == "sqlite":
            return SQLiteState(self.state_path, volatile=self.state_options.get("volatile", {}))
        return JSONFileState(self.state_path, volatile_keys=self.state_options.get("volatile_keys", ()))

    def source(self) -> ExternalSource:
        """The server source this spec describes."""
        return ExternalSource(
            self.name,
            command=list(self.command) or None,
            url=self.url,
            env=self.env,
            state=self.make_state(),
            transport="http" if self.transport == "http" else "stdio",
            cwd=str(self.cwd) if self.cwd else None,
            startup_timeout=self.startup_timeout,
        )

    def to_dict(self) -> dict[str, Any]:
        """The spec as a JSON-ready dict with absolute paths (what `gym-mcp envs add` saves)."""
        out: dict[str, Any] = {"name": self.name, "transport": self.transport}
        if self.command:
            out["command"] = list(self.command)
        if self.url:
            out["url"] = self.url
        if self.env:
            out["env"] = dict(self.env)
        state: dict[str, Any] = {"kind": self.state_kind, **dict(self.state_options)}
        if self.state_path is not None:
            state["path"] = str(self.state_path)
        out["state"] = state
        out["tools"] = {"hide": list(self.hide_tools), "rename": dict(self.rename_tools)}
        if self.cwd is not None:
            out["cwd"] = str(self.cwd)
        out["startup_timeout"] = self.startup_timeout
        return out


def _read(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read spec file {path}: {exc.strerror or exc}") from exc
    suffix = path.suffix.lower()
    try:
        if suffix == ".toml":
            data: Any = tomllib.loads(text)
        elif suffix == ".json":
            data = json.loads(text)
        elif suffix in (".yaml", ".yml"):
            try:
                import yaml  # type: ignore[import-untyped]
            except ImportError:
                raise ConfigError(f"{path}: YAML specs need PyYAML (pip install pyyaml); or use TOML/JSON") from None
            data = yaml.safe_load(text)
        else:
            raise ConfigError(f"{path}: a spec file must end in .toml, .json, .yaml or .yml")
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path}: not valid {suffix[1:].upper()}: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a spec must be a table/object at the top level")
    return data


def _str_map(value: Any, where: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ConfigError(f"{where} must be a table of strings")
    return dict(value)


def load_spec(path: str | os.PathLike[str]) -> ServerSpec:
    """Read and check a spec file.

    Raises:
        ConfigError: The file is unreadable or malformed, or a field is missing or wrong; the
            message names the file, the server and the field.
    """
    p = Path(path).resolve()
    data = _read(p)
    return parse_spec(data, base=p.parent, source_file=p)


def parse_spec(data: Mapping[str, Any], *, base: Path, source_file: Path | None = None) -> ServerSpec:
    """Check a spec given as a dict (paths relative to ``base``).

    Raises:
        ConfigError: A field is missing or wrong.
    """
    where = str(source_file) if source_file else "spec"
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"{where}: missing field 'name' (a non-empty string)")
    where = f"{where} (server {name!r})"
    unknown = sorted(set(data) - _KNOWN)
    if unknown:
        raise ConfigError(f"{where}: unknown field(s) {', '.join(unknown)}; known: {', '.join(sorted(_KNOWN))}")
    command = data.get("command")
    if isinstance(command, str):
        command = shlex.split(command)
    if command is not None and (not isinstance(command, list) or not all(isinstance(c, str) for c in command)):
        raise ConfigError(f"{where}: 'command' must be a list of strings (or one string)")
    url = data.get("url")
    if url is not None and not isinstance(url, str):
        raise ConfigError(f"{where}: 'url' must be a string")
    if not command and not url:
        raise ConfigError(f"{where}: missing field 'command' (or 'url' for a server already running)")
    transport = data.get("transport", "http" if url else "stdio")
    if transport not in ("stdio", "http"):
        raise ConfigError(f"{where}: 'transport' must be 'stdio' or 'http', got {transport!r}")
    if transport == "stdio" and not command:
        raise ConfigError(f"{where}: a stdio server needs 'command'")
    raw_cwd = data.get("cwd")
    if raw_cwd is not None and not isinstance(raw_cwd, str):
        raise ConfigError(f"{where}: 'cwd' must be a string")
    cwd = Path(raw_cwd) if raw_cwd else base
    if not cwd.is_absolute() and "{" not in str(cwd):  # "{state}" is filled in per launch
        cwd = (base / cwd).resolve()
    if command and ("/" in command[0]) and not os.path.isabs(command[0]):
        candidate = base / command[0]
        if candidate.exists():
            command = [str(candidate), *command[1:]]

    state = data.get("state", {"kind": "none"})
    if not isinstance(state, Mapping):
        raise ConfigError(f"{where}: 'state' must be a table")
    kind = state.get("kind")
    if kind not in _STATE_KINDS:
        raise ConfigError(f"{where}: missing or bad field 'state.kind'; use one of: {', '.join(_STATE_KINDS)}")
    state_path: Path | None = None
    options: dict[str, Any] = {}
    if kind != "none":
        raw = state.get("path")
        if not isinstance(raw, str) or not raw:
            raise ConfigError(f"{where}: missing field 'state.path' (the template {kind} state)")
        state_path = Path(raw) if os.path.isabs(raw) else (base / raw).resolve()
        if kind == "directory" and not state_path.is_dir():
            raise ConfigError(f"{where}: state.path {state_path} is not a directory")
        if kind in ("sqlite", "json") and not state_path.is_file():
            raise ConfigError(f"{where}: state.path {state_path} is not a file")
        if kind == "directory":
            options["ignore"] = list(state.get("ignore", []))
        elif kind == "sqlite":
            vol = state.get("volatile", {})
            if not isinstance(vol, Mapping):
                raise ConfigError(f"{where}: 'state.volatile' must map table names to column lists")
            options["volatile"] = {str(t): list(c) for t, c in vol.items()}
        else:
            options["volatile_keys"] = list(state.get("volatile_keys", []))

    tools = data.get("tools", {})
    if not isinstance(tools, Mapping):
        raise ConfigError(f"{where}: 'tools' must be a table")
    hide = tools.get("hide", [])
    if not isinstance(hide, list) or not all(isinstance(h, str) for h in hide):
        raise ConfigError(f"{where}: 'tools.hide' must be a list of tool names")
    rename = _str_map(tools.get("rename"), f"{where}: 'tools.rename'")
    timeout = data.get("startup_timeout", 60.0)
    if not isinstance(timeout, int | float) or timeout <= 0:
        raise ConfigError(f"{where}: 'startup_timeout' must be a positive number")
    return ServerSpec(
        name=name.strip(),
        command=tuple(command or ()),
        url=url,
        transport=transport,
        env=_str_map(data.get("env"), f"{where}: 'env'"),
        state_kind=kind,
        state_path=state_path,
        state_options=options,
        hide_tools=tuple(hide),
        rename_tools=rename,
        cwd=cwd,
        startup_timeout=float(timeout),
        source_file=source_file,
    )


def specs_dir() -> Path:
    """Where `gym-mcp envs add` saves specs: ``$GYM_MCP_HOME/envs`` (default ``~/.config/gym-mcp``)."""
    home = os.environ.get("GYM_MCP_HOME") or os.path.join(
        os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config"), "gym-mcp"
    )
    return Path(home) / "envs"


def env_name(name: str) -> str:
    """The registered id of a saved spec, e.g. ``gym_mcp/Filesystem-v0``."""
    cleaned = re.sub(r"[^A-Za-z0-9]+", " ", name).title().replace(" ", "")
    return f"gym_mcp/{cleaned}-v0"


def saved_specs() -> dict[str, Path]:
    """Saved specs by server name."""
    folder = specs_dir()
    if not folder.is_dir():
        return {}
    return {p.stem: p for p in sorted(folder.glob("*.json"))}


def as_source(value: Any) -> ServerSource:
    """A server source from a source, a `ServerSpec`, a spec file path or a bundled server name."""
    if isinstance(value, ServerSource):
        return value
    if isinstance(value, ServerSpec):
        return value.source()
    if isinstance(value, str | os.PathLike) and Path(value).suffix.lower() in (
        ".toml",
        ".json",
        ".yaml",
        ".yml",
    ):
        return load_spec(value).source()
    if isinstance(value, str):
        return BundledSource(value)
    raise ConfigError(f"cannot make a server from {value!r}: give a source, a spec file or a bundled name")
