"""The reward-order property on real episodes: no failing episode outscores a passing one.

Tasks come from the real synthesizer; every episode is played through a real in-process
environment over a bundled server, with `CompositeReward.grounded` as the environment's reward.
For each task we play the lean reference run, padded runs (the reference calls plus needless
READ calls, found through the tools' ``gym_mcp/kind`` metadata), perturbed runs (one argument
value changed, the last call dropped, a value guessed for a missing-parameter variant, a call
on an irrelevant request) and a do-nothing run. The task's verifier (`success`: final-state
fingerprint, answer, abstention) labels each episode; the order property is then checked on the
rewards, for the grounded reward (it holds) and for PROVE's composite (it does not: the bug the
grounded reward fixes).
"""

from __future__ import annotations

import itertools
import json
import os
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import pytest

import gym_mcp
from gym_mcp import Task
from gym_mcp.rewards import CallRecord, CompositeReward, Episode, efficiency_budget, success
from gym_mcp.synth import SynthConfig, synthesize

SERVERS = ("banking", "shopping", "calendar")
N_TASKS = 40
GROUNDED = CompositeReward.grounded()
PROVE = CompositeReward.prove()
STRICT = CompositeReward.grounded(extra_call_cost=1.0, stop_required=True, efficiency_b=0.0)
ANSWER = "Done."
DECLINE = "I can't help with that here."
PADS = (1, 3)  # 3 needless reads exceed every budget of a chain of at most 3 calls (B <= 5)

Call = dict[str, Any]


@dataclass(frozen=True)
class Played:
    """One real episode, its label and both rewards."""

    server: str
    task: Task
    kind: str
    calls: int
    reward: float  # the environment's reward: CompositeReward.grounded
    prove: float
    success: bool
    strict: float  # CompositeReward.grounded with every efficiency option on
    strict_pass: bool  # passed the strict gate: succeeded, and stopped

    @property
    def over_budget(self) -> bool:
        return self.calls > efficiency_budget(self.task)


# -- building the episodes from the tasks and the servers' own tool lists -----------------------


def _values(tasks: Sequence[Task]) -> dict[str, list[Any]]:
    """Every argument value the task set's reference calls use, by parameter name (sorted, distinct)."""
    seen: dict[str, dict[str, Any]] = defaultdict(dict)
    for task in tasks:
        for ref in task.reference_calls:
            for key, value in ref["arguments"].items():
                seen[key].setdefault(json.dumps(value, sort_keys=True), value)
    return {key: [by_text[k] for k in sorted(by_text)] for key, by_text in seen.items()}


def _fill(schema: Mapping[str, Any], values: Mapping[str, Sequence[Any]]) -> Call | None:
    """Arguments for a tool's required parameters, from ``values`` (``x_id`` also fills from ``from_x_id``)."""
    args: Call = {}
    for param in schema.get("required") or []:
        found = [v for key, vs in values.items() if key == param or key.endswith("_" + param) for v in vs]
        if not found:
            return None
        args[param] = found[0]
    return args


def _read_calls(tools: Sequence[Any], task: Task, pool: Mapping[str, Sequence[Any]]) -> list[Call]:
    """Needless READ calls for ``task``: arguments from its own reference calls first, else the task set's."""
    own: dict[str, list[Any]] = defaultdict(list)
    for ref in task.reference_calls:
        for key, value in ref["arguments"].items():
            own[key].append(value)
    used = {ref["name"] for ref in task.reference_calls}
    reads = [t for t in tools if (t.meta or {}).get("gym_mcp/kind") == "read"]
    out: list[Call] = []
    for values in (own, pool):
        for tool in sorted(reads, key=lambda t: (t.name in used, t.name)):
            args = _fill(tool.input_schema, values)
            if args is not None and all(c["name"] != tool.name for c in out):
                out.append({"name": tool.name, "arguments": args})
        if out:
            break
    return out


def _other(value: Any, candidates: Sequence[Any]) -> Any:
    """A different value of the same kind: another entity id or string from the task set, a changed number."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        others = [c for c in candidates if isinstance(c, str) and c.strip().lower() != value.strip().lower()]
        return others[0] if others else value + " (changed)"
    return None


def _refs(task: Task) -> list[Call]:
    return [{"name": ref["name"], "arguments": dict(ref["arguments"])} for ref in task.reference_calls]


def _changed(calls: list[Call], i: int, key: str, pool: Mapping[str, Sequence[Any]]) -> list[Call] | None:
    new = _other(calls[i]["arguments"][key], pool.get(key, ()))
    if new is None:
        return None
    out = [dict(c, arguments=dict(c["arguments"])) for c in calls]
    out[i]["arguments"][key] = new
    return out


def _perturbed(task: Task, pool: Mapping[str, Sequence[Any]], writes: set[str]) -> Iterator[tuple[str, list[Call]]]:
    """Near misses of the reference calls: one value changed (an id, a number), the last call dropped."""
    calls = _refs(task)
    order = sorted(range(len(calls)), key=lambda i: (calls[i]["name"] not in writes, -i))  # last write first
    made: set[str] = set()
    for i in order:
        for key, value in calls[i]["arguments"].items():
            kind = "changed-number" if isinstance(value, int | float) and not isinstance(value, bool) else "changed-id"
            if kind in made:
                continue
            changed = _changed(calls, i, key, pool)
            if changed is not None:
                made.add(kind)
                yield kind, changed
    yield "dropped-last", calls[:-1]
    missing = task.metadata.get("missing")
    if task.variant == "missing_param" and isinstance(missing, Mapping):
        guessed = _changed(calls, int(missing["call"]), str(missing["param"]), pool)
        if guessed is not None:
            yield "guessed", guessed


def _padded(calls: list[Call], reads: list[Call], n: int) -> list[Call]:
    """The reference calls with ``n`` needless reads spread through them (first, middle, last)."""
    pads = [reads[j % len(reads)] for j in range(n)]
    out = list(calls)
    for j, pad in enumerate(pads):
        at = (0, len(out) // 2, len(out))[j % 3]
        out.insert(at, pad)
    return out


def _play(env: Any, server: str, task: Task, kind: str, calls: Sequence[Call], answer: str) -> Played:
    env.reset(options={"task": task})
    for c in calls:
        _, _, terminated, truncated, _ = env.step(c)
        assert not (terminated or truncated), (task.id, kind)
    _, reward, terminated, _, info = env.step(answer)
    assert terminated, (task.id, kind)
    episode: Episode = env.unwrapped.episode()
    assert episode.terminated and not episode.truncated
    passed = success(episode)
    assert info["reward_terms"]["success"] == float(passed)
    assert reward == pytest.approx(GROUNDED(episode))
    assert set(info["reward_terms"]) >= set(PROVE.terms(episode))
    named = [c for c in episode.calls if isinstance(c, CallRecord) and c.name]
    strict_terms = STRICT.terms(episode)
    strict_pass = strict_terms["success"] == 1.0 and not strict_terms["never_stopped"]
    return Played(
        server, episode.task, kind, len(named), float(reward), PROVE(episode), passed, STRICT(episode), strict_pass
    )


def _episodes(server: str) -> list[Played]:
    tasks = synthesize(server, SynthConfig(n=N_TASKS, seed=0, max_chain=3)).tasks
    pool = _values(tasks)
    env = gym.make(gym_mcp.env_id(server), reward=GROUNDED, max_steps=16)
    try:
        env.reset(seed=0)
        tools = env.unwrapped.live.tools
        writes = {t.name for t in tools if (t.meta or {}).get("gym_mcp/kind") == "write"}
        played: list[Played] = []
        for task in tasks:
            if not task.reference_calls:  # an irrelevant request: abstain, or call something anyway
                played.append(_play(env, server, task, "abstain", [], DECLINE))
                read = _read_calls(tools, task, pool)[:1]
                played.append(_play(env, server, task, "irrelevant-call", read, DECLINE))
                continue
            refs = _refs(task)
            played.append(_play(env, server, task, "reference", refs, ANSWER))
            reads = _read_calls(tools, task, pool)
            for n in PADS if reads else ():
                played.append(_play(env, server, task, f"padded-{n}", _padded(refs, reads, n), ANSWER))
            for kind, calls in _perturbed(task, pool, writes):
                played.append(_play(env, server, task, kind, calls, ANSWER))
            played.append(_play(env, server, task, "noop", [], ANSWER))
        return played
    finally:
        env.close()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> list[Played]:
    os.environ.setdefault("GYM_MCP_HOME", str(tmp_path_factory.mktemp("home")))
    return [p for server in SERVERS for p in _episodes(server)]


def _figures(played: Sequence[Played]) -> dict[str, Any]:
    fails = [p for p in played if not p.success]
    passes = [p for p in played if p.success]
    kinds: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for p in played:
        kinds[p.kind][p.success] += 1
    return {
        "tasks": len({(p.server, p.task.id) for p in played}),
        "episodes": len(played),
        "kinds (failing, passing)": {k: tuple(v) for k, v in sorted(kinds.items())},
        "grounded": (max(p.reward for p in fails), min(p.reward for p in passes)),
        "prove": (max(p.prove for p in fails), min(p.prove for p in passes)),
    }


# -- the property -------------------------------------------------------------------------------


def test_enough_real_episodes_of_each_kind(played: list[Played]) -> None:
    fails = [p for p in played if not p.success]
    passes = [p for p in played if p.success]
    padded = [p for p in passes if p.kind.startswith("padded")]
    print(_figures(played))
    assert len(fails) >= 30 and len(passes) >= 30
    assert len(padded) >= 5 and any(p.over_budget for p in padded)
    assert {p.kind for p in fails} >= {"changed-id", "changed-number", "dropped-last", "guessed", "irrelevant-call"}
    # the synthesizer verified every task: its reference run (or abstention) passes
    assert all(p.success for p in played if p.kind in ("reference", "abstain"))
    # needless reads never change the state: every padded run passes
    assert all(p.success for p in played if p.kind.startswith("padded"))


def test_grounded_ranks_every_failure_below_every_success(played: list[Played]) -> None:
    fails = [p.reward for p in played if not p.success]
    passes = [p.reward for p in played if p.success]
    assert max(fails) < min(passes)
    assert max(fails) <= GROUNDED.fail_ceiling
    assert min(passes) >= GROUNDED.pass_floor
    assert all(p.reward == pytest.approx(1.0) for p in played if p.kind in ("reference", "abstain"))


def test_the_strict_efficiency_options_keep_every_failure_below_every_success(played: list[Played]) -> None:
    fails = [p.strict for p in played if not p.strict_pass]
    passes = [p.strict for p in played if p.strict_pass]
    assert passes and max(fails) <= STRICT.fail_ceiling < STRICT.pass_floor <= min(passes)
    # calls past the reference cost inside the band: every padded success scores below its lean run
    padded = [p for p in played if p.kind.startswith("padded") and p.strict_pass]
    assert padded and all(p.strict < 1.0 for p in padded)
    assert all(p.strict == pytest.approx(1.0) for p in played if p.kind in ("reference", "abstain"))


def test_prove_does_not_rank_failures_below_successes(played: list[Played]) -> None:
    """The bug: PROVE's composite pays near misses more than wasteful successes."""
    fails = [p.prove for p in played if not p.success]
    passes = [p.prove for p in played if p.success]
    assert max(fails) >= min(passes)
    assert max(fails) > 0.9  # a run ending in the wrong state still scores close to 1


def test_padding_past_the_budget_scores_below_the_lean_run(played: list[Played]) -> None:
    by_task: dict[tuple[str, str], list[Played]] = defaultdict(list)
    for p in played:
        by_task[(p.server, p.task.id)].append(p)
    checked = 0
    for runs in by_task.values():
        lean = [p for p in runs if p.kind == "reference"]
        for p in runs:
            if p.kind.startswith("padded") and p.success and p.over_budget:
                assert p.reward < lean[0].reward, (p.task.id, p.kind)
                assert p.reward >= GROUNDED.pass_floor
                checked += 1
    assert checked >= 5
    # and more padding never scores more, within a task
    for runs in by_task.values():
        pads = sorted((p for p in runs if p.kind.startswith("padded") and p.success), key=lambda p: p.calls)
        assert all(a.reward >= b.reward for a, b in itertools.pairwise(pads))


def test_a_near_miss_outscores_doing_nothing(played: list[Played]) -> None:
    """Within the failing band the process terms still shape the reward."""
    noop = [p for p in played if p.kind == "noop"]
    assert noop and all(p.reward == 0.0 for p in noop)
    near = [p for p in played if not p.success and p.kind.startswith("changed")]
    assert near and all(p.reward > 0.0 for p in near)
