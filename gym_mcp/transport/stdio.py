"""The stdio transport: an MCP server as a subprocess we own, its messages on stdin and stdout.

`ProcessTransport` is what `mcp.Client` reads and writes for a stdio server, in place of the
SDK's own stdio client, for three things the SDK's does not give:

- we know the process (its pid, to check between calls that it lives, and to kill a hung one);
- one message may take at most a limit (`MAX_RESULT_BYTES`): a longer line is not kept but
  skipped, and the oldest request still waiting gets an error result in its place;
- requests of our own can go out beside the session's (`ProcessTransport.request`), which the
  fast path for tool calls (`gym_mcp.transport.pipe`) uses.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
from typing import Any

import anyio
import anyio.abc
from mcp.shared.message import SessionMessage
from mcp.types import JSONRPCError, JSONRPCRequest, JSONRPCResponse, jsonrpc_message_adapter

from gym_mcp.errors import ServerStartError
from gym_mcp.transport.launch import MAX_RESULT_BYTES, Launch
from gym_mcp.transport.processes import kill_group
from gym_mcp.transport.results import encode_text, too_large_response

__all__ = ["OWN_ID_PREFIX", "ProcessTransport"]

OWN_ID_PREFIX = "gym-mcp-"
"""Ids of the requests a `ProcessTransport` sends itself (MCP sessions number theirs)."""


class ProcessTransport:
    """An MCP stdio transport over a subprocess we own (so we know its pid and can kill it)."""

    def __init__(self, launch: Launch, limit: int = MAX_RESULT_BYTES) -> None:
        self.launch = launch
        self.limit = limit
        self.process: anyio.abc.Process | None = None
        self._tg: anyio.abc.TaskGroup | None = None
        self._stderr: Any = None
        self._pending: dict[Any, None] = {}  # ids of requests sent and not yet answered, oldest first
        # Requests of our own (`request`), sent beside the MCP session's: id -> its caller's future.
        self._calls: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._next_call = 0
        self._reading = False  # while the reader runs, an answer can still come

    async def __aenter__(self) -> tuple[Any, Any]:
        launch = self.launch
        env = {**os.environ, **launch.env}
        self._stderr = open(launch.stderr_path, "ab") if launch.stderr_path else subprocess.DEVNULL  # noqa: SIM115
        try:
            self.process = await anyio.open_process(
                list(launch.command),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                env=env,
                cwd=launch.cwd,
                start_new_session=True,
            )
        except OSError as exc:
            self._close_stderr()
            raise ServerStartError(f"{launch.name}: cannot run {launch.command[0]!r}: {exc}") from exc
        read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](16)
        write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](16)
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        self._reading = True
        self._tg.start_soon(self._reader, read_send)
        self._tg.start_soon(self._writer, write_recv)
        return read_recv, write_send

    async def _reader(self, send: Any) -> None:
        """Split stdout into lines (linear in the bytes read) and deliver each as a message.

        A line over the limit is not kept: the rest of it is skipped, and the oldest request
        still waiting gets an error result in its place.
        """
        assert self.process is not None
        assert self.process.stdout is not None
        parts: list[bytes] = []
        size = 0
        skipping = False
        async with send:
            try:
                async for chunk in self.process.stdout:
                    start = 0
                    while True:
                        end = chunk.find(b"\n", start)
                        piece = chunk[start:] if end < 0 else chunk[start:end]
                        if not skipping:
                            parts.append(piece)
                            size += len(piece)
                            if size > self.limit:
                                skipping = True
                                parts, size = [], 0
                                await self._deliver_too_large(send)
                        if end < 0:
                            break
                        if not skipping:
                            await self._deliver(b"".join(parts), send)
                        skipping = False
                        parts, size = [], 0
                        start = end + 1
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
                pass
            finally:
                self._reading = False
                for future in self._calls.values():
                    if not future.done():
                        future.set_exception(ConnectionError(f"{self.launch.name}: the server's output ended"))
                self._calls.clear()

    async def request(self, method: str, params_json: str) -> dict[str, Any]:
        """Send a JSON-RPC request of our own, beside the MCP session's, and wait for the answer.

        Its id is a string no MCP session uses (the SDK numbers its requests), so the reader
        hands the answer here and the session never sees it.

        Args:
            method: The JSON-RPC method, e.g. ``"tools/call"``.
            params_json: The params object, already serialized as JSON.

        Returns:
            The whole response object (with ``result`` or ``error``).

        Raises:
            ConnectionError: The server's output ended before the answer came.
            anyio.BrokenResourceError: The server no longer reads its input.
        """
        assert self.process is not None
        assert self.process.stdin is not None
        if not self._reading:
            raise ConnectionError(f"{self.launch.name}: the server's output has ended")
        self._next_call += 1
        request_id = f"{OWN_ID_PREFIX}{self._next_call}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        # Registered before sending and kept after a caller gives up (a timeout), so a late
        # answer is still recognized as ours and dropped.
        self._calls[request_id] = future
        self._pending[request_id] = None
        line = f'{{"jsonrpc":"2.0","id":"{request_id}","method":{json.dumps(method)},"params":{params_json}}}\n'
        await self.process.stdin.send(encode_text(line))
        return await future

    def _take_answer(self, line: bytes) -> bool:
        """Hand a response to one of our own requests to its caller; False: not one of ours."""
        try:
            message = json.loads(line)
        except ValueError:
            return False
        if not isinstance(message, dict) or "method" in message:
            return False
        request_id = message.get("id")
        future = self._calls.pop(request_id, None) if isinstance(request_id, str) else None
        if future is None:
            return False
        self._pending.pop(request_id, None)
        if not future.done():  # else its caller gave up (timed out): the answer is dropped
            future.set_result(message)
        return True

    async def _deliver(self, line: bytes, send: Any) -> None:
        if not line.strip():
            return
        if self._calls and self._take_answer(line):
            return
        try:
            message = jsonrpc_message_adapter.validate_json(line, by_name=False)
        except ValueError as exc:
            await send.send(exc)
            return
        if isinstance(message, JSONRPCResponse | JSONRPCError):
            self._pending.pop(message.id, None)
        await send.send(SessionMessage(message))

    async def _deliver_too_large(self, send: Any) -> None:
        if not self._pending:
            return  # not an answer to anything we asked: dropped
        request_id = next(iter(self._pending))
        del self._pending[request_id]
        response = too_large_response(request_id, self.limit)
        future = self._calls.pop(request_id, None)
        if future is not None:  # one of our own requests
            if not future.done():
                future.set_result(response.model_dump(by_alias=True, mode="json", exclude_none=True))
            return
        await send.send(SessionMessage(response))

    async def _writer(self, recv: Any) -> None:
        assert self.process is not None
        assert self.process.stdin is not None
        async with recv:
            try:
                async for message in recv:
                    if isinstance(message.message, JSONRPCRequest):
                        self._pending[message.message.id] = None
                    try:
                        data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    except ValueError:  # a lone surrogate, which pydantic will not write: encode_text replaces it
                        dumped = message.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
                        data = json.dumps(dumped, ensure_ascii=False)
                    await self.process.stdin.send(encode_text(data + "\n"))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                pass

    async def __aexit__(self, *exc: object) -> None:
        proc = self.process
        if proc is not None:
            with contextlib.suppress(Exception):
                if proc.stdin is not None:
                    await proc.stdin.aclose()
            with anyio.move_on_after(2.0):
                await proc.wait()
            if proc.returncode is None:
                kill_group(proc.pid)
                with anyio.move_on_after(2.0):
                    await proc.wait()
        if self._tg is not None:
            self._tg.cancel_scope.cancel()
            with contextlib.suppress(Exception):
                await self._tg.__aexit__(None, None, None)
        if proc is not None:
            with contextlib.suppress(Exception):
                await proc.aclose()
        self._close_stderr()

    def _close_stderr(self) -> None:
        if self._stderr not in (None, subprocess.DEVNULL):
            with contextlib.suppress(OSError):
                self._stderr.close()
        self._stderr = None
