"""Named compositions: several bundled servers in one environment, the same people in each part,
and synthesized tasks whose calls cross servers along the compositions' bridges."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import gymnasium as gym

import gym_mcp
from gym_mcp import CompositeState, load_tasks
from gym_mcp.live import CompositionSource
from gym_mcp.servers.compositions import COMPOSITIONS
from gym_mcp.synth import SynthConfig, synthesize, write_outputs


def _part_db(source: CompositionSource, part: str) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.deserialize(CompositeState.unpack(source.initial_snapshot(0))[part].data)
    return conn


def test_every_composition_is_an_environment_with_namespaced_tools() -> None:
    assert len(COMPOSITIONS) >= 5
    for name, composition in COMPOSITIONS.items():
        env = gym.make(gym_mcp.env_id(name))
        try:
            _, info = env.reset(seed=0)
            prefixes = {t["function"]["name"].split(".", 1)[0] for t in info["tools"]}
            assert prefixes == set(composition.parts), name
            names = {t["function"]["name"] for t in info["tools"]}
            for bridge in composition.bridges:  # every bridge joins two tools that exist
                assert {bridge.source, bridge.target} <= names, (name, bridge)
                assert bridge.source.split(".")[0] != bridge.target.split(".")[0], (name, bridge)
        finally:
            env.close()


def test_parts_are_aligned_on_the_same_people() -> None:
    source = CompositionSource("shop_bank")
    shop, bank = _part_db(source, "shop"), _part_db(source, "bank")
    people = shop.execute("SELECT id, name, email FROM customers ORDER BY id").fetchall()
    same = 0
    for cid, name, email in people:
        row = bank.execute(
            "SELECT first_name || ' ' || last_name, email FROM customers WHERE id = ?", (cid,)
        ).fetchone()
        same += row == (name, email)
    assert same >= len(people) - 2  # all but an email already taken in the bank's seed
    # a part on its own keeps its own seed: alignment is the composition's, not the server's
    from gym_mcp.live import BundledSource

    alone = sqlite3.connect(":memory:")
    alone.deserialize(BundledSource("banking").initial_snapshot(0).data)
    assert (
        alone.execute("SELECT email FROM customers ORDER BY id").fetchall()
        != bank.execute("SELECT email FROM customers ORDER BY id").fetchall()
    )


def test_synthesized_tasks_cross_servers_and_replay_to_reward_one(tmp_path: Path) -> None:
    result = synthesize("shop_bank", SynthConfig(n=40, seed=3))
    tasks = result.tasks
    assert len(tasks) >= 38
    multi = [t for t in tasks if len({c["name"].split(".")[0] for c in t.reference_calls}) >= 2]
    assert len(multi) >= len(tasks) / 2
    bridged = [t for t in multi if "that total" in t.instruction]
    assert bridged, "no task carries an order's total into a bank call"
    path = tmp_path / "tasks.jsonl"
    write_outputs(result, path)
    env = gym.make(gym_mcp.env_id("shop_bank"), tasks=str(path), max_steps=20)
    try:
        for task in load_tasks(path):
            env.reset(options={"task_id": task.id})
            outputs: dict[str, Any] = {}
            for call in task.reference_calls:
                obs, *_ = env.step(dict(call))
                try:
                    outputs[call["name"]] = json.loads(str(obs))
                except ValueError:
                    outputs[call["name"]] = None
            if task in bridged:  # the amount paid is the total the shop returned, at run time too
                order = next(o for n, o in outputs.items() if n.startswith("shop.") and isinstance(o, dict))
                paid = [c for c in task.reference_calls if c["name"].startswith("bank.")]
                assert any(c["arguments"].get("amount") == order.get("total") for c in paid), task.instruction
            _, reward, *_ = env.step("Done.")
            assert reward == 1.0, task.id
    finally:
        env.close()
