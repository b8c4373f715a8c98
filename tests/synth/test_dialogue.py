"""Dialogue tasks from the synthesizer: every kind, on every bundled server, verified against the scripted user."""

from __future__ import annotations

from pathlib import Path

import pytest

from gym_mcp import MCPEnv
from gym_mcp.playback import play
from gym_mcp.synth import SynthConfig, synthesize
from gym_mcp.tasks import DIALOGUE_KINDS, Task, load_tasks, save_tasks

SERVERS = ("banking", "shopping", "calendar")


@pytest.fixture(scope="module", params=SERVERS)
def dialogue_tasks(request: pytest.FixtureRequest) -> list[Task]:
    return synthesize(request.param, SynthConfig.dialogue(n=30, seed=3)).tasks


def _without_asking(task: Task) -> list[object]:
    """The task's reference dialogue with every request for a yes left out (acting at once)."""
    return [a for a in task.reference_dialogue() if not (isinstance(a, str) and a.endswith("Shall I go ahead?"))]


def test_every_kind_is_made_and_labelled(dialogue_tasks: list[Task]) -> None:
    kinds = {t.variant for t in dialogue_tasks}
    assert len(kinds & set(DIALOGUE_KINDS)) >= 3, kinds
    for task in dialogue_tasks:
        if task.variant in DIALOGUE_KINDS:
            assert task.user is not None and task.user.turns and task.hidden_goal
            assert task.instruction == task.user.stages[0].request
        if task.variant == "staged":
            assert len(task.user.stages) == 2  # type: ignore[union-attr]
        if task.variant in ("confirmation", "change_of_mind"):
            assert task.user.confirm  # type: ignore[union-attr]
        if task.variant == "change_of_mind":
            assert task.user.revised  # type: ignore[union-attr]
        if task.variant == "missing_param":
            assert task.user.withheld  # type: ignore[union-attr]


def test_reference_dialogue_scores_and_shortcuts_do_not(dialogue_tasks: list[Task], tmp_path: Path) -> None:
    save_tasks(dialogue_tasks, tmp_path / "t.jsonl")
    tasks = load_tasks(tmp_path / "t.jsonl")
    assert tasks == dialogue_tasks
    env = MCPEnv(tasks[0].server, user="scripted", max_steps=40)
    try:
        for task in tasks:
            if task.variant not in DIALOGUE_KINDS:
                continue
            info = play(env, task, task.reference_dialogue()).info
            assert info["reward_terms"]["success"] == 1.0, (task.id, info["messages"])
            if task.variant == "missing_param":  # the calls with the right values, never asking
                info = play(env, task, [*map(dict, task.reference_calls), "All done."]).info
                assert info["reward_terms"]["success"] == 0.0, task.id
                assert info["reward_terms"]["asked_when_needed"] == 0.0
            if task.variant in ("confirmation", "change_of_mind"):  # acting without asking for a yes
                info = play(env, task, _without_asking(task)).info
                assert info["reward_terms"]["success"] == 0.0, task.id
    finally:
        env.close()


def test_default_synthesis_is_unchanged_by_dialogue() -> None:
    tasks = synthesize("banking", SynthConfig(n=20, seed=2)).tasks
    assert {t.variant for t in tasks} <= {"complete", "missing_param", "distractors", "irrelevant"}
    assert all(t.user is None for t in tasks if t.variant != "missing_param")


def test_with_ask_to_confirm_every_irreversible_action_is_asked_for_first() -> None:
    """A run with a user shows "Ask the user to confirm" on those tools: no reference may skip it."""
    from gym_mcp.servers import get_kit
    from gym_mcp.tasks.dialogue import needs_confirmation

    rules = {name: info.confirm for name, info in get_kit("banking").tools.items()}
    plain = synthesize("banking", SynthConfig(n=60, seed=4)).tasks
    asked = synthesize("banking", SynthConfig(n=60, seed=4, ask_to_confirm=True)).tasks

    def needs(task: Task) -> bool:
        return any(needs_confirmation(rules[c["name"]], c["arguments"]) for c in task.reference_calls)

    # the same requests; those with an irreversible action now carry a user that asks first
    assert [(t.id, t.variant, t.reference_calls) for t in plain] == [
        (t.id, t.variant, t.reference_calls) for t in asked
    ]
    acting = [t for t in asked if t.variant in ("complete", "distractors") and needs(t)]
    assert len(acting) >= 3
    assert all(t.user is None for t in plain if t.variant in ("complete", "distractors"))
    env = MCPEnv("banking", user="scripted", max_steps=40)
    try:
        for task in acting:
            assert task.user is not None and task.user.confirm, task.id
            info = play(env, task, task.reference_dialogue()).info
            assert info["reward_terms"]["success"] == 1.0, (task.id, info["messages"])
            info = play(env, task, _without_asking(task)).info
            assert info["reward_terms"]["success"] == 0.0, task.id
    finally:
        env.close()
