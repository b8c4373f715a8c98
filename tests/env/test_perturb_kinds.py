"""Every perturbation kind on a real bundled server, and the mixes they come in.

For each kind, the reference policy plays a five-call banking task (reads before and after
writes, a long list) through `Perturb` set to inject as much as it can. The test asks that the
kind injected something, that the task is still solved, that the final state is the state the
episode's successful calls give when replayed on a clean environment without the wrapper (a
perturbation never touches the server itself), and that the same seed replays the episode byte
for byte.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

from gym_mcp import Task
from gym_mcp.errors import ConfigError
from gym_mcp.policies import ReferencePolicy
from gym_mcp.wrappers import (
    KINDS,
    MIXES,
    CostNotes,
    DistractorTools,
    DuplicateTools,
    Latency,
    MalformedResults,
    MisleadingDescriptions,
    PaginatedLists,
    Paraphrase,
    Perturb,
    Perturbation,
    RenamedParams,
    RenamedTools,
    ReorderedLists,
    SchemaDrift,
    StaleReads,
    StrippedEnums,
    Timeouts,
    TransientErrors,
    TruncatedResults,
    Typos,
    mix,
)
from tests.helpers import chat_body, replayed_bank_task

CALLS = [
    {"name": "get_balance", "arguments": {"account_id": "ACC-1001"}},
    {"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": 25.0, "description": "birthday gift"}},
    {"name": "get_balance", "arguments": {"account_id": "ACC-1001"}},
    {"name": "list_transactions", "arguments": {"account_id": "ACC-1001", "limit": 8}},
    {"name": "withdraw", "arguments": {"account_id": "ACC-1001", "amount": 5.0}},
]
INSTRUCTION = (
    "Please check the balance of account ACC-1001, deposit 25.0 there as a birthday gift, check the balance "
    "again, show the last 8 transactions, then withdraw 5.0 from it."
)

# each kind set to inject as much as it can
STRONG: dict[str, Perturbation] = {
    "typos": Typos(rate=0.5),
    "paraphrase": Paraphrase(rate=1.0),
    "distractor_tool": DistractorTools(n=4),
    "duplicate_tool": DuplicateTools(n=4),
    "stripped_enum": StrippedEnums(p=1.0),
    "renamed_param": RenamedParams(p=1.0),
    "renamed_tool": RenamedTools(p=1.0),
    "misleading_description": MisleadingDescriptions(p=1.0),
    "cost_note": CostNotes(p=1.0),
    "transient_error": TransientErrors(p=1.0, max_in_a_row=2),
    "timeout": Timeouts(p=1.0),
    "truncated_result": TruncatedResults(p=1.0),
    "malformed_result": MalformedResults(p=1.0),
    "latency": Latency(p=1.0, seconds=(0.001, 0.002)),
    "paginated_list": PaginatedLists(page_size=3),
    "reordered_list": ReorderedLists(p=1.0),
    "stale_read": StaleReads(p=1.0),
    "schema_drift": SchemaDrift(p=1.0),
}


@pytest.fixture(scope="module")
def task() -> Task:
    return replayed_bank_task("five-calls", INSTRUCTION, CALLS)


def _play(task: Task, perturbation: Perturbation, seed: int) -> dict[str, Any]:
    env = Perturb(gym.make("gym_mcp/Banking-v0", tasks=[task], max_steps=40), [perturbation])
    try:
        obs, info = env.reset(seed=seed, options={"task_id": task.id})
        policy = ReferencePolicy()
        policy.reset(task, info)
        seen, shown_tools = [str(obs)], json.dumps(info["tools"], sort_keys=True)
        reward, done = 0.0, False
        while not done:
            obs, reward, terminated, truncated, info = env.step(policy.act(str(obs), info))
            seen.append(str(obs))
            done = terminated or truncated
        ok = [{"name": c.name, "arguments": c.arguments} for c in env.unwrapped.episode().calls if c.status == "ok"]
        return {
            "seen": seen,
            "tools": shown_tools,
            "reward": float(reward),
            "injected": info["perturbations"],
            "fingerprint": env.unwrapped.state.fingerprint(),
            "ok_calls": ok,
        }
    finally:
        env.close()


def _replayed_clean(calls: list[dict[str, Any]]) -> str:
    env = gym.make("gym_mcp/Banking-v0", max_steps=40)
    try:
        env.reset(seed=0)
        for call in calls:
            env.step(call)
        return str(env.unwrapped.state.fingerprint())
    finally:
        env.close()


def test_every_kind_is_covered_here() -> None:
    assert set(STRONG) == set(KINDS)
    assert {cls.family for cls in KINDS.values()} == {"observation", "action", "metadata", "transition"}


@pytest.mark.parametrize("kind", sorted(STRONG))
def test_each_kind_injects_keeps_the_task_solvable_the_state_exact_and_replays(task: Task, kind: str) -> None:
    first = _play(task, STRONG[kind], seed=7)
    kinds = {i["kind"] for i in first["injected"]}
    assert kinds == {kind}, first["injected"]
    assert first["reward"] == 1.0, (kind, first["seen"])
    assert first["fingerprint"] == task.expected_fingerprint
    assert _replayed_clean(first["ok_calls"]) == first["fingerprint"]  # the state is what the successful calls give
    again = _play(task, STRONG[kind], seed=7)
    assert (again["seen"], again["tools"], again["injected"]) == (first["seen"], first["tools"], first["injected"])


def test_what_the_agent_sees_under_each_static_kind(task: Task) -> None:
    typos = _play(task, Typos(rate=1.0), seed=1)
    opening = typos["seen"][0]
    assert opening != INSTRUCTION and "ACC-1001" in opening and "25.0" in opening  # values untouched
    renamed = _play(task, RenamedTools(p=1.0), seed=1)
    names = {t["function"]["name"] for t in json.loads(renamed["tools"])}
    assert "fetch_balance" in names and "get_balance" not in names
    params = json.loads(_play(task, RenamedParams(p=1.0), seed=1)["tools"])
    balance = next(t["function"] for t in params if t["function"]["name"] == "get_balance")
    assert balance["parameters"]["required"] == ["accountId"]
    stripped = json.loads(_play(task, StrippedEnums(), seed=1)["tools"])
    kind = next(t["function"] for t in stripped if t["function"]["name"] == "list_transactions")
    assert "withdrawal" not in kind["parameters"]["properties"]["kind"]["description"]
    notes = json.loads(_play(task, CostNotes(p=1.0), seed=1)["tools"])
    assert all(("per call" in t["function"]["description"]) for t in notes)


def test_distractors_fail_duplicates_work_and_old_names_are_gone(task: Task) -> None:
    env = Perturb(
        gym.make("gym_mcp/Banking-v0", tasks=[task], max_steps=40),
        [DistractorTools(n=22), DuplicateTools(n=22), RenamedTools(p=1.0)],
    )
    try:
        _, info = env.reset(seed=3)
        names = {t["function"]["name"] for t in info["tools"]}
        distractor = next(n for n in sorted(names) if n.split("_")[0] in ("legacy", "archive", "sandbox", "partner"))
        before = env.unwrapped.state.fingerprint()
        obs, *_, info = env.step({"name": distractor, "arguments": {"account_id": "ACC-1001", "amount": 1.0}})
        assert obs.startswith("Error") and "service holds no records" in obs
        assert env.unwrapped.state.fingerprint() == before  # nothing reached the server
        obs, *_ = env.step({"name": "get_balance", "arguments": {"account_id": "ACC-1001"}})
        assert obs.startswith("Error: unknown tool 'get_balance'") and "fetch_balance" in obs  # the shown names
        obs, *_ = env.step(
            {"name": "fetch_balance_v2", "arguments": {"account_id": "ACC-1001"}}
        )  # get_balance's duplicate
        assert json.loads(obs)["account_id"] == "ACC-1001"
        assert env.unwrapped.episode().calls[-1].name == "get_balance"  # recorded under the server's name
        args = {"from_account_id": "ACC-1001", "to_account_id": "ACC-1002", "amount": 3.0}
        obs, *_ = env.step({"name": "move_funds", "arguments": args})  # transfer_funds, renamed
        assert not obs.startswith("Error"), obs
        assert env.unwrapped.episode().calls[-1].name == "transfer_funds"
        assert env.unwrapped.state.fingerprint() != before
    finally:
        env.close()


def test_paraphrase_by_an_llm_is_kept_only_with_every_value(task: Task, endpoint: tuple[str, Any]) -> None:
    url, handler = endpoint
    kept = "Look up ACC-1001's balance, put 25.0 in as a birthday gift, look again, list the last 8 transactions, and take out 5.0."
    handler.replies = [chat_body(kept), chat_body("Check my balance and move some money around.")]
    first = _play(task, Paraphrase(endpoint=url, descriptions=False), seed=2)
    assert first["seen"][0] == kept and first["reward"] == 1.0
    second = _play(task, Paraphrase(endpoint=url, descriptions=False), seed=2)
    assert second["seen"][0] != "Check my balance and move some money around."
    assert "ACC-1001" in second["seen"][0]
    assert "LLM paraphrase not kept (dropped" in second["injected"][0]["detail"]
    assert len(handler.requests) == 2


def test_mixes_by_name_dict_and_toml(tmp_path: Path) -> None:
    assert {"transient", "static", "transition", "all"} <= set(MIXES)
    static = mix("static")
    assert static.per_episode == 1 and {p.family for p in static.perturbations} == {"observation", "action", "metadata"}
    assert {p.family for p in mix("transition").perturbations} == {"transition"}
    assert len(mix("all").perturbations) == len(KINDS)
    path = tmp_path / "dr.toml"
    path.write_text(
        'per_episode = 2\n[[perturbation]]\nkind = "typos"\nrate = 0.2\n[[perturbation]]\nkind = "latency"\n'
        'seconds = [0.0, 0.01]\n[[perturbation]]\nkind = "renamed_tool"\n'
    )
    custom = mix(str(path))
    assert custom.name == "dr" and custom.kinds == ["typos", "latency", "renamed_tool"] and custom.per_episode == 2
    example = mix(str(Path(__file__).resolve().parents[2] / "examples" / "perturb_dr.toml"))
    assert example.per_episode == 2 and "distractor_tool" in example.kinds
    assert mix({"perturbation": [{"kind": "timeout", "p": 0.5}]}).perturbations[0].p == 0.5  # type: ignore[attr-defined]
    bad = [
        ("nope", "unknown perturbation mix 'nope'"),
        ({"perturbation": [{"kind": "gremlins"}]}, "unknown kind 'gremlins'"),
        ({"perturbation": [{"kind": "typos", "speed": 3}]}, r"perturbation 1 \(typos\): .*speed"),
        ({"perturbation": [{"kind": "typos", "rate": 3}]}, "rate must be between 0 and 1"),
        ({"perturbations": []}, "unknown key"),
        ({"per_episode": 5, "perturbation": [{"kind": "typos"}]}, "per_episode must be between 1 and 1"),
        (str(tmp_path / "missing.toml"), "cannot read it"),
    ]
    for spec, message in bad:
        with pytest.raises(ConfigError, match=message):
            mix(spec)  # type: ignore[arg-type]


def test_domain_randomization_draws_kinds_per_episode_and_never_raises(task: Task) -> None:
    env = Perturb(gym.make("gym_mcp/Banking-v0", tasks=[task], max_steps=8), "all", seed=5)
    drawn: set[str] = set()
    try:
        for _ in range(12):
            _, info = env.reset()
            drawn.update(info["perturbation_kinds"])
            assert len(info["perturbation_kinds"]) == 1
            for action in (
                {"name": "get_balance", "arguments": {"account_id": "ACC-1001"}},
                "<tool_call>{bad",
                42,
                {"name": "fetch_balance", "arguments": []},
                "Done.",
            ):
                *_, terminated, truncated, info = env.step(action)
                if terminated or truncated:
                    break
    finally:
        env.close()
    assert len(drawn) >= 6  # twelve episodes draw many of the 18 kinds


def test_perturb_refuses_an_environment_it_cannot_perturb() -> None:
    with pytest.raises(ConfigError, match="Perturb wraps a gym-mcp environment"):
        Perturb(gym.make("CartPole-v1"), "transient")


def _eval(tasks: Path, perturb: str, *extra: str) -> subprocess.CompletedProcess[str]:
    """``gym-mcp eval`` of the reference policy on banking ``tasks`` under the mix ``perturb``."""
    command = ["eval", "--env", "gym_mcp/Banking-v0", "--tasks", str(tasks), "--policy", "reference"]
    return subprocess.run(
        [sys.executable, "-m", "gym_mcp.cli", *command, "--perturb", perturb, *extra],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_cli_eval_reports_clean_and_perturbed_per_family_and_kind(task: Task, tmp_path: Path) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps({**task.to_dict(), "id": f"t{i}"}) + "\n" for i in range(10)))
    out = _eval(tasks, "all", "-o", str(tmp_path / "run"), "--quiet")
    assert out.returncode == 0, out.stderr
    assert "reference [all]" in out.stdout
    data = json.loads((tmp_path / "run" / "results.json").read_text())
    perturbed = [e for e in data["episodes"] if e["policy"] == "reference [all]"]
    assert len(perturbed) == 10 and all(len(e["perturbation_kinds"]) == 1 for e in perturbed)
    assert all(e["success"] for e in data["episodes"])  # the reference solves every task, clean or perturbed
    rows = data["robustness"]
    assert rows[0]["group"] == "(every episode)" and rows[0]["episodes"] == 10
    families = {r["group"] for r in rows if r["level"] == "family"}
    kinds = [r for r in rows if r["level"] == "kind"]
    assert len(families) >= 3 and sum(r["episodes"] for r in kinds) == 10
    assert all(r["clean_success"] == r["perturbed_success"] == 1.0 for r in rows)
    metrics = data["metrics"]["reference [all]"]["gym_mcp/Banking-v0"]
    assert set(metrics["by_perturbation_family"]) == families
    md = (tmp_path / "run" / "results.md").read_text()
    assert "## Perturbations: clean vs perturbed, on the same episodes" in md
    assert (tmp_path / "run" / "perturbations.png").stat().st_size > 5_000
    bad = _eval(tasks, str(tmp_path / "nope.toml"))
    assert bad.returncode != 0 and bad.stderr.strip().count("\n") == 0 and "nope.toml: cannot read it" in bad.stderr


def test_forks_of_a_perturbed_episode_stay_perturbed_and_independent(task: Task) -> None:
    env = Perturb(gym.make("gym_mcp/Banking-v0", tasks=[task], max_steps=40), [RenamedTools(p=1.0)])
    forks = []
    try:
        env.reset(seed=2)
        env.step({"name": "insert", "arguments": {}})  # unknown: renames leave 'deposit' as 'deposit_op'
        forks = env.unwrapped.fork(2)
        for fork in forks:
            assert {t["function"]["name"] for t in fork.tools} == {t["function"]["name"] for t in env.unwrapped.tools}
            assert fork.step({"name": "get_balance", "arguments": {"account_id": "ACC-1001"}})[0].startswith(
                "Error: unknown tool 'get_balance'"
            )
        obs, *_ = forks[0].step({"name": "deposit_op", "arguments": {"account_id": "ACC-1001", "amount": 2.0}})
        assert not obs.startswith("Error"), obs
        assert forks[0].episode().calls[-1].name == "deposit"
        assert forks[0].state.fingerprint() != forks[1].state.fingerprint() == env.unwrapped.state.fingerprint()
    finally:
        for fork in forks:
            fork.close()
        env.close()


def test_a_duplicate_is_its_own_tool_for_the_perturbations_after_it(task: Task) -> None:
    """A duplicate shares no schema with its original: a later rename reaches each, and each maps back."""
    env = Perturb(
        gym.make("gym_mcp/Banking-v0", tasks=[task], max_steps=10), [DuplicateTools(n=22), RenamedParams(p=1.0)]
    )
    try:
        _, info = env.reset(seed=0)
        shown = {t["function"]["name"]: t["function"] for t in info["tools"]}
        assert shown["get_balance_v2"]["parameters"]["required"] == ["accountId"]
        for name in ("get_balance", "get_balance_v2"):
            obs, *_ = env.step({"name": name, "arguments": {"accountId": "ACC-1001"}})
            assert json.loads(obs)["account_id"] == "ACC-1001", (name, obs)
    finally:
        env.close()
