"""Test helpers: drive a real bundled server in-process over a real MCP client."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
from typing import Any

from mcp import Client

from gym_mcp import MCPEnv, Task
from gym_mcp.servers.kit import ServerKit


class LiveServer:
    """A bundled server on a fresh in-memory SQLite database, called through `mcp.Client`.

    Every call goes through the real MCP protocol (in-process transport), so argument
    validation, `ToolError` handling and result encoding are the ones an agent sees.
    """

    def __init__(self, kit: ServerKit, seed: int = 0) -> None:
        self.kit = kit
        self.conn = sqlite3.connect(":memory:", check_same_thread=False)
        kit.init_database(self.conn, seed=seed)
        self.server = kit.create_server(self.conn)

    def call(self, name: str, **arguments: Any) -> tuple[bool, str]:
        """Call a tool; return (is_error, text)."""

        async def go() -> tuple[bool, str]:
            async with Client(self.server) as client:
                result = await client.call_tool(name, arguments)
            text = "".join(getattr(c, "text", "") for c in result.content)
            return bool(result.is_error), text

        return asyncio.run(go())

    def ok(self, name: str, **arguments: Any) -> Any:
        """Call a tool that must succeed; return its decoded JSON result."""
        is_error, text = self.call(name, **arguments)
        assert not is_error, f"{name}({arguments}) failed: {text}"
        return json.loads(text)

    def error(self, name: str, **arguments: Any) -> str:
        """Call a tool that must fail; return the error text the agent sees."""
        is_error, text = self.call(name, **arguments)
        assert is_error, f"{name}({arguments}) should have failed, got: {text}"
        return text

    def query(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        """Read the database directly (to check what a tool really changed)."""
        return list(self.conn.execute(sql, params))

    def tool_names(self) -> list[str]:
        """Names of the tools the server lists."""

        async def go() -> list[str]:
            async with Client(self.server) as client:
                return [t.name for t in (await client.list_tools()).tools]

        return asyncio.run(go())


def child_pids() -> set[int]:
    """Pids of this process's live (non-zombie) children, read from /proc."""
    me = str(os.getpid())
    out = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == me and fields[0] != "Z":
            out.add(int(pid))
    return out


def verified_deposit_task() -> Task:
    """A banking deposit whose expected fingerprint comes from really running its reference call."""
    calls = [{"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": 25.0, "description": "gift"}}]
    env = MCPEnv("banking")
    env.reset(seed=0)
    for c in calls:
        obs, *_ = env.step(c)
        assert not obs.startswith("Error"), obs
    fp = env.state.fingerprint()
    env.close()
    return Task(
        id="deposit-25",
        server="banking",
        instruction="Deposit $25 into ACC-1001 (description: gift).",
        reference_calls=tuple(calls),
        expected_fingerprint=fp,
    )
