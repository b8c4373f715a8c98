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
saves it so that ``import gym_mcp`` registers ``gym_mcp/NpmFilesystem-v0``.

The file format is the pydantic model `SpecFile` (`gym_mcp.specs.schema`: unknown keys are
errors; its JSON Schema is published at ``docs/spec.schema.json``). `ServerSpec` is the parsed
result, with paths resolved: a description only. The server source it describes is made by
`gym_mcp.live` (`ExternalSource.from_spec`, `as_source`), which starts servers; this room reads
files and starts nothing.
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

from pydantic import ValidationError

from gym_mcp.errors import ConfigError
from gym_mcp.specs.schema import KEY_MESSAGES, NAME_PATTERN, SpecFile, got, spec_error
from gym_mcp.specs.textfile import NotUTF8, check_unicode, decode_utf8, loads_json

__all__ = ["ServerSpec", "env_name", "is_spec_file", "load_spec", "parse_spec", "saved_specs", "specs_dir"]

# A server's name names its saved spec file: a file name's length, with room to spare.
MAX_NAME = 100


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
        tool_hints: ``{server tool name: hint}`` for task synthesis (``[tools.hints.<tool>]``:
            ``kind``, ``intent``, ``samples``, ``pools``, ``confirm``; only the keys given).
        cwd: The server's working directory.
        startup_timeout: Seconds to start.
        headers: HTTP headers (``${NAME}`` read from the environment at launch).
        sandbox: ``"none"``, ``"bwrap"`` (writes confined) or ``"bwrap-strict"`` (reads too).
        network: In the sandbox, keep the network.
        restart_on_reset: Start the server process anew at every reset (it keeps state in memory).
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
    tool_hints: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    cwd: Path | None = None
    startup_timeout: float = 60.0
    headers: Mapping[str, str] = field(default_factory=dict)
    sandbox: str = "none"
    network: bool = False
    restart_on_reset: bool = False
    source_file: Path | None = None

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
        if self.tool_hints:
            out["tools"]["hints"] = {tool: dict(hint) for tool, hint in self.tool_hints.items()}
        if self.cwd is not None:
            out["cwd"] = str(self.cwd)
        out["startup_timeout"] = self.startup_timeout
        if self.headers:
            out["headers"] = dict(self.headers)
        if self.sandbox != "none":
            out["sandbox"] = self.sandbox
        if self.network:
            out["network"] = True
        if self.restart_on_reset:
            out["restart_on_reset"] = True
        return out


def _yaml_loads(path: Path, text: str) -> Any:
    """Parse YAML safely; a key given twice in one mapping is an error (PyYAML keeps the last)."""
    try:
        import yaml  # type: ignore[import-untyped]
    except ImportError:
        raise ConfigError(f"{path}: YAML specs need PyYAML (pip install pyyaml); or use TOML/JSON") from None

    class Loader(yaml.SafeLoader):
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                if isinstance(key, str | int | float | bool) and key in seen:
                    mark = key_node.start_mark
                    raise ConfigError(
                        f"{path}: not valid YAML: key {key!r} is given twice in one mapping "
                        f"(line {mark.line + 1}, column {mark.column + 1})"
                    )
                seen.add(key)
            return super().construct_mapping(node, deep=deep)

    try:
        return yaml.load(text, Loader=Loader)  # a SafeLoader subclass: no arbitrary objects
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        mark = getattr(exc, "problem_mark", None)
        at = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        raise ConfigError(f"{path}: not valid YAML: {problem}{at}") from None


def _read(path: Path) -> dict[str, Any]:
    """A spec file's top-level table (UTF-8 text; ConfigError with one line for anything else)."""
    suffix = path.suffix.lower()
    if suffix not in (".toml", ".json", ".yaml", ".yml"):
        raise ConfigError(f"{path}: a spec file must end in .toml, .json, .yaml or .yml")
    try:
        text = decode_utf8(path.read_bytes())
    except OSError as exc:
        raise ConfigError(f"cannot read spec file {path}: {exc.strerror or exc}") from exc
    except NotUTF8 as exc:
        raise ConfigError(f"{path}: {exc}") from None
    data: Any
    try:
        if suffix == ".toml":
            data = tomllib.loads(text)
        elif suffix == ".json":
            data = loads_json(text)
        else:
            data = _yaml_loads(path, text)
            check_unicode(data)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except ValueError as exc:  # a duplicate key, NaN or a lone surrogate (JSON), a lone surrogate (YAML)
        raise ConfigError(f"{path}: not valid {suffix[1:].upper()}: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a spec must be a table/object at the top level")
    return data


def load_spec(path: str | os.PathLike[str]) -> ServerSpec:
    """Read and check a spec file.

    Args:
        path: A ``.toml``, ``.json``, ``.yaml`` or ``.yml`` file.

    Returns:
        The spec, with paths resolved against the file's folder.

    Raises:
        ConfigError: The file is unreadable or malformed, or a field is missing or wrong; the
            message names the file, the server and the field.
    """
    p = Path(path).resolve()
    data = _read(p)
    return parse_spec(data, base=p.parent, source_file=p)


def parse_spec(data: Mapping[str, Any], *, base: Path, source_file: Path | None = None) -> ServerSpec:
    """Check a spec given as a dict (paths relative to ``base``).

    Args:
        data: The spec's keys, as read from a file (see `SpecFile`).
        base: The folder relative paths are resolved against.
        source_file: The file the spec came from (named in errors).

    Returns:
        The spec.

    Raises:
        ConfigError: A field is missing or wrong (one line, naming the file, server and key).
    """
    where = str(source_file) if source_file else "spec"
    name = data.get("name")
    if name is None or (isinstance(name, str) and not name.strip()):
        raise ConfigError(f"{where}: missing field 'name' (a non-empty string)")
    if not isinstance(name, str):
        raise ConfigError(f"{where}: 'name' must be a non-empty string{got(data, 'name')}")
    if not NAME_PATTERN.match(name.rstrip()):
        raise ConfigError(f"{where}: {KEY_MESSAGES['name']} (it names the saved spec file), got {name!r}")
    if len(name.strip()) > MAX_NAME:
        raise ConfigError(
            f"{where}: 'name' must be at most {MAX_NAME} characters (it names the saved spec file), "
            f"got {len(name.strip()):,} characters: {name.strip()[:20]!r}..."
        )
    where = f"{where} (server {name!r})"
    try:
        raw = SpecFile.model_validate(dict(data))
    except ValidationError as exc:
        raise ConfigError(f"{where}: {spec_error(exc.errors(), data)}") from None
    command = shlex.split(raw.command) if isinstance(raw.command, str) else list(raw.command or [])
    transport = raw.transport or ("http" if raw.url else "stdio")
    cwd = Path(raw.cwd) if raw.cwd else base
    if not cwd.is_absolute() and "{" not in str(cwd):  # "{state}" is filled in per launch
        cwd = (base / cwd).resolve()
    if command and ("/" in command[0]) and not os.path.isabs(command[0]):
        candidate = base / command[0]
        if candidate.exists():
            command = [str(candidate), *command[1:]]

    state = raw.state
    state_path: Path | None = None
    options: dict[str, Any] = {}
    if state.kind != "none" and state.path:
        state_path = Path(state.path) if os.path.isabs(state.path) else (base / state.path).resolve()
        if state.kind == "directory" and not state_path.is_dir():
            raise ConfigError(f"{where}: state.path {state_path} is not a directory")
        if state.kind in ("sqlite", "json") and not state_path.is_file():
            raise ConfigError(f"{where}: state.path {state_path} is not a file")
        if state.kind == "sqlite" and not _is_sqlite(state_path):
            raise ConfigError(f"{where}: state.path {state_path} is not an SQLite database (state.kind is 'sqlite')")
        if state.kind == "directory":
            options["ignore"] = list(state.ignore)
        elif state.kind == "sqlite":
            options["volatile"] = {t: list(c) for t, c in state.volatile.items()}
        else:
            options["volatile_keys"] = list(state.volatile_keys)
    return ServerSpec(
        name=name.strip(),
        command=tuple(command),
        url=raw.url,
        transport=transport,
        env=dict(raw.env or {}),
        state_kind=state.kind,
        state_path=state_path,
        state_options=options,
        hide_tools=tuple(raw.tools.hide),
        rename_tools=dict(raw.tools.rename or {}),
        tool_hints={tool: hint.model_dump(exclude_defaults=True) for tool, hint in raw.tools.hints.items()},
        cwd=cwd,
        startup_timeout=raw.startup_timeout,
        headers=dict(raw.headers or {}),
        sandbox=raw.sandbox,
        network=raw.network,
        restart_on_reset=raw.restart_on_reset,
        source_file=source_file,
    )


def _is_sqlite(path: Path) -> bool:
    """Whether a file is an SQLite database (or empty: SQLite makes an empty file a database)."""
    try:
        with path.open("rb") as f:
            head = f.read(16)
    except OSError:
        return False
    return head in (b"", b"SQLite format 3\x00")


def specs_dir() -> Path:
    """Where `gym-mcp envs add` saves specs: ``$GYM_MCP_HOME/envs`` (default ``~/.config/gym-mcp``)."""
    home = os.environ.get("GYM_MCP_HOME") or os.path.join(
        os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config"), "gym-mcp"
    )
    return Path(home) / "envs"


def env_name(name: str) -> str:
    """The registered id of a saved spec, e.g. ``gym_mcp/NpmFilesystem-v0`` for ``npm-filesystem``."""
    cleaned = re.sub(r"[^A-Za-z0-9]+", " ", name).title().replace(" ", "")
    return f"gym_mcp/{cleaned}-v0"


def saved_specs() -> dict[str, Path]:
    """Saved specs by server name."""
    folder = specs_dir()
    if not folder.is_dir():
        return {}
    return {p.stem: p for p in sorted(folder.glob("*.json"))}


def is_spec_file(value: Any) -> bool:
    """True when ``value`` is a path (string or path-like) ending in ``.toml``, ``.json``, ``.yaml`` or ``.yml``."""
    return isinstance(value, str | os.PathLike) and Path(value).suffix.lower() in (".toml", ".json", ".yaml", ".yml")
