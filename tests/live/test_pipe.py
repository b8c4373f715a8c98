"""Tool calls written onto a stdio server's pipe answer what the MCP session answers.

Each comparison runs the same calls on two stdio connections to two copies of one server: one
writing its tool calls onto the pipe itself (the stdio default, `gym_mcp.transport.pipe`), one
sending them through the SDK's client session (``protocol=True``), and compares every result
(text and flags) and the final state. The rest checks what the pipe adds: answers routed by id
beside the session's own traffic, and a late answer after a timeout dropped.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable

import anyio
import pytest

from gym_mcp import BundledSource
from gym_mcp.live import LiveServer
from gym_mcp.state.null import NullState
from gym_mcp.transport import Launch, LiveConnection, ToolResult
from gym_mcp.transport.runner import run_sync
from tests.conftest import ROOT, faulty_source
from tests.live.test_direct import BANKING_CALLS, Call, _both_ways
from tests.live.test_sdk_fence import needs_pipe

pytestmark = needs_pipe  # without the pipe (mcp 2.0) there is nothing to compare the session with


def _stdio(source: Callable[[], BundledSource], call_timeout: float = 10.0) -> Callable[[bool], LiveServer]:
    def launch(protocol: bool) -> LiveServer:
        src = source()
        src.protocol = protocol
        live: LiveServer = run_sync(src.launch(call_timeout=call_timeout))
        assert live.connection.piped is not protocol
        return live

    return launch


def _odd_launch() -> Launch:
    env = {"PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return Launch("odd", "stdio", command=[sys.executable, "-m", "tests.servers.odd"], env=env)


def _odd(protocol: bool) -> LiveServer:
    launch = _odd_launch()
    connection = LiveConnection(Launch(**{**launch.__dict__, "protocol": protocol}), call_timeout=10.0)
    tools = run_sync(connection.start_and_list())
    assert connection.piped is not protocol
    return LiveServer.single(connection, NullState(), tools, ("odd", protocol), None)


def test_a_bundled_server_answers_the_same_on_the_pipe_and_through_the_session() -> None:
    results, prints = _both_ways(_stdio(lambda: BundledSource("banking", "stdio")), BANKING_CALLS, "piped")
    assert not results[0].is_error and results[1].is_error and results[2].is_error and results[-2].is_error
    assert "ACC-1001" in results[0].text
    assert prints[0] == prints[1]


def test_failures_crashes_timeouts_and_odd_results_are_the_same_both_ways() -> None:
    calls: list[Call] = [
        ("add_note", {"text": "one \u00e9\u4e2d"}),
        ("add_then_fail", {"text": "rolled back"}),
        ("surrogate", {}),
        ("big_result", {"size": 5_000_000}),  # over the cap: the transport answers in its place
        ("garbage", {}),  # lines that are not JSON-RPC on the channel, then "ok"
        ("die", {}),  # the process exits mid-call: a crash, and a restart
        ("add_note", {"text": "after the restart"}),
        ("slow_add", {"text": "late", "seconds": 2.0}),  # times out: the server is killed and restarted
        ("add_note", {"text": "two"}),
        ("list_notes", {}),
    ]
    results, prints = _both_ways(_stdio(lambda: faulty_source("stdio"), call_timeout=1.0), calls, "piped")
    assert "\ufffd" in results[2].text
    assert "over the 4 MiB limit" in results[3].text
    assert results[4] == ToolResult('"ok"')
    assert results[5].crashed and not results[6].is_error
    assert results[7].timed_out and not results[8].is_error
    assert "after the restart" in results[9].text and "late" not in results[9].text
    assert prints[0] == prints[1]


def test_structured_output_context_input_requests_and_protocol_errors_are_the_same_both_ways() -> None:
    calls: list[Call] = [
        ("typed", {"x": 4}),
        ("typed", {"x": "four"}),
        ("wrong_type", {"x": 1}),  # structured content that breaks the output schema
        ("with_context", {"text": "hello"}),  # progress sent during the call
        ("asks", {}),  # input required: answered through the session
        ("protocol_error", {}),
        ("missing", {}),
    ]
    results, _ = _both_ways(_odd, calls, "piped")
    assert results[0] == ToolResult('{\n  "value": 8\n}')
    assert results[5] == ToolResult("Error: MCPError: custom failure", is_error=True)


def test_a_lone_surrogate_in_the_arguments_is_sent_as_u_fffd_both_ways() -> None:
    results, _ = _both_ways(_odd, [("echo", {"text": "\ud800 lone"})], "piped")
    assert results == [ToolResult("\ufffd lone")]  # over the session it used to break the connection


def test_arguments_that_are_not_json_go_through_the_session() -> None:
    live = _odd(False)
    try:
        result = run_sync(live.connection.call_tool("echo", {"text": float("nan")}))
        over_session = _odd(True)
        try:
            assert result == run_sync(over_session.connection.call_tool("echo", {"text": float("nan")}))
        finally:
            run_sync(over_session.close())
        assert live.connection.piped and live.connection.restarts == 0
    finally:
        run_sync(live.close())


def test_pipe_calls_and_session_requests_interleave() -> None:
    """Many pipe calls in flight with listings and calls through the session: each gets its own answer."""
    live = _odd(False)
    connection = live.connection

    async def go() -> tuple[list[ToolResult], list[int]]:
        texts = [f"call {i}" for i in range(24)]
        results: list[ToolResult] = [ToolResult("")] * len(texts)
        listed: list[int] = []
        client = connection._client
        assert client is not None

        async def one(i: int) -> None:
            results[i] = await connection.call_tool("echo", {"text": texts[i]})

        async def through_session(i: int) -> None:
            if i % 2:
                listed.append(len((await client.list_tools()).tools))
            else:
                result = await client.call_tool("echo", {"text": "session"})
                assert result.content[0].text == "session"  # type: ignore[union-attr]

        async with anyio.create_task_group() as tg:
            for i in range(len(texts)):
                tg.start_soon(one, i)
                if i % 4 == 0:
                    tg.start_soon(through_session, i // 4)
        return results, listed

    try:
        results, listed = run_sync(go())
        assert [r.text for r in results] == [f"call {i}" for i in range(24)]
        assert listed and all(n == 6 for n in listed)
        assert connection.restarts == 0
    finally:
        run_sync(live.close())


def test_an_answer_that_comes_after_its_caller_gave_up_is_dropped() -> None:
    live: LiveServer = run_sync(faulty_source("stdio").launch(call_timeout=10.0))
    connection = live.connection
    transport, pipe = connection._transport, connection._pipe
    assert transport is not None and pipe is not None and connection.piped

    async def go() -> ToolResult:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(pipe.call("slow_add", {"text": "late", "seconds": 0.5}), 0.1)
        await asyncio.sleep(0.8)  # the answer has come by now, to nobody
        return await connection.call_tool("list_notes", {})

    try:
        result = run_sync(go())
        assert "late" in result.text and not result.is_error  # the session and the pipe go on
        assert not transport._calls and not transport._pending
        assert connection.restarts == 0
    finally:
        run_sync(live.close())
