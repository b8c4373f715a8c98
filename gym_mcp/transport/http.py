"""The streamable HTTP transport: a capped HTTP client, and the server processes we spawn for it.

The MCP client's HTTP client is ``httpx2`` (not ``httpx``). We hand it our own
(`http_client`), whose transport (`CappedHTTPTransport`) reads at most a limit of one JSON
response and notes a 401/403 answer, so a start that fails for want of credentials says so.

A server we run ourselves is spawned with a free loopback port in its command line
(`spawn_http_server`); the connection opens its session once the port listens
(`wait_for_port`). A URL alone is a server someone else runs: nothing is spawned.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Mapping
from typing import Any

import httpx2

from gym_mcp.errors import ServerStartError
from gym_mcp.transport.launch import Launch, free_port, stderr_tail
from gym_mcp.transport.processes import set_pdeathsig
from gym_mcp.transport.results import too_large_response

__all__ = ["CappedHTTPTransport", "http_client", "spawn_http_server", "wait_for_port"]


class CappedHTTPTransport(httpx2.AsyncBaseTransport):
    """An HTTP transport that reads at most ``limit`` bytes of a JSON response.

    A bigger response is closed unread and replaced by an error result for the request's id.
    (Server-sent events are capped by the MCP client itself: ``max_sse_event_size``.)
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.refused = 0  # the last 401/403 status the server answered with (0: none)
        self.not_found = False  # the last answer was 404: the server does not know our session
        self._inner = httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Send ``request``; a JSON answer over the limit becomes an error result for its id."""
        response = await self._inner.handle_async_request(request)
        if response.status_code in (401, 403):
            self.refused = response.status_code
        self.not_found = response.status_code == 404
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
        replacement = too_large_response(request_id, self.limit).model_dump_json(by_alias=True, exclude_unset=True)
        dropped = ("content-length", "content-encoding")
        headers = [(k, v) for k, v in response.headers.items() if k.lower() not in dropped]
        return httpx2.Response(response.status_code, headers=headers, content=replacement.encode())

    async def aclose(self) -> None:
        """Close the inner transport."""
        await self._inner.aclose()


def http_client(transport: CappedHTTPTransport, headers: Mapping[str, str]) -> httpx2.AsyncClient:
    """The HTTP client an MCP session to one server uses: ``transport``, ``headers`` on every request."""
    return httpx2.AsyncClient(transport=transport, headers=dict(headers), timeout=httpx2.Timeout(30.0, read=300.0))


def spawn_http_server(launch: Launch, stderr_path: str | None) -> tuple[subprocess.Popen[bytes], int, str]:
    """Start the server process of an HTTP launch that has a command, on a free loopback port.

    Args:
        launch: The launch (``{port}`` in its command and URL is replaced by the port).
        stderr_path: Where the process's stderr goes (None: nowhere).

    Returns:
        The process, its port and the URL it serves MCP at.

    Raises:
        ServerStartError: The command cannot be run.
    """
    port = free_port()
    command = [part.replace("{port}", str(port)) for part in launch.command]
    url = (launch.url or "http://127.0.0.1:{port}/mcp").replace("{port}", str(port))
    stderr: Any = open(stderr_path, "ab") if stderr_path else subprocess.DEVNULL  # noqa: SIM115
    try:
        popen = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            env={**os.environ, **launch.env},
            cwd=launch.cwd,
            start_new_session=True,
            preexec_fn=set_pdeathsig if sys.platform.startswith("linux") else None,
        )
    except OSError as exc:
        raise ServerStartError(f"{launch.name}: cannot run {command[0]!r}: {exc}") from exc
    finally:
        if stderr is not subprocess.DEVNULL:
            stderr.close()
    return popen, port, url


async def wait_for_port(
    popen: subprocess.Popen[bytes] | None, port: int, *, name: str, timeout: float, stderr_path: str | None
) -> None:
    """Wait until something listens on loopback ``port``.

    Raises:
        ServerStartError: ``popen`` exited first, or nothing listened within ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if popen is not None and popen.poll() is not None:
            raise ServerStartError(
                f"{name}: server exited at start with status {popen.returncode}"
                + (f": {stderr_tail(stderr_path)}" if stderr_tail(stderr_path) else "")
            )
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
            return
        except OSError:
            await asyncio.sleep(0.05)
    raise ServerStartError(f"{name}: server did not listen on port {port} within {timeout}s")
