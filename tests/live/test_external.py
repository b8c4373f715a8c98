"""Third-party MCP servers as environments: the npm filesystem server and the PyPI git server."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import gymnasium as gym
import jsonschema
import pytest

import gym_mcp
from gym_mcp import AsyncMCPEnv, ComposedSource, DirectoryState, EnvConfig, ServerPool, Task, load_spec, save_tasks
from gym_mcp.errors import ConfigError, ServerStartError
from gym_mcp.live import spec_source
from gym_mcp.specs import spec_json_schema, spec_schema_text
from tests.conftest import ROOT, git_server_command
from tests.helpers import BANK_HTTP, child_pids, http_flags, in_one_pool

FS_BIN = ROOT / "node_modules" / ".bin" / "mcp-server-filesystem"
GIT_DATES = {"GIT_AUTHOR_DATE": "2026-01-02T00:00:00", "GIT_COMMITTER_DATE": "2026-01-02T00:00:00"}
GIT_ENV = {
    **GIT_DATES,
    "GIT_AUTHOR_NAME": "Agent",
    "GIT_AUTHOR_EMAIL": "agent@example.com",
    "GIT_COMMITTER_NAME": "Agent",
    "GIT_COMMITTER_EMAIL": "agent@example.com",
}


def _need_fs_server() -> Path:
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed, so the npm filesystem MCP server cannot be installed")
    if not FS_BIN.exists():
        pytest.fail("npm is installed but @modelcontextprotocol/server-filesystem is not: run `npm install` (README)")
    return FS_BIN


@pytest.fixture
def fs_spec(tmp_path: Path) -> Path:
    _need_fs_server()
    template = tmp_path / "workspace"
    (template / "docs").mkdir(parents=True)
    (template / "docs" / "readme.md").write_text("# Project\n\nStatus: draft\n")
    (template / "todo.txt").write_text("- write tests\n")
    spec = tmp_path / "filesystem.toml"
    spec.write_text(
        f"""
name = "npm-filesystem"
command = ["{FS_BIN}", "{{state}}"]
cwd = "{{state}}"

[state]
kind = "directory"
path = "workspace"
"""
    )
    return spec


@pytest.fixture
def git_spec(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {
        **os.environ,
        **GIT_ENV,
        "GIT_AUTHOR_DATE": "2026-01-01T00:00:00",
        "GIT_COMMITTER_DATE": "2026-01-01T00:00:00",
    }

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    (repo / "app.py").write_text("print('hello')\n")
    git("add", "app.py")
    git("commit", "-q", "-m", "initial commit")
    (repo / "notes.md").write_text("release notes\n")  # untracked: something for the agent to commit
    spec = tmp_path / "git.json"
    spec.write_text(
        json.dumps(
            {
                "name": "git",
                "command": [*git_server_command(), "--repository", "{state}"],
                "cwd": "{state}",
                "env": GIT_ENV,
                # the index holds file timestamps; the reflogs, the wall-clock time of each commit
                "state": {"kind": "directory", "path": "repo", "ignore": [".git/index", ".git/logs/*"]},
            }
        )
    )
    return spec


FS_WRITES = [
    {"name": "write_file", "arguments": {"path": "notes.txt", "content": "meeting at 10\n"}},
    {"name": "create_directory", "arguments": {"path": "archive"}},
    {"name": "move_file", "arguments": {"source": "todo.txt", "destination": "archive/todo.txt"}},
]
GIT_WRITES = [
    {"name": "git_add", "arguments": {"repo_path": ".", "files": ["notes.md"]}},
    {"name": "git_commit", "arguments": {"repo_path": ".", "message": "Add release notes"}},
    {"name": "git_create_branch", "arguments": {"repo_path": ".", "branch_name": "feature"}},
]


@pytest.mark.parametrize(("spec_fixture", "writes"), [("fs_spec", FS_WRITES), ("git_spec", GIT_WRITES)])
def test_writes_are_undone_exactly_by_reset(
    spec_fixture: str, writes: list[dict], request: pytest.FixtureRequest
) -> None:
    spec = request.getfixturevalue(spec_fixture)
    env = gym.make("gym_mcp/External-v0", spec=str(spec))
    try:
        env.reset(seed=0)
        state = env.unwrapped.state
        fp0 = state.fingerprint()
        start = state.snapshot()
        for call in writes:
            obs, *_ = env.step(call)
            assert not obs.startswith("Error"), obs
        assert state.fingerprint() != fp0
        assert state.diff(start, state.snapshot())
        for _ in range(3):
            env.reset(seed=0)
            assert state.fingerprint() == fp0
            assert not state.diff(start, state.snapshot())
    finally:
        env.close()


@pytest.mark.parametrize("spec_fixture", ["fs_spec", "git_spec"])
def test_eight_parallel_envs_stay_isolated(spec_fixture: str, request: pytest.FixtureRequest) -> None:
    spec = load_spec(request.getfixturevalue(spec_fixture))
    is_git = spec.name == "git"

    async def one(i: int, pool: ServerPool) -> tuple[int, object, int | None, Path]:
        env = AsyncMCPEnv(spec_source(spec), config=EnvConfig(), pool=pool)
        await env.reset(seed=0)
        start = env.state.snapshot()
        live = env.live
        assert live is not None
        if is_git:
            await env.step({"name": "git_create_branch", "arguments": {"repo_path": ".", "branch_name": f"env-{i}"}})
        else:
            await env.step({"name": "write_file", "arguments": {"path": f"env-{i}.txt", "content": f"mine: {i}\n"}})
        diff = env.state.diff(start, env.state.snapshot())
        pid, location = live.connection.pid, env.state.location
        await env.close()
        return i, diff, pid, location

    results = in_one_pool(one)
    assert len({pid for _, _, pid, _ in results}) == 8  # a server process each
    assert len({loc for _, _, _, loc in results}) == 8  # a state copy each
    for i, diff, _, _ in results:
        files = diff["files"]  # type: ignore[index]
        if is_git:
            assert f".git/refs/heads/env-{i}" in files.added
            assert not [p for p in files.added if "env-" in p and p != f".git/refs/heads/env-{i}"]
        else:
            assert files.added == (f"env-{i}.txt",)
            assert files.removed == ()
            assert files.changed == ()


def test_fs_task_file_with_hand_built_expected_state(fs_spec: Path, tmp_path: Path) -> None:
    # The expected final state is built by hand, not by running the server.
    expected = tmp_path / "expected"
    shutil.copytree(tmp_path / "workspace", expected)
    (expected / "notes.txt").write_text("meeting at 10\n")
    os.chmod(expected / "notes.txt", 0o644)
    task = Task(
        id="fs-notes",
        server="filesystem",
        instruction="Create notes.txt saying 'meeting at 10'.",
        reference_calls=(FS_WRITES[0],),
        expected_fingerprint=DirectoryState(expected).fingerprint(),
    )
    tasks = tmp_path / "tasks.jsonl"
    save_tasks([task], tasks)
    env = gym.make("gym_mcp/External-v0", spec=str(fs_spec), tasks=str(tasks))
    try:
        env.reset(seed=0)
        env.step(f"<tool_call>{json.dumps(FS_WRITES[0])}</tool_call>")
        _, reward, terminated, _, info = env.step("Done.")
        assert terminated
        assert reward == 1.0, info
        env.reset(seed=0)
        env.step({"name": "write_file", "arguments": {"path": "notes.txt", "content": "meeting at 11\n"}})
        _, reward, *_ = env.step("Done.")
        assert reward == 0.0
        env.reset(seed=0)
        _, reward, *_ = env.step("I wrote it.")  # did nothing
        assert reward == 0.0
    finally:
        env.close()


def test_git_task_file_scored_by_default_reward(git_spec: Path, tmp_path: Path) -> None:
    commit = [GIT_WRITES[0], GIT_WRITES[1]]
    # expected state: replay the reference calls once on a fresh env (as synthesis verifies tasks)
    replay = gym.make("gym_mcp/External-v0", spec=str(git_spec))
    replay.reset(seed=0)
    for call in commit:
        obs, *_ = replay.step(call)
        assert not obs.startswith("Error"), obs
    expected = replay.unwrapped.state.fingerprint()
    replay.close()
    line = {
        "id": "git-commit-notes",
        "server": "git",
        "instruction": "Commit notes.md with the message 'Add release notes'.",
        "reference_calls": commit,
        "expected_fingerprint": expected,
    }
    tasks = tmp_path / "git_tasks.jsonl"
    tasks.write_text(json.dumps(line) + "\n")
    env = gym.make("gym_mcp/External-v0", spec=str(git_spec), tasks=str(tasks))
    try:
        env.reset(seed=0)
        for call in commit:
            env.step(call)
        _, reward, *_ = env.step("Committed.")
        assert reward == 1.0
        env.reset(seed=0)
        env.step(commit[0])
        env.step({"name": "git_commit", "arguments": {"repo_path": ".", "message": "wrong message"}})
        _, reward, *_ = env.step("Committed.")
        assert reward == 0.0
    finally:
        env.close()


def test_hide_and_rename_tools(fs_spec: Path) -> None:
    env = gym.make(
        "gym_mcp/External-v0", spec=str(fs_spec), hide_tools=["move_file"], rename_tools={"read_text_file": "read"}
    )
    try:
        _, info = env.reset(seed=0)
        names = {t["function"]["name"] for t in info["tools"]}
        assert "move_file" not in names
        assert "read" in names
        assert "read_text_file" not in names
        obs, *_ = env.step({"name": "move_file", "arguments": {"source": "todo.txt", "destination": "x.txt"}})
        assert obs.startswith("Error: unknown tool 'move_file'")
        obs, *_ = env.step({"name": "read", "arguments": {"path": "todo.txt"}})
        assert obs == "- write tests\n"
    finally:
        env.close()
    with pytest.raises(ConfigError, match="cannot hide or rename unknown tool"):
        gym.make("gym_mcp/External-v0", spec=str(fs_spec), hide_tools=["rm_rf"])


def test_an_argument_the_schema_refuses_is_invalid_only(fs_spec: Path) -> None:
    """A bad enum value never reaches the server: one invalid call, no tool error, nothing rolled back."""
    env = gym.make("gym_mcp/External-v0", spec=str(fs_spec))
    try:
        env.reset(seed=0)
        before = env.unwrapped.state.fingerprint()
        bad = {"name": "list_directory_with_sizes", "arguments": {"path": ".", "sortBy": "colour"}}
        obs, _, _, _, info = env.step(bad)
        assert obs.startswith("Error: list_directory_with_sizes: argument 'sortBy' must be one of")
        assert [c.status for c in info["calls"]] == ["invalid"]
        counts = {k: info[k] for k in ("invalid_calls", "tool_errors", "rolled_back", "num_calls")}
        assert counts == {"invalid_calls": 1, "tool_errors": 0, "rolled_back": 0, "num_calls": 0}
        good = {"name": "list_directory_with_sizes", "arguments": {"path": ".", "sortBy": "size"}}
        obs, _, _, _, info = env.step(good)
        assert info["calls"][-1].ok and "todo.txt" in obs and info["num_calls"] == 1
        assert env.unwrapped.state.fingerprint() == before
    finally:
        env.close()


def test_composed_servers_in_one_env(fs_spec: Path) -> None:
    env = gym.make("gym_mcp/External-v0", servers={"fs": str(fs_spec), "bank": "banking"})
    try:
        _, info = env.reset(seed=0)
        names = {t["function"]["name"] for t in info["tools"]}
        assert {"fs.write_file", "bank.get_balance", "bank.deposit"} <= names
        fp0 = env.unwrapped.state.fingerprint()
        obs, *_ = env.step({"name": "bank.get_balance", "arguments": {"account_id": "ACC-1001"}})
        assert json.loads(obs)["account_id"] == "ACC-1001"
        env.step({"name": "bank.deposit", "arguments": {"account_id": "ACC-1001", "amount": 5.0}})
        env.step({"name": "fs.write_file", "arguments": {"path": "receipt.txt", "content": "deposited 5\n"}})
        state = env.unwrapped.state
        diff = state.diff(env.unwrapped.source.initial_snapshot(0), state.snapshot())
        assert diff["fs.files"].added == ("receipt.txt",)
        assert len(diff["bank.transactions"].added) == 1
        env.reset(seed=0)
        assert state.fingerprint() == fp0
    finally:
        env.close()
    with pytest.raises(ConfigError, match="at least two"):
        ComposedSource({"only": "banking"})


@pytest.mark.parametrize(
    ("spec", "error", "expect"),
    [
        ({"command": ["x"], "state": {"kind": "none"}}, ConfigError, "missing field 'name'"),
        ({"name": "srv", "state": {"kind": "none"}}, ConfigError, "server 'srv'): missing field 'command'"),
        ({"name": "srv", "command": ["x"], "state": {"path": "."}}, ConfigError, "'state.kind'"),
        ({"name": "srv", "command": ["x"], "state": {"kind": "directory"}}, ConfigError, "missing field 'state.path'"),
        ({"name": "srv", "command": ["x"], "colour": "red"}, ConfigError, "unknown field(s) colour"),
        (
            {"name": "ghost", "command": ["no-such-server-binary"]},
            ServerStartError,
            "ghost: cannot run 'no-such-server-binary'",
        ),
        (
            {
                "name": "quitter",
                "command": [sys.executable, "-c", "import sys; print('bad config', file=sys.stderr); sys.exit(3)"],
            },
            ServerStartError,
            "quitter: could not start",
        ),
        ({"name": "refuser", "url": "http://127.0.0.1:9/mcp"}, ServerStartError, "refuser: could not start URL"),
    ],
)
def test_bad_specs_and_servers_fail_clearly(tmp_path: Path, spec: dict, error: type[Exception], expect: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(spec))
    before = child_pids()
    with pytest.raises(error) as info:
        gym.make("gym_mcp/External-v0", spec=str(path))
    assert expect in str(info.value)
    if error is ConfigError:
        assert str(path) in str(info.value)
    if "quitter" in expect:
        assert "bad config" in str(info.value)  # the server's own words
    assert child_pids() - before == set()


def test_cli_envs_add_list_remove_and_registration(fs_spec: Path, tmp_path: Path) -> None:
    env = {**os.environ, "GYM_MCP_HOME": str(tmp_path / "home")}
    cli = [sys.executable, "-m", "gym_mcp.cli"]
    out = subprocess.run([*cli, "envs", "add", str(fs_spec)], env=env, capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert "saved npm-filesystem: 14 tools" in out.stdout
    listed = subprocess.run([*cli, "envs", "list"], env=env, capture_output=True, text=True, check=True).stdout
    assert "gym_mcp/NpmFilesystem-v0" in listed
    code = (
        "import gymnasium as gym, gym_mcp\n"
        "env = gym.make('gym_mcp/NpmFilesystem-v0')\n"
        "obs, info = env.reset(seed=0)\n"
        "print(env.step({'name': 'read_text_file', 'arguments': {'path': 'todo.txt'}})[0])\n"
        "env.close()\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False, cwd=tmp_path
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "- write tests"
    again = subprocess.run([*cli, "envs", "add", str(fs_spec)], env=env, capture_output=True, text=True, check=False)
    assert again.returncode == 1
    assert again.stderr.strip().count("\n") == 0
    assert "already saved" in again.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "broken"\ncommand = ["no-such-server-binary"]\n')
    failed = subprocess.run([*cli, "envs", "add", str(bad)], env=env, capture_output=True, text=True, check=False)
    assert failed.returncode == 1
    assert failed.stderr.startswith("gym-mcp: error: broken: cannot run 'no-such-server-binary'")
    removed = subprocess.run(
        [*cli, "envs", "remove", "npm-filesystem"], env=env, capture_output=True, text=True, check=False
    )
    assert removed.returncode == 0
    assert (
        "npm-filesystem" not in subprocess.run([*cli, "envs", "list"], env=env, capture_output=True, text=True).stdout
    )


def test_external_env_needs_exactly_one_server_description() -> None:
    with pytest.raises(ConfigError, match="exactly one of"):
        gym.make("gym_mcp/External-v0")
    with pytest.raises(ConfigError, match="needs a command or a url"):
        gym_mcp.ExternalSource("nothing")


def _bank_template(tmp_path: Path) -> Path:
    from gym_mcp.servers import get_kit

    db = tmp_path / "bank.db"
    get_kit("banking").init_database(f"sqlite:///{db}", seed=0)
    return db


def test_http_server_spawned_per_env_from_a_url(tmp_path: Path) -> None:
    db = _bank_template(tmp_path)
    env = gym.make(
        "gym_mcp/External-v0",
        name="bank-http",
        command=[*BANK_HTTP, *http_flags("{port}", "sqlite:///{state}")],
        url="http://127.0.0.1:{port}/mcp",
        state=gym_mcp.SQLiteState(db, volatile={"transactions": ["created_at"]}),
    )
    try:
        env.reset(seed=0)
        state = env.unwrapped.state
        assert state.location != db  # a private copy
        fp0 = state.fingerprint()
        obs, *_ = env.step({"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": 7.0}})
        assert not obs.startswith("Error"), obs
        assert state.fingerprint() != fp0
        env.reset(seed=0)
        assert state.fingerprint() == fp0
    finally:
        env.close()
    assert gym_mcp.SQLiteState(db).row_counts()["transactions"] == 760  # the template is untouched


def _wait_for_port(port: int, timeout: float = 30.0) -> None:
    """Until something listens on the loopback ``port`` (or ``timeout`` seconds pass)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)


def test_server_someone_else_runs_at_a_fixed_url(tmp_path: Path) -> None:
    db = _bank_template(tmp_path)
    port = gym_mcp.free_port()
    proc = subprocess.Popen(
        [*BANK_HTTP, *http_flags(port, f"sqlite:///{db}")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for_port(port)
        env = gym.make(
            "gym_mcp/External-v0", name="shared-bank", url=f"http://127.0.0.1:{port}/mcp", state=gym_mcp.SQLiteState(db)
        )
        try:
            env.reset(seed=0)
            fp0 = env.unwrapped.state.fingerprint()
            env.step({"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": 3.0}})
            assert gym_mcp.SQLiteState(db).fingerprint() != fp0  # the state is used in place
            env.reset(seed=0)
            assert gym_mcp.SQLiteState(db).fingerprint() == fp0  # and restored in place
        finally:
            env.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.parametrize(
    ("spec", "expect"),
    [
        ({"name": "srv", "command": ["x"], "state": {"kind": "none", "colour": 1}}, "unknown field(s) state.colour"),
        ({"name": "srv", "command": ["x"], "tools": {"hide": [], "show": []}}, "unknown field(s) tools.show"),
        ({"name": "srv", "command": 5}, "'command' must be a list of strings (or one string)"),
        ({"name": "srv", "command": ["x"], "transport": "ws"}, "'transport' must be 'stdio' or 'http', got 'ws'"),
        ({"name": "srv", "url": "http://127.0.0.1:9/mcp", "transport": "stdio"}, "a stdio server needs 'command'"),
        ({"name": "srv", "command": ["x"], "startup_timeout": 0}, "'startup_timeout' must be a positive number"),
        ({"name": "srv", "command": ["x"], "startup_timeout": True}, "'startup_timeout' must be a positive number"),
        ({"name": "srv", "command": ["x"], "env": {"LEVEL": 1}}, "'env' must be a table of strings"),
        ({"name": "srv", "command": ["x"], "tools": {"hide": "x"}}, "'tools.hide' must be a list of tool names"),
        ({"name": "srv", "command": ["x"], "tools": {"rename": {"a": 1}}}, "'tools.rename' must be a table of strings"),
        ({"name": "srv", "command": ["x"], "state": "dir"}, "'state' must be a table"),
        ({"name": "srv", "command": ["x"], "state": {"kind": "directory", "path": "nope"}}, "is not a directory"),
        ({"name": "srv", "command": ["x"], "state": {"kind": "sqlite", "path": "x", "volatile": [1]}}, "volatile"),
        ({"name": "srv", "command": ["x"], "state": {"kind": "directory", "path": ".", "ignore": "*.log"}}, "ignore"),
        ({"name": "  ", "command": ["x"]}, "missing field 'name'"),
    ],
)
def test_bad_spec_fields_name_file_and_key(tmp_path: Path, spec: dict, expect: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(spec))
    with pytest.raises(ConfigError) as info:
        load_spec(path)
    message = str(info.value)
    assert expect in message
    assert message.startswith(str(path))
    assert "\n" not in message


def test_spec_forms_parse_as_before(tmp_path: Path) -> None:
    (tmp_path / "db.sqlite").write_bytes(b"")
    (tmp_path / "state.json").write_text("{}")
    spec = tmp_path / "srv.json"
    spec.write_text(
        json.dumps(
            {
                "name": " srv ",
                "command": "python -m 'my server'",
                "env": None,
                "state": {"kind": "sqlite", "path": "db.sqlite", "volatile": {"log": ["at"]}},
                "tools": {"rename": None},
                "startup_timeout": 5,
                "description": "A test server.",
            }
        )
    )
    parsed = load_spec(spec)
    assert parsed.name == "srv"
    assert parsed.command == ("python", "-m", "my server")
    assert parsed.transport == "stdio"
    assert parsed.state_kind == "sqlite"
    assert parsed.state_path == tmp_path / "db.sqlite"
    assert parsed.state_options == {"volatile": {"log": ["at"]}}
    assert parsed.cwd == tmp_path
    assert parsed.startup_timeout == 5.0
    assert isinstance(parsed.startup_timeout, float)
    http = tmp_path / "http.toml"
    http.write_text('name = "h"\nurl = "http://127.0.0.1:{port}/mcp"\n[state]\nkind = "json"\npath = "state.json"\n')
    parsed = load_spec(http)
    assert parsed.transport == "http"
    assert parsed.command == ()
    assert parsed.state_options == {"volatile_keys": []}
    saved = tmp_path / "saved.json"
    saved.write_text(json.dumps(parsed.to_dict()))
    assert load_spec(saved).to_dict() == parsed.to_dict()  # what `envs add` saves reads back the same


def test_published_spec_schema_is_current_and_examples_fit() -> None:
    committed = ROOT / "docs" / "spec.schema.json"
    regenerate = (
        'python -c "from gym_mcp.specs import spec_schema_text; '
        "open('docs/spec.schema.json', 'w').write(spec_schema_text())\""
    )
    assert committed.read_text(encoding="utf-8") == spec_schema_text(), f"docs/spec.schema.json is stale: {regenerate}"
    schema = json.loads(committed.read_text(encoding="utf-8"))
    assert schema == spec_json_schema()
    assert schema["title"] and schema["description"]
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema)
    examples = sorted((ROOT / "examples" / "specs").glob("*.toml")) + sorted(
        (ROOT / "examples" / "specs").glob("*.json")
    )
    assert examples
    for example in examples:
        text = example.read_text(encoding="utf-8")
        data = tomllib.loads(text) if example.suffix == ".toml" else json.loads(text)
        errors = [e.message for e in validator.iter_errors(data)]
        assert not errors, (example.name, errors)
        load_spec(example)  # and the model agrees
    # the schema says what the model says about bad files
    assert not validator.is_valid({"name": "x", "command": ["x"], "colour": "red"})
    assert not validator.is_valid({"name": "x"})  # neither command nor url
    assert not validator.is_valid({"name": "x", "command": ["x"], "state": {"kind": "directory"}})  # no path
    assert not validator.is_valid({"name": "x", "command": ["x"], "state": {"kind": "tape"}})
    assert validator.is_valid({"name": "x", "url": "http://127.0.0.1:1/mcp", "state": {"kind": "none"}})


IN_PLACE = """
import sys, time, warnings
import gymnasium as gym
import gym_mcp
warnings.simplefilter("always")
env = gym.make("gym_mcp/External-v0", name="shared-bank", url=sys.argv[1], state=gym_mcp.SQLiteState(sys.argv[2]))
env.reset(seed=0)
print("initial", env.unwrapped.state.fingerprint(), flush=True)
if sys.argv[3] == "write-and-hang":
    env.step({"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": 3.0}})
    print("wrote", flush=True)
    time.sleep(120)
env.close()
"""


def test_a_state_used_in_place_survives_a_process_killed_mid_episode(tmp_path: Path) -> None:
    """The killed episode's writes are undone by the next process (journaled), and a normal exit leaves the file as found."""
    db = _bank_template(tmp_path)
    original = gym_mcp.SQLiteState(db).fingerprint()
    port = gym_mcp.free_port()
    server = subprocess.Popen(
        [*BANK_HTTP, *http_flags(port, f"sqlite:///{db}")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    env = {**os.environ, "GYM_MCP_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        _wait_for_port(port)
        first = subprocess.Popen(
            [sys.executable, "-c", IN_PLACE, url, str(db), "write-and-hang"], stdout=subprocess.PIPE, text=True, env=env
        )
        assert first.stdout is not None
        assert first.stdout.readline().split() == ["initial", original]
        assert first.stdout.readline().strip() == "wrote"
        first.kill()  # mid-episode: nothing of it can run
        first.wait(timeout=30)
        assert gym_mcp.SQLiteState(db).fingerprint() != original  # its deposit is in the file
        second = subprocess.run(
            [sys.executable, "-c", IN_PLACE, url, str(db), "read"], capture_output=True, text=True, env=env, timeout=120
        )
        assert second.returncode == 0, second.stderr[-2000:]
        assert second.stdout.split() == ["initial", original]  # not the altered file
        assert "StateRestoredWarning" in second.stderr and "ended mid-episode" in second.stderr
        assert gym_mcp.SQLiteState(db).fingerprint() == original  # a normal exit leaves the file as found
        assert not list((tmp_path / "home" / "journals").glob("*.state"))
    finally:
        server.terminate()
        server.wait(timeout=10)
