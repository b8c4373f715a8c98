"""In-process tool calls handed straight to the server's handler answer what the protocol answers.

Each test runs the same calls on two connections to two copies of one server: one dispatching
tool calls directly (the in-process default), one sending them over the MCP protocol
(``protocol=True``), and compares every result (text and flags) and the final state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mcp.server import Server
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolRequestParams, CallToolResult, ListToolsResult, TextContent, Tool

from gym_mcp import BundledSource
from gym_mcp.bfcl.backend import BFCLSource
from gym_mcp.bfcl.data import shared_entry
from gym_mcp.live import LiveServer
from gym_mcp.transport import Launch, LiveConnection, ToolResult
from gym_mcp.transport.runner import run_sync
from tests.conftest import faulty_source
from tests.servers.odd import odd_server

Call = tuple[str, dict[str, Any]]


def _play(connection: LiveConnection, calls: Sequence[Call]) -> list[ToolResult]:
    return [run_sync(connection.call_tool(name, arguments)) for name, arguments in calls]


def _both_ways(
    launch: Callable[[bool], LiveServer], calls: Sequence[Call], shortcut: str = "direct"
) -> tuple[list[ToolResult], list[str]]:
    """The calls' results on a direct and a protocol server (asserted equal), and the final fingerprints.

    ``shortcut`` names the connection's flag that is on while calls skip the protocol.
    """
    results, prints = [], []
    for protocol in (False, True):
        live = launch(protocol)
        try:
            assert getattr(live.connection, shortcut) is not protocol
            results.append(_play(live.connection, calls))
            prints.append(live.state.fingerprint())
        finally:
            run_sync(live.close())
    for call, direct, over_protocol in zip(calls, results[0], results[1], strict=True):
        assert direct == over_protocol, call
    return results[0], prints


BANKING_CALLS: list[Call] = [
    ("get_balance", {"account_id": "ACC-1001"}),
    ("get_balance", {"account_id": "ACC-9999"}),  # the tool's own error
    ("get_balance", {}),  # a required argument missing
    ("get_balance", {"account_id": ["ACC-1001"]}),  # a wrong type
    ("get_balance", {"account_id": "ACC-1001", "unknown": 1}),
    ("list_transactions", {"account_id": "ACC-1001", "limit": "3"}),  # coerced by the tool layer
    ("deposit", {"account_id": "ACC-1001", "amount": 12.5}),
    ("deposit", {"account_id": "ACC-1001", "amount": -1}),
    ("transfer_funds", {"from_account_id": "ACC-1001", "to_account_id": "ACC-1002", "amount": 1e12}),
    ("withdraw", {"account_id": "ACC-1001", "amount": 5}),
    ("no_such_tool", {"x": 1}),
    ("get_balance", {"account_id": "ACC-1001"}),
]


def test_a_bundled_server_answers_the_same_directly_and_over_the_protocol() -> None:
    def launch(protocol: bool) -> LiveServer:
        return run_sync(BundledSource("banking", protocol=protocol).launch(call_timeout=10.0))

    results, prints = _both_ways(launch, BANKING_CALLS)
    assert not results[0].is_error and results[1].is_error and results[2].is_error and results[-2].is_error
    assert prints[0] == prints[1]


def test_failures_timeouts_and_odd_results_are_the_same_both_ways() -> None:
    calls: list[Call] = [
        ("add_note", {"text": "one"}),
        ("add_then_fail", {"text": "rolled back"}),
        ("die", {}),  # refuses in-process: a tool error
        ("surrogate", {}),
        ("big_result", {"size": 5_000_000}),
        ("slow_add", {"text": "late", "seconds": 1.0}),  # times out: the server is rebuilt
        ("add_note", {"text": "two"}),
        ("list_notes", {}),
    ]

    def launch(protocol: bool) -> LiveServer:
        live: LiveServer = run_sync(faulty_source("inprocess").launch(call_timeout=0.4))
        if protocol:  # the same server, its calls over the protocol
            run_sync(live.close())
            source = faulty_source("inprocess")
            source.protocol = True
            live = run_sync(source.launch(call_timeout=0.4))
        return live

    results, prints = _both_ways(launch, calls)
    assert results[5].timed_out and not results[6].is_error
    assert "over the 4 MiB limit" in results[4].text
    assert prints[0] == prints[1]


def test_bfcl_calls_are_the_same_both_ways() -> None:
    entry = shared_entry("multi_turn_base_0")
    calls: list[Call] = [
        ("pwd", {}),
        ("ls", {"a": True}),
        ("cd", {"folder": "no_such_folder"}),
        ("mkdir", {"dir_name": "new"}),
        ("cd", {"folder": 3}),
        ("post_tweet", {"content": "hi"}),  # not logged in: the backend's own error text
        ("no_such_function", {}),
        ("not a name", {}),
        ("ls", {"bad key": 1}),
        ("exit", {}),
    ]

    def launch(protocol: bool) -> LiveServer:
        source = BFCLSource(entry["involved_classes"], protocol=protocol)
        live: LiveServer = run_sync(source.launch(call_timeout=10.0))
        live.state.restore(source.entry_snapshot(entry))
        return live

    results, prints = _both_ways(launch, calls)
    assert not results[0].is_error and results[6].is_error
    assert prints[0] == prints[1]


def _lowlevel_server() -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
        return ListToolsResult(tools=[Tool(name="echo", input_schema={"type": "object"})])

    async def call_tool(ctx: Any, params: CallToolRequestParams) -> CallToolResult:
        if params.name == "boom":
            raise RuntimeError("secret detail")
        return CallToolResult(content=[TextContent(type="text", text=f"{params.name} {params.arguments}")])

    return Server("lowlevel", on_list_tools=list_tools, on_call_tool=call_tool)


def _launch_factory(factory: Callable[[], Any]) -> Callable[[bool], LiveServer]:
    from gym_mcp.state.null import NullState

    def launch(protocol: bool) -> LiveServer:
        connection = LiveConnection(Launch("custom", "inprocess", server_factory=factory, protocol=protocol))
        tools = run_sync(connection.start_and_list())
        return LiveServer.single(connection, NullState(), tools, ("custom", protocol), None)

    return launch


def test_structured_output_context_and_protocol_errors_are_the_same_both_ways() -> None:
    calls: list[Call] = [
        ("typed", {"x": 4}),
        ("typed", {"x": "four"}),
        ("wrong_type", {"x": 1}),
        ("with_context", {"text": "hello"}),
        ("asks", {}),
        ("protocol_error", {}),
        ("missing", {}),
    ]
    results, _ = _both_ways(_launch_factory(odd_server), calls)
    assert results[0] == ToolResult('{\n  "value": 8\n}')
    assert results[5] == ToolResult("Error: MCPError: custom failure", is_error=True)


def test_a_lowlevel_server_answers_the_same_both_ways() -> None:
    calls: list[Call] = [("echo", {"a": [1, 2]}), ("boom", {})]
    results, _ = _both_ways(_launch_factory(_lowlevel_server), calls)
    assert results[1] == ToolResult("Error: MCPError: Internal server error", is_error=True)


def test_a_server_with_middleware_of_its_own_keeps_the_protocol() -> None:
    seen: list[str] = []

    def factory() -> MCPServer:
        server = odd_server()

        async def middleware(ctx: Any, call_next: Any) -> Any:
            seen.append(ctx.method)
            return await call_next(ctx)

        server.middleware.append(middleware)  # MCPServer.middleware: its low-level server's list
        return server

    connection = LiveConnection(Launch("custom", "inprocess", server_factory=factory))
    try:
        run_sync(connection.start_and_list())
        assert not connection.direct
        assert not run_sync(connection.call_tool("typed", {"x": 1})).is_error
        assert "tools/call" in seen
    finally:
        run_sync(connection.close())


def test_direct_calls_survive_a_restart() -> None:
    live: LiveServer = run_sync(faulty_source("inprocess").launch(call_timeout=0.3))
    try:
        assert live.connection.direct
        assert run_sync(live.connection.call_tool("slow_add", {"text": "x", "seconds": 0.6})).timed_out
        assert live.connection.direct and live.connection.restarts == 1
        assert not run_sync(live.connection.call_tool("add_note", {"text": "y"})).is_error
    finally:
        run_sync(live.close())
