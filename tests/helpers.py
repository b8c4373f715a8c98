"""Test helpers: drive a real bundled server in-process over a real MCP client."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any, TypeVar

from mcp import Client

from gym_mcp import MCPEnv, ServerPool, Task
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

    def call(self, name: str, /, **arguments: Any) -> tuple[bool, str]:
        """Call a tool; return (is_error, text)."""

        async def go() -> tuple[bool, str]:
            async with Client(self.server) as client:
                result = await client.call_tool(name, arguments)
            text = "".join(getattr(c, "text", "") for c in result.content)
            return bool(result.is_error), text

        return asyncio.run(go())

    def ok(self, name: str, /, **arguments: Any) -> Any:
        """Call a tool that must succeed; return its decoded JSON result."""
        is_error, text = self.call(name, **arguments)
        assert not is_error, f"{name}({arguments}) failed: {text}"
        return json.loads(text)

    def error(self, name: str, /, **arguments: Any) -> str:
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
    return bank_task("deposit-25", "Deposit $25 into ACC-1001 (description: gift).", calls, fp)


def deposit_then_balance_task() -> Task:
    """A two-call banking task (a write, then a read of what it changed), without a fingerprint."""
    return Task(
        id="t",
        server="banking",
        instruction="Deposit $25 into ACC-1001, then show its balance.",
        reference_calls=(
            {"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": 25.0}},
            {"name": "get_balance", "arguments": {"account_id": "ACC-1001"}},
        ),
    )


def bank_task(task_id: str, instruction: str, calls: Any, fingerprint: str | None, **fields: Any) -> Task:
    """A banking task with these reference calls and expected fingerprint."""
    return Task(
        id=task_id,
        server="banking",
        instruction=instruction,
        reference_calls=tuple(calls),
        expected_fingerprint=fingerprint,
        **fields,
    )


def replayed_bank_task(task_id: str, instruction: str, calls: Any) -> Task:
    """A banking task whose expected fingerprint is the state ``calls`` give on a fresh environment."""
    import gymnasium as gym

    env = gym.make("gym_mcp/Banking-v0")
    try:
        env.reset(seed=0)
        for call in calls:
            obs, *_ = env.step(call)
            assert not str(obs).startswith("Error"), obs
        fingerprint = env.unwrapped.state.fingerprint()  # type: ignore[attr-defined]
    finally:
        env.close()
    return bank_task(task_id, instruction, calls, fingerprint)


def http_flags(port: int | str, db: str) -> list[str]:
    """The flags that serve a bundled server over HTTP on ``port`` with database URL ``db``."""
    return ["--transport", "http", "--port", str(port), "--db", db]


BANK_HTTP = [sys.executable, "-m", "gym_mcp.servers.banking"]
"""The bundled banking server as a process (add `http_flags`)."""

T = TypeVar("T")


def in_one_pool(one: Callable[[int, ServerPool], Awaitable[T]], n: int = 8) -> list[T]:
    """Run ``one(i, pool)`` for ``i < n`` concurrently in one event loop over one server pool."""

    async def main() -> list[T]:
        pool = ServerPool()
        try:
            return list(await asyncio.gather(*(one(i, pool) for i in range(n))))
        finally:
            await pool.close()

    return asyncio.run(main())


def send_json(handler: Any, payload: bytes, status: int = 200) -> None:
    """Answer a `BaseHTTPRequestHandler` request with ``payload`` as JSON (loopback test endpoints)."""
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(payload)))
    handler.end_headers()
    handler.wfile.write(payload)


@contextlib.contextmanager
def served_model(folder: Any, timeout: float = 120) -> Iterator[str]:
    """Run ``gym-mcp serve-model`` on a local model folder; yields its ``/v1`` URL once it answers."""
    import httpx

    from gym_mcp import free_port

    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "gym_mcp.cli", "serve-model", "--model", str(folder), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                httpx.get(url + "/models", timeout=2).raise_for_status()
                break
            except httpx.HTTPError:
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                assert time.monotonic() < deadline
                time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)


class CraftedChat(BaseHTTPRequestHandler):
    """Plays an outside LLM on loopback: answers each request with the next crafted body of ``replies``.

    The `chat_endpoint` fixture (tests/conftest.py) serves a fresh subclass and yields its URL.
    """

    replies: list[bytes] = []
    requests: list[dict[str, Any]] = []

    def do_POST(self) -> None:
        self.requests.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        send_json(self, self.replies.pop(0) if self.replies else chat_body("Okay."))

    def log_message(self, *args: object) -> None:
        pass


def chat_body(text: str | None) -> bytes:
    """An OpenAI chat completion whose message says ``text``."""
    return json.dumps({"choices": [{"message": {"role": "assistant", "content": text}}]}).encode()


@contextlib.contextmanager
def serve_handler(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve ``handler`` on 127.0.0.1 in a thread; yields the ``/v1`` base URL."""
    server = HTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
