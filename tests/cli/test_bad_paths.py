"""Bad paths, databases and sizes given to the CLI: one line each, checked before any work, nothing written."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from gym_mcp.cli import main
from gym_mcp.servers import get_kit


def _one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1, err
    assert "Traceback" not in err[0]
    return err[0]


@pytest.mark.parametrize(
    ("output", "expect"),
    [
        ("{tmp}/missing/tasks.jsonl", "the folder '{tmp}/missing' of '{tmp}/missing/tasks.jsonl' does not exist"),
        ("{tmp}", "'{tmp}' is a folder; give a file name in it"),
        ("/proc/tasks.jsonl", "cannot write in '/proc'"),
    ],
    ids=["missing-folder", "a-folder", "proc"],
)
def test_synth_output_is_checked_before_synthesis(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, output: str, expect: str
) -> None:
    monkeypatch.setenv("GYM_MCP_HOME", str(tmp_path / "home"))
    with pytest.raises(SystemExit) as ended:
        main(["synth", "banking", "-n", "2", "-o", output.format(tmp=tmp_path), "--quiet"])
    assert ended.value.code == 2
    line = _one_line(capsys)
    assert expect.format(tmp=tmp_path) in line and "synthesizing" not in line
    assert not (tmp_path / "home").exists()  # nothing ran: no graph cache, no server
    assert not list(tmp_path.parent.glob(f"{tmp_path.name}.tmp*")) and not list(tmp_path.rglob("*.tmp"))


def test_synth_refuses_an_absurd_task_count(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["synth", "banking", "-n", str(10**12), "-o", str(tmp_path / "t.jsonl"), "--quiet"])
    assert "argument -n: must be 1-1000000, got 1000000000000" in _one_line(capsys)


@pytest.mark.parametrize(
    ("db", "expect"),
    [
        ("not-a-url", "--db 'not-a-url' is not a database URL"),
        ("sqlite:///{tmp}/notes.txt", "is not an SQLite database"),
        ("sqlite:///{tmp}/none/x.db", "the folder {tmp}/none of {tmp}/none/x.db does not exist"),
        ("sqlite:////proc/x.db", "cannot make /proc/x.db"),
        ("sqlite:///{tmp}", "is a folder, not an SQLite database file"),
    ],
    ids=["not-a-url", "not-a-database", "missing-folder", "unwritable", "a-folder"],
)
def test_serve_db_is_checked_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], db: str, expect: str
) -> None:
    (tmp_path / "notes.txt").write_text("not a database\n")
    code = main(["serve", "banking", "--db", db.format(tmp=tmp_path)])
    assert code == 2
    assert expect.format(tmp=tmp_path) in _one_line(capsys)
    assert (tmp_path / "notes.txt").read_text() == "not a database\n"
    assert not (tmp_path / "none").exists()


def test_serve_db_refuses_another_servers_database_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    crm = tmp_path / "crm.db"
    url = f"sqlite:///{crm}"
    assert get_kit("crm").init_database(url, seed=0)
    before = hashlib.sha256(crm.read_bytes()).hexdigest()
    for _ in range(2):  # a second try finds the same file, not one with banking's tables added
        assert main(["serve", "banking", "--db", url]) == 2
        line = _one_line(capsys)
        assert f"--db {url} is not a banking database" in line and "contacts" in line
        assert hashlib.sha256(crm.read_bytes()).hexdigest() == before
    get_kit("crm").check_database(url)  # its own server takes it
    bank = tmp_path / "bank.db"
    get_kit("banking").check_database(f"sqlite:///{bank}")  # a new file in a writable folder
    assert not bank.exists()


def test_envs_add_refuses_a_huge_name_and_a_state_that_is_not_a_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GYM_MCP_HOME", str(tmp_path / "home"))
    long = tmp_path / "long.toml"
    long.write_text(f'name = "{"a" * 100_000}"\ncommand = ["srv"]\n')
    assert main(["envs", "add", str(long)]) == 1
    assert "'name' must be at most 100 characters" in _one_line(capsys)
    (tmp_path / "state.db").write_text("junk\n")
    spec = tmp_path / "junk.toml"
    spec.write_text('name = "junk"\ncommand = ["srv", "{state}"]\n[state]\nkind = "sqlite"\npath = "state.db"\n')
    assert main(["envs", "add", str(spec)]) == 1
    assert f"state.path {tmp_path / 'state.db'} is not an SQLite database" in _one_line(capsys)
    assert main(["synth", "--spec", str(spec), "-n", "2", "-o", str(tmp_path / "t.jsonl"), "--quiet"]) == 1
    assert "is not an SQLite database" in _one_line(capsys)
    assert not (tmp_path / "home" / "envs").exists() or not list((tmp_path / "home" / "envs").iterdir())


def _run_folder(root: Path, *, checkpoint: bool = True) -> Path:
    """A folder laid out as a training run (config.json, checkpoint/ adapter files); nothing in it is loaded."""
    run = root / "run"
    (run / "checkpoint").mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"model": "smollm2", "lora_r": 4}))
    if checkpoint:
        for name in ("adapter_model.safetensors", "adapter_config.json"):
            (run / "checkpoint" / name).write_text("{}")
    return run


@pytest.mark.parametrize(
    ("run", "out", "expect"),
    [
        ("{tmp}/none", "{tmp}/out", "argument RUN: run folder '{tmp}/none' does not exist"),
        ("{tmp}/notes.txt", "{tmp}/out", "argument RUN: '{tmp}/notes.txt' is not a folder"),
        ("{tmp}", "{tmp}/out", "argument RUN: '{tmp}' is not a training run folder"),
        ("{tmp}/bare/run", "{tmp}/out", "argument RUN: '{tmp}/bare/run' holds no adapter checkpoint"),
        ("{tmp}/good/run", "{tmp}/notes.txt", "argument DIR: '{tmp}/notes.txt' is a file"),
        ("{tmp}/good/run", "{tmp}/good", "argument DIR: '{tmp}/good' is a folder with files in it"),
        (
            "{tmp}/good/run",
            "{tmp}/none/out",
            "argument DIR: the folder '{tmp}/none' of '{tmp}/none/out' does not exist",
        ),
    ],
    ids=["missing", "a-file", "not-a-run", "no-checkpoint", "dir-is-a-file", "dir-not-empty", "dir-parent-missing"],
)
def test_export_paths_are_checked_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], run: str, out: str, expect: str
) -> None:
    (tmp_path / "notes.txt").write_text("notes\n")
    _run_folder(tmp_path / "bare", checkpoint=False)
    _run_folder(tmp_path / "good")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    with pytest.raises(SystemExit) as ended:
        main(["export", run.format(tmp=tmp_path), out.format(tmp=tmp_path)])
    assert ended.value.code == 2
    line = _one_line(capsys)
    assert line.startswith("gym-mcp export: error: ") and expect.format(tmp=tmp_path) in line
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before  # nothing written
