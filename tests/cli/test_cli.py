"""The gym-mcp command line, run as a real subprocess."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from gym_mcp import free_port
from tests.helpers import http_flags

CLI = [sys.executable, "-m", "gym_mcp.cli"]


def run_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout, check=False)


def test_servers_list() -> None:
    out = run_cli("servers", "list")
    assert out.returncode == 0, out.stderr
    from gym_mcp import env_id
    from gym_mcp.servers import BUNDLED, get_kit

    lines = out.stdout.splitlines()
    rows = {line.split()[0]: line.split() for line in lines[1:-1]}
    assert set(rows) == set(BUNDLED) >= {"banking", "calendar", "shopping"}
    for name, row in rows.items():
        assert int(row[1]) == len(get_kit(name).tools) >= 10, name
        assert int(row[3]) >= 200, name  # seeded entities
        assert row[4] == env_id(name)
    total = lines[-1].split()
    assert total[:2] == [str(len(BUNDLED)), "servers"]
    assert int(total[2]) == sum(int(r[1]) for r in rows.values())


@pytest.mark.parametrize(
    ("args", "expect"),
    [
        (["serve", "nope"], "invalid choice: 'nope'"),
        (["serve", "banking", "--port", "abc"], "not an integer: 'abc'"),
        (["serve", "banking", "--port", "70000"], "port must be 1-65535"),
        (["serve", "banking", "--transport", "smoke"], "invalid choice: 'smoke'"),
        (["demo", "--episodes", "0"], "must be at least 1"),
        (["bogus"], "invalid choice: 'bogus'"),
    ],
)
def test_bad_arguments_get_one_line(args: list[str], expect: str) -> None:
    out = run_cli(*args)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("gym-mcp")
    assert expect in lines[0]


def test_serve_http_on_loopback_for_any_client(tmp_path: Path) -> None:
    port = free_port()
    db = tmp_path / "bank.db"
    proc = subprocess.Popen(
        [*CLI, "serve", "banking", *http_flags(port, f"sqlite:///{db}"), "--seed", "3"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:

        async def talk() -> tuple[list[str], dict]:
            deadline = time.monotonic() + 30
            while True:
                try:
                    async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                        tools = [t.name for t in (await client.list_tools()).tools]
                        result = await client.call_tool("get_account", {"account_id": "ACC-1001"})
                        return tools, json.loads(result.content[0].text)  # type: ignore[union-attr]
                except Exception:
                    if time.monotonic() > deadline or proc.poll() is not None:
                        raise
                    await asyncio.sleep(0.2)

        tools, account = asyncio.run(talk())
        assert "transfer_funds" in tools
        assert account["account_id"] == "ACC-1001"
        assert db.exists()
        # bound to loopback only: the listening socket's address is 127.0.0.1
        listening = Path("/proc/net/tcp").read_text()
        assert f"0100007F:{port:04X}" in listening
        assert f"00000000:{port:04X}" not in listening
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_serve_stdio_for_any_client(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "gym_mcp.cli", "serve", "calendar", "--db", f"sqlite:///{tmp_path / 'cal.db'}"],
        env={**os.environ},
    )

    async def talk() -> list[str]:
        async with Client(stdio_client(params)) as client:
            return [t.name for t in (await client.list_tools()).tools]

    assert "create_event" in asyncio.run(talk())


def test_demo_main_job_runs() -> None:
    out = run_cli("demo", "--server", "banking", "--transport", "stdio", "--episodes", "3")
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("-> reward 1.0") == 2
    assert out.stdout.count("-> reward 0.0") == 1
    assert "mean reward 0.67" in out.stdout
