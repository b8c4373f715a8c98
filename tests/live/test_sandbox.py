"""The bubblewrap sandbox: a third-party server can write only its state copy, and has no network.

These run wherever bwrap works (the README's test command installs it where it can, so on CI);
elsewhere they skip and say why.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gym_mcp import MCPEnv
from gym_mcp.errors import ConfigError
from gym_mcp.live.sandbox import _probe, bwrap_available
from gym_mcp.live.sources import ExternalSource
from gym_mcp.state import DirectoryState
from tests.conftest import ROOT

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
    import git

    repo_dir = tmp_path / "repo"
    repo = git.Repo.init(repo_dir)
    (repo_dir / "a.txt").write_text("a\n")
    repo.index.add(["a.txt"])
    repo.index.commit("first")
    source = ExternalSource(
        "git",
        command=[sys.executable, "-m", "mcp_server_git", "--repository", "{state}"],
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
    with pytest.raises(ConfigError, match="sandbox must be one of 'none', 'bwrap', got 'docker'"):
        _source(template, sandbox="docker")
