"""State that really resets (issue 35, item 3): a server that keeps state in memory is found and restarted.

The server (`tests/live/servers/memo_cache.py`) runs over stdio as a third-party server would:
by default it reads its JSON file once and answers from memory (a reset that restores the file
leaves it remembering the note); with ``--fresh`` it reads the file at every call. The reset
check (`gym_mcp.check_reset`, ``gym-mcp envs check``, ``gym-mcp synth``) must name the read that
remembers, and ``restart_on_reset = true`` must make a reset give the fresh answers again.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium as gym
import pytest

import gym_mcp  # noqa: F401 - registers the environments
from gym_mcp import InMemoryStateWarning, check_reset
from gym_mcp.cli import main
from gym_mcp.errors import ConfigError, GymMCPWarning, SynthError
from gym_mcp.specs import load_spec
from gym_mcp.synth import SynthConfig, synthesize
from gym_mcp.synth.report import report_text
from tests.conftest import ROOT
from tests.helpers import child_pids

SERVER = Path(__file__).parent / "servers" / "memo_cache.py"
MEMORY_BIN = ROOT / "node_modules" / ".bin" / "mcp-server-memory"
FRESH_TITLES = '{\n  "titles": [\n    "groceries",\n    "plans"\n  ]\n}'


def _spec(folder: Path, name: str, *, fresh: bool = False, restart: bool | None = None) -> Path:
    """A spec for the notes server in ``folder`` (its seed file beside it)."""
    notes = folder / "notes.json"
    if not notes.exists():
        subprocess.run([sys.executable, str(SERVER), "--seed", str(notes)], check=True)
    command = [sys.executable, str(SERVER), "{state}", *(["--fresh"] if fresh else [])]
    lines = [f"name = {name!r}", f"command = {json.dumps(command)}"]
    if restart is not None:
        lines.append(f"restart_on_reset = {'true' if restart else 'false'}")
    lines += ["", "[state]", 'kind = "json"', 'path = "notes.json"']
    spec = folder / f"{name}.toml"
    spec.write_text("\n".join(lines) + "\n")
    return spec


def _list(env: gym.Env) -> str:
    obs, *_ = env.step({"name": "list_notes", "arguments": {}})
    return str(obs)


def _add(env: gym.Env, title: str) -> None:
    obs, *_, info = env.step({"name": "add_note", "arguments": {"title": title, "text": "x"}})
    assert info["calls"][-1].ok, obs


def test_a_server_that_keeps_state_in_memory_is_named_in_one_warning(tmp_path: Path) -> None:
    spec = _spec(tmp_path, "memo-cached")
    with pytest.warns(InMemoryStateWarning) as caught:
        found = check_reset(spec)
    assert found.differing == ("list_notes",)  # get_note('plans') answers the same: that note is in both
    assert found.write is not None and found.write["name"] == "add_note"
    assert set(found.reads) == {"list_notes", "get_note"} and not found.passed
    ours = [w for w in caught if issubclass(w.category, InMemoryStateWarning)]
    assert len(ours) == 1
    message = str(ours[0].message)
    assert "list_notes" in message and "get_note" not in message
    assert "restart_on_reset = true" in message and "\n" not in message
    assert issubclass(InMemoryStateWarning, GymMCPWarning) and issubclass(InMemoryStateWarning, UserWarning)


def test_without_restart_a_reset_remembers_the_note(tmp_path: Path) -> None:
    """What the check finds, seen through the environment: the reset does not undo the write."""
    env = gym.make("gym_mcp/External-v0", spec=str(_spec(tmp_path, "memo-cached")))
    try:
        env.reset()
        assert _list(env) == FRESH_TITLES
        _add(env, "secret")
        _, info = env.reset()
        assert "secret" in _list(env)  # the file was restored; the process still remembers
        assert info["restarts_on_reset"] == 0
    finally:
        env.close()


def test_restart_on_reset_gives_the_fresh_answers_and_counts_the_restart(tmp_path: Path) -> None:
    env = gym.make("gym_mcp/External-v0", spec=str(_spec(tmp_path, "memo-restart", restart=True)))
    try:
        _, info = env.reset()
        assert info["restarts_on_reset"] == 1 and info["server_restarts"] == 0
        _add(env, "secret")
        assert "secret" in _list(env)
        before = child_pids()
        _, info = env.reset()
        after = child_pids()
        assert after - before and before - after  # a new server process, the old one gone
        assert _list(env) == FRESH_TITLES
        # restarts on reset are counted apart from crash restarts
        assert info["restarts_on_reset"] == 1 and info["server_restarts"] == 0
        # a restored snapshot is served by a new process too
        snap = env.unwrapped.snapshot()
        _add(env, "later")
        env.unwrapped.restore(snap)
        assert "later" not in _list(env)
        assert env.unwrapped.counters["restarts_on_reset"] == 2
    finally:
        env.close()
    with warnings.catch_warnings():
        warnings.simplefilter("error", InMemoryStateWarning)
        found = check_reset(_spec(tmp_path, "memo-restart", restart=True))
    assert found.passed and found.restart_on_reset and found.differing == ()


def test_a_server_with_its_state_only_in_its_file_passes(tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", InMemoryStateWarning)
        found = check_reset(_spec(tmp_path, "memo-fresh", fresh=True))
    assert found.passed and found.write is not None and set(found.reads) == {"list_notes", "get_note"}


def test_the_npm_memory_server_reads_its_file_at_every_call_and_passes(tmp_path: Path) -> None:
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed, so the npm memory MCP server cannot be installed")
    if not MEMORY_BIN.exists():
        pytest.fail("npm is installed but @modelcontextprotocol/server-memory is not: run `npm install` (README)")
    lines = [
        {"type": "entity", "name": "Ada", "entityType": "person", "observations": ["likes tea"]},
        {"type": "entity", "name": "Acme", "entityType": "company", "observations": ["founded 1990"]},
        {"type": "relation", "from": "Ada", "to": "Acme", "relationType": "works_at"},
    ]
    (tmp_path / "memory.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    spec = tmp_path / "memory.toml"
    spec.write_text(
        f'name = "npm-memory"\ncommand = ["{MEMORY_BIN}"]\n\n[env]\nMEMORY_FILE_PATH = "{{state}}"\n\n'
        '[state]\nkind = "json"\npath = "memory.jsonl"\n'
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", InMemoryStateWarning)
        found = check_reset(spec)
    assert found.passed and "read_graph" in found.reads


@pytest.mark.parametrize("value", ['"yes"', "1", "[true]"])
def test_a_restart_on_reset_that_is_not_a_bool_is_one_line(tmp_path: Path, value: str) -> None:
    spec = _spec(tmp_path, "memo")
    spec.write_text(spec.read_text().replace("[state]", f"restart_on_reset = {value}\n\n[state]"))
    with pytest.raises(ConfigError) as info:
        load_spec(spec)
    message = str(info.value)
    assert "\n" not in message and str(spec) in message
    assert "'restart_on_reset' must be true or false, got" in message


def test_restart_on_reset_for_a_server_someone_else_runs_is_one_line(tmp_path: Path) -> None:
    spec = tmp_path / "remote.toml"
    spec.write_text('name = "remote"\nurl = "http://127.0.0.1:9/mcp"\nrestart_on_reset = true\n')
    with pytest.raises(ConfigError) as info:
        load_spec(spec)
    assert "\n" not in str(info.value) and "'restart_on_reset' needs 'command'" in str(info.value)
    with pytest.raises(ConfigError, match="restart_on_reset= must be True or False"):
        gym.make("gym_mcp/External-v0", spec=str(_spec(tmp_path, "memo")), restart_on_reset="yes")


def test_gym_mcp_envs_check_names_the_read_and_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["envs", "check", str(_spec(tmp_path, "memo-cached"))]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "list_notes" in err[0] and "restart_on_reset = true" in err[0], err
    assert main(["envs", "check", str(_spec(tmp_path, "memo-restart", restart=True))]) == 0
    assert "reset checked" in capsys.readouterr().out


def test_synthesis_warns_and_says_why_no_task_survives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GYM_MCP_HOME", str(tmp_path / "home"))
    with pytest.warns(InMemoryStateWarning, match="list_notes"), pytest.raises(SynthError) as info:
        synthesize(_spec(tmp_path, "memo-cached"), SynthConfig(n=2, seed=0, heldout_tools=False))
    assert "restart_on_reset = true" in str(info.value)


def test_synthesis_with_restart_on_reset_reports_the_check_passed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GYM_MCP_HOME", str(tmp_path / "home"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", InMemoryStateWarning)
        result = synthesize(
            _spec(tmp_path, "memo-restart", restart=True), SynthConfig(n=2, seed=0, heldout_tools=False)
        )
    assert len(result.tasks) == 2
    assert result.stats["reset_check"]["passed"] and result.stats["reset_check"]["restart_on_reset"]
    assert "reset check: memo-restart: reset checked" in report_text(result.stats)
