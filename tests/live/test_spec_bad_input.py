"""Bad server spec files fail with one line naming the file, the server and the key (issue 15).

Every key of the spec model (`gym_mcp.specs.schema.SpecFile` and its ``[state]`` and ``[tools]``
tables) is given a value of the wrong type or shape, in TOML and in JSON; each must be a
`ConfigError` that says what is wrong, where, and what was given, through `load_spec`,
`gym.make` and `gym-mcp envs add` alike. Nothing is silently coerced: ``ignore = "*.log"`` is
not split into characters, ``startup_timeout = true`` is not 1 second.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import gym_mcp  # noqa: F401 - registers the environments
from gym_mcp.cli import main
from gym_mcp.errors import ConfigError
from gym_mcp.specs import load_spec

BASE: dict[str, Any] = {"name": "srv", "command": ["python", "-m", "srv"]}
FILE = "FILE"  # the message names only the file (the name itself is bad)
SERVER = "SERVER"  # the message names the file and the server


def _toml(value: Any) -> str:
    """``value`` as a TOML value (inline tables for dicts)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, int | float | str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + "}"
    raise TypeError(value)


def _write(folder: Path, spec: dict[str, Any], fmt: str) -> Path:
    path = folder / f"spec.{fmt}"
    if fmt == "toml":
        path.write_text("".join(f"{json.dumps(k)} = {_toml(v)}\n" for k, v in spec.items()), encoding="utf-8")
    else:
        path.write_text(json.dumps(spec), encoding="utf-8")
    return path


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A spec folder with a template of each state kind."""
    (tmp_path / "ws").mkdir()
    (tmp_path / "db.sqlite").write_bytes(b"")
    (tmp_path / "state.json").write_text("{}")
    return tmp_path


def _error(path: Path) -> str:
    with pytest.raises(ConfigError) as info:
        load_spec(path)
    message = str(info.value)
    assert "\n" not in message
    return message


def _where(path: Path, named: str) -> str:
    return f"{path.resolve()}: " if named == FILE else f"{path.resolve()} (server 'srv'): "


DIRECTORY = {"kind": "directory", "path": "ws"}
SQLITE = {"kind": "sqlite", "path": "db.sqlite"}
JSON_STATE = {"kind": "json", "path": "state.json"}

KEY_CASES: list[tuple[dict[str, Any], str, str]] = [
    # name
    ({"name": 5}, FILE, "'name' must be a non-empty string, got 5"),
    ({"name": ["srv"]}, FILE, "'name' must be a non-empty string, got [\"srv\"]"),
    ({"name": " "}, FILE, "missing field 'name' (a non-empty string)"),
    (
        {"name": "../srv"},
        FILE,
        "'name' must be a string of letters, digits, spaces, '.', '_' and '-', starting with a letter or digit "
        "(it names the saved spec file), got '../srv'",
    ),
    ({"name": "a/b"}, FILE, "'name' must be a string of letters, digits, spaces, '.', '_' and '-'"),
    # command
    ({"command": 5}, SERVER, "'command' must be a list of strings (or one string), got 5"),
    ({"command": ["python", 3]}, SERVER, "'command' must be a list of strings (or one string), got [\"python\", 3]"),
    ({"command": {"run": "x"}}, SERVER, '\'command\' must be a list of strings (or one string), got {"run": "x"}'),
    ({"command": [""]}, SERVER, "'command' must start with the program to run, got [\"\"]"),
    (
        {"command": "python 'my server"},
        SERVER,
        "'command' cannot be split like a shell command line (No closing quotation): \"python 'my server\"",
    ),
    ({"command": []}, SERVER, "missing field 'command' (or 'url' for a server already running)"),
    ({"command": "   "}, SERVER, "missing field 'command' (or 'url' for a server already running)"),
    # url
    ({"url": 5}, SERVER, "'url' must be a string, got 5"),
    ({"url": "127.0.0.1:8000/mcp"}, SERVER, "'url' must be an http:// or https:// URL, got '127.0.0.1:8000/mcp'"),
    ({"url": "ws://127.0.0.1/mcp"}, SERVER, "'url' must be an http:// or https:// URL, got 'ws://127.0.0.1/mcp'"),
    # transport
    ({"transport": "sse"}, SERVER, "'transport' must be 'stdio' or 'http', got 'sse'"),
    ({"transport": 1}, SERVER, "'transport' must be 'stdio' or 'http', got 1"),
    # cwd
    ({"cwd": 5}, SERVER, "'cwd' must be a string, got 5"),
    ({"cwd": ["ws"]}, SERVER, "'cwd' must be a string, got [\"ws\"]"),
    # state and its keys
    ({"state": "directory"}, SERVER, "'state' must be a table, got \"directory\""),
    ({"state": {"path": "ws"}}, SERVER, "missing field 'state.kind' (one of: directory, sqlite, json, none)"),
    ({"state": {"kind": "tape"}}, SERVER, "'state.kind' must be one of: directory, sqlite, json, none, got \"tape\""),
    ({"state": {"kind": 1}}, SERVER, "'state.kind' must be one of: directory, sqlite, json, none, got 1"),
    ({"state": {"kind": "directory"}}, SERVER, "missing field 'state.path' (the template directory state)"),
    ({"state": {"kind": "directory", "path": 5}}, SERVER, "'state.path' must be a string, got 5"),
    (
        {"state": {"kind": "none", "path": "ws"}},
        SERVER,
        "'state.path' is given but 'state.kind' is 'none' (no state); set the kind or drop the path",
    ),
    (
        {"state": {**DIRECTORY, "ignore": "*.log"}},
        SERVER,
        '\'state.ignore\' must be a list of glob patterns, got "*.log" (a list: write ["*.log"])',
    ),
    ({"state": {**DIRECTORY, "ignore": [1]}}, SERVER, "'state.ignore' must be a list of glob patterns, got [1]"),
    ({"state": {**DIRECTORY, "ignore": [""]}}, SERVER, "'state.ignore' must be a list of glob patterns, got [\"\"]"),
    (
        {"state": {**DIRECTORY, "ignore": {"logs": "*.log"}}},
        SERVER,
        '\'state.ignore\' must be a list of glob patterns, got {"logs": "*.log"}',
    ),
    ({"state": {**SQLITE, "volatile": ["created_at"]}}, SERVER, "'state.volatile' must map table names to column"),
    (
        {"state": {**SQLITE, "volatile": {"log": "at"}}},
        SERVER,
        '\'state.volatile\' must map table names to column lists, got {"log": "at"}',
    ),
    (
        {"state": {**SQLITE, "volatile": {"log": [1]}}},
        SERVER,
        "'state.volatile' must map table names to column lists, got {\"log\": [1]}",
    ),
    (
        {"state": {**SQLITE, "volatile": {" ": ["at"]}}},
        SERVER,
        "'state.volatile' must map table names to column lists, got a blank table name",
    ),
    (
        {"state": {**JSON_STATE, "volatile_keys": "updated_at"}},
        SERVER,
        '\'state.volatile_keys\' must be a list of keys, got "updated_at" (a list: write ["updated_at"])',
    ),
    ({"state": {**JSON_STATE, "volatile_keys": [1]}}, SERVER, "'state.volatile_keys' must be a list of keys, got [1]"),
    (
        {"state": {**SQLITE, "ignore": ["*.log"]}},
        SERVER,
        "'state.ignore' is read only for kind 'directory', but 'state.kind' is 'sqlite'",
    ),
    (
        {"state": {**JSON_STATE, "volatile": {"log": ["at"]}}},
        SERVER,
        "'state.volatile' is read only for kind 'sqlite', but 'state.kind' is 'json'",
    ),
    (
        {"state": {**DIRECTORY, "volatile_keys": ["at"]}},
        SERVER,
        "'state.volatile_keys' is read only for kind 'json', but 'state.kind' is 'directory'",
    ),
    ({"state": {**DIRECTORY, "igonre": ["*.log"]}}, SERVER, "unknown field(s) state.igonre; known in [state]: "),
    # tools and its keys
    ({"tools": ["read_file"]}, SERVER, "'tools' must be a table, got [\"read_file\"]"),
    (
        {"tools": {"hide": "move_file"}},
        SERVER,
        '\'tools.hide\' must be a list of tool names, got "move_file" (a list: write ["move_file"])',
    ),
    ({"tools": {"hide": [1]}}, SERVER, "'tools.hide' must be a list of tool names, got [1]"),
    ({"tools": {"hide": [""]}}, SERVER, "'tools.hide' must be a list of tool names, got [\"\"]"),
    ({"tools": {"rename": "read_file"}}, SERVER, "'tools.rename' must be a table of strings, got \"read_file\""),
    ({"tools": {"rename": {"a": 1}}}, SERVER, "'tools.rename' must be a table of strings, got {\"a\": 1}"),
    ({"tools": {"rename": {"a": " "}}}, SERVER, '\'tools.rename\' must be a table of strings, got {"a": " "}'),
    ({"tools": {"rename": {"": "b"}}}, SERVER, "'tools.rename' must be a table of strings, got a blank tool name"),
    ({"tools": {"show": ["a"]}}, SERVER, "unknown field(s) tools.show; known in [tools]: hide, hints, rename"),
    # restart_on_reset
    ({"restart_on_reset": "yes"}, SERVER, "'restart_on_reset' must be true or false, got \"yes\""),
    ({"restart_on_reset": 1}, SERVER, "'restart_on_reset' must be true or false, got 1"),
    # env
    ({"env": "LEVEL=1"}, SERVER, "'env' must be a table of strings, got \"LEVEL=1\""),
    ({"env": {"LEVEL": 1}}, SERVER, "'env' must be a table of strings, got {\"LEVEL\": 1}"),
    ({"env": {"DEBUG": True}}, SERVER, "'env' must be a table of strings, got {\"DEBUG\": true}"),
    (
        {"env": {"LEVEL=1": "x"}},
        SERVER,
        "'env' key 'LEVEL=1' is not an environment variable name (empty, or holds '=')",
    ),
    ({"env": {"": "x"}}, SERVER, "'env' key '' is not an environment variable name (empty, or holds '=')"),
    # startup_timeout
    ({"startup_timeout": True}, SERVER, "'startup_timeout' must be a positive number of seconds, got true"),
    ({"startup_timeout": "30"}, SERVER, "'startup_timeout' must be a positive number of seconds, got \"30\""),
    ({"startup_timeout": 0}, SERVER, "'startup_timeout' must be a positive number of seconds, got 0"),
    ({"startup_timeout": -5.0}, SERVER, "'startup_timeout' must be a positive number of seconds, got -5.0"),
    ({"startup_timeout": [30]}, SERVER, "'startup_timeout' must be a positive number of seconds, got [30]"),
    # description and the rest
    ({"description": 5}, SERVER, "'description' must be a string, got 5"),
    ({"description": ["a"]}, SERVER, "'description' must be a string, got [\"a\"]"),
    ({"colour": "red"}, SERVER, "unknown field(s) colour; known: "),
]


@pytest.mark.parametrize("fmt", ["toml", "json"])
@pytest.mark.parametrize(("fields", "named", "expect"), KEY_CASES, ids=[json.dumps(c[0])[:50] for c in KEY_CASES])
def test_every_key_of_the_wrong_type_names_file_server_and_key(
    folder: Path, fmt: str, fields: dict[str, Any], named: str, expect: str
) -> None:
    path = _write(folder, {**BASE, **fields}, fmt)
    message = _error(path)
    assert message.startswith(_where(path, named) + expect), message


@pytest.mark.parametrize(("value", "shown"), [(math.inf, "Infinity"), (math.nan, "NaN")])
def test_startup_timeout_must_be_finite(folder: Path, value: float, shown: str) -> None:
    """TOML has inf and nan; a server that may take forever to start is not a timeout."""
    path = _write(folder, {**BASE, "startup_timeout": value}, "toml")
    expect = f"'startup_timeout' must be a positive number of seconds, got {shown}"
    assert _error(path) == _where(path, SERVER) + expect


def test_helpful_forms_still_parse(folder: Path) -> None:
    """An integer timeout is seconds, a command string is split like a shell, and each kind keeps its options."""
    spec = {
        **BASE,
        "command": "python -m 'my server'",
        "startup_timeout": 5,
        "state": {**DIRECTORY, "ignore": ["*.log"]},
        "tools": {"hide": ["a"], "rename": {"b": "c"}},
        "env": {"LEVEL": "error"},
    }
    for fmt in ("toml", "json"):
        parsed = load_spec(_write(folder, spec, fmt))
        assert parsed.command == ("python", "-m", "my server")
        assert parsed.startup_timeout == 5.0 and isinstance(parsed.startup_timeout, float)
        assert parsed.state_options == {"ignore": ["*.log"]}
        assert parsed.hide_tools == ("a",) and parsed.rename_tools == {"b": "c"}


# -- the file itself ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("suffix", "content"),
    [
        (".toml", b'name = "srv"\n# caf\xe9\ncommand = ["x"]\n'),
        (".json", b'{"name": "srv",\n "description": "caf\xe9", "command": ["x"]}'),
        (".yaml", b"name: srv\ndescription: caf\xe9\ncommand: [x]\n"),
    ],
)
def test_non_utf8_spec_names_line_and_byte(tmp_path: Path, suffix: str, content: bytes) -> None:
    path = tmp_path / f"spec{suffix}"
    path.write_bytes(content)
    column = content.split(b"\n")[1].index(b"\xe9") + 1
    message = f"{path}: not UTF-8 text (byte 0xe9 at line 2, column {column}); save it as UTF-8"
    assert _error(path) == message


@pytest.mark.parametrize("suffix", [".toml", ".json", ".yaml"])
def test_a_byte_order_mark_is_accepted(tmp_path: Path, suffix: str) -> None:
    if suffix == ".yaml":
        pytest.importorskip("yaml")
    text = {
        ".toml": 'name = "srv"\ncommand = ["x"]\n',
        ".json": '{"name": "srv", "command": ["x"]}',
        ".yaml": "name: srv\ncommand: [x]\n",
    }[suffix]
    path = tmp_path / f"spec{suffix}"
    path.write_text(text, encoding="utf-8-sig")
    assert load_spec(path).command == ("x",)


@pytest.mark.parametrize(
    ("suffix", "text", "expect"),
    [
        (
            ".json",
            '{"name": "srv", "command": ["x"], "command": ["y"]}',
            "not valid JSON: key 'command' is given twice",
        ),
        (".json", '{"name": "srv", "command": ["x"], "startup_timeout": NaN}', "not valid JSON: NaN is not a JSON"),
        (".json", '{"name": "srv", "command": ["x\\udc00"]}', "not valid JSON: a string holds \\udc00, half of a"),
        (".json", '{"name": "srv", "command": ["x"],}', "not valid JSON: Expecting property name enclosed in double"),
        (".toml", 'name = "srv"\ncommand = ["x"]\ncommand = ["y"]\n', "not valid TOML: Cannot overwrite a value"),
        (".yaml", "name: srv\ncommand: [x]\ncommand: [y]\n", "not valid YAML: key 'command' is given twice in one"),
        (".yaml", "name: srv\ncommand: [x\n", "not valid YAML: expected ',' or ']', but got '<stream end>' (line 3,"),
        (".yaml", 'name: srv\ncommand: ["\\udc00"]\n', "not valid YAML: a string holds \\udc00, half of a surrogate"),
        (".yaml", "- name: srv\n", "a spec must be a table/object at the top level"),
        (".txt", 'name = "srv"\n', "a spec file must end in .toml, .json, .yaml or .yml"),
    ],
)
def test_what_a_parser_lets_through_or_reports_at_length_is_one_line(
    tmp_path: Path, suffix: str, text: str, expect: str
) -> None:
    if suffix == ".yaml":
        pytest.importorskip("yaml")
    path = tmp_path / f"spec{suffix}"
    path.write_text(text, encoding="utf-8")
    message = _error(path)
    assert message.startswith(f"{path}: {expect}"), message


# -- through gym.make and the command line --------------------------------------------------------


def test_gym_make_raises_the_same_one_line_error(folder: Path) -> None:
    path = _write(folder, {**BASE, "state": {**DIRECTORY, "ignore": "*.log"}}, "toml")
    with pytest.raises(ConfigError) as info:
        gym.make("gym_mcp/External-v0", spec=str(path))
    assert str(info.value) == _where(path, SERVER) + (
        '\'state.ignore\' must be a list of glob patterns, got "*.log" (a list: write ["*.log"])'
    )


@pytest.mark.parametrize(
    ("fields", "expect"),
    [
        ({"startup_timeout": True}, "'startup_timeout' must be a positive number of seconds, got true"),
        ({"state": {**DIRECTORY, "ignore": "*.log"}}, "'state.ignore' must be a list of glob patterns, got \"*.log\""),
        ({"env": {"LEVEL": 1}}, "'env' must be a table of strings, got {\"LEVEL\": 1}"),
    ],
)
def test_cli_envs_add_prints_one_line_and_exits_1(
    folder: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fields: dict[str, Any],
    expect: str,
) -> None:
    monkeypatch.setenv("GYM_MCP_HOME", str(folder / "home"))
    path = _write(folder, {**BASE, **fields}, "toml")
    assert main(["envs", "add", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith("gym-mcp: error: " + _where(path, SERVER) + expect), err
    assert not (folder / "home").exists()  # nothing saved


def test_cli_binary_reports_a_non_utf8_spec_without_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "spec.toml"
    path.write_bytes(b'name = "caf\xe9"\ncommand = ["x"]\n')
    for args in (["envs", "add", str(path)], ["synth", "--spec", str(path), "-n", "1", "-o", str(tmp_path / "o")]):
        out = subprocess.run(
            [sys.executable, "-m", "gym_mcp.cli", *args],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env={"GYM_MCP_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"},
        )
        assert out.returncode == 1, out.stderr
        expect = f"{path}: not UTF-8 text (byte 0xe9 at line 1, column 12); save it as UTF-8"
        assert out.stderr == f"gym-mcp: error: {expect}\n"


@pytest.mark.parametrize("name", ["filesystem", "Team Chat", "banking"])
def test_cli_envs_add_refuses_a_bundled_servers_id(
    folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    monkeypatch.setenv("GYM_MCP_HOME", str(folder / "home"))
    path = _write(folder, {**BASE, "name": name}, "toml")
    assert main(["envs", "add", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert f"{path}: name {name!r} would register gym_mcp/" in err and "give the spec another name" in err
    assert not (folder / "home").exists()  # nothing saved, no server started
