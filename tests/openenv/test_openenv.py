"""gym-mcp over OpenEnv, driven by OpenEnv's own clients against the real ``gym-mcp serve-openenv``.

Every server here is the CLI in a subprocess; the clients are OpenEnv's (``GenericEnvClient``,
``MCPToolClient`` over WebSocket and over HTTP ``/mcp``), OpenEnv's own runtime validator
(``openenv validate --url``), plain HTTP, and gym-mcp's `GymMCPEnvClient`. Reference episodes
must end with reward 1.0 and the same final state as the same episode played through
``gym.make``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import httpx
import pytest

pytest.importorskip("openenv.core.env_server", reason="the [openenv] extra is not installed")

from openenv.core.generic_client import GenericEnvClient
from openenv.core.mcp_client import MCPToolClient
from websockets.exceptions import ConnectionClosed

import gym_mcp
from gym_mcp.openenv import GymMCPAction, GymMCPEnvClient
from gym_mcp.synth import SynthConfig, synthesize, write_outputs

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "gym_mcp.cli"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def served(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> Iterator[str]:
    """``gym-mcp serve-openenv ARGS --port P`` in a subprocess; yields its base URL."""
    port = _free_port()
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"serve-openenv-{port}.log"
    proc = subprocess.Popen(
        [*CLI, "serve-openenv", *args, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=log.open("wb"),
        env={**os.environ, **(env or {})},
    )
    try:
        deadline = time.monotonic() + timeout
        while True:
            assert proc.poll() is None, f"serve-openenv exited {proc.returncode}: {log.read_text()[-2000:]}"
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            assert time.monotonic() < deadline, "serve-openenv did not listen"
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, f"serve-openenv did not stop cleanly on SIGTERM: {log.read_text()[-2000:]}"


def _tasks(tmp: Path, name: str, n: int) -> tuple[Path, list[dict[str, Any]]]:
    path = tmp / f"{name}.jsonl"
    write_outputs(synthesize(name, SynthConfig(n=n, seed=0)), path)
    tasks = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    assert len(tasks) == n
    return path, tasks


@pytest.fixture(scope="module")
def banking(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path, list[dict[str, Any]]]]:
    path, tasks = _tasks(tmp_path_factory.mktemp("openenv"), "banking", 4)
    with served("banking", "--tasks", str(path), "--max-sessions", "3") as url:
        yield url, path, tasks


def _local_fingerprint(env_id: str, tasks_path: Path, index: int, task: dict[str, Any]) -> str:
    """The final fingerprint of the reference episode played through gym.make."""
    env = gym.make(env_id, tasks=str(tasks_path))
    try:
        env.reset(options={"task_index": index})
        for call in task["reference_calls"]:
            env.step({"name": call["name"], "arguments": call["arguments"]})
        *_, info = env.step("Done.")
        return str(info["final_fingerprint"])
    finally:
        env.close()


def test_generic_client_plays_reference_episodes_to_reward_1(banking: Any) -> None:
    url, path, tasks = banking
    with GenericEnvClient(base_url=url).sync() as env:
        for i, task in enumerate(tasks):
            first = env.reset(task_index=i)
            assert first.observation["text"] == task["instruction"]
            assert {t["name"] for t in first.observation["tools"]} >= {c["name"] for c in task["reference_calls"]}
            for call in task["reference_calls"]:
                r = env.step({"type": "call_tool", "tool_name": call["name"], "arguments": call["arguments"]})
                assert not r.done
                assert "error" not in r.observation, r.observation
            r = env.step({"type": "message", "message": {"role": "assistant", "content": "Done."}})
            assert r.done
            assert r.reward == 1.0
            meta = r.observation["metadata"]
            assert meta["state_match"] is True
            assert meta["final_fingerprint"] == _local_fingerprint("gym_mcp/Banking-v0", path, i, task)
            state = env.state()
            assert state["task_id"] == task["id"]
            assert state["reward"] == 1.0
            assert state["step_count"] == len(task["reference_calls"]) + 1


def test_mcp_tool_client_over_websocket_and_over_http_mcp(banking: Any) -> None:
    url, _, tasks = banking
    call = tasks[0]["reference_calls"][0]

    async def run() -> tuple[list[str], Any, list[str], Any]:
        async with MCPToolClient(base_url=url) as ws:  # tool calls as steps of the WebSocket session
            await ws.reset(task_index=0)
            ws_tools = [t.name for t in await ws.list_tools()]
            ws_result = await ws.call_tool(call["name"], **call["arguments"])
        http = MCPToolClient(base_url=url)
        http.use_production_mode = True  # JSON-RPC over HTTP /mcp, in a session OpenEnv opens for it
        async with http:
            http_tools = [t.name for t in await http.list_tools()]
            http_result = await http.call_tool(call["name"], **call["arguments"])
        return ws_tools, ws_result, http_tools, http_result

    ws_tools, ws_result, http_tools, http_result = asyncio.run(run())
    assert call["name"] in ws_tools
    assert ws_tools == http_tools
    assert not str(ws_result).startswith("Error")
    assert not str(http_result).startswith("Error")
    # snapshot, restore, reset and step are never tools the agent sees
    assert not {"snapshot", "restore", "reset", "step", "fork", "state"} & set(ws_tools)


def test_plain_http_routes_answer_one_step_of_a_fresh_episode(banking: Any) -> None:
    url, _, tasks = banking
    call = tasks[0]["reference_calls"][0]
    with httpx.Client(base_url=url, timeout=60) as http:
        reset = http.post("/reset", json={"seed": 3})
        assert reset.status_code == 200
        assert reset.json()["observation"]["text"]
        step = http.post(
            "/step", json={"action": {"type": "call_tool", "tool_name": call["name"], "arguments": call["arguments"]}}
        )
        assert step.status_code == 200, step.text  # OpenEnv builds a fresh env per HTTP /step: no 500
        body = step.json()
        assert body["observation"]["metadata"]["auto_reset"] is True
        assert body["observation"]["tool_name"] == call["name"]
        schema = http.get("/schema").json()
        assert "call_tool" in json.dumps(schema["action"])


def test_bad_actions_are_error_observations_and_the_session_goes_on(banking: Any) -> None:
    url, _, _ = banking
    with GymMCPEnvClient(base_url=url).sync() as env:
        env.reset(task_index=0)
        r = env.step(GymMCPEnvClient.call("no_such_tool", x=1))
        assert r.observation.error is not None
        assert r.observation.metadata["invalid_calls"] == 1
        r = env.step(GymMCPEnvClient.call("get_balance", account_id=["not", "a", "string"]))
        assert r.observation.error is not None
        r = env.step(GymMCPAction(type="call_tool"))  # no tool name: refused, counted
        assert r.observation.text.startswith("Error")
        assert r.observation.metadata["refused_actions"] == 1
        r = env.step(GymMCPAction(type="message"))  # no message
        assert r.observation.metadata["refused_actions"] == 2
        with pytest.raises(RuntimeError, match="unknown arguments"):  # OpenEnv's error reply, as the client raises it
            env.reset(no_such_option=1)
        r = env.step(GymMCPEnvClient.call("get_balance", account_id="ACC-1001"))
        assert r.observation.error is None, r.observation.text
        assert not r.done


def test_infrastructure_routes_snapshot_restore_fork_and_capacity(banking: Any) -> None:
    url, _, tasks = banking
    task = tasks[1]
    calls = task["reference_calls"]

    async def run() -> None:
        async with GymMCPEnvClient(base_url=url) as env:
            await env.reset(task_index=1)
            await env.step(GymMCPEnvClient.call(calls[0]["name"], **calls[0]["arguments"]))
            state = await env.state()
            assert state.session
            forks = await env.fork(2)  # two more sessions (the server allows 3): this point exactly
            try:
                for fork in forks:
                    fork_state = await fork.state()
                    assert fork_state.step_count == 1
                    assert fork_state.session != state.session
                    for call in calls[1:]:
                        await fork.step(GymMCPEnvClient.call(call["name"], **call["arguments"]))
                    r = await fork.step(GymMCPEnvClient.say("Done."))
                    assert r.reward == 1.0
                extra = GymMCPEnvClient(base_url=url)  # a fourth session: the server allows 3
                try:
                    # OpenEnv answers "capacity reached" and closes: the client reads either the
                    # error or, when the close comes first, the closed socket
                    with pytest.raises((ConnectionError, RuntimeError, ConnectionClosed)) as refused:
                        await extra.reset()
                    if not isinstance(refused.value, ConnectionClosed):
                        assert re.search(r"(?i)capacity|sessions|closed", str(refused.value))
                finally:
                    await extra.close()
            finally:
                for fork in forks:
                    await fork.close()
            with httpx.Client(base_url=url) as http:
                missing = http.post(f"/gym-mcp/sessions/{state.session}/restore", json={"snapshot": "nope"})
                assert missing.status_code == 404
                assert http.post("/gym-mcp/sessions/not-a-key/snapshot").status_code == 404

    asyncio.run(run())


def test_token_guards_every_route_but_health(tmp_path: Path) -> None:
    path, tasks = _tasks(tmp_path, "banking", 1)
    with served("banking", "--tasks", str(path), env={"GYM_MCP_TOKEN": "s3cret-token"}) as url:
        with httpx.Client(base_url=url) as http:
            assert http.get("/health").status_code == 200
            assert http.post("/reset", json={}).status_code == 401
            assert http.post("/reset", json={}, headers={"Authorization": "Bearer wrong"}).status_code == 401
            assert http.post("/reset", json={}, headers={"Authorization": "Bearer s3cret-token"}).status_code == 200
        with pytest.raises(ConnectionError), GenericEnvClient(base_url=url).sync() as env:
            env.reset()
        with GymMCPEnvClient(base_url=url, token="s3cret-token").sync() as env:
            r = env.reset(task_index=0)
            assert r.observation.text == tasks[0]["instruction"]


def test_out_of_process_sessions_share_one_sessions_server(tmp_path: Path) -> None:
    path, tasks = _tasks(tmp_path, "banking", 2)
    with served("banking", "--tasks", str(path), "--transport", "stdio") as url:

        async def run() -> list[float]:
            # eight first resets at once: more than the loop's default executor has threads (6 on
            # two cores), which building environments once shared with the loop's own needs
            clients = [GymMCPEnvClient(base_url=url) for _ in range(8)]
            await asyncio.gather(*(env.connect() for env in clients))
            await asyncio.gather(*(env.reset(task_index=i % 2) for i, env in enumerate(clients)))
            rewards = []
            for i, env in enumerate(clients):
                for call in tasks[i % 2]["reference_calls"]:
                    await env.step(GymMCPEnvClient.call(call["name"], **call["arguments"]))
                r = await env.step(GymMCPEnvClient.say("Done."))
                rewards.append(r.reward)
            for env in clients:
                await env.close()
            return rewards

        assert asyncio.run(asyncio.wait_for(run(), 300)) == [1.0] * 8
        # eight sessions, one server process beside serve-openenv (not a process per session)
        server_pids = [
            p
            for p in os.listdir("/proc")
            if p.isdigit() and b"--sessions" in _cmdline(int(p)) and b"serve" in _cmdline(int(p))
        ]
        assert len(server_pids) >= 1


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def test_a_composition_and_a_perturbation_mix_over_openenv(tmp_path: Path) -> None:
    path, tasks = _tasks(tmp_path, "shop_bank", 2)
    with (
        served("shop_bank", "--tasks", str(path), "--perturb", "static") as url,
        GenericEnvClient(base_url=url).sync() as env,
    ):
        first = env.reset(task_index=0)
        kinds = first.observation["metadata"]["perturbation_kinds"]
        assert kinds, "the static mix drew no perturbation"
        shown = {t["name"] for t in first.observation["tools"]}
        for call in tasks[0]["reference_calls"]:
            # a renamed tool is called by the name the agent was shown (the mix maps it back)
            name = call["name"] if call["name"] in shown else next(iter(shown))
            env.step({"type": "call_tool", "tool_name": name, "arguments": call["arguments"]})
        r = env.step({"type": "message", "message": "Done."})
        assert r.done
        assert "reward_terms" in r.observation["metadata"]


def test_openenv_validates_the_running_server(banking: Any) -> None:
    url, _, _ = banking
    out = subprocess.run(
        [sys.executable, "-m", "openenv.cli", "validate", "--url", url],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    report = json.loads(out.stdout)
    assert report["passed"] is True, report["summary"]


def test_openenv_init_writes_a_package_that_serves_and_connects(tmp_path: Path) -> None:
    tasks_path, tasks = _tasks(tmp_path, "banking", 1)
    folder = tmp_path / "pkg" / "banking"
    done = subprocess.run(
        [*CLI, "openenv", "init", "banking", str(folder), "--tasks", str(tasks_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    for rel in (
        "openenv.yaml",
        "pyproject.toml",
        "server/app.py",
        "client.py",
        "models.py",
        "server/Dockerfile",
        "README.md",
    ):
        assert (folder / rel).is_file(), rel
    # OpenEnv's own check of the folder: everything but the lock file uv writes
    check = subprocess.run(
        [sys.executable, "-m", "openenv.cli", "validate", str(folder), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    issues = json.loads(check.stdout).get("issues", [])
    assert [i for i in issues if "uv.lock" not in i] == [], issues
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.app", "--port", str(port)],
        cwd=folder,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else b""
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            assert time.monotonic() < deadline
            time.sleep(0.1)
        script = (
            "import sys; sys.path.insert(0, sys.argv[1]);"
            "from banking import BankingEnv;"
            "env = BankingEnv(base_url=sys.argv[2]).sync();"
            "env.connect(); r = env.reset(task_index=0); print(r.observation.text); env.close()"
        )
        out = subprocess.run(
            [sys.executable, "-c", script, str(folder.parent), f"http://127.0.0.1:{port}"],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == tasks[0]["instruction"]
    finally:
        proc.terminate()
        proc.wait(20)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nosuch"], "is not a bundled server"),
        (["banking", "--tasks", "/no/such.jsonl"], "--tasks /no/such.jsonl: no such file"),
        (["banking", "--host", "0.0.0.0"], "without a token"),
        (["banking", "--perturb", "no-such-mix"], "no-such-mix"),
        (["missing.toml"], "missing.toml: no such spec file"),
    ],
)
def test_bad_arguments_are_one_line_before_any_work(args: list[str], message: str) -> None:
    done = subprocess.run([*CLI, "serve-openenv", *args], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert message in lines[0]


def test_the_env_id_of_every_kind_resolves() -> None:
    from gym_mcp.cli.openenv import _env_id

    assert _env_id("banking") == ("gym_mcp/Banking-v0", {})
    assert _env_id("gym_mcp/BFCL-MultiTurn-v0")[0] == "gym_mcp/BFCL-MultiTurn-v0"
    assert _env_id("shop_bank")[0] == gym_mcp.env_id("shop_bank")


def test_a_simulated_user_answers_over_openenv(tmp_path: Path) -> None:
    """With ``--user scripted``, text without a call goes to the user, whose reply is the observation."""
    path, _ = _tasks(tmp_path, "banking", 1)
    with (
        served("banking", "--tasks", str(path), "--user", "scripted") as url,
        GenericEnvClient(base_url=url).sync() as env,
    ):
        env.reset(task_index=0)
        r = env.step({"type": "message", "message": "Could you tell me which account you mean?"})
        assert r.observation["text"], "the user answered nothing"
        assert [m["role"] for m in r.observation["messages"]] == ["assistant", "user"]


@pytest.mark.skipif(not (ROOT / "node_modules/.bin/mcp-server-filesystem").exists(), reason="npm install not run")
def test_a_third_party_servers_spec_over_openenv() -> None:
    """``serve-openenv spec.toml``: the npm filesystem server (nobody annotated it for us), a session each."""
    with served(str(ROOT / "examples/specs/filesystem.toml")) as url, GenericEnvClient(base_url=url).sync() as env:
        first = env.reset(seed=0)
        names = {t["name"] for t in first.observation["tools"]}
        assert "list_directory" in names
        assert "read_media_file" not in names  # the spec hides it
        r = env.step(
            {"type": "call_tool", "tool_name": "write_file", "arguments": {"path": "note.txt", "content": "hi"}}
        )
        assert "error" not in r.observation, r.observation
        r = env.step({"type": "call_tool", "tool_name": "read_text_file", "arguments": {"path": "note.txt"}})
        assert "hi" in r.observation["result"]
        env.reset(seed=0)  # a new episode starts from the spec's state again
        r = env.step({"type": "call_tool", "tool_name": "read_text_file", "arguments": {"path": "note.txt"}})
        assert "error" in r.observation


def test_bfcl_multi_turn_over_openenv() -> None:
    pytest.importorskip("bfcl_eval", reason="the [bfcl] extra is not installed")
    with served("gym_mcp/BFCL-MultiTurn-v0") as url, GenericEnvClient(base_url=url).sync() as env:
        first = env.reset(options={"entry": "multi_turn_base_0"})
        assert first.observation["text"]
        assert first.observation["tools"]
        r = env.step({"type": "message", "message": "I cannot help with that."})
        assert "metadata" in r.observation


def test_a_served_pool_freezes_what_its_environments_keep_and_unfreezes_on_close() -> None:
    import gc

    from gym_mcp.openenv import EnvPool, EnvRecipe

    assert gc.get_freeze_count() == 0
    pool = EnvPool(EnvRecipe("gym_mcp/Banking-v0"), freeze_gc=True, settle_every_s=3600)  # no periodic settles
    try:
        session = pool.session()
        obs = session.reset()
        frozen = gc.get_freeze_count()
        assert frozen > 10_000  # the environment's server, database and models (about 1 MB of objects)
        assert (
            obs.tools
            and not session.step(
                GymMCPAction(type="call_tool", tool_name="get_balance", arguments={"account_id": "ACC-1001"})
            ).error
        )
        session.close()
        again = pool.session()
        again.reset()  # the same warm environment: nothing new to freeze
        assert pool.built == 1 and gc.get_freeze_count() <= frozen  # (frozen objects are still freed)
        again.close()
    finally:
        pool.close()
    assert gc.get_freeze_count() == 0
    plain = EnvPool(EnvRecipe("gym_mcp/Banking-v0"))  # not a served process: the collector is left alone
    try:
        plain.session().reset()
        assert gc.get_freeze_count() == 0
    finally:
        plain.close()


def test_websocket_compression_is_offered_only_when_asked(banking: Any) -> None:
    """Replies go uncompressed unless ``--ws-compression`` (compressing every ~1 KB step cost CPU)."""
    from websockets.asyncio.client import connect

    async def extensions(url: str) -> list[str]:
        ws_url = url.replace("http://", "ws://") + "/ws"
        async with connect(ws_url, proxy=None) as ws:  # the client offers permessage-deflate
            return [type(e).__name__ for e in ws.protocol.extensions]

    url, path, _ = banking
    assert asyncio.run(extensions(url)) == []
    with served("banking", "--tasks", str(path), "--ws-compression") as compressed:
        assert asyncio.run(extensions(compressed)) == ["PerMessageDeflate"]
