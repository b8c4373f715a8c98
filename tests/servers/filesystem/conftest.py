"""Fixtures of the filesystem server's tests: a seeded workspace behind a real MCP client."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from gym_mcp.servers.filesystem import create_server, seed_tree


class FsServer:
    """The filesystem server on a seeded folder, called through `mcp.Client` (in-process transport)."""

    def __init__(self, root: Path, quota_bytes: int = 10 * 2**20) -> None:
        self.root = root
        self.server = create_server(root, quota_bytes=quota_bytes)

    def call(self, name: str, /, **arguments: Any) -> tuple[bool, str]:
        async def go() -> tuple[bool, str]:
            async with Client(self.server) as client:
                result = await client.call_tool(name, arguments)
            return bool(result.is_error), "".join(getattr(c, "text", "") for c in result.content)

        return asyncio.run(go())

    def ok(self, name: str, /, **arguments: Any) -> Any:
        is_error, text = self.call(name, **arguments)
        assert not is_error, f"{name}({arguments}) failed: {text}"
        return json.loads(text)

    def error(self, name: str, /, *fragments: str, **arguments: Any) -> str:
        is_error, text = self.call(name, **arguments)
        assert is_error, f"{name}({arguments}) should have failed, got: {text}"
        for fragment in fragments:
            assert fragment in text, f"{fragment!r} not in {text!r}"
        return text

    def tools(self) -> list[Any]:
        async def go() -> list[Any]:
            async with Client(self.server) as client:
                return list((await client.list_tools()).tools)

        return asyncio.run(go())


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    seed_tree(folder, 0)
    return folder


@pytest.fixture
def fs(root: Path) -> FsServer:
    return FsServer(root)
