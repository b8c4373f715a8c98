"""Live connections to MCP servers: in-process, stdio (subprocess) or streamable HTTP.

`LiveConnection` is one connection to one live server, built on `mcp.Client`:

- every call has a timeout; a call that runs past it gets an error result, and a server
  process that hung is killed and restarted;
- a server process that died is noticed before the next call (or during it) and restarted
  on the same state, so the episode goes on; the number of restarts is counted;
- it is async; the sync API (`gym_mcp.MCPEnv`) drives it through `gym_mcp.live.runner`.

Launching is described by a `Launch`: a server object for in-process use, a command line for
stdio, or a command to spawn plus the URL it listens at (or just the URL of a server someone
else runs) for HTTP.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import anyio
import anyio.abc
import httpx
from mcp import Client
from mcp.shared.message import SessionMessage
from mcp.types import Tool, jsonrpc_message_adapter

from gym_mcp.errors import ServerCrashedError, ServerStartError

__all__ = ["Launch", "LiveConnection", "ToolResult", "free_port"]

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
    """

    name: str
    transport: TransportKind
    server_factory: Callable[[], Any] | None = None
    command: Sequence[str] = ()
    url: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    stderr_path: str | None = None

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
        crashed: True when the server died during the call (it was restarted).
    """

    text: str
    is_error: bool = False
    timed_out: bool = False
    crashed: bool = False


OPEN_CONNECTIONS: weakref.WeakSet[LiveConnection] = weakref.WeakSet()
"""Connections started and not yet closed (closed at interpreter exit)."""


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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


def _pid_alive(pid: int) -> bool:
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

    def __init__(self, launch: Launch) -> None:
        self.launch = launch
        self.process: anyio.abc.Process | None = None
        self._tg: anyio.abc.TaskGroup | None = None
        self._stderr: Any = None

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
        self._tg.start_soon(self._reader, read_send)
        self._tg.start_soon(self._writer, write_recv)
        return read_recv, write_send

    async def _reader(self, send: Any) -> None:
        assert self.process is not None
        assert self.process.stdout is not None
        buffer = b""
        async with send:
            try:
                async for chunk in self.process.stdout:
                    buffer += chunk
                    *lines, buffer = buffer.split(b"\n")
                    for line in lines:
                        if not line.strip():
                            continue
                        try:
                            message = jsonrpc_message_adapter.validate_json(line, by_name=False)
                        except ValueError as exc:
                            await send.send(exc)
                            continue
                        await send.send(SessionMessage(message))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
                pass

    async def _writer(self, recv: Any) -> None:
        assert self.process is not None
        assert self.process.stdin is not None
        async with recv:
            try:
                async for message in recv:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                    await self.process.stdin.send(data.encode())
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
            return proc.returncode is None and _pid_alive(proc.pid)
        if self._popen is not None:
            return self._popen.poll() is None
        return True

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
            await self._teardown()
            raise self._start_error(exc) from exc

    async def _prepare_target(self) -> Any:
        launch = self.launch
        if launch.transport == "inprocess":
            assert launch.server_factory is not None
            return launch.server_factory()
        if launch.transport == "stdio":
            self._transport = _ProcessTransport(launch)
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
            async with Client(target, cache=None, read_timeout_seconds=self.startup_timeout) as client:
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

    async def _teardown(self) -> None:
        """Close the session and stop the process we run (never raises)."""
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

        Raises:
            ServerCrashedError: The server could not be started again.
        """
        await self._teardown()
        self.restarts += 1
        try:
            await self.start()
        except ServerStartError as exc:
            raise ServerCrashedError(f"{self.launch.name}: died and could not be restarted: {exc}") from exc

    async def ensure_alive(self) -> bool:
        """Restart the server if its process died or its session dropped.

        Returns:
            True when a restart happened.
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

    async def list_tools(self) -> list[Tool]:
        """The server's tools, all pages, fetched fresh (never cached)."""
        await self.ensure_alive()
        assert self._client is not None
        tools: list[Tool] = []
        cursor: str | None = None
        while True:
            with anyio.fail_after(self.call_timeout):
                page = await self._client.list_tools(cursor=cursor, cache_mode="refresh")
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                return tools

    async def call_tool(self, name: str, arguments: Mapping[str, Any], *, timeout: float | None = None) -> ToolResult:
        """Call a tool. Never raises for what the server does: errors come back as results.

        A call past its timeout returns a timeout result, and a server process we run is then
        killed and restarted (a hung server cannot serve the next call). A server that died
        during the call is restarted and the call reported as crashed (not retried: it may
        have half-run).

        Raises:
            ServerCrashedError: The server died and could not be restarted.
        """
        await self.ensure_alive()
        client = self._client
        assert client is not None
        limit = self.call_timeout if timeout is None else timeout
        try:
            with anyio.fail_after(limit):
                result = await client.call_tool(name, dict(arguments), read_timeout_seconds=limit)
        except TimeoutError:
            if self.launch.transport != "inprocess" and (self._transport is not None or self._popen is not None):
                await self.restart()
            return ToolResult(f"Error: tool {name!r} timed out after {limit:g}s", is_error=True, timed_out=True)
        except Exception as exc:
            if self.connected and self.process_alive():
                return ToolResult(f"Error: {_describe(exc)}", is_error=True)
            await self.restart()
            return ToolResult(
                f"Error: the {self.launch.name} server stopped during {name!r} and was restarted; "
                "the call may not have completed",
                is_error=True,
                crashed=True,
            )
        return ToolResult(_content_text(result.content), is_error=bool(result.is_error))


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
