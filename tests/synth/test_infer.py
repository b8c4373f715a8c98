"""Tools nobody annotated: rule-based inference (`gym_mcp.synth.infer`) on hand-made MCP tools,
spec hints over it, and the npm filesystem server synthesized from a spec without hints."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from mcp.types import Tool, ToolAnnotations

import gym_mcp  # noqa: F401  (registers the environments)
from gym_mcp import replay
from gym_mcp.errors import ConfigError
from gym_mcp.specs import parse_spec
from gym_mcp.synth import SynthConfig, synthesize
from gym_mcp.synth.graph import EntityPools
from gym_mcp.synth.hints import apply_hints, check_hints
from gym_mcp.synth.infer import infer_spec, state_tables, tool_kind, words
from gym_mcp.synth.render import render
from tests.conftest import ROOT

POOLS = EntityPools(
    {
        "contacts": [{"contact_id": "CON-101", "name": "Ada"}, {"contact_id": "CON-102", "name": "Ben"}],
        "files": [{"path": "docs/a.md", "file": "docs/a.md"}],
        "folders": [{"path": "docs", "directory": "docs"}],
    }
)


def tool(name: str, props: dict[str, Any], required: list[str] | None = None, **notes: Any) -> Tool:
    """A bare MCP tool as a third-party server lists it (no ``gym_mcp/*`` metadata)."""
    annotations = ToolAnnotations(**notes) if notes else None
    schema = {"type": "object", "properties": props, "required": required or []}
    return Tool(name=name, description=f"The {name} tool.", input_schema=schema, annotations=annotations)


def test_kind_from_annotations_first_then_the_verb() -> None:
    assert tool_kind(tool("delete_note", {}, readOnlyHint=True))[0] == "read"  # annotations win
    assert tool_kind(tool("get_note", {}, readOnlyHint=False))[0] == "write"
    assert tool_kind(tool("get_note", {}, destructiveHint=True))[0] == "write"
    assert tool_kind(tool("listNotes", {}))[0] == "read"
    assert tool_kind(tool("search_files", {}))[0] == "read"
    assert tool_kind(tool("add_note", {}))[0] == "write"
    assert tool_kind(tool("frobnicate", {}))[0] == "write"  # unknown: a write, kept only if it changes state
    assert words("readTextFile") == ["read", "text", "file"]


def test_intent_from_verb_object_and_parameters() -> None:
    spec = infer_spec(
        tool("add_note", {"contact_id": {"type": "string"}, "text": {"type": "string"}}, ["contact_id", "text"]),
        POOLS,
    ).spec
    assert spec.write and spec.inferred
    assert spec.intent == "Add the note '{text}' to contact {contact_id}"
    assert spec.samples["text"]  # free text: stock sentences
    assert "contact_id" not in spec.pools  # its own column
    sentence = render(spec.intent, {"contact_id": "CON-101", "text": "Buy paper"})
    assert sentence == "Add the note 'Buy paper' to contact CON-101"
    listed = infer_spec(tool("list_notes", {"contact_id": {"type": "string"}}, ["contact_id"]), POOLS).spec
    assert listed.intent == "List the notes of contact {contact_id}"
    shown = infer_spec(tool("get_contact", {"contact_id": {"type": "string"}}, ["contact_id"]), POOLS).spec
    assert shown.intent == "Show contact {contact_id}"  # as the kit says "Unlock card {card_id}"


def test_optional_parameters_are_bracketed_and_enums_are_samples() -> None:
    spec = infer_spec(
        tool(
            "list_directory_with_sizes",
            {"path": {"type": "string"}, "sortBy": {"type": "string", "enum": ["name", "size"]}},
            ["path"],
            readOnlyHint=True,
        ),
        POOLS,
    ).spec
    assert not spec.write
    assert spec.intent == "List the directory {path} with sizes[ with sort by {sortBy}]"
    assert spec.samples == {"sortBy": ("name", "size")}
    assert spec.pools == {"path": "directory"}  # a folder tool's path: a folder


def test_new_names_for_created_things_and_lists_of_one() -> None:
    made = infer_spec(tool("create_directory", {"path": {"type": "string"}}, ["path"]), POOLS).spec
    assert made.intent == "Create the directory {path}" and "path" in made.samples  # new names, not existing
    opened = infer_spec(
        tool("open_nodes", {"names": {"type": "array", "items": {"type": "string"}}}, ["names"]), POOLS
    ).spec
    assert opened.lists == ("names",) and opened.pools == {"names": "name"}
    assert opened.param_type("names") == {"string"}


@pytest.mark.parametrize(
    ("props", "reason"),
    [
        ({"sql": {"type": "string"}}, "code or a query language"),
        ({"query": {"type": "string", "description": "A SELECT statement"}}, "code or a query language"),
        ({"items": {"type": "array", "items": {"type": "object"}}}, "list of objects"),
        ({"pattern": {"type": "string"}}, "has no values"),
    ],
)
def test_skipped_tools_say_why(props: dict[str, Any], reason: str) -> None:
    inferred = infer_spec(tool("run_thing", props, list(props)), POOLS)
    assert inferred.spec.intent is None
    assert inferred.reason is not None and reason in inferred.reason


def test_state_tables_of_a_folder_and_a_json_lines_file(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("x")
    (tmp_path / "g.jsonl").write_text('{"type": "entity", "name": "Ada"}\n{"type": "relation", "from": "Ada"}\n')
    tables = state_tables("directory", root=tmp_path)
    assert {"path": "docs", "directory": "docs", "folder_name": "docs"} in tables["folders"]
    assert {"path": "docs/a.md", "file": "docs/a.md", "file_name": "a.md", "folder_name": "docs"} in tables["files"]
    assert {"path": "g.jsonl", "file": "g.jsonl", "file_name": "g.jsonl"} in tables["files"]  # no folder at the root
    assert tables["entity"] == [{"type": "entity", "name": "Ada"}]
    # a record's id is also its <table>_id
    assert state_tables("json", data=b'{"notes": [{"id": "N-1", "text": "hi"}]}') == {
        "notes": [{"id": "N-1", "text": "hi", "note_id": "N-1"}]
    }


SCHEMAS = {"add_note": {"contact_id": {}, "text": {}}}


@pytest.mark.parametrize(
    ("hints", "words_in_error"),
    [
        ({"add_nte": {"kind": "write"}}, ["tools.hints.add_nte", "no tool 'add_nte'", "did you mean 'add_note'"]),
        ({"add_note": {"samples": {"txt": ["a"]}}}, ["tools.hints.add_note.samples", "no parameter 'txt'"]),
        ({"add_note": {"pools": {"who": "name"}}}, ["tools.hints.add_note.pools", "no parameter 'who'"]),
        ({"add_note": {"intent": "Note {body} for {contact_id}"}}, ["tools.hints.add_note.intent", "{body}"]),
    ],
)
def test_bad_hints_are_one_line(hints: dict[str, Any], words_in_error: list[str]) -> None:
    with pytest.raises(ConfigError) as caught:
        check_hints(hints, SCHEMAS, "s.toml (server 'x')")
    message = str(caught.value)
    assert "\n" not in message and message.startswith("s.toml (server 'x'): ")
    for word in words_in_error:
        assert word in message


def test_hints_lay_over_the_inference() -> None:
    base = infer_spec(tool("frobnicate", {"contact_id": {"type": "string"}}, ["contact_id"]), POOLS).spec
    hints = {"frobnicate": {"kind": "read", "intent": "Frobnicate contact {contact_id}", "confirm": "always"}}
    check_hints(hints, {"frobnicate": {"contact_id": {}}})
    (spec,) = apply_hints([base], hints)
    assert not spec.write and spec.intent == "Frobnicate contact {contact_id}" and spec.confirm == "always"


def write_spec(folder: Path, hints: str = "") -> Path:
    """A hint-free spec for the npm filesystem server over a small workspace."""
    fs_bin = ROOT / "node_modules" / ".bin" / "mcp-server-filesystem"
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed, so the npm filesystem MCP server cannot be installed")
    if not fs_bin.exists():
        pytest.fail("npm is installed but @modelcontextprotocol/server-filesystem is not: run `npm install` (README)")
    ws = folder / "workspace"
    (ws / "docs").mkdir(parents=True)
    (ws / "notes").mkdir()
    (ws / "docs" / "readme.md").write_text("# Project\n\nStatus: draft\n")
    (ws / "notes" / "plan.md").write_text("Q3 plan\n")
    (ws / "todo.txt").write_text("- write tests\n")
    spec = folder / "fs.toml"
    spec.write_text(
        f'name = "npm-filesystem"\ncommand = ["{fs_bin}", "{{state}}"]\ncwd = "{{state}}"\n\n'
        f'[state]\nkind = "directory"\npath = "workspace"\n{hints}'
    )
    return spec


def test_npm_filesystem_server_without_hints_gives_verified_tasks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GYM_MCP_HOME", str(tmp_path / "home"))
    spec = write_spec(tmp_path)
    result = synthesize(spec, SynthConfig(n=12, seed=0, heldout_tools=False))
    stats = result.stats
    assert len(result.tasks) == 12
    assert {"write_file", "create_directory", "read_text_file"} <= set(stats["inferred_tools"])
    assert set(stats["skipped_tools"]) <= {"edit_file"}  # its old text must match the file's: often refused
    assert any(
        c["name"] in ("write_file", "create_directory", "move_file") for t in result.tasks for c in t.reference_calls
    )
    env = gym.make("gym_mcp/External-v0", spec=str(spec))
    try:
        for task in result.tasks:
            outcome = replay(env, task)
            assert outcome.ok and outcome.fingerprint == task.expected_fingerprint, task.instruction
    finally:
        env.close()


def test_spec_hints_reach_synthesis_and_bad_ones_fail_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GYM_MCP_HOME", str(tmp_path / "home"))
    good = write_spec(
        tmp_path / "good",
        "\n[tools.hints.search_files]\nintent = \"Search {path} for files matching '{pattern}'\"\n"
        'samples = { pattern = ["*.md", "*.txt"] }\n',
    )
    result = synthesize(good, SynthConfig(n=8, seed=0, heldout_tools=False))
    assert "search_files" in result.stats["inferred_tools"]
    hinted = [t for t in result.tasks if any(c["name"] == "search_files" for c in t.reference_calls)]
    assert all("for files matching" in t.instruction for t in hinted if t.variant == "complete")
    bad = write_spec(tmp_path / "bad", '\n[tools.hints.search_file]\nkind = "read"\n')
    with pytest.raises(ConfigError, match=r"tools\.hints\.search_file: the server has no tool 'search_file'") as caught:
        synthesize(bad, SynthConfig(n=4, seed=0))
    assert "\n" not in str(caught.value)
    assert not list((tmp_path / "bad").glob("*.jsonl"))


@pytest.mark.parametrize(
    ("hint", "message"),
    [
        ({"kind": "change"}, '\'tools.hints.add_note.kind\' must be "read" or "write", got "change"'),
        ({"intnt": "x"}, "unknown field tools.hints.add_note.intnt; known in [tools.hints.add_note]: kind, intent"),
        ({"intent": "Add [it"}, "'tools.hints.add_note.intent': an intent's [...] parts must be balanced"),
        ({"samples": ["a"]}, "'tools.hints.add_note.samples' must map parameter names to lists of values"),
        ({"pools": {"text": 3}}, "'tools.hints.add_note.pools' must map parameter names to column names"),
    ],
)
def test_spec_file_hint_keys_are_checked_in_one_line(hint: dict[str, Any], message: str) -> None:
    data = {"name": "x", "command": ["srv"], "tools": {"hints": {"add_note": hint}}}
    with pytest.raises(ConfigError) as caught:
        parse_spec(data, base=Path("."))
    assert "\n" not in str(caught.value)
    assert message in str(caught.value)


def test_spec_file_hints_parse_into_the_spec() -> None:
    hint = {"kind": "write", "intent": "Add '{text}' to {contact_id}", "samples": {"text": ["hi"]}}
    spec = parse_spec({"name": "x", "command": ["srv"], "tools": {"hints": {"add_note": hint}}}, base=Path("."))
    assert spec.tool_hints == {"add_note": hint}
    assert spec.to_dict()["tools"]["hints"] == {"add_note": hint}


def test_tools_with_kit_metadata_are_taken_at_their_word() -> None:
    from gym_mcp.servers import get_kit
    from gym_mcp.synth.graph import kit_tools, tool_specs
    from gym_mcp.synth.infer import infer_specs

    tools = kit_tools(get_kit("banking"))
    served = tool_specs(tools)
    specs, skipped = infer_specs(tools, served, POOLS)
    assert specs == served and skipped == {}
    assert not any(s.inferred for s in specs)


def test_npm_memory_server_without_hints_gives_verified_tasks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The knowledge-graph server: a JSON-lines state, object parameters built from its records."""
    memory_bin = ROOT / "node_modules" / ".bin" / "mcp-server-memory"
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed, so the npm memory MCP server cannot be installed")
    if not memory_bin.exists():
        pytest.fail("npm is installed but @modelcontextprotocol/server-memory is not: run `npm install` (README)")
    monkeypatch.setenv("GYM_MCP_HOME", str(tmp_path / "home"))
    lines = [
        {"type": "entity", "name": name, "entityType": kind, "observations": [note]}
        for name, kind, note in [
            ("Alice Moreau", "person", "likes tea"),
            ("Bob Tanaka", "person", "manager"),
            ("Acme", "company", "founded 1990"),
            ("Globex", "company", "rival of Acme"),
            ("Project Apollo", "project", "due in March"),
        ]
    ] + [{"type": "relation", "from": "Alice Moreau", "to": "Acme", "relationType": "works_at"}]
    (tmp_path / "memory.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    spec = tmp_path / "memory.toml"
    spec.write_text(
        f'name = "npm-memory"\ncommand = ["{memory_bin}"]\n\n[env]\nMEMORY_FILE_PATH = "{{state}}"\n\n'
        '[state]\nkind = "json"\npath = "memory.jsonl"\n'
    )
    result = synthesize(spec, SynthConfig(n=10, seed=0, heldout_tools=False))
    assert len(result.tasks) == 10
    assert {"create_entities", "create_relations", "delete_entities"} <= set(result.stats["inferred_tools"])
    env = gym.make("gym_mcp/External-v0", spec=str(spec))
    try:
        for task in result.tasks:
            outcome = replay(env, task)
            assert outcome.ok and outcome.fingerprint == task.expected_fingerprint, task.instruction
    finally:
        env.close()


@pytest.mark.parametrize(
    ("hint", "expect"),
    [
        (
            '[tools.hints.write_file]\nsamples = { contents = ["x"] }\n',
            "no parameter 'contents' (did you mean 'content'?)",
        ),
        ('[tools.hints.write_file]\nintent = "Write {body} to {path}"\n', "{body} is no parameter of 'write_file'"),
        ('[tools]\nhide = ["write_file"]\n[tools.hints.write_file]\nkind = "write"\n', "the tool is hidden"),
    ],
)
def test_gym_mcp_synth_with_a_bad_hint_fails_in_one_line_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], hint: str, expect: str
) -> None:
    from gym_mcp.cli import main

    monkeypatch.setenv("GYM_MCP_HOME", str(tmp_path / "home"))
    spec = write_spec(tmp_path, "\n" + hint)
    out = tmp_path / "tasks.jsonl"
    assert main(["synth", "--spec", str(spec), "-n", "4", "-o", str(out), "--quiet"]) != 0
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip() and "synthesizing" not in line]
    assert len(err) == 1 and expect in err[0] and "tools.hints.write_file" in err[0], err
    assert not out.exists() and not list(tmp_path.glob("tasks*"))
