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

The file format is the pydantic model `SpecFile` (unknown keys are errors); its JSON Schema is
published at ``docs/spec.schema.json`` (`spec_schema_text` writes it), so editors can check
and complete spec files. `ServerSpec` is the parsed result, with paths resolved.
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
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import ErrorDetails

from gym_mcp.errors import ConfigError
from gym_mcp.live.server import ServerSource
from gym_mcp.live.sources import BundledSource, ExternalSource
from gym_mcp.state import DirectoryState, JSONFileState, SQLiteState, StateBackend
from gym_mcp.tasks.textfile import NotUTF8, check_unicode, decode_utf8, loads_json

__all__ = [
    "ServerSpec",
    "SpecFile",
    "as_source",
    "env_name",
    "is_spec_file",
    "load_spec",
    "parse_spec",
    "saved_specs",
    "spec_json_schema",
    "spec_schema_text",
    "specs_dir",
]

_STATE_KINDS = ("directory", "sqlite", "json", "none")
_JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
# A server name: it names the saved spec file (`gym-mcp envs add`), so no "/" and no leading ".".
_NAME = re.compile(r"^\s*\w[\w .-]*$")
_Text = Annotated[str, Field(pattern=r"\S")]  # a string with something in it (tool names, globs, keys)
# Each state kind's own options, and which kind reads each.
_STATE_OPTIONS = {"ignore": "directory", "volatile": "sqlite", "volatile_keys": "json"}


class StateSection(BaseModel):
    """The ``[state]`` table: the template state every environment gets a private copy of."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        title="State",
        json_schema_extra={"if": {"properties": {"kind": {"const": "none"}}}, "else": {"required": ["path"]}},
    )

    kind: Literal["directory", "sqlite", "json", "none"] = Field(
        description="The kind of state: a directory, an SQLite database, a JSON file, or none (stateless)."
    )
    path: str | None = Field(
        default=None,
        description="The template state, relative to the spec file's folder (needed unless kind is none).",
    )
    ignore: list[_Text] = Field(
        default_factory=list, description="directory: glob patterns of files left out of fingerprints, e.g. ['*.log']."
    )
    volatile: dict[str, list[_Text]] = Field(
        default_factory=dict, description="sqlite: {table: [columns]} left out of fingerprints (timestamps, ...)."
    )
    volatile_keys: list[_Text] = Field(default_factory=list, description="json: keys left out of fingerprints.")

    @model_validator(mode="after")
    def _path_unless_none(self) -> StateSection:
        if self.kind != "none" and not self.path:
            raise ValueError(f"missing field 'state.path' (the template {self.kind} state)")
        if self.kind == "none" and self.path is not None:
            raise ValueError(
                "'state.path' is given but 'state.kind' is 'none' (no state); set the kind or drop the path"
            )
        if any(not table.strip() for table in self.volatile):
            raise ValueError("'state.volatile' must map table names to column lists, got a blank table name")
        for option, kind in _STATE_OPTIONS.items():
            if option in self.model_fields_set and self.kind != kind:
                raise ValueError(f"'state.{option}' is read only for kind {kind!r}, but 'state.kind' is {self.kind!r}")
        return self


class ToolsSection(BaseModel):
    """The ``[tools]`` table: which tools the agent sees, and under which names."""

    model_config = ConfigDict(extra="forbid", strict=True, title="Tools")

    hide: list[_Text] = Field(default_factory=list, description="Tools the agent must not see.")
    rename: dict[str, _Text] | None = Field(default=None, description="{server's tool name: the name the agent sees}.")

    @model_validator(mode="after")
    def _names(self) -> ToolsSection:
        if any(not name.strip() for name in self.rename or {}):
            raise ValueError("'tools.rename' must be a table of strings, got a blank tool name")
        return self


class SpecFile(BaseModel):
    """A spec file as written (TOML, JSON or YAML): checked, with paths not yet resolved."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        title="gym-mcp server spec",
        json_schema_extra={
            "$schema": _JSON_SCHEMA_DIALECT,
            "description": (
                "A third-party MCP server as a gym-mcp environment (TOML, JSON or YAML): how to start it, "
                "where its state lives, and which tools the agent sees. Relative paths are resolved against "
                "the spec file's folder. See docs/spec-files.md."
            ),
            "anyOf": [{"required": ["command"]}, {"required": ["url"]}],
        },
    )

    name: Annotated[str, Field(pattern=_NAME.pattern)] = Field(
        description="The server's name: letters, digits, spaces, '.', '_' and '-', starting with a letter or digit."
    )
    command: str | list[str] | None = Field(
        default=None,
        description=(
            "The command line that starts the server, as a list (or one string, split like a shell). "
            "It may hold {state} (the environment's private state copy), {workdir} and {port}."
        ),
    )
    url: str | None = Field(
        default=None,
        description="The server's HTTP URL (may hold {port}); alone, a server someone else already runs.",
    )
    transport: Literal["stdio", "http"] | None = Field(
        default=None, description="How to talk to the server (default: http with a url, else stdio)."
    )
    cwd: str | None = Field(
        default=None, description="The server's working directory (default: the spec file's folder; may be {state})."
    )
    state: StateSection = Field(
        default_factory=lambda: StateSection(kind="none"), description="The server's state (default: none)."
    )
    tools: ToolsSection = Field(default_factory=ToolsSection, description="Hide or rename tools.")
    startup_timeout: Annotated[float, Field(gt=0, allow_inf_nan=False)] = Field(
        default=60.0, description="Seconds the server has to start."
    )
    env: dict[str, str] | None = Field(default=None, description="Extra environment variables for the server.")
    headers: dict[str, str] | None = Field(
        default=None,
        description=(
            'HTTP headers sent with every request, e.g. Authorization = "Bearer ${MY_TOKEN}"; '
            "${NAME} is read from the environment when the server is launched (keep secrets out of the file)."
        ),
    )
    sandbox: Literal["none", "bwrap"] = Field(
        default="none",
        description=(
            "'bwrap' runs the server in a bubblewrap sandbox: only its state copy writable, the rest of the "
            "system read-only, no network unless 'network' is true."
        ),
    )
    network: bool = Field(default=False, description="In the sandbox, keep the network (HTTP servers always do).")
    description: str | None = Field(default=None, description="What the server is, for people reading the spec.")

    @field_validator("command")
    @classmethod
    def _check_command(cls, value: str | list[str] | None) -> str | list[str] | None:
        if isinstance(value, str):
            try:
                words = shlex.split(value)
            except ValueError as exc:
                raise ValueError(f"'command' cannot be split like a shell command line ({exc}): {value!r}") from None
        else:
            words = value or []
        if words and not words[0].strip():
            raise ValueError(f"'command' must start with the program to run, got {json.dumps(value)}")
        return value

    @field_validator("url")
    @classmethod
    def _check_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError(f"'url' must be an http:// or https:// URL, got {value!r}")
        return value

    @field_validator("env")
    @classmethod
    def _check_env(cls, value: dict[str, str] | None) -> dict[str, str] | None:
        for key in value or {}:
            if not key or "=" in key or "\0" in key:
                raise ValueError(f"'env' key {key!r} is not an environment variable name (empty, or holds '=')")
        return value

    @model_validator(mode="after")
    def _command_or_url(self) -> SpecFile:
        command = shlex.split(self.command) if isinstance(self.command, str) else self.command
        if not command and not self.url:
            raise ValueError("missing field 'command' (or 'url' for a server already running)")
        if self.transport == "stdio" and not command:
            raise ValueError("a stdio server needs 'command'")
        return self


_KNOWN = set(SpecFile.model_fields)
_SECTIONS: dict[str, type[BaseModel]] = {"state": StateSection, "tools": ToolsSection}
# What a key must be, by dotted key (other keys: pydantic's words).
_KEY_MESSAGES = {
    "name": "'name' must be a string of letters, digits, spaces, '.', '_' and '-', starting with a letter or digit",
    "command": "'command' must be a list of strings (or one string)",
    "url": "'url' must be a string",
    "cwd": "'cwd' must be a string",
    "state": "'state' must be a table",
    "state.path": "'state.path' must be a string",
    "state.ignore": "'state.ignore' must be a list of glob patterns",
    "state.volatile": "'state.volatile' must map table names to column lists",
    "state.volatile_keys": "'state.volatile_keys' must be a list of keys",
    "tools": "'tools' must be a table",
    "tools.hide": "'tools.hide' must be a list of tool names",
    "tools.rename": "'tools.rename' must be a table of strings",
    "env": "'env' must be a table of strings",
    "headers": "'headers' must be a table of strings",
    "sandbox": '\'sandbox\' must be "none" or "bwrap"',
    "network": "'network' must be true or false",
    "startup_timeout": "'startup_timeout' must be a positive number of seconds",
    "description": "'description' must be a string",
}
# Keys whose value is a list (and not a string): a string there gets a hint to write a one-element list.
_LIST_KEYS = ("state.ignore", "state.volatile_keys", "tools.hide")


def _key(loc: tuple[int | str, ...]) -> str:
    """The dotted spec key an error is about (``state.kind``), without pydantic's union branches."""
    if not loc:
        return ""
    head = str(loc[0])
    section = _SECTIONS.get(head)
    if section is not None and len(loc) > 1 and str(loc[1]) in section.model_fields:
        return f"{head}.{loc[1]}"
    return head


def _value_at(data: Mapping[str, Any], key: str) -> tuple[bool, Any]:
    """Whether the spec gives dotted ``key`` (``state.ignore``), and its value."""
    value: Any = data
    for part in key.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return False, None
        value = value[part]
    return True, value


def _got(data: Mapping[str, Any], key: str) -> str:
    """``", got <value>"`` for the value at ``key`` (in JSON, cut short), with a hint for a bare string."""
    given, value = _value_at(data, key)
    if not given:
        return ""
    shown = json.dumps(value, default=str, ensure_ascii=False)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    hint = f" (a list: write [{shown}])" if key in _LIST_KEYS and isinstance(value, str) else ""
    return f", got {shown}{hint}"


def _spec_error(errors: list[ErrorDetails], data: Mapping[str, Any]) -> str:
    """One line for the first problem: unknown keys first, then the keys in file-format order."""
    extra = [e for e in errors if e["type"] == "extra_forbidden"]
    if extra:
        top = sorted(str(e["loc"][0]) for e in extra if len(e["loc"]) == 1)
        if top:
            return f"unknown field(s) {', '.join(top)}; known: {', '.join(sorted(_KNOWN))}"
        section = str(extra[0]["loc"][0])
        names = sorted(f"{section}.{e['loc'][-1]}" for e in extra if str(e["loc"][0]) == section)
        known = ", ".join(sorted(_SECTIONS[section].model_fields))
        return f"unknown field(s) {', '.join(names)}; known in [{section}]: {known}"
    first = errors[0]
    if first["type"] == "value_error" and "ctx" in first:
        return str(first["ctx"]["error"])
    key = _key(first["loc"])
    if key == "state.kind":
        if not _value_at(data, key)[0]:
            return f"missing field 'state.kind' (one of: {', '.join(_STATE_KINDS)})"
        return f"'state.kind' must be one of: {', '.join(_STATE_KINDS)}{_got(data, key)}"
    if key == "transport":
        return f"'transport' must be 'stdio' or 'http', got {first['input']!r}"
    if key in _KEY_MESSAGES:
        return _KEY_MESSAGES[key] + _got(data, key)
    return f"'{key}': {first['msg'][:1].lower()}{first['msg'][1:]}{_got(data, key)}"


def spec_json_schema() -> dict[str, Any]:
    """The JSON Schema of spec files, generated from `SpecFile`.

    Returns:
        The schema (draft 2020-12), with ``$schema``, ``title`` and ``description`` first.
    """
    schema = SpecFile.model_json_schema()
    head = {key: schema.pop(key) for key in ("$schema", "title", "description")}
    return {**head, **schema}


def spec_schema_text() -> str:
    """The JSON Schema of spec files as ``docs/spec.schema.json`` holds it (pretty-printed).

    Regenerate the file with ``python -c "from gym_mcp.live.spec import spec_schema_text;
    open('docs/spec.schema.json', 'w').write(spec_schema_text())"``.

    Returns:
        The schema as indented JSON, ending in a newline.
    """
    return json.dumps(spec_json_schema(), indent=2, ensure_ascii=False) + "\n"


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
        headers: HTTP headers (``${NAME}`` read from the environment at launch).
        sandbox: ``"none"`` or ``"bwrap"``.
        network: In the sandbox, keep the network.
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
    headers: Mapping[str, str] = field(default_factory=dict)
    sandbox: str = "none"
    network: bool = False
    source_file: Path | None = None

    def make_state(self) -> StateBackend | None:
        """The template state backend (None for a stateless server)."""
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
            headers=self.headers,
            sandbox=self.sandbox,
            network=self.network,
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
        if self.headers:
            out["headers"] = dict(self.headers)
        if self.sandbox != "none":
            out["sandbox"] = self.sandbox
        if self.network:
            out["network"] = True
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
        raise ConfigError(f"{where}: 'name' must be a non-empty string{_got(data, 'name')}")
    if not _NAME.match(name.rstrip()):
        raise ConfigError(f"{where}: {_KEY_MESSAGES['name']} (it names the saved spec file), got {name!r}")
    where = f"{where} (server {name!r})"
    try:
        raw = SpecFile.model_validate(dict(data))
    except ValidationError as exc:
        raise ConfigError(f"{where}: {_spec_error(exc.errors(), data)}") from None
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
        cwd=cwd,
        startup_timeout=raw.startup_timeout,
        headers=dict(raw.headers or {}),
        sandbox=raw.sandbox,
        network=raw.network,
        source_file=source_file,
    )


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
        return value.source()
    if is_spec_file(value):
        return load_spec(value).source()
    if isinstance(value, str):
        return BundledSource(value)
    raise ConfigError(f"cannot make a server from {value!r}: give a source, a spec file or a bundled name")
