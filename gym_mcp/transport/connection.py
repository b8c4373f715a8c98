"""`LiveConnection`: one live connection to one MCP server, in-process, over stdio or over HTTP.

Built on `mcp.Client`, with what an environment needs around it:

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
- it is async; the sync API (`gym_mcp.MCPEnv`) drives it through `gym_mcp.transport.runner`.

The transports it opens sessions over are rooms of their own: `gym_mcp.transport.stdio` (a
subprocess we own), `gym_mcp.transport.http` (a capped client; servers we spawn), and the
server object itself in-process. Tool calls take a fast path where one gives the same results:
in-process, straight to the server's own ``tools/call`` handler (`gym_mcp.transport.direct`:
~10x less work per call than the SDK's in-process session); over stdio, written onto the
server's pipe beside the session (`gym_mcp.transport.pipe`). The handshake and ``tools/list``
always go over MCP. Results, errors, timeouts and restarts are the same either way (tests
compare both); ``Launch(protocol=True)`` keeps every call on the protocol.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import weakref
from collections.abc import Awaitable, Callable, Hashable, Mapping
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import Tool
from mcp_types import CONNECTION_CLOSED

from gym_mcp.errors import ServerCrashedError, ServerStartError
from gym_mcp.transport.direct import DirectCalls
from gym_mcp.transport.http import CappedHTTPTransport, http_client, spawn_http_server, wait_for_port
from gym_mcp.transport.launch import MAX_RESULT_BYTES, Launch, stderr_tail
from gym_mcp.transport.pipe import PipeCalls
from gym_mcp.transport.processes import child_alive, kill_group
from gym_mcp.transport.results import ToolResult, clean_text, content_text, too_large
from gym_mcp.transport.sdk import sse_event_cap
from gym_mcp.transport.stdio import ProcessTransport

__all__ = ["OPEN_CONNECTIONS", "RESTART_ATTEMPTS", "LiveConnection"]

RESTART_ATTEMPTS = 3
"""How many times a restart is tried before the server is reported as down."""

OPEN_CONNECTIONS: weakref.WeakSet[LiveConnection] = weakref.WeakSet()
"""Connections started and not yet closed (closed at interpreter exit)."""


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
        self.relaunches = 0
        self.calls = 0  # tool calls asked of it (a state kept beside it knows whether one may have written)
        self._client: Client | None = None
        self._owner: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._transport: ProcessTransport | None = None
        self._popen: subprocess.Popen[bytes] | None = None
        self._url: str | None = None
        self._stderr_path = launch.stderr_path
        self._closed = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._http: CappedHTTPTransport | None = None
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
        """True while tool calls go straight to the in-process server's handler (`gym_mcp.transport.direct`)."""
        return self._direct is not None and self.connected

    @property
    def piped(self) -> bool:
        """True while tool calls are written straight onto the stdio server's pipe (`gym_mcp.transport.pipe`)."""
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
            self._transport = ProcessTransport(launch, MAX_RESULT_BYTES)
            return self._transport
        # http
        if not launch.command:
            assert launch.url is not None
            self._url = launch.url
            return launch.url
        self._popen, port, url = spawn_http_server(launch, self._stderr_path)
        await wait_for_port(
            self._popen, port, name=launch.name, timeout=self.startup_timeout, stderr_path=self._stderr_path
        )
        self._url = url
        return url

    async def _own(self, target: Any, ready: asyncio.Future[None]) -> None:
        """Owns the client context (entered and exited in this one task, as anyio requires)."""
        try:
            async with contextlib.AsyncExitStack() as stack:
                if isinstance(target, str):  # a URL: our own HTTP client, with the size cap and headers
                    self._http = CappedHTTPTransport(MAX_RESULT_BYTES)
                    http = await stack.enter_async_context(http_client(self._http, self.launch.headers))
                    target = streamable_http_client(target, http_client=http, **sse_event_cap(MAX_RESULT_BYTES))
                # No read timeout of the client's own: every request we send runs under one
                # deadline of ours (``fail_after`` in call_tool and list_tools, ``startup_timeout``
                # around the handshake), so a second timer per call would only cost time.
                client = await stack.enter_async_context(Client(target, cache=None, read_timeout_seconds=None))
                server = DirectCalls.lowlevel(target) if self.launch.transport == "inprocess" else None
                version = client.session.protocol_version
                if server is not None and version is not None and not self.launch.protocol:
                    state = await stack.enter_async_context(server.lifespan(server))  # the SDK's default: {}
                    self._direct = DirectCalls(server, state, version)
                if isinstance(target, ProcessTransport) and not self.launch.protocol:
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
        stderr = stderr_tail(self._stderr_path)
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
            kill_group(self.pid)
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
            kill_group(proc.pid)
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
                    kill_group(self._popen.pid)
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
        await self._start_again("died and could not be restarted")

    async def relaunch(self, between: Callable[[], Awaitable[None]] | None = None) -> None:
        """Stop the server on purpose and start a new one on the same launch (a spec's ``restart_on_reset``).

        Unlike `restart`, nothing went wrong: it is counted in `relaunches`, not `restarts`
        (which count recoveries from a crash or a hang). The old process is killed, not asked
        to exit, so that it cannot write what it held in memory over the state on its way out.

        Args:
            between: Runs while no server runs (an environment restores the state there, so
                the new process reads the restored state from its start).

        Raises:
            ServerCrashedError: The server could not be started again.
        """
        await self._teardown(kill=True)
        try:
            if between is not None:
                await between()
        finally:
            self.relaunches += 1
            await self._start_again("could not be started again after a restart on reset")

    @property
    def session_unknown(self) -> bool:
        """True when the server's last answer was HTTP 404: it does not know the session we named."""
        return self._http is not None and self._http.not_found

    async def reconnect(self, launch: Launch) -> None:
        """Reach the server as ``launch`` says from now on (new headers, say: a new session's key).

        The MCP session is closed and a new one opened on the new launch; not counted in
        `restarts` nor `relaunches` (the caller counts what it means). Only a server someone
        else runs may be reconnected: a process we run would be stopped.

        Raises:
            ServerStartError: ``launch`` starts a process, or the new session could not be opened.
        """
        if launch.command or launch.transport != "http":
            raise ServerStartError(f"{launch.name}: only a server at a URL someone else runs can be reconnected")
        await self._teardown()
        self.launch = launch
        await self.start()

    async def _start_again(self, failure: str) -> None:
        """Start the server, tried `RESTART_ATTEMPTS` times (a little later each time).

        Raises:
            ServerCrashedError: No try succeeded; the message is ``failure`` and the last cause.
        """
        problem: ServerStartError | None = None
        for attempt in range(RESTART_ATTEMPTS):
            if attempt:
                await asyncio.sleep(0.25 * attempt)
            try:
                await self.start()
                return
            except ServerStartError as exc:
                problem = exc
        raise ServerCrashedError(f"{self.launch.name}: {failure} ({RESTART_ATTEMPTS} tries): {problem}")

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
            kill_group(pid)

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
        - A server that answers HTTP 404 (it does not know our session) gives a result with
          ``session_lost`` set; nothing is restarted (whoever opened the session opens another).
        """
        self.calls += 1
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
            if self.session_unknown:  # MCP's answer to an unknown session
                text = f"Error: the {self.launch.name} server no longer knows this session (HTTP 404)"
                return ToolResult(f"{text}; {name!r} did not run", is_error=True, session_lost=True)
            if exc.code != CONNECTION_CLOSED and self.connected and self.process_alive():
                return ToolResult(f"Error: {_describe(exc)}", is_error=True)  # the server answered with an error
            return await self._crashed(name)
        except Exception:
            return await self._crashed(name)
        text = content_text(result.content)
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


def _describe(exc: BaseException) -> str:
    """A one-line cause for an exception, unwrapping exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, httpx2.ConnectError | ConnectionRefusedError):  # mcp's HTTP client is httpx2, not httpx
        return f"connection refused ({exc})"
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if str(exc) else text
