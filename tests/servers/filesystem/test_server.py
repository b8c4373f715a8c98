"""The filesystem server as a whole: the tool list, the seed tree and the command line."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from gym_mcp import free_port
from gym_mcp.servers.filesystem import seed_tree
from gym_mcp.servers.filesystem.tools import TOOLS
from gym_mcp.servers.kit import auth_headers
from gym_mcp.state import DirectoryState
from tests.servers.filesystem.conftest import FsServer


def test_tools_are_listed_with_kinds_intents_and_descriptions(fs: FsServer) -> None:
    tools = fs.tools()
    assert len(tools) >= 40 and {t.name for t in tools} == set(TOOLS)
    writes = {"write_file", "delete", "move", "copy", "extract_archive", "empty_trash", "chmod"}
    reads = {"read_file", "list_directory", "grep", "stat", "list_trash", "quota_info"}
    for tool in tools:
        info = TOOLS[tool.name]
        meta = tool.meta or {}
        assert meta["gym_mcp/kind"] == ("write" if info.write else "read"), tool.name
        assert tool.annotations is not None and tool.annotations.read_only_hint is (not info.write)
        intent = meta["gym_mcp/intent"]
        assert intent[0].isupper() and not intent.endswith("."), tool.name
        params = tool.input_schema.get("properties", {})
        required = set(tool.input_schema.get("required", []))
        outside = set(re.findall(r"\{(\w+)\}", re.sub(r"\[[^\[\]]*\]", "", intent)))
        assert required <= outside <= set(params), tool.name
        assert tool.description and len(tool.description) > 40 and "Args:" not in tool.description, tool.name
        assert "ws" not in params, tool.name
        for name, prop in params.items():
            assert prop.get("description"), f"{tool.name}.{name}"
        assert (tool.name in writes) <= info.write and (tool.name in reads) <= (not info.write)
    assert (next(t for t in tools if t.name == "empty_trash").meta or {})["gym_mcp/confirm"] == "always"


def test_seed_is_deterministic_and_big_enough(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    seed_tree(a, 0)
    seed_tree(b, 0)
    seed_tree(c, 1)
    assert DirectoryState(a).fingerprint() == DirectoryState(b).fingerprint()
    assert DirectoryState(a).fingerprint() != DirectoryState(c).fingerprint()
    entries = list(a.rglob("*"))
    assert len(entries) >= 200
    kinds = {p.suffix for p in entries if p.is_file()}
    assert {".md", ".py", ".csv", ".json", ".zip", ".txt", ".js"} <= kinds
    assert max(len(p.relative_to(a).parts) for p in entries) >= 5
    with pytest.raises(ValueError, match="empty"):
        seed_tree(a, 0)


def test_stdio_server_lists_tools(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "gym_mcp.servers.filesystem", "--root", str(root), "--seed", "0"],
        env=dict(os.environ),
    )

    async def go() -> tuple[list[str], str]:
        async with Client(stdio_client(params)) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            result = await client.call_tool("read_file", {"path": "LICENSE"})
            return names, "".join(getattr(c, "text", "") for c in result.content)

    names, text = asyncio.run(asyncio.wait_for(go(), 60))
    assert set(names) == set(TOOLS)
    assert "Apache" in text
    assert (root / "README.md").is_file()


def test_gym_mcp_serve_filesystem_over_stdio(tmp_path: Path) -> None:
    root = tmp_path / "served"
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "gym_mcp.cli", "serve", "filesystem", "--root", str(root), "--seed", "1"]
    )

    async def go() -> str:
        async with Client(stdio_client(params)) as client:
            await client.call_tool("write_file", {"path": "notes/hello.md", "content": "hi"})
            result = await client.call_tool("read_file", {"path": "../outside.txt"})
            return "".join(getattr(c, "text", "") for c in result.content)

    refused = asyncio.run(asyncio.wait_for(go(), 60))
    assert "leaves the workspace" in refused
    assert (root / "notes/hello.md").read_text() == "hi" and not (tmp_path / "outside.txt").exists()
    fresh = tmp_path / "fresh"
    seed_tree(fresh, 1)
    (fresh / "notes/hello.md").write_text("hi")
    assert DirectoryState(root).fingerprint() == DirectoryState(fresh).fingerprint()  # seed 1, then the write


def test_gym_mcp_serve_filesystem_over_http_needs_the_token(tmp_path: Path) -> None:
    port, token = free_port(), "fs-t0ken.for.tests"
    command = [sys.executable, "-m", "gym_mcp.cli", "serve", "filesystem", "--root", str(tmp_path / "ws")]
    command += ["--transport", "http", "--port", str(port), "--token", token]
    url = f"http://127.0.0.1:{port}/mcp"
    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                refused = httpx.post(url, json={}, timeout=2)
                break
            except httpx.TransportError:
                assert proc.poll() is None and time.monotonic() < deadline, "server did not start"
                time.sleep(0.2)
        assert refused.status_code == 401

        async def go() -> str:
            async with (
                httpx2.AsyncClient(headers=auth_headers(token), timeout=30) as http,
                Client(streamable_http_client(url, http_client=http)) as client,
            ):
                result = await client.call_tool("read_file", {"path": "LICENSE"})
                return "".join(getattr(c, "text", "") for c in result.content)

        assert "Apache" in asyncio.run(go())
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_serve_refuses_db_for_the_folder_server_and_root_for_the_others(tmp_path: Path) -> None:
    def serve(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "gym_mcp.cli", "serve", *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=tmp_path, check=False)

    out = serve("filesystem", "--db", "sqlite:///x.db")
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "use --root DIR instead of --db" in out.stderr
    out = serve("banking", "--root", "ws")
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "--root is for the filesystem server" in out.stderr
    assert not list(tmp_path.iterdir())  # nothing was created
