"""``gym.make("gym_mcp/External-v0", ...)`` takes every setting a spec file can give, and keeps a spec's tool rules.

The servers are real processes: the bundled banking server over HTTP behind a bearer token, a
to-do list server written into the test's folder, a server that never answers, and the
sandbox tests' escape server (under bubblewrap where it works).
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import gymnasium as gym
import pytest

import gym_mcp
from gym_mcp import DirectoryState, SQLiteState
from gym_mcp.errors import ConfigError, ServerStartError
from gym_mcp.live.sandbox import _probe, bwrap_available
from tests.conftest import ROOT

needs_bwrap = pytest.mark.skipif(not bwrap_available(), reason=_probe() or "bwrap works")

TODO_SERVER = '''\
"""A to-do list MCP server. Its one argument is the JSON file it keeps the items in."""
import gc
import json
import os
import sys
from pathlib import Path

from mcp.server import MCPServer

DATA = Path(sys.argv[1])
server = MCPServer("todo")


@server.tool()
def list_items() -> list[dict]:
    """List the to-do items."""
    return json.loads(DATA.read_text())


@server.tool()
def add_item(title: str) -> dict:
    """Add an item to the to-do list."""
    items = json.loads(DATA.read_text())
    item = {"id": len(items) + 1, "title": title, "done": False}
    DATA.write_text(json.dumps([*items, item]))
    return item


@server.tool()
def complete_item(item_id: int) -> dict:
    """Mark an item done."""
    items = json.loads(DATA.read_text())
    for item in items:
        if item["id"] == item_id:
            item["done"] = True
            DATA.write_text(json.dumps(items))
            return item
    raise ValueError(f"no item {item_id}")


server.run("stdio")
'''

# Reads its stdin and never answers the MCP handshake (a server slow to start); exits when stdin closes.
SILENT_SERVER = "import sys\nsys.stdin.read()\n"


def _names(info: dict) -> set[str]:
    return {t["function"]["name"] for t in info["tools"]}


def _step(env: gym.Env, name: str, **arguments: object) -> str:
    obs, *_ = env.step({"name": name, "arguments": arguments})
    return str(obs)


@pytest.fixture
def todo_spec(tmp_path: Path) -> Path:
    """A spec file for the to-do server that hides ``list_items`` and renames ``complete_item``."""
    (tmp_path / "todo_server.py").write_text(TODO_SERVER)
    (tmp_path / "todo.json").write_text('[{"id": 1, "title": "Buy milk", "done": false}]\n')
    spec = tmp_path / "todo.toml"
    spec.write_text(
        f"""\
name = "todo"
command = [{json.dumps(sys.executable)}, "todo_server.py", "{{state}}"]

[state]
kind = "json"
path = "todo.json"

[tools]
hide = ["list_items"]
rename = {{ complete_item = "mark_done" }}
"""
    )
    return spec


BANK_HTTP = {
    "name": "bank",
    "command": [sys.executable, "-m", "gym_mcp.servers.banking", "--transport", "http", "--port", "{port}"],
    "url": "http://127.0.0.1:{port}/mcp",
    "env": {"GYM_MCP_TOKEN": "s3cret-token-2", "GYM_MCP_DB_URL": "sqlite:///{state}"},
}


# -- item: every spec setting is a keyword -----------------------------------------------------


def test_headers_keyword_reaches_the_http_launch(bank_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BANK_TOKEN_KW", "s3cret-token-2")
    env = gym.make(
        "gym_mcp/External-v0",
        **BANK_HTTP,
        state=SQLiteState(bank_db),
        headers={"Authorization": "Bearer ${BANK_TOKEN_KW}"},
    )
    try:
        env.reset(seed=0)
        obs = _step(env, "get_balance", account_id="ACC-1001")
        assert json.loads(obs)["account_id"] == "ACC-1001"
    finally:
        env.close()
    # the same server without the keyword: the token is not sent, and the server refuses
    with pytest.raises(ServerStartError, match="we sent no Authorization header"):
        gym.make("gym_mcp/External-v0", **BANK_HTTP, state=SQLiteState(bank_db))


def test_startup_timeout_keyword_reaches_the_launch(tmp_path: Path) -> None:
    (tmp_path / "silent.py").write_text(SILENT_SERVER)
    began = time.monotonic()
    with pytest.raises(ServerStartError, match=r"no answer within 1\.5s"):
        gym.make(
            "gym_mcp/External-v0",
            name="silent",
            command=[sys.executable, str(tmp_path / "silent.py")],
            startup_timeout=1.5,
        )
    assert time.monotonic() - began < 30  # not the default 60 s


def test_keywords_override_a_spec_file(tmp_path: Path, bank_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "silent.py").write_text(SILENT_SERVER)
    slow = tmp_path / "silent.toml"
    slow.write_text(f'name = "silent"\ncommand = [{json.dumps(sys.executable)}, "silent.py"]\nstartup_timeout = 300\n')
    with pytest.raises(ServerStartError, match=r"no answer within 1\.5s"):
        gym.make("gym_mcp/External-v0", spec=str(slow), startup_timeout=1.5)

    # headers: added to the spec's (here the spec has none, and the server wants a token)
    spec = tmp_path / "bank.json"
    spec.write_text(json.dumps({**BANK_HTTP, "state": {"kind": "sqlite", "path": str(bank_db)}}))
    monkeypatch.setenv("BANK_TOKEN_KW", "s3cret-token-2")
    env = gym.make("gym_mcp/External-v0", spec=str(spec), headers={"Authorization": "Bearer ${BANK_TOKEN_KW}"})
    try:
        env.reset(seed=0)
        assert json.loads(_step(env, "get_balance", account_id="ACC-1001"))["account_id"] == "ACC-1001"
    finally:
        env.close()
    with pytest.raises(ConfigError, match="takes no state="):
        gym.make("gym_mcp/External-v0", spec=str(spec), state=SQLiteState(bank_db))
    with pytest.raises(ConfigError, match="transport must be 'stdio' or 'http'"):
        gym.make("gym_mcp/External-v0", spec=str(spec), transport="carrier-pigeon")


def test_servers_take_no_single_server_keywords(todo_spec: Path) -> None:
    with pytest.raises(ConfigError, match=r"takes no startup_timeout=, sandbox=: give them in each member's spec"):
        gym.make(
            "gym_mcp/External-v0",
            servers={"todo": str(todo_spec), "bank": "banking"},
            startup_timeout=5,
            sandbox="bwrap",
        )


def _escape_env(template: Path, **kwargs: object) -> gym.Env:
    return gym.make(
        "gym_mcp/External-v0",
        name="escape",
        command=[sys.executable, "-m", "tests.servers.escape"],
        env={"PYTHONPATH": str(ROOT)},
        state=DirectoryState(template),
        cwd="{state}",
        **kwargs,
    )


@needs_bwrap
def test_sandbox_and_network_keywords_run_a_real_episode(tmp_path: Path, listener: int) -> None:
    template = tmp_path / "template"
    template.mkdir()
    (template / "notes.txt").write_text("hello\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me\n")
    closed = _escape_env(template, sandbox="bwrap")
    opened = _escape_env(template, sandbox="bwrap", network=True)
    try:
        closed.reset(seed=0)
        initial = closed.unwrapped.state.fingerprint()
        obs = _step(closed, "write_file", path=str(outside), text="overwritten\n")
        assert obs.startswith("failed:") and "Read-only file system" in obs, obs
        assert outside.read_text() == "keep me\n"
        assert _step(closed, "write_file", path="inside.txt", text="mine\n").startswith("wrote")
        assert closed.unwrapped.state.fingerprint() != initial
        obs = _step(closed, "connect", port=listener)
        assert obs.startswith("failed:"), obs  # no network in the sandbox
        closed.reset(seed=0)
        assert closed.unwrapped.state.fingerprint() == initial
        assert _step(closed, "read_file", path="notes.txt") == "hello\n"
        opened.reset(seed=0)
        assert _step(opened, "connect", port=listener) == "hello from the host\n"  # network=True keeps it
    finally:
        closed.close()
        opened.close()


# -- item: a member's spec-file tool rules apply inside a composition -------------------------


def test_a_members_tool_rules_apply_in_a_composition(todo_spec: Path) -> None:
    env = gym.make("gym_mcp/External-v0", servers={"todo": str(todo_spec), "bank": "banking"})
    try:
        _, info = env.reset(seed=0)
        names = _names(info)
        assert {n for n in names if n.startswith("todo.")} == {"todo.add_item", "todo.mark_done"}
        assert {"bank.get_balance", "bank.deposit"} <= names
        obs = _step(env, "todo.list_items")
        assert obs.startswith("Error: unknown tool 'todo.list_items'"), obs  # hidden: not callable either
        obs = _step(env, "todo.complete_item", item_id=1)
        assert obs.startswith("Error: unknown tool 'todo.complete_item'"), obs  # only its new name works
        assert json.loads(_step(env, "todo.mark_done", item_id=1))["done"] is True
        assert json.loads(_step(env, "bank.get_balance", account_id="ACC-1001"))["account_id"] == "ACC-1001"
        env.reset(seed=0)
        assert json.loads(_step(env, "todo.add_item", title="Water the plants"))["id"] == 2
    finally:
        env.close()


def test_keyword_rules_go_on_top_of_a_members_rules(todo_spec: Path) -> None:
    env = gym.make(
        "gym_mcp/External-v0",
        servers={"todo": str(todo_spec), "bank": "banking"},
        hide_tools=["bank.deposit"],
        rename_tools={"todo.complete_item": "todo.tick"},
    )
    try:
        _, info = env.reset(seed=0)
        names = _names(info)
        assert {n for n in names if n.startswith("todo.")} == {"todo.add_item", "todo.tick"}
        assert "bank.deposit" not in names and "bank.get_balance" in names
    finally:
        env.close()


def test_a_parsed_spec_keeps_its_rules_in_a_composition(todo_spec: Path) -> None:
    env = gym.make("gym_mcp/External-v0", servers={"mine": gym_mcp.load_spec(todo_spec), "bank": "banking"})
    try:
        _, info = env.reset(seed=0)
        assert {n for n in _names(info) if n.startswith("mine.")} == {"mine.add_item", "mine.mark_done"}
    finally:
        env.close()


def test_the_spec_alone_still_applies_its_rules(todo_spec: Path, tmp_path: Path) -> None:
    env = gym.make("gym_mcp/External-v0", spec=str(todo_spec))
    try:
        _, info = env.reset(seed=0)
        assert _names(info) == {"add_item", "mark_done"}
    finally:
        env.close()
    # the template is untouched by the episode
    assert json.loads((tmp_path / "todo.json").read_text())[0]["done"] is False


def test_a_server_that_never_answers_is_stopped_at_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A start that times out in the handshake kills the process then, with nothing left behind."""
    script = tmp_path / f"silent-{os.getpid()}.py"
    script.write_text(SILENT_SERVER)
    began = time.monotonic()
    with pytest.raises(ServerStartError, match=r"no answer within 1(\.0)?s"):
        gym.make("gym_mcp/External-v0", name="silent", command=[sys.executable, str(script)], startup_timeout=1.0)
    assert time.monotonic() - began < 4.5  # its own second and the kill, not a further 5 s wait on the handshake
    gc.collect()  # an exception left on a future is reported when the future is collected
    assert "never retrieved" not in caplog.text
    left = subprocess.run(["pgrep", "-f", script.name], capture_output=True, text=True, check=False)
    assert left.stdout.strip() == "", f"the server is still running: {left.stdout}"
