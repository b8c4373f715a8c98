"""``gym-mcp eval`` on task files without expected fingerprints, run as a real subprocess.

A task with reference calls but no fingerprint is scored against the state its reference calls
produce; a task with neither cannot be judged on state: the eval says so in one line, reports
success as n/a (None in the JSON) over such tasks, and keeps the reward apart.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gym_mcp.synth import SynthConfig, synthesize

CLI = [sys.executable, "-m", "gym_mcp.cli"]
ENV = "gym_mcp/Banking-v0"
HAND_WRITTEN = [
    {"id": "free-1", "server": "banking", "instruction": "Look around the accounts of customer CUS-1001."},
    {"id": "free-2", "server": "banking", "instruction": "Tidy up my cards."},
    {"id": "free-3", "server": "banking", "instruction": "Is anything odd on ACC-1001?"},
]


def _write(path: Path, tasks: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(t) + "\n" for t in tasks))
    return path


def _eval(tasks: Path, out: Path, *extra: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    policies = ["--policy", "reference", "--policy", "noop"]
    ran = subprocess.run(
        [*CLI, "eval", "--env", ENV, "--tasks", str(tasks), *policies, "-o", str(out), "--quiet", *extra],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    return ran, json.loads((out / "results.json").read_text())


@pytest.fixture(scope="module")
def synthesized() -> list[dict[str, Any]]:
    """Synthesized banking tasks with chains (they have reference calls), fingerprints removed."""
    tasks = [t.to_dict() for t in synthesize("banking", SynthConfig(n=6, seed=3, max_chain=2)).tasks]
    chains = [t for t in tasks if t["reference_calls"]]
    assert len(chains) >= 4
    for t in chains:
        del t["expected_fingerprint"]
    return chains


def test_no_fingerprint_and_no_reference_calls_cannot_be_scored(tmp_path: Path) -> None:
    ran, data = _eval(_write(tmp_path / "free.jsonl", HAND_WRITTEN), tmp_path / "out", "--reward", "grounded")
    notes = [line for line in ran.stdout.splitlines() if line.startswith("note:")]
    assert notes == [
        f"note: 3 of 3 tasks on {ENV} have no expected_fingerprint and no reference calls to replay for one, "
        "so success cannot be judged on state; give them reference calls (the environment replays them to "
        "record the fingerprint) or make tasks with `gym-mcp synth` (mean reward is the reward function's, "
        "not success)"
    ]
    rows = [line for line in ran.stdout.splitlines() if line.startswith(("reference", "noop"))]
    assert len(rows) == 2 and all("success n/a  pass^1 n/a  mean reward" in row for row in rows)
    for policy in ("reference", "noop"):
        m = data["metrics"][policy][ENV]
        assert (m["tasks"], m["unscorable"], m["scored_episodes"]) == (3, 3, 0)
        assert m["success_rate"] is None
        assert m["pass^k"] == {"1": None}
        assert all(b["success_rate"] is None for b in m["by_difficulty"].values())
        assert isinstance(m["mean_reward"], float)  # the reward is still reported, apart from success
    assert all(e["success"] is None and e["scorable"] is False for e in data["episodes"])
    report = (tmp_path / "out" / "results.md").read_text()
    assert f"> {notes[0]}" in report
    assert f"| reference | {ENV} | 3 | n/a | n/a |" in report


def test_reference_calls_stand_in_for_a_missing_fingerprint(tmp_path: Path, synthesized: list[dict[str, Any]]) -> None:
    tasks = _write(tmp_path / "mixed.jsonl", [*synthesized, *HAND_WRITTEN])
    ran, data = _eval(tasks, tmp_path / "out")
    n, free = len(synthesized), len(HAND_WRITTEN)
    notes = [line for line in ran.stdout.splitlines() if line.startswith("note:")]
    assert len(notes) == 1
    assert notes[0].startswith(f"note: {free} of {n + free} tasks on {ENV} have no expected_fingerprint")
    assert f"so success cannot be judged on state for them and is over the other {n} tasks" in notes[0]
    ref = data["metrics"]["reference"][ENV]
    assert (ref["unscorable"], ref["scored_episodes"], ref["replayed_fingerprints"]) == (free, n, n)
    assert ref["success_rate"] == 1.0  # over the scorable tasks only: the reference calls reach their own state
    assert ref["pass^k"] == {"1": 1.0}
    assert data["metrics"]["noop"][ENV]["success_rate"] == 0.0
    assert "success 100.0%" in next(line for line in ran.stdout.splitlines() if line.startswith("reference"))
    scored = [e for e in data["episodes"] if e["scorable"]]
    assert {e["task_id"] for e in scored} == {t["id"] for t in synthesized}
    assert all(isinstance(e["success"], bool) for e in scored)


def test_fingerprinted_tasks_print_no_note(tmp_path: Path) -> None:
    tasks = [t.to_dict() for t in synthesize("banking", SynthConfig(n=4, seed=5, max_chain=2)).tasks]
    ran, data = _eval(_write(tmp_path / "tasks.jsonl", tasks), tmp_path / "out", "--reward", "grounded")
    assert "note:" not in ran.stdout
    ref = data["metrics"]["reference"][ENV]
    assert (ref["unscorable"], ref["replayed_fingerprints"], ref["success_rate"]) == (0, 0, 1.0)
    assert ref["mean_reward"] == pytest.approx(1.0)  # grounded: the reference run is a lean success
    assert data["metrics"]["noop"][ENV]["mean_reward"] < 0.45  # every failure below the pass floor
