"""The bubblewrap sandbox: a third-party server can write only its state copy, and has no network;
in "bwrap-strict" it can read only the system's runtime, its own install and its private folders.

These run wherever bwrap works (the README's test command installs it where it can, so on CI);
elsewhere they skip and say why.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from gym_mcp import MCPEnv
from gym_mcp.errors import ConfigError
from gym_mcp.live.sandbox import _probe, bwrap_available
from gym_mcp.live.sources import ExternalSource
from gym_mcp.state import DirectoryState
from tests.conftest import ROOT, git_server_command

needs_bwrap = pytest.mark.skipif(not bwrap_available(), reason=_probe() or "bwrap works")


def _source(template: Path, **kwargs: object) -> ExternalSource:
    return ExternalSource(
        "escape",
        command=[sys.executable, "-m", "tests.servers.escape"],
        env={"PYTHONPATH": str(ROOT)},
        state=DirectoryState(template),
        cwd="{state}",
        **kwargs,  # type: ignore[arg-type]
    )


@pytest.fixture
def template(tmp_path: Path) -> Path:
    root = tmp_path / "template"
    root.mkdir()
    (root / "notes.txt").write_text("hello\n")
    return root


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    path = tmp_path / "outside"
    path.mkdir()
    (path / "precious.txt").write_text("keep me\n")
    return path


def _call(env: MCPEnv, name: str, **arguments: object) -> str:
    obs, *_ = env.step({"name": name, "arguments": arguments})
    return str(obs)


def test_without_the_sandbox_the_server_really_escapes(template: Path, outside: Path) -> None:
    env = MCPEnv(_source(template))
    try:
        env.reset(seed=0)
        obs = _call(env, "write_file", path=str(outside / "precious.txt"), text="overwritten\n")
        assert not obs.startswith("Error"), obs
        env.reset(seed=0)
        assert (outside / "precious.txt").read_text() == "overwritten\n"  # reset cannot undo it
    finally:
        env.close()


@needs_bwrap
@pytest.mark.parametrize("where", ["project", "system"])
def test_writes_outside_the_state_copy_fail_inside_the_server(template: Path, where: str) -> None:
    target = {
        "project": ROOT / "tests" / "servers" / "gym-mcp-sandbox-escaped.txt",  # the user's own files
        "system": Path("/usr/gym-mcp-sandbox-escaped.txt"),
    }[where]
    env = MCPEnv(_source(template, sandbox="bwrap"))
    try:
        env.reset(seed=0)
        initial = env.state.fingerprint()
        obs = _call(env, "write_file", path=str(target), text="escaped\n")
        assert obs.startswith("failed:") and "Read-only file system" in obs, obs
        assert not target.exists()
        obs = _call(env, "write_file", path="inside.txt", text="mine\n")  # its own copy is writable
        assert obs.startswith("wrote"), obs
        assert env.state.fingerprint() != initial
        env.reset(seed=0)
        assert env.state.fingerprint() == initial  # reset exact after each
        assert _call(env, "read_file", path="notes.txt") == "hello\n"
    finally:
        target.unlink(missing_ok=True)
        env.close()


@needs_bwrap
@pytest.mark.parametrize("where", ["sibling", "parent", "tmp"])
def test_writes_beside_the_state_copy_fail_too(template: Path, outside: Path, tmp_path: Path, where: str) -> None:
    """Folders next to the copy (in the host's /tmp, like the copy itself) are read-only as well."""
    probe = Path(f"/tmp/gym-mcp-sandbox-probe-{tmp_path.name}.txt")
    env = MCPEnv(_source(template, sandbox="bwrap"))
    try:
        env.reset(seed=0)
        location = Path(str(env.state.location))
        target = {"sibling": outside / "precious.txt", "parent": location.parent / "escaped.txt", "tmp": probe}[where]
        obs = _call(env, "write_file", path=str(target), text="overwritten\n")
        assert obs.startswith("failed:") and "Read-only file system" in obs, obs
        assert (outside / "precious.txt").read_text() == "keep me\n"
        assert not (location.parent / "escaped.txt").exists()
        assert not probe.exists()
    finally:
        env.close()


@needs_bwrap
def test_home_is_a_scratch_folder_of_the_servers_own(template: Path) -> None:
    env = MCPEnv(_source(template, sandbox="bwrap"))
    try:
        env.reset(seed=0)
        initial = env.state.fingerprint()
        obs = _call(env, "write_file", path="~/cache/entry.txt", text="cached")
        assert obs.startswith("wrote"), obs
        assert "/scratch/cache/entry.txt" in obs
        assert env.state.fingerprint() == initial  # scratch is not state
    finally:
        env.close()


@needs_bwrap
def test_no_network_unless_the_spec_allows_it(template: Path, listener: int) -> None:
    closed = MCPEnv(_source(template, sandbox="bwrap"))
    opened = MCPEnv(_source(template, sandbox="bwrap", network=True))
    try:
        closed.reset(seed=0)
        obs = _call(closed, "connect", port=listener)
        # its own network namespace: the host's listener is not there (refused, or unreachable)
        assert obs.startswith("failed:") and ("refused" in obs.lower() or "unreachable" in obs.lower()), obs
        opened.reset(seed=0)
        assert _call(opened, "connect", port=listener) == "hello from the host\n"
    finally:
        closed.close()
        opened.close()


@needs_bwrap
def test_a_real_third_party_server_runs_in_the_sandbox(tmp_path: Path) -> None:
    """mcp-server-git (PyPI) over a real repository, sandboxed: reads, commits, and resets exact."""
    git_command = git_server_command()  # skips before GitPython (which comes with it) is imported
    import git

    repo_dir = tmp_path / "repo"
    repo = git.Repo.init(repo_dir)
    (repo_dir / "a.txt").write_text("a\n")
    repo.index.add(["a.txt"])
    repo.index.commit("first")
    source = ExternalSource(
        "git",
        command=[*git_command, "--repository", "{state}"],
        state=DirectoryState(repo_dir, ignore=[".git/logs/*"]),
        sandbox="bwrap",
    )
    env = MCPEnv(source)
    try:
        env.reset(seed=0)
        initial = env.state.fingerprint()
        location = str(env.state.location)
        obs = _call(env, "git_status", repo_path=location)
        assert "branch" in obs.lower(), obs
        Path(location, "b.txt").write_text("b\n")
        assert not _call(env, "git_add", repo_path=location, files=["b.txt"]).startswith("Error")
        obs = _call(env, "git_commit", repo_path=location, message="second")
        assert not obs.startswith("Error"), obs
        assert env.state.fingerprint() != initial
        env.reset(seed=0)
        assert env.state.fingerprint() == initial
        assert "second" not in _call(env, "git_log", repo_path=location)
    finally:
        env.close()


def test_without_bwrap_the_option_fails_with_the_install_hint(template: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gym_mcp.live import sandbox

    sandbox._probe.cache_clear()
    monkeypatch.setenv("PATH", "/nonexistent")
    try:
        with pytest.raises(ConfigError, match="apt-get install bubblewrap"):
            _source(template, sandbox="bwrap")
    finally:
        sandbox._probe.cache_clear()


def test_an_unknown_sandbox_is_refused(template: Path) -> None:
    with pytest.raises(ConfigError, match="sandbox must be one of 'none', 'bwrap', 'bwrap-strict', got 'docker'"):
        _source(template, sandbox="docker")


# --- reads: "bwrap" confines writes only; "bwrap-strict" confines reads too -------------------

READER = ROOT / "tests" / "live" / "servers" / "reader.py"
FS_BIN = ROOT / "node_modules" / ".bin" / "mcp-server-filesystem"


def _reader(template: Path, sandbox: str, **kwargs: object) -> ExternalSource:
    """The reader server, started by its file path (so strict mode binds that file, not the project)."""
    return ExternalSource(
        "reader",
        command=[sys.executable, str(READER)],
        state=DirectoryState(template),
        cwd="{state}",
        sandbox=sandbox,
        **kwargs,  # type: ignore[arg-type]
    )


def _read(env: MCPEnv, path: str) -> dict[str, Any]:
    obs, *_ = env.step({"name": "read_path", "arguments": {"path": path}})
    return dict(json.loads(str(obs)))


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A 0600 file of the user's, outside any state copy."""
    path = tmp_path / "secret" / "id_token"
    path.parent.mkdir()
    path.write_text("s3cret\n")
    path.chmod(0o600)
    return path


@needs_bwrap
def test_the_write_sandbox_still_lets_a_server_read_everything(template: Path, secret: Path) -> None:
    """Why "bwrap-strict" exists: under "bwrap" a user's 0600 file and another env's state are readable."""
    env, other = MCPEnv(_reader(template, "bwrap")), MCPEnv(_reader(template, "bwrap"))
    try:
        env.reset(seed=0)
        other.reset(seed=0)
        assert _read(env, str(secret)) == {"outcome": "read", "text": "s3cret\n"}
        other_notes = Path(str(other.state.location)) / "notes.txt"
        assert _read(env, str(other_notes))["outcome"] == "read"
    finally:
        env.close()
        other.close()


@needs_bwrap
def test_strict_sandbox_reads_only_what_the_server_needs(template: Path, secret: Path) -> None:
    env, other = MCPEnv(_reader(template, "bwrap-strict")), MCPEnv(_reader(template, "bwrap-strict"))
    try:
        env.reset(seed=0)
        other.reset(seed=0)
        initial = env.state.fingerprint()
        # its own state: read, written, and reset exact
        assert _read(env, "notes.txt") == {"outcome": "read", "text": "hello\n"}
        obs, *_ = env.step({"name": "write_path", "arguments": {"path": "mine.txt", "text": "mine\n"}})
        assert json.loads(str(obs))["outcome"] == "wrote", obs
        assert env.state.fingerprint() != initial
        env.reset(seed=0)
        assert env.state.fingerprint() == initial
        # a 0600 file of the user's, outside its copy: not there at all
        got = _read(env, str(secret))
        assert got["outcome"] == "failed" and "FileNotFoundError" in got["error"], got
        # another environment's state copy (which exists, and which it could name)
        other_notes = Path(str(other.state.location)) / "notes.txt"
        assert other_notes.exists()
        got = _read(env, str(other_notes))
        assert got["outcome"] == "failed" and "FileNotFoundError" in got["error"], got
        # the project's own files, /root, /home
        for path in (ROOT / "pyproject.toml", Path.home() / ".bashrc", Path("/etc/shadow")):
            got = _read(env, str(path))
            assert got.get("text", "") == "", (path, got)
    finally:
        env.close()
        other.close()


@needs_bwrap
def test_strict_sandbox_has_its_own_proc(template: Path) -> None:
    """/proc is the new pid namespace's: pid 1 is the sandbox's init, not the host's."""
    host_init = Path("/proc/1/cmdline").read_bytes().decode(errors="replace")
    env = MCPEnv(_reader(template, "bwrap-strict"))
    try:
        env.reset(seed=0)
        got = _read(env, "/proc/1/cmdline")
        assert got["outcome"] == "read", got
        assert got["text"] != host_init
        assert "bwrap" in got["text"] or "reader.py" in got["text"], got
        assert _read(env, f"/proc/{os.getpid()}/cmdline")["outcome"] == "failed" or os.getpid() < 10
    finally:
        env.close()


@needs_bwrap
def test_strict_sandbox_drops_the_hosts_environment(template: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """API keys live in environment variables: only the spec's own and a few harmless ones go in."""
    monkeypatch.setenv("GYM_MCP_TEST_API_KEY", "sk-host")
    env = MCPEnv(_reader(template, "bwrap-strict", env={"SERVER_SETTING": "on"}))
    try:
        env.reset(seed=0)

        def getenv(name: str) -> object:
            obs, *_ = env.step({"name": "getenv", "arguments": {"name": name}})
            return json.loads(str(obs))["value"]

        assert getenv("GYM_MCP_TEST_API_KEY") is None
        assert getenv("SERVER_SETTING") == "on"
        assert getenv("PATH") == os.environ["PATH"]
    finally:
        env.close()


@needs_bwrap
@pytest.mark.parametrize("server", ["npm-filesystem", "mcp-server-git"])
def test_real_third_party_servers_run_strict(tmp_path: Path, server: str) -> None:
    """An npm server under node_modules and a PyPI server in the venv both start and work confined."""
    folder = tmp_path / "files"
    folder.mkdir()
    (folder / "a.txt").write_text("a\n")
    if server == "npm-filesystem":
        if shutil.which("npm") is None:
            pytest.skip("npm is not installed, so the npm filesystem MCP server cannot be installed")
        assert FS_BIN.exists(), "npm is installed but server-filesystem is not: run `npm install` (README)"
        source = ExternalSource(
            "filesystem", command=[str(FS_BIN), "{state}"], state=DirectoryState(folder), sandbox="bwrap-strict"
        )
    else:
        git_command = git_server_command()
        import git

        repo = git.Repo.init(folder)
        repo.index.add(["a.txt"])
        repo.index.commit("first")
        source = ExternalSource(
            "git",
            command=[*git_command, "--repository", "{state}"],
            state=DirectoryState(folder, ignore=[".git/logs/*"]),
            sandbox="bwrap-strict",
        )
    env = MCPEnv(source)
    try:
        env.reset(seed=0)
        location = str(env.state.location)
        if server == "npm-filesystem":
            assert _call(env, "read_text_file", path=f"{location}/a.txt").strip() == "a"
            obs = _call(env, "write_file", path=f"{location}/b.txt", content="b\n")
            assert not obs.startswith("Error"), obs
            assert Path(location, "b.txt").read_text() == "b\n"
        else:
            assert "first" in _call(env, "git_log", repo_path=location)
    finally:
        env.close()


@needs_bwrap
def test_a_spec_file_asks_for_the_strict_sandbox(tmp_path: Path, template: Path, secret: Path) -> None:
    from gym_mcp import load_spec
    from gym_mcp.live import spec_source

    spec = tmp_path / "reader.toml"
    spec.write_text(
        f'name = "reader"\ncommand = ["{sys.executable}", "{READER}"]\ncwd = "{{state}}"\n'
        f'sandbox = "bwrap-strict"\n\n[state]\nkind = "directory"\npath = "{template}"\n'
    )
    parsed = load_spec(spec)
    assert parsed.sandbox == "bwrap-strict" and parsed.to_dict()["sandbox"] == "bwrap-strict"
    env = MCPEnv(spec_source(parsed))
    try:
        env.reset(seed=0)
        assert _read(env, "notes.txt") == {"outcome": "read", "text": "hello\n"}
        assert _read(env, str(secret))["outcome"] == "failed"
    finally:
        env.close()


def test_a_bad_sandbox_in_a_spec_file_is_one_line(tmp_path: Path) -> None:
    from gym_mcp import load_spec

    spec = tmp_path / "bad.toml"
    spec.write_text('name = "x"\ncommand = ["true"]\nsandbox = "strict"\n')
    with pytest.raises(ConfigError) as info:
        load_spec(spec)
    message = str(info.value)
    assert '\'sandbox\' must be "none", "bwrap" or "bwrap-strict"' in message and "\n" not in message, message


def test_strict_mode_resolves_what_a_command_runs_from() -> None:
    """The venv and the Python it was made from; an npm .bin link's node_modules; never /tmp or home."""
    from gym_mcp.live.sandbox import runtime_paths

    env = dict(os.environ)
    paths = runtime_paths([sys.executable, str(READER)], env, cwd=str(Path.home()))
    assert sys.prefix in paths  # the venv
    base = os.path.realpath(sys.base_prefix)
    assert base in paths or base.startswith("/usr")  # the Python it was made from (a system one is bound anyway)
    assert str(READER) in paths
    assert str(Path.home()) not in paths and "/tmp" not in paths and str(ROOT) not in paths
    if FS_BIN.exists():
        assert runtime_paths([str(FS_BIN), "/tmp"], env) == [str(ROOT / "node_modules")]
