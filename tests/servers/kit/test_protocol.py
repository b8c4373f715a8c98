"""What an MCP client sees of a bundled server: its ``serverInfo`` and its tool results' structured content."""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import shutil
import sqlite3
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult, TextContent
from sqlalchemy.orm import Session

from gym_mcp.servers import get_kit
from gym_mcp.servers.filesystem import create_server as filesystem_server
from gym_mcp.servers.filesystem import seed_tree
from gym_mcp.servers.kit import ServerKit, ToolError
from tests.conftest import ROOT
from tests.servers.counter import Base
from tests.servers.counter import kit as counter_kit

INSTALLED = importlib.metadata.version("gym-mcp")


def _memory_db(kit: ServerKit) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    kit.init_database(conn)
    return conn


def _shapes_kit() -> ServerKit:
    """Tools whose results take every shape: an object, a list, a tuple, a string, a number, null."""
    kit = ServerKit("shapes", base=Base, seed=lambda db, rng: None)

    @kit.tool(write=False)
    def an_object(db: Session) -> dict[Any, Any]:
        """An object with keys and values JSON writes differently from Python (an int key, a date)."""
        return {1: date(2026, 1, 15), "nested": {"list": (1, 2)}, "lone": "a\ud800b"}

    @kit.tool(write=False)
    def a_list(db: Session) -> list[dict[str, int]]:
        """A list of objects."""
        return [{"a": 1}, {"a": 2}]

    @kit.tool(write=False)
    def a_tuple(db: Session) -> tuple[str, ...]:
        """A tuple."""
        return ("x", "y")

    @kit.tool(write=False)
    def a_string(db: Session) -> str:
        """A string."""
        return "done"

    @kit.tool(write=False)
    def a_number(db: Session) -> int:
        """A number."""
        return 7

    @kit.tool(write=False)
    def nothing(db: Session) -> None:
        """Nothing."""

    @kit.tool(write=False)
    def refuse(db: Session) -> dict[str, Any]:
        """Always refuses."""
        raise ToolError("refused")

    return kit


async def _call_all(server: Any, calls: dict[str, dict[str, Any]]) -> tuple[str, dict[str, CallToolResult]]:
    async with Client(server) as client:
        assert client.server_info is not None
        version = client.server_info.version
        results = {name: await client.call_tool(name, args) for name, args in calls.items()}
    return version, results


def _text(result: CallToolResult) -> str:
    """The result's one content block, a text."""
    assert len(result.content) == 1
    assert isinstance(result.content[0], TextContent)
    return result.content[0].text


def _structured_as_text_says(result: CallToolResult) -> None:
    """An object's structured content is its text parsed; a list's is that wrapped in ``result``; else none."""
    assert not result.is_error
    value = json.loads(_text(result))
    if isinstance(value, dict):
        assert result.structured_content == value
    elif isinstance(value, list):
        assert result.structured_content == {"result": value}
    else:
        assert result.structured_content is None


def test_in_process_server_gives_the_installed_version_and_structured_content() -> None:
    kit = _shapes_kit()
    calls = {name: {} for name in kit.tools}
    version, results = asyncio.run(_call_all(kit.create_server(_memory_db(kit)), calls))
    assert version == INSTALLED
    for name in ("an_object", "a_list", "a_tuple", "a_string", "a_number", "nothing"):
        _structured_as_text_says(results[name])
    # the text is what it always was: compact JSON of the JSON-ready value (a lone surrogate
    # becomes one U+FFFD per byte of its UTF-8 form), and the structured content is that text parsed
    assert _text(results["an_object"]) == '{"1":"2026-01-15","nested":{"list":[1,2]},"lone":"a\ufffd\ufffd\ufffdb"}'
    assert results["an_object"].structured_content == {
        "1": "2026-01-15",
        "nested": {"list": [1, 2]},
        "lone": "a\ufffd\ufffd\ufffdb",
    }
    assert results["a_tuple"].structured_content == {"result": ["x", "y"]}
    assert _text(results["a_string"]) == '"done"'
    refused = results["refuse"]
    assert refused.is_error and refused.structured_content is None


def test_tools_publish_no_output_schema() -> None:
    """Structured content goes without an ``outputSchema``: tools/list is what it was before it."""

    async def go() -> list[Any]:
        async with Client(counter_kit.create_server(_memory_db(counter_kit))) as client:
            return list((await client.list_tools()).tools)

    assert all(tool.output_schema is None for tool in asyncio.run(go()))


def test_filesystem_server_gives_the_installed_version_and_structured_content(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    seed_tree(root, 0)
    calls = {"exists": {"path": "/"}, "largest_files": {"limit": 3}, "count_files_by_extension": {}}
    version, results = asyncio.run(_call_all(filesystem_server(root), calls))
    assert version == INSTALLED
    for result in results.values():
        _structured_as_text_says(result)
    assert isinstance((results["largest_files"].structured_content or {})["result"], list)


@pytest.mark.parametrize("name", ["banking", "filesystem"])
def test_stdio_server_gives_the_installed_version_and_structured_content(name: str, tmp_path: Path) -> None:
    """Over stdio, from a real client: the handshake's serverInfo and one call's structured content."""
    if name == "filesystem":
        args = ["-m", "gym_mcp.servers.filesystem", "--root", str(tmp_path / "ws"), "--seed", "0"]
        call = ("stat", {"path": "/"})
    else:
        kit = get_kit(name)
        assert isinstance(kit, ServerKit)
        db = f"sqlite:///{tmp_path / 'db.sqlite'}"
        kit.init_database(db)
        args = ["-m", f"gym_mcp.servers.{name}", "--db", db]
        call = ("list_accounts", {"customer_id": "CUS-1001"})
    params = StdioServerParameters(command=sys.executable, args=args, cwd=str(ROOT))
    version, results = asyncio.run(_call_all(stdio_client(params), {call[0]: call[1]}))
    assert version == INSTALLED
    result = results[call[0]]
    _structured_as_text_says(result)
    assert result.structured_content


def test_typescript_client_sees_the_version_and_structured_content(tmp_path: Path) -> None:
    """The TypeScript SDK's client (the MCP inspector's) shows the version and gets the structured content."""
    if shutil.which("npm") is None or shutil.which("node") is None:
        pytest.skip("node is not installed, so the TypeScript MCP client cannot run")
    if not (ROOT / "node_modules" / "@modelcontextprotocol" / "sdk").exists():
        pytest.fail("npm is installed but @modelcontextprotocol/sdk is not: run `npm install` (README)")
    kit = get_kit("banking")
    assert isinstance(kit, ServerKit)
    db = f"sqlite:///{tmp_path / 'db.sqlite'}"
    kit.init_database(db)
    client = ["node", str(Path(__file__).with_name("ts_client.mjs")), "list_accounts", '{"customer_id": "CUS-1001"}']
    out = subprocess.run(
        [*client, sys.executable, "-m", "gym_mcp.servers.banking", "--db", db],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        cwd=ROOT,
    )
    seen = json.loads(out.stdout)
    assert seen["serverInfo"] == {"name": "banking", "version": INSTALLED}
    text = seen["result"]["content"][0]["text"]
    assert seen["result"]["structuredContent"] == {"result": json.loads(text)}
