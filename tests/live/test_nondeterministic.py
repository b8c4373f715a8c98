"""A server that mints random ids and timestamps: replay proves determinism, or finds where it fails.

The server (`tests/live/servers/notes_random_ids.py`) runs over stdio as a third-party server
would, wrapped by a spec file that declares no volatile column. Synthesis must find the minted
columns, judge them as volatile (or refuse the tasks), carry a new note's id from the call that
minted it into the call that takes it, and every kept task must replay to reward 1.0 in a
fresh `gym_mcp/External-v0`. A hand-written task on it warns once; a bundled server never.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium as gym
import pytest

from gym_mcp import Task
from gym_mcp.errors import NondeterministicTaskWarning, SynthError
from gym_mcp.playback import replay
from gym_mcp.policies import ReferencePolicy
from gym_mcp.synth import SynthConfig, synthesize

SERVER = Path(__file__).parent / "servers" / "notes_random_ids.py"
MINTED = {"notes": ["created_at", "id", "updated_at"]}


@pytest.fixture(scope="module")
def notes_spec(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A spec for the notes server, its seed database beside it; no ``volatile`` declared."""
    folder = tmp_path_factory.mktemp("notes")
    subprocess.run([sys.executable, str(SERVER), "--seed", str(folder / "notes.db")], check=True)
    spec = folder / "notes.toml"
    spec.write_text(
        f"""
name = "notes-random"
command = [{str(sys.executable)!r}, {str(SERVER)!r}, "{{state}}"]

[state]
kind = "sqlite"
path = "notes.db"
"""
    )
    return spec


@pytest.fixture(scope="module")
def synthesized(notes_spec: Path) -> tuple[list[Task], dict, str]:
    """Tasks synthesized on the notes server (default setting: mark volatile), and what stderr said."""
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        result = synthesize(notes_spec, SynthConfig(n=14, seed=3))
    return result.tasks, result.stats, err.getvalue()


def test_synthesis_finds_the_minted_columns_and_says_so(synthesized: tuple[list[Task], dict, str]) -> None:
    tasks, stats, stderr = synthesized
    found = stats["nondeterministic"]
    assert found["setting"] == "volatile"
    assert found["volatile"] == MINTED
    assert found["tasks_marked"] >= 1 and found["tasks_refused"] == 0
    block = 'volatile = { notes = ["created_at", "id", "updated_at"] }'
    assert found["spec_lines"] == [block]
    assert "notes: created_at, id, updated_at" in stderr and f"[state]\n{block}" in stderr
    from gym_mcp.synth.report import report_text

    assert f"[state]\n{block}" in report_text(stats)
    # every task is judged with every minted column, not only the ones its own replays showed
    assert all(t.metadata["volatile"] == MINTED for t in tasks)
    assert any(t.metadata.get("flows") for t in tasks), "no task carries a minted id into a later call"


def test_every_kept_task_replays_to_reward_one_in_a_fresh_env(
    notes_spec: Path, synthesized: tuple[list[Task], dict, str]
) -> None:
    tasks, _, _ = synthesized
    env = gym.make("gym_mcp/External-v0", spec=str(notes_spec), tasks=tasks)
    try:
        for task in tasks:
            result = replay(env, task, answer="Done.")
            assert result.ok, (task.id, result.failed)
            assert result.info["state_match"], task.id
            assert result.info["reward_terms"]["reward"] == 1.0, task.id
        # the reference policy carries minted ids too
        flowing = next(t for t in tasks if t.metadata.get("flows"))
        policy = ReferencePolicy()
        obs, info = env.reset(options={"task": flowing})
        policy.reset(flowing, info)
        done, reward = False, 0.0
        while not done:
            obs, reward, terminated, truncated, info = env.step(policy.act(obs, info))
            done = terminated or truncated
        assert reward == 1.0
    finally:
        env.close()


def test_a_minted_id_from_the_synthesis_run_is_not_what_replay_passes(
    notes_spec: Path, synthesized: tuple[list[Task], dict, str]
) -> None:
    tasks, _, _ = synthesized
    flowing = next(t for t in tasks if t.metadata.get("flows"))
    flow = flowing.metadata["flows"][0]
    recorded = flowing.reference_calls[flow["target"]]["arguments"][flow["param"]]
    env = gym.make("gym_mcp/External-v0", spec=str(notes_spec), tasks=[flowing])
    try:
        result = replay(env, flowing)
        sent = env.unwrapped.episode().calls[flow["target"]].arguments[flow["param"]]
        assert result.ok and sent != recorded  # a fresh id, carried from this run's output
        bare = Task.from_dict({**flowing.to_dict(), "metadata": {}})  # without its flows it fails
        assert not replay(env, bare).ok
    finally:
        env.close()


def test_a_request_never_spells_out_a_value_the_server_mints_anew(
    synthesized: tuple[list[Task], dict, str],
) -> None:
    """A minted id that the request names (not "that note") would be stale at every replay: refused."""
    tasks, stats, _ = synthesized
    assert stats["rejections"].get("the request names a value the server mints", 0) >= 1
    for task in tasks:
        for flow in task.metadata.get("flows", []):
            minted = task.reference_calls[flow["target"]]["arguments"][flow["param"]]
            assert str(minted) not in task.instruction, (task.id, task.instruction)


def test_refuse_setting_refuses_the_tasks_with_the_reason(notes_spec: Path) -> None:
    with pytest.raises(SynthError, match=r"replays differ \(notes: "):
        synthesize(
            notes_spec, SynthConfig(n=2, seed=1, max_attempts=4, nondeterministic="refuse", variants={"complete": 1.0})
        )


def test_a_bad_setting_is_one_line() -> None:
    with pytest.raises(SynthError, match="nondeterministic must be 'volatile' or 'refuse', got 'maybe'"):
        SynthConfig(nondeterministic="maybe")  # type: ignore[arg-type]


def test_a_hand_written_task_warns_once_and_is_judged_without_the_minted_columns(notes_spec: Path) -> None:
    call = {"name": "add_note", "arguments": {"contact_id": "CON-1002", "text": "Sent the contract"}}
    task = Task(
        id="hand-written-note",
        server="notes-random",
        instruction="Add 'Sent the contract' to CON-1002.",
        reference_calls=(call,),
    )
    env = gym.make("gym_mcp/External-v0", spec=str(notes_spec), tasks=[task])
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rewards = []
            for _ in range(3):
                env.reset(seed=0)
                env.step(dict(call))
                _, reward, *_ = env.step("Done.")
                rewards.append(reward)
            env.reset(seed=0)
            env.step({"name": "add_note", "arguments": {"contact_id": "CON-1003", "text": "Sent the contract"}})
            _, wrong, *_ = env.step("Done.")
    finally:
        env.close()
    ours = [w for w in caught if issubclass(w.category, NondeterministicTaskWarning)]
    assert len(ours) == 1, [str(w.message) for w in caught]
    text = str(ours[0].message)
    assert "'hand-written-note'" in text and "notes: created_at, id" in text
    assert 'volatile = { notes = ["created_at", "id"] }' in text
    assert rewards == [1.0, 1.0, 1.0]
    assert wrong == 0.0  # the note on another contact is still another state


def test_a_deterministic_bundled_server_never_warns() -> None:
    call = {"name": "deposit", "arguments": {"account_id": "ACC-1003", "amount": 9.0}}
    task = Task(id="hand-written", server="banking", instruction="Deposit $9 into ACC-1003.", reference_calls=(call,))
    env = gym.make("gym_mcp/Banking-v0", tasks=[task])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", NondeterministicTaskWarning)
            env.reset(seed=0)
            env.step(dict(call))
            _, reward, *_ = env.step("Done.")
    finally:
        env.close()
    assert reward == 1.0
