"""Inference and synthesis rules that third-party servers needed (issue 35, acceptance on five servers).

Each rule is shown on a small real server in ``tests/live/servers/`` (no ``gym_mcp/*``
metadata, no spec hints) or on hand-made tools:

- a SQLite server that stamps rows with the clock in whole seconds, camelCase columns
  (`records_clock.py`): the stamp is found volatile though two replays at once agree, and every
  kept task replays to reward 1.0 in a fresh env a second later; ``device_sn`` draws from
  ``deviceSN``;
- a folder server that takes project and file *names* (`project_folders.py`): a project's name
  is a folder's, the file one of its own, the new file is the one its description calls new; a
  write that changes only what fingerprints leave out is kept only where a later call needs it,
  and a write that never changes visible state stops being drawn (reported as unverifiable);
- a JSON state with nested records: a task's ``taskId`` is one of its request's own tasks;
- names: a verb at the end of a tool's name, a qualifier said once, slugs for a branch's name.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from mcp.types import Tool

from gym_mcp import load_tasks
from gym_mcp.synth import SynthConfig, synthesize, write_outputs
from gym_mcp.synth.arguments import ArgumentFiller
from gym_mcp.synth.graph import EntityPools
from gym_mcp.synth.infer import infer_spec, state_tables

SERVERS = Path(__file__).resolve().parents[1] / "live" / "servers"


def tool(name: str, props: dict[str, Any], required: list[str] | None = None, description: str = "") -> Tool:
    schema = {"type": "object", "properties": props, "required": list(props) if required is None else required}
    return Tool(name=name, description=description, input_schema=schema)


def replay_all(spec: Path, tasks_path: Path) -> tuple[int, int]:
    """Every task's reference calls through gym.make, then a final answer: rewards of 1.0, tasks."""
    tasks = load_tasks(tasks_path)
    env = gym.make("gym_mcp/External-v0", spec=str(spec), tasks=str(tasks_path), max_steps=50)
    ok = 0
    try:
        for task in tasks:
            env.reset(options={"task_id": task.id})
            for call in task.reference_calls:
                env.step(dict(call))
            ok += env.step("Done.")[1] == 1.0
    finally:
        env.close()
    return ok, len(tasks)


def test_clock_stamps_in_whole_seconds_are_found_and_tasks_replay_later(tmp_path: Path, records_spec: Path) -> None:
    spec = records_spec
    result = synthesize(spec, SynthConfig(n=12, seed=0, heldout_tools=False))
    stats = result.stats
    assert "create_record" not in stats["skipped_tools"]  # device_sn draws from the deviceSN column
    assert "create_record" in stats["tools_used"]
    assert stats["nondeterministic"]["volatile"] == {"records": ["updated_at"]}
    out = tmp_path / "tasks.jsonl"
    write_outputs(result, out)
    time.sleep(1.1)  # the clock has moved on: a stamp left in the fingerprint would fail every write
    ok, total = replay_all(spec, out)
    assert total >= 10 and ok == total


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    folder = tmp_path_factory.mktemp("projects")
    subprocess.run([sys.executable, str(SERVERS / "project_folders.py"), "--seed", str(folder / "root")], check=True)
    spec = folder / "projects.toml"
    spec.write_text(
        f'name = "project-folders"\n'
        f'command = [{sys.executable!r}, {str(SERVERS / "project_folders.py")!r}, "{{state}}"]\n\n'
        '[state]\nkind = "directory"\npath = "root"\nignore = [".staged", ".cache"]\n'
    )
    return spec, synthesize(spec, SynthConfig(n=40, seed=0, heldout_tools=False))


def test_names_of_projects_and_files_come_from_the_folder(folders: tuple[Path, Any], tmp_path: Path) -> None:
    spec, result = folders
    stats = result.stats
    assert not stats["skipped_tools"], stats["skipped_tools"]
    assert {"list_project_files", "project_file_read", "project_file_write"} <= set(stats["tools_used"])
    projects = {"apollo", "hermes", "zephyr"}
    for task in result.tasks:
        for call in task.reference_calls:
            args = call["arguments"]
            if call["name"] == "project_file_read":  # a file of that very project
                assert args["projectName"] in projects
            if call["name"] == "project_file_write":  # an existing project, a new file
                assert args["projectName"] in projects and args["fileName"] not in ("brief.md", "progress.md")
    out = tmp_path / "tasks.jsonl"
    write_outputs(result, out)
    ok, total = replay_all(spec, out)
    assert total == len(result.tasks) >= 30 and ok == total


def test_a_write_only_fingerprints_leave_out_is_kept_only_before_a_call_that_needs_it(
    folders: tuple[Path, Any],
) -> None:
    _, result = folders
    staged = [t for t in result.tasks if any(c["name"] == "stage_file" for c in t.reference_calls)]
    assert staged, "no task stages a file: a write seen only by the snapshot was refused"
    for task in staged:
        names = [c["name"] for c in task.reference_calls]
        last_stage = max(i for i, n in enumerate(names) if n == "stage_file")
        assert "commit_staged" in names[last_stage + 1 :], names
    assert result.stats["rejections"].get("write changed only what fingerprints leave out", 0) >= 1
    # a tool that never changes what a judge sees stops being drawn, and is reported
    assert result.stats["unverifiable_tools"] == ["refresh_cache"]
    assert "refresh_cache" not in result.stats["tools_used"]
    from gym_mcp.synth.report import report_text

    assert "unverifiable tools (never changed the state a judge sees): refresh_cache" in report_text(result.stats)


def test_nested_records_carry_their_parents_ids_so_one_call_draws_one_record() -> None:
    data = {
        "requests": [
            {"requestId": f"req-{r}", "tasks": [{"id": f"task-{r}{t}", "title": f"T{r}{t}"} for t in range(3)]}
            for r in range(1, 5)
        ]
    }
    pools = EntityPools(state_tables("json", data=json.dumps(data).encode()))
    spec = infer_spec(tool("update_task", {"requestId": {"type": "string"}, "taskId": {"type": "string"}}), pools).spec
    filler = ArgumentFiller(pools, [], 0.0)
    rng = random.Random(0)
    pairs = [filler.fill(spec, rng, [], {}) for _ in range(200)]
    assert all(p is not None for p in pairs)
    own = [p[0]["taskId"].startswith(p[0]["requestId"].replace("req", "task")) for p in pairs if p is not None]
    # drawn from one record 7 times in 10, as the kit's ids are (independent draws: 1 in 4)
    assert sum(own) / len(own) > 0.65, sum(own)


def test_a_parameter_named_in_another_case_draws_from_its_column() -> None:
    pools = EntityPools({"records": [{"deviceSN": "SN-1001", "modelName": "helmet"}]})
    inferred = infer_spec(tool("create_record", {"device_sn": {"type": "string"}}), pools)
    assert inferred.reason is None and inferred.spec.pools == {"device_sn": "deviceSN"}


def test_a_verb_at_the_end_of_a_name_and_the_new_thing_its_description_names() -> None:
    pools = EntityPools({"folders": [{"path": "apollo", "directory": "apollo", "folder_name": "apollo"}]})
    props = {"projectName": {"type": "string"}, "fileName": {"type": "string"}, "content": {"type": "string"}}
    spec = infer_spec(
        tool("memory_bank_write", props, description="Create a new memory bank file for a specific project"), pools
    ).spec
    assert spec.write and spec.intent is not None and spec.intent.startswith("Write the memory bank")
    assert spec.pools == {"projectName": "folder_name"}  # an existing project
    assert "projectName" not in spec.samples and spec.samples["fileName"][0].endswith((".txt", ".md"))
    read = infer_spec(tool("memory_bank_read", {"projectName": {"type": "string"}}), pools).spec
    assert not read.write


def test_a_qualifier_is_said_once_and_a_branch_name_is_a_slug() -> None:
    pools = EntityPools({"requests": [{"requestId": "req-1"}]})
    spec = infer_spec(
        tool("add_tasks_to_request", {"requestId": {"type": "string"}, "note": {"type": "string"}}), pools
    ).spec
    assert spec.intent is not None and spec.intent.count("to request") == 1, spec.intent
    branch = infer_spec(
        tool("git_create_branch", {"repo_path": {"type": "string"}, "branch_name": {"type": "string"}}), pools
    ).spec
    assert all(" " not in v for v in branch.samples["branch_name"])
