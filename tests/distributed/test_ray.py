"""Rollout workers on a real local Ray instance: remote envs, episodes spread over workers, dead workers.

One Ray instance and one pool of 2 workers serve the whole module; the tests that kill
a worker run last, and the pool replaces what they kill.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import gym_mcp  # noqa: F401  (registers the environments)
from gym_mcp.cli import main
from gym_mcp.errors import WorkerLostError
from gym_mcp.evaluation import EvalConfig, evaluate
from gym_mcp.policies import RandomPolicy, ReferencePolicy
from gym_mcp.synth import SynthConfig, synthesize, write_outputs
from gym_mcp.tasks import Task, load_tasks

ray = pytest.importorskip("ray")
from gym_mcp.ray import WorkerPool, connect  # noqa: E402

ENV = "gym_mcp/Banking-v0"


@pytest.fixture(scope="module")
def pool() -> Iterator[WorkerPool]:
    connect(num_cpus=4)  # logical CPUs: this pool takes 1, the CLI test's own pool 2
    workers = WorkerPool(2)
    yield workers
    workers.close()
    ray.shutdown()


@pytest.fixture(scope="module")
def task_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("banking") / "banking.jsonl"
    write_outputs(synthesize("banking", SynthConfig(n=8, seed=5)), path)
    return path


def _play_reference(env: Any, task: Task, seed: int) -> list[Any]:
    """Observations, rewards, flags and the final fingerprint of the task's reference calls."""
    obs, info = env.reset(seed=seed, options={"task_id": task.id})
    trace: list[Any] = [obs, info["tools"]]
    for call in task.reference_calls:
        obs, reward, terminated, truncated, info = env.step(json.dumps(dict(call)))
        trace.append((obs, float(reward), terminated, truncated))
    obs, reward, terminated, truncated, info = env.step("All done.")
    trace.append((obs, float(reward), terminated, truncated, info.get("final_fingerprint"), info.get("state_match")))
    trace.append(info["messages"])  # the whole conversation (a remote env rebuilds it from deltas)
    return trace


def test_remote_episodes_equal_local_ones(pool: WorkerPool, task_file: Path) -> None:
    tasks = load_tasks(task_file)
    remote = pool.make(ENV, tasks=task_file)
    local = gym.make(ENV, tasks=task_file)
    try:
        for seed, task in enumerate(tasks[:4]):
            expected = _play_reference(local, task, seed)
            assert _play_reference(remote, task, seed) == expected
            assert expected[-2][-1] is True  # the reference solves it: the fingerprints were compared
    finally:
        remote.close()
        local.close()


def test_snapshot_travels_between_workers_and_forks_stay_exact(pool: WorkerPool, task_file: Path) -> None:
    task = next(t for t in load_tasks(task_file) if len(t.reference_calls) >= 2)
    first, second = pool.make(ENV, tasks=task_file), pool.make(ENV, tasks=task_file)
    assert first.worker["pid"] != second.worker["pid"]  # round robin: one on each worker
    local = gym.make(ENV, tasks=task_file)
    try:
        for env in (first, local):
            env.reset(seed=3, options={"task_id": task.id})
            env.step(json.dumps(dict(task.reference_calls[0])))
        snap = first.snapshot()
        second.reset(seed=0)  # as with a local env: restore into an env that has begun (Gymnasium's order)
        second.restore(snap)  # taken on one worker, restored on the other
        rest = [json.dumps(dict(c)) for c in task.reference_calls[1:]] + ["Done."]
        forks = first.fork(2)
        expected = [local.step(a)[:4] for a in rest]
        for env in (second, *forks):
            assert [env.step(a)[:4] for a in rest] == expected
        pending = [f.step_async("after the end") for f in forks]  # steps sent side by side
        assert [p.result()[0] for p in pending] == [local.step("after the end")[0]] * 2
    finally:
        for env in (first, second, local):
            env.close()


def _episodes(result: Any) -> list[dict[str, Any]]:
    return [{k: v for k, v in e.items()} for e in result.episodes]


def test_eval_on_workers_equals_local_eval(pool: WorkerPool, task_file: Path) -> None:
    runs = [(ENV, task_file)]
    policies = {"reference": ReferencePolicy, "random": lambda: RandomPolicy(7)}
    config = EvalConfig(k=2, seed=3)
    local = evaluate(runs, policies, config)
    remote = evaluate(runs, policies, config, workers=pool)
    assert _episodes(remote) == _episodes(local)
    assert remote.metrics == local.metrics
    assert remote.lost_workers == []


def test_eval_cli_with_ray_writes_the_same_results(pool: WorkerPool, task_file: Path, tmp_path: Path) -> None:
    # this process is connected to Ray already: --ray uses that instance and starts its own 2 workers
    common = ["eval", "--env", ENV, "--tasks", str(task_file), "--policy", "reference", "--policy", "random", "--quiet"]
    assert main([*common, "-o", str(tmp_path / "local")]) == 0
    assert main([*common, "--ray", "--workers", "2", "-o", str(tmp_path / "ray")]) == 0
    local = json.loads((tmp_path / "local" / "results.json").read_text())
    remote = json.loads((tmp_path / "ray" / "results.json").read_text())
    assert remote["episodes"] == local["episodes"]


def test_workers_flag_needs_ray(capsys: pytest.CaptureFixture[str], task_file: Path) -> None:
    assert main(["eval", "--env", ENV, "--tasks", str(task_file), "--policy", "reference", "--workers", "3"]) == 1
    assert "--workers goes with --ray" in capsys.readouterr().err


class CrashOnce(ReferencePolicy):
    """The reference, except that the first episode to act anywhere kills its worker's process.

    Which episode that is depends on the scheduling (two run at once): the marker names its task.
    """

    marker: Path

    def act(self, observation: str, info: Mapping[str, Any]) -> Any:
        if not self.marker.exists():
            self.marker.write_text(f"{os.getpid()} {info['task_id']}")
            os._exit(1)  # the worker process dies mid-episode, as a crash or an OOM kill would
        return super().act(observation, info)


def _crash_once(marker: Path) -> CrashOnce:
    policy = CrashOnce()
    policy.marker = marker
    return policy


def test_a_worker_killed_mid_episode_has_its_episode_rerun(pool: WorkerPool, task_file: Path, tmp_path: Path) -> None:
    marker = tmp_path / "crashed"
    runs = [(ENV, task_file)]
    config = EvalConfig(seed=9)
    expected = evaluate(runs, {"reference": ReferencePolicy}, config)
    result = evaluate(runs, {"reference": lambda: _crash_once(marker)}, config, workers=pool)
    assert marker.exists()
    assert _episodes(result) == _episodes(expected)  # the lost episode was played again, elsewhere
    assert len(result.lost_workers) == 1
    lost = result.lost_workers[0]
    pid, task = marker.read_text().split()
    crashed = [i for i, e in enumerate(result.episodes) if e["task_id"] == task]  # one trial a task
    assert lost["pid"] == int(pid) and lost["rerun"] == crashed and len(crashed) == 1
    assert len(pool.workers) == 2  # a replacement took its place


def test_a_remote_env_on_a_dead_worker_raises_then_moves(pool: WorkerPool, task_file: Path) -> None:
    env = pool.make(ENV, tasks=task_file)
    obs, _ = env.reset(seed=0)
    dead = env.worker
    pool.kill(dead["worker"])
    with pytest.raises(WorkerLostError, match="episode is lost"):
        env.step("hello")
    with pytest.raises(WorkerLostError, match="reset"):
        env.step("hello")
    assert env.reset(seed=0)[0] == obs  # moved to a live worker, same first observation
    assert env.worker["pid"] != dead["pid"]
    assert any(record["pid"] == dead["pid"] for record in pool.lost)
    env.close()


# -- training on remote environments -----------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("peft", reason="training needs the [train] extra")
    from tests.tiny_model import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


def _model(tiny: Path) -> tuple[Any, Any]:
    import peft
    import torch

    from gym_mcp.train.loading import load_lora_model

    torch.manual_seed(0)
    return load_lora_model(tiny, peft.LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"]))


def test_a_grpo_group_on_a_remote_env_equals_a_local_one(pool: WorkerPool, tiny: Path, task_file: Path) -> None:
    from gym_mcp.train.rollouts import rollout_group

    model, tokenizer = _model(tiny)
    task = next(t for t in load_tasks(task_file) if len(t.reference_calls) >= 2)
    groups = []
    for env in (gym.make(ENV, max_steps=3), pool.make(ENV, max_steps=3)):
        try:
            groups.append(rollout_group(model, tokenizer, env, task, 3, fork_after=1, max_new_tokens=10, seed=4))
        finally:
            env.close()
    local, remote = groups
    assert len(remote) == 3
    assert [(r.messages, r.reward, r.terms) for r in remote] == [(r.messages, r.reward, r.terms) for r in local]


def test_rollouts_lost_with_their_worker_are_left_out(pool: WorkerPool, tiny: Path, task_file: Path) -> None:
    from gym_mcp.train.rollouts import play

    model, tokenizer = _model(tiny)
    task = load_tasks(task_file)[0]
    envs = [pool.make(ENV, max_steps=3), pool.make(ENV, max_steps=3), gym.make(ENV, max_steps=3)]
    assert envs[0].worker["pid"] != envs[1].worker["pid"]
    infos = [env.reset(seed=1, options={"task": task})[1] for env in envs]
    tools = [info["tools"] for info in infos]
    pool.kill(envs[0].worker["worker"])  # the first episode's worker dies before its first step
    try:
        rollouts = play(model, tokenizer, envs, infos, tools, max_new_tokens=10, temperature=0.0)
    finally:
        for env in envs:
            env.close()
    assert len(rollouts) == 2  # the survivors, in order; the step did not fail
    assert rollouts[0].messages == rollouts[1].messages  # greedy: the remote survivor equals the local episode


def test_the_trainer_plays_grpo_on_ray_workers(tiny: Path, task_file: Path, tmp_path: Path) -> None:
    from gym_mcp.train import TrainConfig, train

    config = TrainConfig(
        model=str(tiny),
        tasks=str(task_file),
        output_dir=str(tmp_path / "out"),
        sft_steps=0,
        grpo_steps=2,
        num_generations=2,
        max_resamples=0,
        lora_r=4,
        lora_alpha=8,
        lora_targets=["q_proj", "v_proj"],
        eval_tasks=0,
        max_completion_length=8,
        max_episode_steps=2,
        guided_calls=False,
        rollout_workers=2,
    )
    train(config, progress=False)
    rows = [json.loads(line) for line in (tmp_path / "out" / "metrics.jsonl").read_text().splitlines()]
    assert [r["phase"] for r in rows] == ["grpo", "grpo"]
    assert all(r["lost_rollouts"] == 0 and not r["skipped"] for r in rows)
