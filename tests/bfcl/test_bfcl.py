"""BFCL v3 multi-turn through the gym: live MCP servers over BFCL's backends, BFCL's own scoring.

Needs the [bfcl] extra (the README's test command installs it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

pytest.importorskip("bfcl_eval", reason="the [bfcl] extra is not installed")

import gym_mcp
from gym_mcp.bfcl import (
    CATEGORIES,
    BFCLMultiTurnEnv,
    entries,
    entry,
    ground_truth,
    ground_truth_calls,
    openai_tools,
    score,
)
from gym_mcp.errors import ConfigError


def _replay(env: gym.Env, turns: list[list[dict[str, Any]]]) -> tuple[float, dict[str, Any]]:
    """Each turn's calls in one step, then a reply that ends the turn; returns BFCL's reward and info."""
    reward, info = 0.0, {}
    for calls in turns:
        if calls:
            _, _, terminated, truncated, info = env.step(calls)
            assert not (terminated or truncated)
        _, r, terminated, truncated, info = env.step("Done.")
        reward = float(r)
    assert terminated and not truncated
    return reward, info


def _truth_calls(e: dict[str, Any]) -> list[list[dict[str, Any]]]:
    return [ground_truth_calls(t, e["involved_classes"]) for t in ground_truth(e["id"])]


def _direct_verdict(e: dict[str, Any], turns: list[list[dict[str, Any]]]) -> tuple[bool, str | None]:
    """BFCL's checker called directly on what BFCL's decoder makes of the same calls (no gym)."""
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker
    from bfcl_eval.model_handler.utils import convert_to_function_call

    decoded = [
        [convert_to_function_call([{c["name"]: json.dumps(c["arguments"])} for c in calls])] if calls else []
        for calls in turns
    ]
    name = f"direct_{uuid.uuid4().hex}"
    try:
        result = multi_turn_checker(decoded, ground_truth(e["id"]), e, e["id"].rsplit("_", 1)[0], name)
    finally:
        for key in [k for k in vars(multi_turn_utils) if k.startswith(name)]:
            del vars(multi_turn_utils)[key]
    return bool(result["valid"]), result.get("error_type")


def _altered(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 7
    if isinstance(value, str):
        return value + "_x"
    if isinstance(value, list):
        return [*value, "extra"] if value else ["extra"]
    if isinstance(value, dict):
        return {**value, "extra": 1}
    return "changed"


def _corrupt(turns: list[list[dict[str, Any]]], index: int, how: str) -> list[list[dict[str, Any]]]:
    """Drop one ground-truth call, or alter one argument of one (which one depends on ``index``)."""
    out = [[{"name": c["name"], "arguments": dict(c["arguments"])} for c in t] for t in turns]
    spots = [(t, i) for t, calls in enumerate(out) for i, c in enumerate(calls) if how == "drop" or c["arguments"]]
    if not spots:
        return out
    t, i = spots[index % len(spots)]
    if how == "drop":
        del out[t][i]
    else:
        key = sorted(out[t][i]["arguments"])[0]
        out[t][i]["arguments"][key] = _altered(out[t][i]["arguments"][key])
    return out


@pytest.fixture(scope="module")
def envs() -> dict[str, gym.Env]:
    made = {c: gym.make(gym_mcp.BFCL_ID, category=c) for c in CATEGORIES}
    yield made
    for env in made.values():
        env.close()


@pytest.mark.parametrize("category", CATEGORIES)
def test_ground_truth_replay_scores_every_entry(envs: dict[str, gym.Env], category: str) -> None:
    env = envs[category]
    passed, failed = 0, []
    all_entries = entries(category)
    assert len(all_entries) == 200
    for e in all_entries:
        env.reset(options={"entry": e["id"]})
        reward, info = _replay(env, _truth_calls(e))
        assert info["bfcl"]["valid"] == (reward == 1.0)
        if reward == 1.0:
            passed += 1
        else:
            failed.append((e["id"], info["bfcl"]))
    # miss_func included: the one entry whose ground truth calls a function before BFCL reveals
    # it (multi_turn_miss_func_49, `tail` in turn 1, revealed in turn 3) passes too, because the
    # call is attempted and recorded, and BFCL's executor runs held-out functions.
    assert passed == 200, failed[:5]


@pytest.mark.parametrize("category", CATEGORIES)
def test_corrupted_trajectories_get_the_checkers_verdict(envs: dict[str, gym.Env], category: str) -> None:
    env = envs[category]
    zeros, compared, mismatches = 0, 0, []
    for n, e in enumerate(entries(category)):
        truth = _truth_calls(e)
        for how in ("drop", "alter"):
            bad = _corrupt(truth, n, how)
            if bad == truth:
                continue
            env.reset(options={"entry": e["id"]})
            reward, info = _replay(env, bad)
            valid, error_type = _direct_verdict(e, bad)
            compared += 1
            zeros += not valid
            if (reward == 1.0) != valid or (not valid and info["bfcl"]["error_type"] != error_type):
                mismatches.append((e["id"], how, reward, valid, info["bfcl"]["error_type"], error_type))
    assert not mismatches, mismatches[:5]
    assert compared >= 390
    assert zeros >= compared * 0.8  # a dropped or altered call almost always fails


def _bfcl_results(e: dict[str, Any], calls: list[dict[str, Any]]) -> list[str]:
    """What BFCL's own executor returns for these calls, in order, from the entry's initial state."""
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import execute_multi_turn_func_call
    from bfcl_eval.model_handler.utils import convert_to_function_call

    name = f"expect_{uuid.uuid4().hex}"
    strings = [convert_to_function_call([{c["name"]: json.dumps(c["arguments"])}])[0] for c in calls]
    try:
        results, _ = execute_multi_turn_func_call(strings, e["initial_config"], e["involved_classes"], name, e["id"])
    finally:
        for key in [k for k in vars(multi_turn_utils) if k.startswith(name)]:
            del vars(multi_turn_utils)[key]
    return list(results)


def _step_each(env: gym.Env, calls: list[dict[str, Any]]) -> list[str]:
    """One call per step: the observations are the calls' results."""
    return [env.step(call)[0] for call in calls]


def test_observations_are_bfcls_execution_results() -> None:
    """Every tool result the agent sees is the string BFCL's executor returns for the same call."""
    env = gym.make(gym_mcp.BFCL_ID, category="base")
    checked = 0
    try:
        for e in entries("base")[::4]:
            env.reset(options={"entry": e["id"]})
            calls = [c for turn in _truth_calls(e) for c in turn]
            assert _step_each(env, calls) == _bfcl_results(e, calls), e["id"]
            checked += len(calls)
    finally:
        env.close()
    assert checked > 100


def test_arguments_reach_the_backend_untouched() -> None:
    e = entry("multi_turn_base_0")
    calls = [
        {"name": "cd", "arguments": {"folder": "document", "force": True}},  # unknown keyword: not dropped
        {"name": "cd", "arguments": {"folder": "[1, 2]"}},  # a JSON-looking string stays a string
        {"name": "mkdir", "arguments": {"dir_name": 5}},  # a wrong type is not coerced to the schema's string
    ]
    env = gym.make(gym_mcp.BFCL_ID, category="base", entry=e["id"])
    try:
        env.reset()
        observed = _step_each(env, calls)
    finally:
        env.close()
    assert observed == _bfcl_results(e, calls)
    assert observed[0].startswith("Error during execution:") and "force" in observed[0]
    assert observed[2] == "Error during execution: argument of type 'int' is not iterable"
    math_entry = next(x for x in entries("base") if "MathAPI" in x["involved_classes"])
    env = gym.make(gym_mcp.BFCL_ID, category="base", entry=math_entry["id"])
    try:
        env.reset()
        ints, floats = _step_each(
            env, [{"name": "add", "arguments": {"a": 2, "b": 3}}, {"name": "add", "arguments": {"a": 2.0, "b": 3}}]
        )
    finally:
        env.close()
    assert ints == json.dumps({"result": 5})  # ints stay ints
    assert floats == json.dumps({"result": 5.0})


def test_tools_are_bfcls_schemas_and_change_when_bfcl_reveals_functions() -> None:
    e = next(x for x in entries("miss_func") if x["missed_function"])
    reveal_turn = int(next(iter(e["missed_function"])))
    held_out = {f["name"] for f in e["missed_function"][str(reveal_turn)]}
    env = gym.make(gym_mcp.BFCL_ID, category="miss_func", entry=e["id"])
    try:
        obs, info = env.reset()
        assert info["tools"] == openai_tools(e["function"])  # through MCP and back, unchanged
        assert not held_out & {t["function"]["name"] for t in info["tools"]}
        truth = _truth_calls(e)
        for turn in range(reveal_turn):
            if truth[turn]:
                env.step(truth[turn])
            obs, _, _, _, info = env.step("Done.")
        assert info["turn"] == reveal_turn
        assert obs == "I have updated some more functions you can choose from. What about now?"
        assert held_out <= {t["function"]["name"] for t in info["tools"]}
        # The server itself lists them now (a client that re-lists sees the change).
        listed = gym_mcp.transport.runner.run_sync(env.unwrapped.live.connection.list_tools())
        assert held_out <= {t.name for t in listed}
    finally:
        env.close()


def test_failing_turn_and_force_quit() -> None:
    e = entry("multi_turn_base_0")
    truth = _truth_calls(e)
    env = gym.make(gym_mcp.BFCL_ID, category="base", entry=e["id"])
    try:
        env.reset()
        bad = [list(t) for t in truth]
        bad[2] = []  # skip turn 2's calls
        reward, info = _replay(env, bad)
        assert reward == 0.0 and info["first_failing_turn"] == 2
        # 21 call steps in one turn: BFCL force-quits the turn, and the entry fails.
        env.reset()
        for i in range(21):
            obs, r, terminated, truncated, info = env.step({"name": "pwd", "arguments": {}})
            assert not terminated
            assert truncated == (i == 20)
        assert r == 0.0 and info["bfcl"]["error_type"] == "multi_turn:force_terminated"
        assert info["bfcl"]["failing_turn"] == 0
    finally:
        env.close()


def test_malformed_actions_are_error_observations() -> None:
    env = gym.make(gym_mcp.BFCL_ID, category="base", entry=3)
    try:
        env.reset()
        obs, r, terminated, truncated, info = env.step('<tool_call>{"name": "ls", "arguments": {</tool_call>')
        assert obs.startswith("Error:") and not (terminated or truncated)
        assert info["invalid_calls"] == 1 and info["turn"] == 0
        obs, *_ = env.step({"name": "no_such_tool", "arguments": {}})
        assert obs == "Error during execution: name 'no_such_tool' is not defined"
        obs, *_ = env.step({"name": "ls", "arguments": ["a"]})
        assert obs.startswith("Error during execution:")
        assert env.unwrapped.record == [[[{"no_such_tool": "{}"}], [{"ls": '["a"]'}]]]
    finally:
        env.close()


def test_fork_mid_episode_gives_independent_episodes() -> None:
    e = entry("multi_turn_base_7")
    truth = _truth_calls(e)
    env = BFCLMultiTurnEnv("base", entry=e["id"])
    try:
        env.reset()
        if truth[0]:
            env.step(truth[0])
        env.step("Done.")
        a, b = env.fork(2)
        good, _ = _replay(a, truth[1:])
        bad_turns = _corrupt(truth[1:], 0, "drop")
        bad, info = _replay(b, bad_turns)
        assert (good, bad) == (1.0, 0.0)
        assert env.unwrapped.turn == 1  # the original is where it was
        rest, _ = _replay(env, truth[1:])
        assert rest == 1.0
        for f in (a, b):
            f.close()
    finally:
        env.close()


def test_checker_cache_is_cleared_and_results_stay_out_of_the_install(tmp_path: Path) -> None:
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils

    e = entry("multi_turn_base_1")
    before = {k for k in vars(multi_turn_utils) if k.endswith("_instance")}
    record = [[[{c["name"]: json.dumps(c["arguments"])} for c in t]] if t else [] for t in _truth_calls(e)]
    assert score(e, record).valid
    assert {k for k in vars(multi_turn_utils) if k.endswith("_instance")} == before

    import bfcl_eval

    install_root = Path(bfcl_eval.__file__).resolve().parents[1]
    existed = (install_root / "result").exists()
    env = {k: v for k, v in os.environ.items() if k != "BFCL_PROJECT_ROOT"} | {"GYM_MCP_HOME": str(tmp_path)}
    code = "from gym_mcp.bfcl import require_bfcl, entry; require_bfcl(); entry('multi_turn_base_0')"
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=120)
    assert (tmp_path / "cache" / "bfcl" / "result").is_dir()
    assert (install_root / "result").exists() == existed


def test_bad_entries_get_clear_errors() -> None:
    with pytest.raises(ConfigError, match="multi_turn_base_199"):
        gym.make(gym_mcp.BFCL_ID, category="base", entry="multi_turn_base_999")
    with pytest.raises(ConfigError, match="out of range"):
        gym.make(gym_mcp.BFCL_ID, category="base", entry=200)
    with pytest.raises(ConfigError, match="unknown BFCL multi-turn category"):
        gym.make(gym_mcp.BFCL_ID, category="composite")


def test_eval_suite_cli(tmp_path: Path) -> None:
    out = tmp_path / "eval"
    cmd = [sys.executable, "-m", "gym_mcp.cli", "eval", "--suite", "bfcl-multi-turn", "--category", "base"]
    cmd += ["--category", "miss_param", "--limit", "4", "--policy", "reference", "--policy", "noop"]
    cmd += ["-o", str(out), "--quiet"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    data = json.loads((out / "results.json").read_text())
    metrics = data["metrics"]
    assert metrics["reference"][gym_mcp.BFCL_ID]["success_rate"] == 1.0
    assert metrics["noop"][gym_mcp.BFCL_ID]["success_rate"] == 0.0
    assert set(metrics["reference"][gym_mcp.BFCL_ID]["by_variant"]) == {"base", "miss_param"}
    assert len(data["episodes"]) == 16
    assert (out / "results.png").exists() and "By variant" in (out / "results.md").read_text()
    bad = subprocess.run(
        [sys.executable, "-m", "gym_mcp.cli", "eval", "--suite", "bfcl-multi-turn", "--env", "x", "--policy", "noop"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "either --suite" in bad.stderr


def test_example_script_runs() -> None:
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, str(root / "examples" / "bfcl_multi_turn.py")], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "tools listed: 16" in done.stdout and "tools listed: 18" in done.stdout
    assert "reward: 1.0" in done.stdout and "-> reward: 0.0 first failing turn: 2" in done.stdout


@pytest.mark.parametrize("transport", ["stdio", "http", "http+token"])
def test_entry_server_runs_on_its_own(transport: str) -> None:
    """`gym-mcp serve-bfcl` serves an entry's backends to a plain MCP client, as BFCL executes them."""
    from gym_mcp import Launch, LiveConnection
    from gym_mcp.errors import ServerStartError
    from gym_mcp.servers.kit import TOKEN_ENV, auth_headers
    from gym_mcp.transport.runner import run_sync

    e = entry("multi_turn_base_0")
    command = [sys.executable, "-m", "gym_mcp.cli", "serve-bfcl", e["id"]]
    if transport == "stdio":
        launch = Launch("bfcl", "stdio", command=command)
    else:
        command += ["--transport", "http", "--port", "{port}"]
        url = "http://127.0.0.1:{port}/mcp"
        launch = Launch("bfcl", "http", command=command, url=url)
        if transport == "http+token":
            env = {TOKEN_ENV: "bfcl-s3cret"}
            refused = LiveConnection(Launch("bfcl", "http", command=command, url=url, env=env), call_timeout=30.0)
            with pytest.raises(ServerStartError, match="answered HTTP 401"):
                run_sync(refused.start())
            run_sync(refused.close())
            launch = Launch("bfcl", "http", command=command, url=url, env=env, headers=auth_headers("bfcl-s3cret"))
    calls = [c for turn in _truth_calls(e) for c in turn]

    async def play() -> tuple[list[str], list[str]]:
        connection = LiveConnection(launch, call_timeout=30.0)
        await connection.start()
        try:
            tools = [t.name for t in await connection.list_tools()]
            outputs = [(await connection.call_tool(c["name"], c["arguments"])).text for c in calls]
        finally:
            await connection.close()
        return tools, outputs

    tools, outputs = run_sync(play())
    assert tools == [f["name"] for f in e["function"]]
    assert outputs == _bfcl_results(e, calls)


def test_state_fingerprint_diff_and_exact_reset() -> None:
    env = gym.make(gym_mcp.BFCL_ID, category="base", entry="multi_turn_base_0")
    try:
        env.reset()
        state = env.unwrapped.state
        start, start_print = state.snapshot(), state.fingerprint()
        env.step({"name": "cd", "arguments": {"folder": "document"}})
        env.step({"name": "mkdir", "arguments": {"dir_name": "temp"}})
        after = state.snapshot()
        assert state.fingerprint() != start_print
        diff = state.diff(start, after)
        assert set(diff.groups) == {"GorillaFileSystem"} and diff.summary().startswith("GorillaFileSystem: +0 -0 ~")
        assert state.fingerprint_of(start) == start_print
        env.reset()  # the next episode starts from the exact initial state again
        assert state.fingerprint() == start_print and state.snapshot().digest == start.digest
    finally:
        env.close()


def test_bfcl_keeps_its_own_scripted_turns_as_the_user() -> None:
    env = gym.make(gym_mcp.BFCL_ID, category="base", entry=3, user="scripted")
    try:
        first, info = env.reset()
        assert info["user"] == {"name": "bfcl", "turns": 0}
        obs, _, _, _, info = env.step("Which file do you mean?")  # a reply: BFCL's next turn answers it
        assert obs == env.unwrapped.entry["question"][1][0]["content"]
        assert info["user"]["turns"] == 1 and obs != first
    finally:
        env.close()
    with pytest.raises(gym_mcp.GymMCPError, match="BFCL keeps its own scripted turns"):
        gym.make(gym_mcp.BFCL_ID, category="base", entry=3, user="openai:http://127.0.0.1:9/v1")


def test_restored_worlds_share_docs_read_once_and_old_snapshots_still_restore() -> None:
    import pickle

    from gym_mcp.bfcl.backend import BFCLState, BFCLWorld
    from gym_mcp.state import Snapshot

    e = entry("multi_turn_base_0")
    world = BFCLWorld(e["involved_classes"])
    world.load(e["initial_config"], e["function"], long_context=False)
    data = world.dump()
    first, second = BFCLWorld(e["involved_classes"]), BFCLWorld(e["involved_classes"])
    first.undump(data)
    second.undump(data)
    assert first.functions is second.functions and first.functions == world.functions  # read once
    names = [f["name"] for f in second.functions]
    first.reveal([{**e["function"][0], "name": "held_out_function"}])
    assert [f["name"] for f in second.functions] == names  # a reveal in one world leaves the other alone
    assert "held_out_function" in [f["name"] for f in first.functions]
    revealed = BFCLWorld(e["involved_classes"])
    revealed.undump(first.dump())  # the reveal is in the next snapshot
    assert revealed.functions[-1]["name"] == "held_out_function" and len(revealed.functions) == len(names) + 1
    # A snapshot made before the docs were packed (a plain list) restores to the same state.
    old = pickle.dumps({"classes": world.classes, "instances": world.instances, "functions": world.functions})
    third = BFCLWorld(e["involved_classes"])
    third.undump(old)
    assert third.functions == world.functions
    state = BFCLState(third)
    assert state.fingerprint_of(Snapshot.of(BFCLState.kind, old)) == state.fingerprint_of(
        Snapshot.of(BFCLState.kind, data)
    )
    assert state.fingerprint() == BFCLState(second).fingerprint()
