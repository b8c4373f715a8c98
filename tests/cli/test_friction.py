"""What a new user meets first, run as real subprocesses: a busy port, the default database, progress, -0.0."""

from __future__ import annotations

import asyncio
import json
import math
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from gym_mcp import free_port
from gym_mcp.servers.kit import DB_URL_ENV, TOKEN_ENV

CLI = [sys.executable, "-m", "gym_mcp.cli"]


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without a database URL or token of the caller's, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in (DB_URL_ENV, TOKEN_ENV)}
    return {**env, **extra}


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A loopback port another socket is listening on."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield int(holder.getsockname()[1])


# -- 1. a port already in use ----------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        [*CLI, "serve", "banking", "--transport", "http"],
        [*CLI, "serve", "filesystem", "--transport", "http"],
        [*CLI, "serve", "banking", "--transport", "http", "--sessions", "--token", "sessions-token"],
        [*CLI, "serve-bfcl", "multi_turn_base_0", "--transport", "http"],
        [*CLI, "serve-model", "--model", "no-such-model-folder"],
        [sys.executable, "-m", "gym_mcp.servers.banking", "--transport", "http"],
        [sys.executable, "-m", "gym_mcp.servers.filesystem", "--root", "ws", "--transport", "http"],
    ],
    ids=[
        "serve",
        "serve-filesystem",
        "serve-sessions",
        "serve-bfcl",
        "serve-model",
        "banking-module",
        "filesystem-module",
    ],
)
def test_a_port_in_use_fails_with_one_line_before_any_serving_line(
    command: list[str], busy_port: int, tmp_path: Path
) -> None:
    out = subprocess.run(
        [*command, "--port", str(busy_port)],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode != 0
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert f"port {busy_port} on 127.0.0.1 is already in use" in lines[0]
    assert "serving" not in out.stderr + out.stdout
    assert not list(tmp_path.iterdir())  # nothing made: no database, no workspace


# -- 2. the default database -----------------------------------------------------------------


def test_stdio_serve_without_db_keeps_a_fresh_database_out_of_the_cwd(tmp_path: Path) -> None:
    errlog = tmp_path.parent / f"{tmp_path.name}.stderr"
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "gym_mcp.cli", "serve", "banking"], env=clean_env(), cwd=str(tmp_path)
    )

    async def talk() -> tuple[dict[str, object], bool]:
        with errlog.open("w") as err:
            async with Client(stdio_client(params, errlog=err)) as client:
                result = await client.call_tool("get_account", {"account_id": "ACC-1001"})
                path = _database_path(errlog.read_text())
                return json.loads(result.content[0].text), path.is_file()  # type: ignore[union-attr]

    account, existed = asyncio.run(talk())
    assert account["account_id"] == "ACC-1001"
    assert existed  # the database named on stderr is the one served
    lines = errlog.read_text().strip().splitlines()
    assert len(lines) == 1, lines
    assert "fresh from seed 0" in lines[0] and "--db" in lines[0]
    assert not list(tmp_path.iterdir())  # no banking.db (nor anything else) in the cwd
    deadline = time.monotonic() + 10
    while _database_path(lines[0]).parent.exists():  # removed when the server exits
        assert time.monotonic() < deadline, lines[0]
        time.sleep(0.1)


def test_http_serve_without_db_names_its_database_and_removes_it_on_exit(tmp_path: Path) -> None:
    port = free_port()
    err = tmp_path.parent / f"{tmp_path.name}.stderr"
    with err.open("w") as stderr:
        proc = subprocess.Popen(
            [*CLI, "serve", "banking", "--transport", "http", "--port", str(port), "--seed", "2"],
            cwd=tmp_path,
            env=clean_env(),
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        deadline = time.monotonic() + 60
        while "serving" not in err.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, err.read_text()
            time.sleep(0.1)
        line = err.read_text().strip()
        assert "\n" not in line
        assert f"serving MCP at {url}" in line and "fresh from seed 2" in line
        database = _database_path(line)
        assert database.is_file()
        httpx.get(url, timeout=5)  # the port answers once the line is out

        async def call() -> dict[str, object]:
            async with Client(url) as client:
                result = await client.call_tool("get_account", {"account_id": "ACC-1001"})
                return json.loads(result.content[0].text)  # type: ignore[union-attr]

        assert asyncio.run(call())["account_id"] == "ACC-1001"
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    assert not list(tmp_path.iterdir())
    assert not database.parent.exists()  # removed on SIGTERM too


def test_stdio_serve_filesystem_without_root_keeps_the_workspace_out_of_the_cwd(tmp_path: Path) -> None:
    errlog = tmp_path.parent / f"{tmp_path.name}.stderr"
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "gym_mcp.cli", "serve", "filesystem"], env=clean_env(), cwd=str(tmp_path)
    )

    async def talk() -> int:
        with errlog.open("w") as err:
            async with Client(stdio_client(params, errlog=err)) as client:
                return len((await client.list_tools()).tools)

    assert asyncio.run(talk()) > 10
    line = errlog.read_text().strip()
    assert line.startswith("filesystem: workspace ") and "--root" in line, line
    assert not list(tmp_path.iterdir())


def _database_path(stderr: str) -> Path:
    """The database file a server's stderr line names (``database PATH (...)`` or ``db PATH, ...``)."""
    match = re.search(r"\b(?:database|db) (/\S+\.db)\b", stderr)
    assert match, stderr
    return Path(match.group(1))


# -- 3 and 5: progress in a log, and no negative zero ----------------------------------------

NEGATIVE_ZERO = re.compile(rb"-0\.0+(?![0-9])")


def test_the_efficiency_term_within_the_budget_is_positive_zero() -> None:
    import gymnasium as gym

    from tests.helpers import verified_deposit_task

    task = verified_deposit_task()
    env = gym.make("gym_mcp/Banking-v0", tasks=[task])
    try:
        env.reset(options={"task_id": task.id})
        for call in task.reference_calls:
            env.step(dict(call))
        _, _, terminated, _, info = env.step("Done.")
    finally:
        env.close()
    assert terminated and info["reward_terms"]["success"] == 1.0
    efficiency = info["reward_terms"]["efficiency"]
    assert efficiency == 0.0 and math.copysign(1.0, efficiency) == 1.0  # was -0.0: -a * 0 / B


def run_logged(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    """Run the CLI with stdout and stderr to pipes (not a terminal), as bytes: text mode would turn \\r into \\n."""
    return subprocess.run([*CLI, *args], cwd=cwd, env=env, capture_output=True, timeout=300, check=False)


def test_synth_and_eval_in_a_log_print_plain_progress_lines_and_no_negative_zero(tmp_path: Path) -> None:
    env = clean_env(GYM_MCP_HOME=str(tmp_path / "home"))
    tasks = tmp_path / "banking.jsonl"
    synth = run_logged("synth", "banking", "-n", "12", "--seed", "1", "-o", str(tasks), cwd=tmp_path, env=env)
    assert synth.returncode == 0, synth.stderr.decode()
    assert b"\r" not in synth.stdout + synth.stderr
    lines = re.findall(rb"^synthesizing: (\d+)/12 tasks \([^)]*\)$", synth.stderr, re.MULTILINE)
    assert lines and lines[-1] == b"12", synth.stderr.decode()
    # the report's tool errors are printed too (item 4; tests/synth/test_report_causes.py checks the counts)
    report = tasks.with_suffix(".report.txt").read_text()
    assert "rejected for tool errors:" in report
    assert b"rejected for tool errors:" in synth.stdout

    out = tmp_path / "out"
    ran = run_logged(
        "eval", "--env", "gym_mcp/Banking-v0", "--tasks", str(tasks), "--policy", "reference", "-o", str(out),
        cwd=tmp_path,
        env=env,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr.decode()
    assert b"\r" not in ran.stdout + ran.stderr
    lines = re.findall(rb"^evaluating: (\d+)/12 episodes \([^)]*\)$", ran.stderr, re.MULTILINE)
    assert lines and lines[-1] == b"12", ran.stderr.decode()

    # the reference agent stays within every budget: its efficiency term is +0.0, and nothing prints -0.0
    episodes = json.loads((out / "results.json").read_text())["episodes"]
    within = [e for e in episodes if e["success"] and e["num_calls"] <= e["budget"]]
    assert within
    for episode in within:
        assert episode["terms"]["efficiency"] == 0.0
        assert math.copysign(1.0, episode["terms"]["efficiency"]) == 1.0, episode["task_id"]
    for printed in (ran.stdout, ran.stderr, (out / "results.md").read_bytes(), (out / "results.json").read_bytes()):
        assert not NEGATIVE_ZERO.search(printed)
    assert b"efficiency 0.0" in (out / "results.md").read_bytes()
