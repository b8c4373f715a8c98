"""Checks the bundled-server tests share: tool listings, intents, error messages."""

from __future__ import annotations

import asyncio
import inspect
import re
from typing import Any

from mcp import Client

from gym_mcp.servers.kit import ServerKit, ToolInfo
from tests.helpers import LiveServer


def listed_tools(server: LiveServer) -> list[Any]:
    """The tools the server lists to a real MCP client."""

    async def go() -> list[Any]:
        async with Client(server.server) as client:
            return list((await client.list_tools()).tools)

    return asyncio.run(go())


def assert_listed_with_kinds(server: LiveServer, kit: ServerKit, writes: set[str], reads: set[str]) -> None:
    """The server lists every declared tool (at least 12); ``writes`` are WRITE tools, ``reads`` READ ones."""
    names = server.tool_names()
    assert len(names) >= 12
    assert set(names) == set(kit.tools)
    declared_writes = {n for n, info in kit.tools.items() if info.write}
    assert writes <= declared_writes
    assert reads <= set(kit.tools) - declared_writes


def assert_every_tool_described(server: LiveServer, min_description: int) -> None:
    """Every tool has a description longer than ``min_description`` and every parameter one too."""
    for tool in listed_tools(server):
        assert tool.description, tool.name
        assert len(tool.description) > min_description, tool.name
        assert "Args:" not in tool.description, tool.name
        props = tool.input_schema.get("properties", {})
        assert "db" not in props, tool.name
        for pname, prop in props.items():
            assert prop.get("description"), f"{tool.name}.{pname} has no description"


def intent_placeholders(name: str, info: ToolInfo) -> tuple[set[str], set[str]]:
    """Check a tool's synthesis intent; return its placeholders outside and inside ``[...]`` parts.

    The intent is a capitalised request without a final full stop; every required parameter is
    a placeholder outside the optional ``[...]`` parts and no optional one is.
    """
    intent = info.intent
    assert intent, name
    assert intent[0].isupper() and not intent.endswith("."), name
    outside = set(re.findall(r"\{(\w+)\}", re.sub(r"\[[^\[\]]*\]", "", intent)))
    inside = set(re.findall(r"\{(\w+)\}", "".join(re.findall(r"\[[^\[\]]*\]", intent))))
    for p in tool_params(info):
        if p.default is inspect.Parameter.empty:
            assert p.name in outside, f"{name}: required {p.name} must be a placeholder outside [...]"
        else:
            assert p.name not in outside, f"{name}: optional {p.name} must sit inside [...]"
    return outside, inside


def tool_params(info: ToolInfo) -> list[inspect.Parameter]:
    """The parameters a tool shows the model (all but the session)."""
    return list(inspect.signature(info.fn).parameters.values())[1:]


def assert_error(server: LiveServer, tool: str, *fragments: str, **arguments: Any) -> str:
    """Call a tool that must fail with a message holding every fragment; return the message."""
    message = server.error(tool, **arguments)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    return message


def dump(server: LiveServer) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows without the volatile (wall-clock) columns, in a stable order."""
    volatile = server.kit.volatile_columns
    out = {}
    for table in server.kit.base.metadata.sorted_tables:
        cols = ", ".join(f'"{c.name}"' for c in table.columns if c.name not in volatile.get(table.name, ()))
        out[table.name] = server.query(f'SELECT {cols} FROM "{table.name}" ORDER BY {cols}')
    return out


def one(server: LiveServer, sql: str, *params: Any) -> tuple[Any, ...]:
    """The first row of a query the seed data must answer."""
    rows = server.query(sql, *params)
    assert rows, f"the seed has no row for: {sql}"
    return rows[0]


def scalar(server: LiveServer, sql: str, *params: Any) -> Any:
    """The first column of the first row of a query the seed data must answer."""
    return one(server, sql, *params)[0]
