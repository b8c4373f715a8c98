"""The spec file format: pydantic models of what a spec file may say, its JSON Schema, its error words.

`SpecFile` (with its ``[state]`` and ``[tools]`` tables, `StateSection` and `ToolsSection`) is
the format as written; unknown keys are errors. `spec_error` turns pydantic's errors into one
line that names the key and what it must be. The JSON Schema generated from the models is
published at ``docs/spec.schema.json`` (`spec_schema_text` writes it), so editors can check and
complete spec files. Reading files and resolving paths: `gym_mcp.specs.spec`.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import ErrorDetails

__all__ = [
    "KEY_MESSAGES",
    "NAME_PATTERN",
    "SpecFile",
    "StateSection",
    "ToolHint",
    "ToolsSection",
    "got",
    "spec_error",
    "spec_json_schema",
    "spec_schema_text",
]

_STATE_KINDS = ("directory", "sqlite", "json", "none")
_JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
# A server name: it names the saved spec file (`gym-mcp envs add`), so no "/" and no leading ".".
NAME_PATTERN = re.compile(r"^\s*\w[\w .-]*$")
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


_Scalar = str | int | float | bool


class ToolHint(BaseModel):
    """One ``[tools.hints.<tool>]`` table: what task synthesis should know about a tool.

    Each key given replaces what synthesis inferred from the tool's name, schema and
    annotations (`gym_mcp.synth.infer`). That the tool and its parameters exist is checked
    against the live server when synthesis starts (`gym_mcp.synth.hints`).
    """

    model_config = ConfigDict(extra="forbid", strict=True, title="Tool hint")

    kind: Literal["read", "write"] | None = Field(default=None, description="Whether the tool changes state.")
    intent: _Text | None = Field(
        default=None,
        description=(
            "How a user asks for the call, e.g. \"Add the note '{text}' to contact {contact_id}\": {param} is the "
            "argument's value, a [...] part is kept only when all its parameters are given."
        ),
    )
    samples: dict[str, list[_Scalar | list[_Scalar] | dict[str, Any]]] = Field(
        default_factory=dict, description="{param: [values]}: literal values for parameters no entity fills."
    )
    pools: dict[str, _Text] = Field(
        default_factory=dict, description="{param: column}: the state's column a parameter draws its values from."
    )
    confirm: _Text | None = Field(
        default=None, description='When a call needs the user\'s yes first: "always", or e.g. "amount >= 100".'
    )

    @field_validator("intent")
    @classmethod
    def _brackets(cls, value: str | None) -> str | None:
        if value is not None:
            depth = 0
            for char in value:
                depth += {"[": 1, "]": -1}.get(char, 0)
                if depth < 0 or depth > 1:
                    break
            if depth != 0:
                raise ValueError(f"an intent's [...] parts must be balanced and not nested, got {value!r}")
        return value


class ToolsSection(BaseModel):
    """The ``[tools]`` table: which tools the agent sees, under which names, and hints for synthesis."""

    model_config = ConfigDict(extra="forbid", strict=True, title="Tools")

    hide: list[_Text] = Field(default_factory=list, description="Tools the agent must not see.")
    rename: dict[str, _Text] | None = Field(default=None, description="{server's tool name: the name the agent sees}.")
    hints: dict[str, ToolHint] = Field(
        default_factory=dict,
        description="{server's tool name: hint}: kind, intent, samples, pools, confirm for task synthesis.",
    )

    @model_validator(mode="after")
    def _names(self) -> ToolsSection:
        if any(not name.strip() for name in self.rename or {}):
            raise ValueError("'tools.rename' must be a table of strings, got a blank tool name")
        if any(not name.strip() for name in self.hints):
            raise ValueError("'tools.hints' must be a table of tool tables, got a blank tool name")
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

    name: Annotated[str, Field(pattern=NAME_PATTERN.pattern)] = Field(
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
    sandbox: Literal["none", "bwrap", "bwrap-strict"] = Field(
        default="none",
        description=(
            "'bwrap' runs the server in a bubblewrap sandbox: only its state copy writable, the rest of the "
            "system read-only, no network unless 'network' is true. 'bwrap-strict' confines reads too: the "
            "server sees only the system's runtime folders, its own install and its private folders."
        ),
    )
    network: bool = Field(default=False, description="In the sandbox, keep the network (HTTP servers always do).")
    restart_on_reset: bool = Field(
        default=False,
        description=(
            "Start the server process anew at every reset, after its state is restored: for a server that keeps "
            "state in its memory beside its state files (gym-mcp envs check finds one). Costs a server start per reset."
        ),
    )
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
        if self.restart_on_reset and not command:
            raise ValueError(
                "'restart_on_reset' needs 'command': a server someone else runs (a url, no command) cannot be restarted"
            )
        return self


_KNOWN = set(SpecFile.model_fields)
_SECTIONS: dict[str, type[BaseModel]] = {"state": StateSection, "tools": ToolsSection}
# What a key must be, by dotted key (other keys: pydantic's words).
KEY_MESSAGES = {
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
    "tools.hints": "'tools.hints' must be a table of tool tables ([tools.hints.<tool>])",
    "env": "'env' must be a table of strings",
    "headers": "'headers' must be a table of strings",
    "sandbox": '\'sandbox\' must be "none", "bwrap" or "bwrap-strict"',
    "network": "'network' must be true or false",
    "restart_on_reset": "'restart_on_reset' must be true or false",
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


def got(data: Mapping[str, Any], key: str) -> str:
    """``", got <value>"`` for the value at ``key`` (in JSON, cut short), with a hint for a bare string."""
    given, value = _value_at(data, key)
    if not given:
        return ""
    shown = json.dumps(value, default=str, ensure_ascii=False)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    hint = f" (a list: write [{shown}])" if key in _LIST_KEYS and isinstance(value, str) else ""
    return f", got {shown}{hint}"


_HINT_MESSAGES = {
    "kind": 'must be "read" or "write"',
    "intent": "must be a non-empty string (a request template)",
    "samples": "must map parameter names to lists of values",
    "pools": "must map parameter names to column names",
    "confirm": 'must be a non-empty string ("always" or a threshold such as "amount >= 100")',
}


def _hint_error(errors: list[ErrorDetails], data: Mapping[str, Any]) -> str | None:
    """One line for the first problem inside ``[tools.hints.<tool>]``, or None if none is there."""
    for error in errors:
        loc = error["loc"]
        if len(loc) < 3 or loc[0] != "tools" or loc[1] != "hints":
            continue
        tool = str(loc[2])
        if len(loc) == 3:
            shown = got(data, f"tools.hints.{tool}")
            return f"'tools.hints.{tool}' must be a table (kind, intent, samples, pools, confirm){shown}"
        field = str(loc[3])
        key = f"tools.hints.{tool}.{field}"
        if error["type"] == "extra_forbidden":
            return f"unknown field {key}; known in [tools.hints.{tool}]: {', '.join(ToolHint.model_fields)}"
        if error["type"] == "value_error" and "ctx" in error:
            return f"'{key}': {error['ctx']['error']}"
        return f"'{key}' {_HINT_MESSAGES.get(field, 'is wrong')}{got(data, key)}"
    return None


def spec_error(errors: list[ErrorDetails], data: Mapping[str, Any]) -> str:
    """One line for the first problem: unknown keys first, then the keys in file-format order."""
    hint = _hint_error(errors, data)
    if hint is not None:
        return hint
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
        return f"'state.kind' must be one of: {', '.join(_STATE_KINDS)}{got(data, key)}"
    if key == "transport":
        return f"'transport' must be 'stdio' or 'http', got {first['input']!r}"
    if key in KEY_MESSAGES:
        return KEY_MESSAGES[key] + got(data, key)
    return f"'{key}': {first['msg'][:1].lower()}{first['msg'][1:]}{got(data, key)}"


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

    Regenerate the file with ``python -c "from gym_mcp.specs import spec_schema_text;
    open('docs/spec.schema.json', 'w').write(spec_schema_text())"``.

    Returns:
        The schema as indented JSON, ending in a newline.
    """
    return json.dumps(spec_json_schema(), indent=2, ensure_ascii=False) + "\n"
