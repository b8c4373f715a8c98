"""Live connections to MCP servers: in-process, stdio (subprocess) or streamable HTTP.

`LiveConnection` is one connection to one live server, built on `mcp.Client`:

- every call has a timeout; a call that runs past it gets an error result, and the server is
  restarted (a process that hung is killed; an in-process server is rebuilt, so the thread left
  running cannot reach the state again);
- a server process that died, or a connection that broke, is noticed before the next call (or
  during it) and the server restarted on the same state, so the episode goes on; a restart that
  fails is tried again, and a server that cannot come back is reported as down (never raised
  out of a call); the number of restarts is counted;
- one result may take at most `MAX_RESULT_BYTES`: a bigger one is not read past the limit (so
  reading costs time linear in the limit, not the size) and comes back as an error result that
  says so; lone surrogates in results become U+FFFD;
- it is async; the sync API (`gym_mcp.MCPEnv`) drives it through `gym_mcp.live.runner`.

In-process, tool calls skip the protocol by default: they go straight to the server's own
``tools/call`` handler (`gym_mcp.live.direct`: the same tool lookup, argument validation, call
and result conversion, ~10x less work per call than the SDK's in-process session), while the
handshake and ``tools/list`` still go over MCP. Results, errors, timeouts and restarts are the
same as over the protocol (a test compares both on a sample of calls); a server with a lifespan
or middleware of its own keeps the protocol, and ``Launch(protocol=True)`` forces it. Over
stdio, tool calls skip the SDK's request machinery the same way: the request the session would
send is written onto the pipe and its answer read back by us (`gym_mcp.live.pipe`), while the
session stays up for the rest (``Launch(protocol=True)``: every call through the session).

Launching is described by a `Launch`: a server object for in-process use, a command line for
stdio, or a command to spawn plus the URL it listens at (or just the URL of a server someone
else runs) for HTTP.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import weakref
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import anyio
import anyio.abc
import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp.types import (
    CallToolResult,
    JSONRPCError,
    JSONRPCRequest,
    JSONRPCResponse,
    TextContent,
    Tool,
    jsonrpc_message_adapter,
)
from mcp_types import CONNECTION_CLOSED

from gym_mcp.errors import ServerCrashedError, ServerStartError
from gym_mcp.live.direct import DirectCalls
from gym_mcp.live.pipe import PipeCalls

__all__ = ["MAX_RESULT_BYTES", "Launch", "LiveConnection", "ToolResult", "free_port"]

MAX_RESULT_BYTES = 4 * 1024 * 1024
"""The most bytes one message from a server may take (an in-process result: characters)."""

RESTART_ATTEMPTS = 3
"""How many times a restart is tried before the server is reported as down."""

TransportKind = Literal["inprocess", "stdio", "http"]


@dataclass(frozen=True)
class Launch:
    """How to start (or reach) one live MCP server.

    Attributes:
        name: Server name, used in messages.
        transport: ``"inprocess"``, ``"stdio"`` or ``"http"``.
        server_factory: In-process: builds the server object (an `MCPServer` or low-level `Server`).
        command: stdio: the command line to run. http: the command that starts the server;
            ``{port}`` in it is replaced by a free loopback port.
        url: http: the server's URL. With a command, ``{port}`` in it is replaced too; without
            one, the server is run by someone else and cannot be restarted by us.
        env: Extra environment variables for the server process.
        cwd: Working directory of the server process.
        stderr_path: Where the server process's stderr goes (kept for error messages).
        headers: http: headers sent with every request (e.g. ``Authorization: Bearer ...``).
        protocol: Send tool calls through the MCP client's session too. In-process, instead of
            to the server's ``tools/call`` handler directly (`gym_mcp.live.direct`); this also
            runs the server's request middleware (e.g. OpenTelemetry spans) for every call.
            Over stdio, instead of writing them onto the server's pipe ourselves
            (`gym_mcp.live.pipe`). The results are the same either way; this is slower.
    """

    name: str
    transport: TransportKind
    server_factory: Callable[[], Any] | None = None
    command: Sequence[str] = ()
    url: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    stderr_path: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    protocol: bool = False

    def __post_init__(self) -> None:
        if self.transport == "inprocess" and self.server_factory is None:
            raise ServerStartError(f"{self.name}: an in-process launch needs a server_factory")
        if self.transport == "stdio" and not self.command:
            raise ServerStartError(f"{self.name}: a stdio launch needs a command")
        if self.transport == "http" and not (self.url or self.command):
            raise ServerStartError(f"{self.name}: an http launch needs a url or a command")


@dataclass(frozen=True)
class ToolResult:
    """The outcome of one tool call, as the agent sees it.

    Attributes:
        text: The result text (for errors, the error message).
        is_error: True when the call failed (tool error, timeout, crash).
        timed_out: True when the call ran past its timeout.
        crashed: True when the server died during the call (it was restarted, unless ``down``).
        down: True when the server could not be started again: no call can run until it is.
    """

    text: str
    is_error: bool = False
    timed_out: bool = False
    crashed: bool = False
    down: bool = False


OPEN_CONNECTIONS: weakref.WeakSet[LiveConnection] = weakref.WeakSet()
"""Connections started and not yet closed (closed at interpreter exit)."""


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def too_large(limit: int = MAX_RESULT_BYTES) -> str:
    """The error text of a result over ``limit`` bytes (which was not read past the limit)."""
    return (
        f"Error: the result is over the {limit / 2**20:g} MiB limit on one tool result (more than {limit:,} "
        "bytes) and was not read; ask for less (filter, page or narrow the query)"
    )


_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """``text`` with lone surrogates (which UTF-8 cannot encode) replaced by U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def _encode(text: str) -> bytes:
    """``text`` as UTF-8, lone surrogates replaced by U+FFFD (`clean_text`); encoded once when clean."""
    try:
        return text.encode()
    except UnicodeEncodeError:
        return clean_text(text).encode()


_OWN_ID_PREFIX = "gym-mcp-"
"""Ids of the requests a `_ProcessTransport` sends itself (MCP sessions number theirs)."""


def _too_large_response(request_id: Any, limit: int) -> JSONRPCResponse:
    """The answer put in place of a response over ``limit`` bytes: an error result of the call."""
    result = CallToolResult(content=[TextContent(type="text", text=too_large(limit))], is_error=True)
    return JSONRPCResponse(
        jsonrpc="2.0", id=request_id, result=result.model_dump(by_alias=True, mode="json", exclude_none=True)
    )


def _tail(path: str | None, limit: int = 800) -> str:
    if not path:
        return ""
    try:
        text = Path(path).read_text(errors="replace").strip()
    except OSError:
        return ""
    return text[-limit:]


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)


def child_alive(pid: int) -> bool:
    """True while ``pid``, a child of this process, runs (a zombie or a reaped child does not).

    One ``waitid`` syscall with ``WNOWAIT``: it reports an exited child without reaping it, so
    asyncio's child watcher still collects its status. This is what lets every call check the
    server first at no measurable cost (`pid_alive` opens ``/proc``: ~30x slower).
    """
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None
    except ChildProcessError:  # reaped already (or not our child: then the pid is not our server)
        return False
    except (AttributeError, OSError):  # no waitid on this platform
        return pid_alive(pid)


def pid_alive(pid: int) -> bool:
    """True while ``pid`` is a live (not zombie) process."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


class _ProcessTransport:
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
        request_id = f"{_OWN_ID_PREFIX}{self._next_call}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        # Registered before sending and kept after a caller gives up (a timeout), so a late
        # answer is still recognized as ours and dropped.
        self._calls[request_id] = future
        self._pending[request_id] = None
        line = f'{{"jsonrpc":"2.0","id":"{request_id}","method":{json.dumps(method)},"params":{params_json}}}\n'
        await self.process.stdin.send(_encode(line))
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
        response = _too_large_response(request_id, self.limit)
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
                    except ValueError:  # a lone surrogate, which pydantic will not write: _encode replaces it
                        dumped = message.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
                        data = json.dumps(dumped, ensure_ascii=False)
                    await self.process.stdin.send(_encode(data + "\n"))
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
                _kill_group(proc.pid)
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


def _set_pdeathsig() -> None:  # pragma: no cover - runs in the child
    """Ask Linux to kill the server when its parent dies (no orphans after a crash)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


class LiveConnection:
    """One live connection to one MCP server, restarted when its process dies or hangs.

    Args:
        launch: How to start or reach the server.
        call_timeout: Seconds a tool call may take.
        startup_timeout: Seconds the server may take to start and answer the handshake.
    """

    def __init__(self, launch: Launch, *, call_timeout: float = 30.0, startup_timeout: float = 60.0) -> None:
        self.launch = launch
        self.call_timeout = call_timeout
        self.startup_timeout = startup_timeout
        self.restarts = 0
        self._client: Client | None = None
        self._owner: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._transport: _ProcessTransport | None = None
        self._popen: subprocess.Popen[bytes] | None = None
        self._url: str | None = None
        self._stderr_path = launch.stderr_path
        self._closed = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._http: _CappedTransport | None = None
        self._listing: tuple[Client, Hashable, list[Tool]] | None = None  # (session, version, tools)
        self._direct: DirectCalls | None = None
        self._pipe: PipeCalls | None = None
        self._no_output_schema: set[str] = set()  # tools this session listed without an output schema

    # -- lifecycle ------------------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        """Pid of the server process we run (None in-process or for a server run by others)."""
        if self._transport is not None and self._transport.process is not None:
            return int(self._transport.process.pid)
        if self._popen is not None:
            return self._popen.pid
        return None

    def process_alive(self) -> bool:
        """False when the server process we run has exited."""
        if self._transport is not None and self._transport.process is not None:
            proc = self._transport.process
            # returncode is only updated while the loop runs; between calls, ask the OS.
            return proc.returncode is None and child_alive(proc.pid)
        if self._popen is not None:
            return self._popen.poll() is None
        return True

    @property
    def direct(self) -> bool:
        """True while tool calls go straight to the in-process server's handler (`gym_mcp.live.direct`)."""
        return self._direct is not None and self.connected

    @property
    def piped(self) -> bool:
        """True while tool calls are written straight onto the stdio server's pipe (`gym_mcp.live.pipe`)."""
        return self._pipe is not None and self.connected

    @property
    def connected(self) -> bool:
        """True while the MCP session is up."""
        return self._client is not None and self._owner is not None and not self._owner.done()

    async def start(self) -> None:
        """Start the server (if we run it) and open the MCP session.

        Raises:
            ServerStartError: The command is missing, the server exited at start, the URL
                refused connections, or the handshake did not finish in time.
        """
        if self._closed:
            raise ServerStartError(f"{self.launch.name}: connection is closed")
        self._loop = asyncio.get_running_loop()
        OPEN_CONNECTIONS.add(self)
        target = await self._prepare_target()
        self._stop = asyncio.Event()
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._owner = asyncio.create_task(self._own(target, ready), name=f"gym-mcp:{self.launch.name}")
        try:
            await asyncio.wait_for(asyncio.shield(ready), self.startup_timeout)
        except BaseException as exc:
            if not ready.done():  # still in the handshake (no answer in time): nothing to close gently
                ready.cancel()  # nobody waits on it now, so nothing may be left on it unretrieved
                self._owner.cancel()
            await self._teardown()
            raise self._start_error(exc) from exc

    async def _prepare_target(self) -> Any:
        launch = self.launch
        if launch.transport == "inprocess":
            assert launch.server_factory is not None
            return launch.server_factory()
        if launch.transport == "stdio":
            self._transport = _ProcessTransport(launch, MAX_RESULT_BYTES)
            return self._transport
        # http
        if not launch.command:
            assert launch.url is not None
            self._url = launch.url
            return launch.url
        port = free_port()
        command = [part.replace("{port}", str(port)) for part in launch.command]
        url = (launch.url or "http://127.0.0.1:{port}/mcp").replace("{port}", str(port))
        stderr: Any = open(self._stderr_path, "ab") if self._stderr_path else subprocess.DEVNULL  # noqa: SIM115
        try:
            self._popen = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                env={**os.environ, **launch.env},
                cwd=launch.cwd,
                start_new_session=True,
                preexec_fn=_set_pdeathsig if sys.platform.startswith("linux") else None,
            )
        except OSError as exc:
            raise ServerStartError(f"{launch.name}: cannot run {command[0]!r}: {exc}") from exc
        finally:
            if stderr is not subprocess.DEVNULL:
                stderr.close()
        await self._wait_for_port(port)
        self._url = url
        return url

    async def _wait_for_port(self, port: int) -> None:
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self._popen is not None and self._popen.poll() is not None:
                raise ServerStartError(
                    f"{self.launch.name}: server exited at start with status {self._popen.returncode}"
                    + (f": {_tail(self._stderr_path)}" if _tail(self._stderr_path) else "")
                )
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.close()
                with contextlib.suppress(Exception):
                    await writer.wait_closed()
                return
            except OSError:
                await asyncio.sleep(0.05)
        raise ServerStartError(
            f"{self.launch.name}: server did not listen on port {port} within {self.startup_timeout}s"
        )

    async def _own(self, target: Any, ready: asyncio.Future[None]) -> None:
        """Owns the client context (entered and exited in this one task, as anyio requires)."""
        try:
            async with contextlib.AsyncExitStack() as stack:
                if isinstance(target, str):  # a URL: our own HTTP client, with the size cap and headers
                    self._http = _CappedTransport(MAX_RESULT_BYTES)
                    http = await stack.enter_async_context(
                        httpx2.AsyncClient(
                            transport=self._http,
                            headers=dict(self.launch.headers),
                            timeout=httpx2.Timeout(30.0, read=300.0),
                        )
                    )
                    target = streamable_http_client(target, http_client=http, max_sse_event_size=MAX_RESULT_BYTES)
                # No read timeout of the client's own: every request we send runs under one
                # deadline of ours (``fail_after`` in call_tool and list_tools, ``startup_timeout``
                # around the handshake), so a second timer per call would only cost time.
                client = await stack.enter_async_context(Client(target, cache=None, read_timeout_seconds=None))
                server = DirectCalls.lowlevel(target) if self.launch.transport == "inprocess" else None
                version = client.session.protocol_version
                if server is not None and version is not None and not self.launch.protocol:
                    state = await stack.enter_async_context(server.lifespan(server))  # the SDK's default: {}
                    self._direct = DirectCalls(server, state, version)
                if isinstance(target, _ProcessTransport) and not self.launch.protocol:
                    self._pipe = PipeCalls.for_session(target, client.session)
                self._no_output_schema = set()
                self._client = client
                if not ready.done():
                    ready.set_result(None)
                assert self._stop is not None
                await self._stop.wait()
        except BaseException as exc:  # the server went away, or the handshake failed
            if not ready.done():
                ready.set_exception(exc)
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self._client = None
            self._direct = None
            self._pipe = None

    def _start_error(self, exc: BaseException) -> ServerStartError:
        if isinstance(exc, ServerStartError):
            return exc
        name = self.launch.name
        where = {
            "inprocess": "in-process server",
            "stdio": f"command {' '.join(self.launch.command)!r}",
            "http": f"URL {self._url or self.launch.url}",
        }[self.launch.transport]
        cause = _describe(exc)
        if isinstance(exc, TimeoutError | asyncio.TimeoutError):
            cause = f"no answer within {self.startup_timeout}s"
        if self._http is not None and self._http.refused:
            sent = "sent no Authorization header" if not self.launch.headers else "its headers were refused"
            cause = f"the server answered HTTP {self._http.refused} (it wants credentials; we {sent})"
        stderr = _tail(self._stderr_path)
        exited = ""
        if self._transport is not None and self._transport.process is not None:
            code = self._transport.process.returncode
            if code is not None:
                exited = f" (exited with status {code})"
        msg = f"{name}: could not start {where}{exited}: {cause}"
        if stderr:
            msg += f"; server stderr: {stderr}"
        return ServerStartError(msg)

    async def _teardown(self, *, kill: bool = False) -> None:
        """Close the session and stop the process we run (never raises).

        Args:
            kill: SIGKILL the process first instead of letting it exit (it is broken or hung).
        """
        if kill and self.pid is not None:
            _kill_group(self.pid)
        if self._stop is not None:
            self._stop.set()
        owner, self._owner = self._owner, None
        if owner is not None:
            try:
                await asyncio.wait_for(asyncio.shield(owner), 5.0)
            except BaseException:
                owner.cancel()
                with contextlib.suppress(BaseException):
                    await asyncio.wait_for(owner, 2.0)
        proc = self._transport.process if self._transport is not None else None
        if proc is not None and proc.returncode is None:
            _kill_group(proc.pid)
        self._transport = None
        self._client = None
        self._direct = None
        self._pipe = None
        if self._popen is not None:
            if self._popen.poll() is None:
                self._popen.terminate()
                try:
                    await asyncio.wait_for(asyncio.to_thread(self._popen.wait), 3.0)
                except BaseException:
                    _kill_group(self._popen.pid)
                    with contextlib.suppress(Exception):
                        self._popen.wait(timeout=2.0)
            self._popen = None

    async def restart(self) -> None:
        """Stop whatever is left of the server and start it again (on the same state).

        A start that fails is tried again (`RESTART_ATTEMPTS` in all, a little later each time).

        Raises:
            ServerCrashedError: The server could not be started again.
        """
        await self._teardown(kill=True)
        self.restarts += 1
        problem: ServerStartError | None = None
        for attempt in range(RESTART_ATTEMPTS):
            if attempt:
                await asyncio.sleep(0.25 * attempt)
            try:
                await self.start()
                return
            except ServerStartError as exc:
                problem = exc
        raise ServerCrashedError(
            f"{self.launch.name}: died and could not be restarted ({RESTART_ATTEMPTS} tries): {problem}"
        )

    async def ensure_alive(self) -> bool:
        """Restart the server if its process died or its session dropped.

        Returns:
            True when a restart happened.

        Raises:
            ServerCrashedError: The server could not be started again.
        """
        if self.connected and self.process_alive():
            return False
        await self.restart()
        return True

    async def close(self) -> None:
        """Close the session and stop the server process we run."""
        self._closed = True
        OPEN_CONNECTIONS.discard(self)
        await self._teardown()

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The event loop the connection was started on."""
        return self._loop

    def kill(self) -> None:
        """SIGKILL the server process (for fault-injection tests)."""
        pid = self.pid
        if pid is not None:
            _kill_group(pid)

    # -- calls ----------------------------------------------------------------------------

    async def start_and_list(self) -> list[Tool]:
        """Start the server and list its tools; on any failure the connection is closed first.

        Raises:
            ServerStartError: The server could not be started or reached.
        """
        try:
            await self.start()
            return await self.list_tools()
        except BaseException:
            await self.close()
            raise

    async def list_tools(self, *, version: Hashable | None = None) -> list[Tool]:
        """The server's tools, all pages, fetched fresh unless ``version`` says nothing changed.

        Args:
            version: A key the caller knows to change whenever the server's tool list can
                (e.g. the server state that decides the list: BFCL's visible functions). When
                it equals the key of this session's last listing, that listing is returned
                without a round trip (a restarted server's new session lists again). The MCP
                client keeps its own view of the tools from the last listing, which this one
                then still is. None: always list.
        """
        await self.ensure_alive()
        client = self._client
        assert client is not None
        if version is not None and self._listing is not None:
            listed_by, listed_version, listed = self._listing
            if listed_by is client and listed_version == version:
                return list(listed)
        tools: list[Tool] = []
        cursor: str | None = None
        while True:
            async with asyncio.timeout(self.call_timeout):
                page = await client.list_tools(cursor=cursor, cache_mode="refresh")
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                self._listing = (client, version, tools) if version is not None else None
                self._no_output_schema = {t.name for t in tools if t.output_schema is None}
                return list(tools)

    async def call_tool(self, name: str, arguments: Mapping[str, Any], *, timeout: float | None = None) -> ToolResult:
        """Call a tool. Never raises: what the server does comes back as a result.

        - A call past its timeout returns a timeout result, and the server is restarted: a
          process we run is killed (a hung server cannot serve the next call), an in-process
          server is rebuilt (its source gives it a fresh handle on the state, so the thread left
          running cannot write to it).
        - A server that died during the call, or whose connection broke, is restarted and the
          call reported as crashed (not retried: it may have half-run).
        - A server that cannot be started again gives a result with ``down`` set.
        """
        try:
            await self.ensure_alive()
        except ServerCrashedError as exc:
            return ToolResult(f"Error: {exc}", is_error=True, crashed=True, down=True)
        client = self._client
        assert client is not None
        shortcut = self._direct or self._pipe
        limit = self.call_timeout if timeout is None else timeout
        try:
            # asyncio's own timeout, not anyio's fail_after: the same TimeoutError, at a third of
            # the cost in a task that runs a single step (~10 us against ~30-60 us here).
            async with asyncio.timeout(limit):
                answer = await shortcut.call(name, arguments) if shortcut is not None else None
                if answer is None:  # over the protocol (or the tool asked the client for input)
                    result = await client.call_tool(name, dict(arguments))
                else:
                    result = answer
                    if not result.is_error and name not in self._no_output_schema:
                        # What the client does to every result: check it against the tool's
                        # output schema (listing the tools first if it never saw this one).
                        await client.session.validate_tool_result(name, result)
        except TimeoutError:
            down = await self._recover()
            text = f"Error: tool {name!r} timed out after {limit:g}s"
            return ToolResult(text + (f"; {down}" if down else ""), is_error=True, timed_out=True, down=bool(down))
        except MCPError as exc:
            if exc.code != CONNECTION_CLOSED and self.connected and self.process_alive():
                return ToolResult(f"Error: {_describe(exc)}", is_error=True)  # the server answered with an error
            return await self._crashed(name)
        except Exception:
            return await self._crashed(name)
        text = _content_text(result.content)
        if len(text) > MAX_RESULT_BYTES:  # in-process: no transport cut it on the way
            return ToolResult(too_large(), is_error=True)
        return ToolResult(clean_text(text), is_error=bool(result.is_error))

    async def _crashed(self, name: str) -> ToolResult:
        down = await self._recover()
        if down:
            text = f"Error: the {self.launch.name} server stopped during {name!r}; {down}"
            return ToolResult(text, is_error=True, crashed=True, down=True)
        return ToolResult(
            f"Error: the {self.launch.name} server stopped during {name!r} and was restarted; "
            "the call did not complete",
            is_error=True,
            crashed=True,
        )

    async def _recover(self) -> str:
        """Restart the server; returns why it could not be restarted ("" when it was)."""
        try:
            await self.restart()
        except ServerCrashedError as exc:
            return str(exc)
        return ""


class _CappedTransport(httpx2.AsyncBaseTransport):
    """An HTTP transport that reads at most ``limit`` bytes of a JSON response.

    A bigger response is closed unread and replaced by an error result for the request's id.
    (Server-sent events are capped by the MCP client itself: ``max_sse_event_size``.)
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.refused = 0  # the last 401/403 status the server answered with (0: none)
        self._inner = httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        if response.status_code in (401, 403):
            self.refused = response.status_code
        if request.method != "POST" or not response.headers.get("content-type", "").startswith("application/json"):
            return response
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) <= self.limit:  # declared small enough: read as it comes
            return response  # (httpx stops at the declared length, so the cap holds)
        body = bytearray()
        stream = response.stream
        assert isinstance(stream, httpx2.AsyncByteStream)
        try:
            async for chunk in stream:
                body += chunk
                if len(body) > self.limit:
                    break
        finally:
            await stream.aclose()
        if len(body) <= self.limit:
            return httpx2.Response(
                response.status_code, headers=response.headers, content=bytes(body), extensions=response.extensions
            )
        try:
            request_id = json.loads(request.content)["id"]
        except (ValueError, KeyError, TypeError):
            request_id = None
        replacement = _too_large_response(request_id, self.limit).model_dump_json(by_alias=True, exclude_unset=True)
        dropped = ("content-length", "content-encoding")
        headers = [(k, v) for k, v in response.headers.items() if k.lower() not in dropped]
        return httpx2.Response(response.status_code, headers=headers, content=replacement.encode())

    async def aclose(self) -> None:
        await self._inner.aclose()


def _content_text(content: Sequence[Any]) -> str:
    parts: list[str] = []
    for block in content:
        text = getattr(block, "text", None)
        if text is not None:
            parts.append(str(text))
        elif getattr(block, "type", None) == "resource":
            resource = getattr(block, "resource", None)
            parts.append(str(getattr(resource, "text", "") or f"[resource {getattr(resource, 'uri', '')}]"))
        else:
            parts.append(f"[{getattr(block, 'type', 'content')}]")
    return "\n".join(parts)


def _describe(exc: BaseException) -> str:
    """A one-line cause for an exception, unwrapping exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, httpx.ConnectError | ConnectionRefusedError):
        return f"connection refused ({exc})"
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if str(exc) else text


def default_stderr_path(prefix: str) -> str:
    """A fresh file for a server's stderr."""
    fd, path = tempfile.mkstemp(prefix=f"gym-mcp-{prefix}-", suffix=".stderr")
    os.close(fd)
    return path
