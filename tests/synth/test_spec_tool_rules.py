"""Synthesis for a spec file honours its ``[tools]`` rules, as the spec's environment does.

The bundled banking server runs as a third-party process (``python -m gym_mcp.servers.banking
--db sqlite:///{state}``) from a spec written here, which hides ``deposit`` (a write tool with an
intent template, so synthesis would otherwise call it) and renames ``transfer_funds`` to
``move_money``. Every task must call only tools the agent sees, by the names it sees them, and
replay to reward 1.0 through ``gym.make("gym_mcp/External-v0", spec=...)``.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import gym_mcp
from gym_mcp import BundledSource, Task, save_tasks
from gym_mcp.cli import main
from gym_mcp.evaluation import EvalConfig, evaluate
from gym_mcp.live import spec_source
from gym_mcp.policies import ReferencePolicy
from gym_mcp.servers import get_kit
from gym_mcp.specs import load_spec
from gym_mcp.synth import SynthConfig, SynthResult, synthesize
from gym_mcp.synth.graph import kit_tools
from gym_mcp.synth.pipeline import _Synthesizer

HIDDEN = "deposit"
OLD, NEW = "transfer_funds", "move_money"
N = 10


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One graph cache for the module's runs (the later ones skip learning the tool graph)."""
    folder = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GYM_MCP_HOME", str(folder))
        yield folder


@pytest.fixture(scope="module")
def spec(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A spec file for the banking server as a process, seeded with the bundled seed-0 data."""
    folder = tmp_path_factory.mktemp("bank-spec")
    (folder / "bank.db").write_bytes(BundledSource("banking").initial_snapshot(0).data)
    volatile = ", ".join(
        f"{table} = {json.dumps(sorted(columns))}"
        for table, columns in sorted(get_kit("banking").volatile_columns.items())
        if columns
    )
    command = [sys.executable, "-m", "gym_mcp.servers.banking", "--db", "sqlite:///{state}"]
    path = folder / "bank.toml"
    path.write_text(
        f"""name = "bank"
command = {json.dumps(command)}

[state]
kind = "sqlite"
path = "bank.db"
volatile = {{ {volatile} }}

[tools]
hide = ["{HIDDEN}"]
rename = {{ {OLD} = "{NEW}" }}
"""
    )
    return path


@pytest.fixture(scope="module")
def result(spec: Path, home: Path) -> SynthResult:
    return synthesize(str(spec), SynthConfig(n=N, seed=0))


def _tool_names(task: Task) -> set[str]:
    """Every tool name a task carries: reference calls, tools used, distractors, the user's dialogue."""
    names = {str(c["name"]) for c in task.reference_calls} | set(task.metadata.get("tools", []))
    names |= {t["function"]["name"] for t in task.metadata.get("distractor_tools", [])}
    if task.user is not None:
        names |= {str(turn["name"]) for turn in task.user.turns if "name" in turn}
    return names


def _agent_tools(spec: Path) -> set[str]:
    """The tool names an environment made from the spec shows the agent."""
    env = gym.make("gym_mcp/External-v0", spec=str(spec))
    try:
        return {t["function"]["name"] for t in env.unwrapped.tools}  # type: ignore[attr-defined]
    finally:
        env.close()


def _replay_rewards(spec: Path, tasks: list[Task], **env_kwargs: Any) -> list[float]:
    """Each task's reward when the reference policy plays it in ``gym.make("gym_mcp/External-v0", spec=...)``."""
    out = evaluate(
        [("gym_mcp/External-v0", tasks)],
        {"reference": ReferencePolicy},
        EvalConfig(max_steps=50),
        env_kwargs={"spec": str(spec), **env_kwargs},
    )
    return [episode["reward"] for episode in out.episodes]


def test_the_hidden_tool_is_one_synthesis_would_use() -> None:
    tools = {t.name: t for t in kit_tools(get_kit("banking"))}
    for name in (HIDDEN, OLD):
        meta = tools[name].meta or {}
        assert meta.get("gym_mcp/kind") == "write" and meta.get("gym_mcp/intent"), name


def test_tasks_call_no_hidden_tool_and_the_renamed_one_by_its_new_name(spec: Path, result: SynthResult) -> None:
    assert len(result.tasks) == N
    shown = _agent_tools(spec)
    assert HIDDEN not in shown and OLD not in shown and NEW in shown
    called = set()
    for task in result.tasks:
        names = _tool_names(task)
        assert HIDDEN not in names and OLD not in names, (task.id, names)
        assert {str(c["name"]) for c in task.reference_calls} <= shown, task.id
        assert OLD not in json.dumps(task.to_dict()), task.id
        called |= {str(c["name"]) for c in task.reference_calls}
    assert NEW in called  # the renamed tool is used, under the name the agent sees
    stats = result.stats
    assert HIDDEN not in stats["tools_used"] and OLD not in stats["tools_used"]
    assert HIDDEN not in stats["tools_unused"] and NEW in stats["tools_used"]
    assert stats["hidden_tools"] == [HIDDEN] and stats["renamed_tools"] == {OLD: NEW}


def test_every_task_replays_to_reward_one_through_gym_make_with_the_spec(spec: Path, result: SynthResult) -> None:
    assert _replay_rewards(spec, result.tasks) == [1.0] * N


def test_no_hidden_or_server_named_tool_is_offered_as_a_distractor(spec: Path, home: Path) -> None:
    # The spec server is named "bank", so the bundled banking kit's tools are in the distractor
    # pool; its deposit and transfer_funds are this server's own (hidden, renamed) tools.
    loaded = load_spec(spec)
    synth = _Synthesizer(
        "bank",
        spec_source(loaded),
        SynthConfig(n=1),
        None,
        hide_tools=loaded.hide_tools,
        rename_tools=loaded.rename_tools,
    )
    try:
        pool = {pick["name"] for pick in synth._distractor_pool()}
        assert pool  # other servers' tools are offered
        assert not pool & {HIDDEN, OLD, NEW}
        assert HIDDEN not in synth.by_name and OLD not in synth.by_name and NEW in synth.by_name
    finally:
        synth.close()


def test_a_source_takes_the_rules_as_keywords_and_gives_the_same_tasks(spec: Path, result: SynthResult) -> None:
    loaded = load_spec(spec)
    again = synthesize(
        spec_source(loaded), SynthConfig(n=N, seed=0), hide_tools=loaded.hide_tools, rename_tools=loaded.rename_tools
    )
    assert [t.to_dict() for t in again.tasks] == [t.to_dict() for t in result.tasks]


def test_cli_synth_with_a_spec_writes_the_same_tasks(
    spec: Path, result: SynthResult, home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "bank.jsonl"
    assert main(["synth", "--spec", str(spec), "-n", str(N), "-o", str(out), "--quiet"]) == 0
    assert f"(seed 0; hidden: {HIDDEN}; renamed: {OLD} -> {NEW})" in capsys.readouterr().err
    expected = tmp_path / "expected.jsonl"
    save_tasks(result.tasks, expected)
    assert out.read_bytes() == expected.read_bytes()
    report = out.with_suffix(".report.txt").read_text()
    assert f"tools as the agent sees them: hidden {HIDDEN}; renamed {OLD} -> {NEW}" in report


def test_dialogue_tasks_replay_through_the_spec_env_with_a_scripted_user(spec: Path, home: Path) -> None:
    dialogue = synthesize(str(spec), SynthConfig.dialogue(n=6, seed=2))
    assert all(HIDDEN not in _tool_names(t) and OLD not in _tool_names(t) for t in dialogue.tasks)
    # the reference dialogue is verified through the view too: a dialogue that calls the renamed tool survives it
    assert any(t.user is not None and NEW in _tool_names(t) for t in dialogue.tasks)
    rewards = _replay_rewards(spec, dialogue.tasks, user="scripted", max_user_turns=100)
    assert rewards == [1.0] * len(dialogue.tasks)


def test_a_compositions_bridges_follow_renamed_tools_and_skip_hidden_ones(home: Path) -> None:
    # shop_bank's bridges carry an order's total into bank.pay_payee, bank.transfer_funds and bank.withdraw
    hide = ["bank.withdraw"]
    rename = {"bank.pay_payee": "bank.pay_it", "bank.transfer_funds": "bank.move_money"}
    made = synthesize("shop_bank", SynthConfig(n=N, seed=0), hide_tools=hide, rename_tools=rename)
    sequences = [[str(c["name"]) for c in t.reference_calls] for t in made.tasks]
    assert not any({"bank.withdraw", *rename} & _tool_names(t) for t in made.tasks)
    bridged = {("shop.checkout", "bank.pay_it"), ("shop.get_order", "bank.pay_it")}
    assert any(bridged & set(itertools.pairwise(names)) for names in sequences), sequences
    out = evaluate(
        [(gym_mcp.env_id("shop_bank"), made.tasks)],
        {"reference": ReferencePolicy},
        EvalConfig(max_steps=50),
        env_kwargs={"hide_tools": hide, "rename_tools": rename},
    )
    assert [e["reward"] for e in out.episodes] == [1.0] * N
